//! The English of the core's reasons: `status`'s ([`StatusReason`]), `bump`'s ([`BumpReason`]) and
//! `migrate`'s ([`MigrateReason`]).
//!
//! Render layer. The rules in the core return typed reasons that carry facts; this module is the
//! one place that writes them as sentences (`Display`, for tables, `status NAME` and messages) and
//! as a report entry (`Serialize`: `{"reason": "<Code>", "message": "<English>"}`, as a Kubernetes
//! condition carries its reason and message), so that JSON consumers branch on the stable code.

use std::fmt::{self, Display, Formatter};

use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::arc::{ANNOTATION_INTEGRITY_HASH, ANNOTATION_RUNNER_SPEC_HASH};
use crate::bump::BumpReason;
use crate::migrate::{MigrateReason, UnverifiablePolicy};
use crate::status::{
    Examples, FailedRunner, MAX_FAILURES, PodProblem, StatusReason, human_duration,
};

/// The one-line reason of the Outdated phase; [`OUTDATED_EXPLANATION`] says the rest.
const OUTDATED_SHORT: &str = "Outdated: a runner's version is too old for GitHub (exit code 7); ARC creates no runners until the runner image in the AutoscalingRunnerSet's template is updated";

/// What ARC does while a set is in phase Outdated, and what clears it (ARC 2ee6b3b8,
/// ephemeralrunnerset_controller.go and autoscalingrunnerset_controller.go).
const OUTDATED_EXPLANATION: &str = "status.phase is Outdated: a runner exited with code 7, \
its runner version is too old for GitHub. ARC's EphemeralRunnerSet controller never resets that phase; \
while it is set the controller only deletes finished, failed and outdated runners and creates none, and \
the AutoscalingRunnerSet controller removes the listener and deletes this EphemeralRunnerSet to create \
it again from the AutoscalingRunnerSet. What clears it: update the runner image in the \
AutoscalingRunnerSet's template (for example `helm upgrade` with a current \
ghcr.io/actions/actions-runner); a set created again with the old image turns Outdated again";

/// [`StatusReason::SwitchedOff`]: the next release's Outdated lifecycle (#4649/#4652/#4660).
fn switched_off(
    f: &mut Formatter<'_>,
    scale_set_outdated: bool,
    listener_stopped: bool,
) -> fmt::Result {
    f.write_str(
        "switched off (the next release's Outdated lifecycle): a runner exited with code 7, its runner version is too old for GitHub",
    )?;
    if scale_set_outdated {
        f.write_str("; the AutoscalingRunnerSet is in status.phase Outdated")?;
    }
    f.write_str(if listener_stopped {
        "; its listener has spec.phase Stopped and the set is kept at 0 replicas (reconcileOutdated)"
    } else {
        "; ARC stops its listener (spec.phase Stopped) and keeps the set at 0 replicas (reconcileOutdated)"
    })?;
    f.write_str(
        ". It leaves Outdated only when the runner spec changes: the AutoscalingRunnerSet's template or spec.ephemeralRunnerMetadata, compared with Semantic equality (outdatedRunnerSpecCorrected, ARC #4660); a change of minRunners or maxRunners (or runnerGroup, runnerScaleSetName) reaches the stopped listener and does not start it (propagateToStoppedListener). Update the runner image in the template; `kubectl arc diff --arc-version next` says whether a change leaves it",
    )
}

fn runners_word(n: usize) -> &'static str {
    if n == 1 { "runner" } else { "runners" }
}

/// A few runner names, and how many more.
struct Names<'a>(&'a Examples);

impl Display for Names<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.names.join(", "))?;
        if self.0.count > self.0.names.len() {
            write!(f, " and {} more", self.0.count - self.0.names.len())?;
        }
        Ok(())
    }
}

/// [`StatusReason::SpecNotPropagated`]: the paths ARC has yet to write, a few named.
fn not_propagated(
    f: &mut Formatter<'_>,
    scale_set: &str,
    paths: &[String],
    more: usize,
) -> fmt::Result {
    write!(
        f,
        "ARC's controller has not written the new runner spec of AutoscalingRunnerSet {scale_set} to this set yet ({}",
        paths.join(", ")
    )?;
    if more > 0 {
        write!(f, ", and {more} more")?;
    }
    f.write_str(")")
}

/// [`StatusReason::RecycleLoop`]: the fields that loop, the flips seen, and the two ways out.
fn recycle_loop(
    f: &mut Formatter<'_>,
    scale_set: &str,
    paths: &[String],
    flips: usize,
) -> fmt::Result {
    write!(
        f,
        "recycle loop: AutoscalingRunnerSet {scale_set}'s template does not survive Go's JSON round trip ({}), so the integrity hash ARC builds in memory never matches the one it reads back and its two controllers recycle idle and pending runners forever",
        paths.join(", ")
    )?;
    if flips > 0 {
        write!(f, " (the annotation changed {flips} times while watched)")?;
    }
    f.write_str("; write those fields as Go does (`kubectl arc diff` names each fix), or finish the upgrade to the revision era (`kubectl arc migrate`), which does not loop")
}

/// "N runner(s) WHAT (names)", the shape of every reason about a group of runners.
fn runners(f: &mut Formatter<'_>, group: &Examples, what: &str) -> fmt::Result {
    write!(
        f,
        "{} {}{what} ({})",
        group.count,
        runners_word(group.count),
        Names(group)
    )
}

impl Display for StatusReason {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            StatusReason::Deleting
            | StatusReason::Replaced
            | StatusReason::SpecHash
            | StatusReason::SpecMissing { .. }
            | StatusReason::SetUndecodable { .. }
            | StatusReason::RunnerSpecUndecodable { .. }
            | StatusReason::AppliedAhead { .. }
            | StatusReason::SpecNotPropagated { .. }
            | StatusReason::ObservedGenerationBehind { .. }
            | StatusReason::SpecChangeDeferred { .. }
            | StatusReason::Outdated
            | StatusReason::OutdatedExplanation
            | StatusReason::SwitchedOff { .. }
            | StatusReason::RecycleLoop { .. }
            | StatusReason::LegacyAnnotation
            | StatusReason::RevisionNotAcknowledged { .. }
            | StatusReason::RevisionWrittenBy { .. } => set_and_revision(f, self),
            StatusReason::StaleRunners { .. }
            | StatusReason::AwaitingCleanup { .. }
            | StatusReason::RunnersBusy { .. }
            | StatusReason::RunnersUnregistered { .. }
            | StatusReason::RunnersOutdated { .. }
            | StatusReason::RunnersStaleOutdated { .. }
            | StatusReason::RunnersDeleting { .. }
            | StatusReason::WaitingForController
            | StatusReason::RunnersUndecodable { .. } => cleanup(f, self),
            StatusReason::Deleted
            | StatusReason::NotRegistered
            | StatusReason::SetNotCreated
            | StatusReason::CannotBuild { .. }
            | StatusReason::ReplacementPending { .. }
            | StatusReason::ReplacementWaitsForJobs { .. }
            | StatusReason::SpecHashMatches { .. }
            | StatusReason::OldSet { .. }
            | StatusReason::LeftBehindByNext { .. }
            | StatusReason::SpecHashUnknown { .. }
            | StatusReason::ScaleSetDeleting
            | StatusReason::ScaleSetOutdated { .. }
            | StatusReason::ReleaseDisagrees { .. } => set_lifecycle(f, self),
            StatusReason::NoListener { .. }
            | StatusReason::ListenerForOtherSet { .. }
            | StatusReason::ListenerVersionMismatch { .. }
            | StatusReason::ListenerHashStale { .. }
            | StatusReason::ListenerPodMissing { .. }
            | StatusReason::ListenerPodNotRunning { .. } => listener(f, self),
            StatusReason::FinalizersLeft { .. }
            | StatusReason::DuplicateRegistration { .. }
            | StatusReason::CrdsBehindController { .. } => installation(f, self),
            StatusReason::RunnersFailed { .. } | StatusReason::CountersDisagree { .. } => {
                failed_and_counted(f, self)
            }
            StatusReason::RunnerPodsMissing { .. }
            | StatusReason::RunnersUnschedulable { .. }
            | StatusReason::RunnersBackingOff { .. } => runners_not_running(f, self),
            StatusReason::ListenerBehindController { .. }
            | StatusReason::CrdsLookOlder { .. }
            | StatusReason::ListenerOrphaned { .. }
            | StatusReason::DeletedByVersionCheck { .. } => install_edges(f, self),
        }
    }
}

/// The reasons about the set itself and its revision: deletion, what cannot be decoded, a spec
/// not propagated or deferred, the recycle loop, the legacy annotation and the revision handshake.
fn set_and_revision(f: &mut Formatter<'_>, reason: &StatusReason) -> fmt::Result {
    match reason {
        StatusReason::Deleting => f.write_str(
            "being deleted (metadata.deletionTimestamp is set): its AutoscalingRunnerSet is being removed, or ARC is replacing the set",
        ),
        StatusReason::Replaced => f.write_str(
            "being deleted: ARC (0.14 or older) replaced this set after a runner-spec change; its successor is the newest set of the same scale set",
        ),
        StatusReason::SpecHash => write!(
            f,
            "made by ARC 0.14 or older ({ANNOTATION_RUNNER_SPEC_HASH}): a runner-spec change replaces the whole set, and its AutoscalingRunnerSet is not among the inputs, so whether ARC replaces it cannot be told (`kubectl arc bump` replaces it as `kubectl rollout restart` does)"
        ),
        StatusReason::SpecMissing { error } => f.write_str(error),
        StatusReason::SetUndecodable { error } => write!(
            f,
            "{error}: ARC's controller cannot decode this EphemeralRunnerSet"
        ),
        StatusReason::RunnerSpecUndecodable { error } => write!(
            f,
            "spec.ephemeralRunnerSpec cannot be decoded with ARC's Go types: {error}"
        ),
        StatusReason::AppliedAhead {
            spec,
            applied,
            next,
        } => write!(
            f,
            "status.appliedActionableRevision {applied} is ahead of spec.actionableRevision {spec}: ARC never writes that \
             (a lowered spec or a hand-written status); the next request is revision {next} (max + 1)"
        ),
        StatusReason::SpecNotPropagated {
            scale_set,
            paths,
            more,
        } => not_propagated(f, scale_set, paths, *more),
        StatusReason::ObservedGenerationBehind {
            generation,
            observed,
        } => write!(
            f,
            "ARC has not observed generation {generation} of the AutoscalingRunnerSet yet (status.observedGeneration {observed})"
        ),
        StatusReason::SpecChangeDeferred { busy, pending } => write!(
            f,
            "ARC defers a spec change while runners are busy or pending ({busy} busy, {pending} pending): it patches the set once they drain"
        ),
        StatusReason::Outdated => f.write_str(OUTDATED_SHORT),
        StatusReason::OutdatedExplanation => f.write_str(OUTDATED_EXPLANATION),
        StatusReason::SwitchedOff {
            scale_set_outdated,
            listener_stopped,
        } => switched_off(f, *scale_set_outdated, *listener_stopped),
        StatusReason::RecycleLoop {
            scale_set,
            paths,
            flips,
        } => recycle_loop(f, scale_set, paths, *flips),
        StatusReason::LegacyAnnotation => write!(
            f,
            "annotation {ANNOTATION_INTEGRITY_HASH} is still set: the integrity-hash era decides cleanups for this set; \
             run `kubectl arc migrate` before the revision-era controller reconciles"
        ),
        StatusReason::RevisionNotAcknowledged { spec, applied } => write!(
            f,
            "revision {spec} is requested and not acknowledged yet (applied {applied})"
        ),
        StatusReason::RevisionWrittenBy {
            manager,
            ago_seconds,
        } => {
            write!(f, "spec.actionableRevision was last written by {manager}")?;
            match ago_seconds {
                Some(s) => write!(f, " {} ago", human_duration(*s)),
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

/// The reasons about the runners a revision-era cleanup waits for.
fn cleanup(f: &mut Formatter<'_>, reason: &StatusReason) -> fmt::Result {
    match reason {
        StatusReason::StaleRunners {
            runners: group,
            revision,
            set,
        } => write!(
            f,
            "{} idle or pending {} on an older spec although revision {revision} is acknowledged ({}): \
             `kubectl arc bump {set}` requests a new cleanup",
            group.count,
            runners_word(group.count),
            Names(group)
        ),
        StatusReason::AwaitingCleanup { runners: group } => write!(
            f,
            "{} idle or pending {} on an older spec {} for the cleanup ({})",
            group.count,
            runners_word(group.count),
            if group.count == 1 { "waits" } else { "wait" },
            Names(group)
        ),
        StatusReason::RunnersBusy { runners: group } => runners(
            f,
            group,
            " busy with a job on an older spec: ARC lets them finish the job first",
        ),
        StatusReason::RunnersUnregistered { runners: group } => write!(
            f,
            "{} idle or pending {} never registered with GitHub (status.runnerId 0): removing them from the service can fail and stall the cleanup, ARC #4653 ({})",
            group.count,
            runners_word(group.count),
            Names(group)
        ),
        StatusReason::RunnersOutdated { runners: group } => runners(
            f,
            group,
            " in phase Outdated (runner exited with code 7: runner version too old)",
        ),
        StatusReason::RunnersStaleOutdated {
            runners: group,
            applied,
        } => write!(
            f,
            "{} {} in phase Outdated made for a revision older than the applied {applied} (actions.github.com/actionable-revision; none counts as 0): their report is about a spec that is gone, so ARC deletes them and they do not hold the set Outdated (staleOutdated, ARC #4644) ({})",
            group.count,
            runners_word(group.count),
            Names(group)
        ),
        StatusReason::RunnersDeleting { runners: group } => runners(
            f,
            group,
            " being deleted (deletionTimestamp set; a finalizer may hold them)",
        ),
        StatusReason::WaitingForController => f.write_str(
            "no runner blocks the cleanup: waiting for ARC's EphemeralRunnerSet controller \
             (is a revision-era controller running?)",
        ),
        StatusReason::RunnersUndecodable {
            runners: group,
            error,
        } => write!(
            f,
            "{} {} with a spec ARC's Go types cannot decode ({}): {error}",
            group.count,
            runners_word(group.count),
            Names(group)
        ),
        _ => Ok(()),
    }
}

/// The reasons about a set that is gone, not made yet, or replaced by its scale set (the hash era).
fn set_lifecycle(f: &mut Formatter<'_>, reason: &StatusReason) -> fmt::Result {
    match reason {
        StatusReason::Deleted => f.write_str("the EphemeralRunnerSet was deleted"),
        StatusReason::NotRegistered => f.write_str(
            "no EphemeralRunnerSet yet: ARC has not registered the scale set with GitHub (no \
             runner-scale-set-id annotation); it creates the set once it has (is the \
             controller running, and is the GitHub secret valid?)",
        ),
        StatusReason::SetNotCreated => f.write_str(
            "no EphemeralRunnerSet yet: the scale set is registered with GitHub, and ARC's \
             controller has not created its set (is the controller running?)",
        ),
        StatusReason::CannotBuild { error } => write!(
            f,
            "no EphemeralRunnerSet, and ARC cannot build one: {error}"
        ),
        StatusReason::ReplacementPending {
            scale_set,
            release,
            current,
            desired,
        } => write!(
            f,
            "ARC {release} replaces this set: RunnerSetSpecHash() of AutoscalingRunnerSet {scale_set} is {desired}, the set's {ANNOTATION_RUNNER_SPEC_HASH} is {current}; it has not acted yet, or (with --update-strategy=eventual) waits for running jobs. Its idle and pending runners go when it does, busy ones finish their job"
        ),
        StatusReason::ReplacementWaitsForJobs { busy, pending } => write!(
            f,
            "scaled to 0 while {busy} busy and {pending} pending runners finish (--update-strategy=eventual): ARC creates the new set once they are done"
        ),
        StatusReason::SpecHashMatches { release, hash } => write!(
            f,
            "ARC {release}'s RunnerSetSpecHash() of the AutoscalingRunnerSet equals the set's {ANNOTATION_RUNNER_SPEC_HASH} ({hash}): nothing to replace"
        ),
        StatusReason::OldSet { newest } => write!(
            f,
            "an old set of its scale set (the newest is {newest}): ARC deletes it once it has replaced it; busy runners finish their job first"
        ),
        StatusReason::LeftBehindByNext { scale_set } => write!(
            f,
            "made by ARC 0.14 or older ({ANNOTATION_RUNNER_SPEC_HASH}) and not named like its scale set: the next release gets the EphemeralRunnerSet named like AutoscalingRunnerSet {scale_set} and creates it (AutoscalingRunnerSetReconciler.Reconcile at 2ee6b3b8, ARC #4516), and leaves this one running with its runners, which no listener scales down; delete it once none of its runners is busy (`kubectl arc upgrade-plan --to next`)"
        ),
        StatusReason::SpecHashUnknown { release, error } => write!(
            f,
            "made by ARC 0.14 or older ({ANNOTATION_RUNNER_SPEC_HASH}), and ARC {release}'s RunnerSetSpecHash() of its AutoscalingRunnerSet cannot be computed: {error}"
        ),
        StatusReason::ScaleSetDeleting => f.write_str(
            "the AutoscalingRunnerSet is being deleted (metadata.deletionTimestamp is set) and has no EphemeralRunnerSet left: ARC's AutoscalingRunnerSet controller removes its listener and sets, then its finalizer; if it stays, `kubectl arc repair` removes ARC's finalizers once no running controller would, or what they guard is gone",
        ),
        StatusReason::ScaleSetOutdated { scale_set } => write!(
            f,
            "AutoscalingRunnerSet {scale_set} is in status.phase Outdated and has no EphemeralRunnerSet left: a runner's version was too old for GitHub (exit code 7), and ARC 0.14's AutoscalingRunnerSet controller deleted its listener and sets and makes none (cleanUpResources) until the scale set's spec or labels change (its actions.github.com/change-hash annotation no longer matches; ARC then resets the phase to Pending): update the runner image in its template, for example with helm upgrade and a current ghcr.io/actions/actions-runner (ARC #4596)"
        ),
        StatusReason::ReleaseDisagrees {
            scale_set,
            release,
            other,
            other_hash,
            other_replaces,
        } => write!(
            f,
            "AutoscalingRunnerSet {scale_set} is labelled by the chart of ARC {release}, whose rule judges it, but this set was made by ARC {other}; if the controller still runs ARC {other}, it {} (its RunnerSetSpecHash() of the scale set is {other_hash}); `kubectl get deploy -A -l app.kubernetes.io/part-of=gha-rs-controller -L app.kubernetes.io/version` says which runs",
            if *other_replaces {
                "replaces the set"
            } else {
                "keeps the set"
            }
        ),
        _ => Ok(()),
    }
}

/// The reasons about the scale set's AutoscalingListener and its Pod.
fn listener(f: &mut Formatter<'_>, reason: &StatusReason) -> fmt::Result {
    match reason {
        StatusReason::NoListener {
            scale_set,
            running,
            pending,
        } => {
            write!(
                f,
                "no AutoscalingListener has spec.autoscalingRunnerSetName {scale_set}: nothing asks GitHub for this scale set's jobs, so no runner is created for them (ARC #4432)"
            )?;
            if running + pending > 0 {
                write!(
                    f,
                    "; with --update-strategy=eventual ARC waits for its {running} running and {pending} pending runners to finish before it creates the listener again"
                )
            } else {
                f.write_str("; ARC's AutoscalingRunnerSet controller creates it on its next reconcile: if it does not, check that the controller runs and read its log")
            }
        }
        StatusReason::ListenerForOtherSet {
            listener,
            points_at,
            exists,
            newest,
            arc_recreates,
        } => {
            write!(
                f,
                "AutoscalingListener {listener} spec.ephemeralRunnerSetName is {points_at}, "
            )?;
            if *exists {
                write!(f, "an older set, not the newest ({newest})")?;
            } else {
                write!(f, "which does not exist (the newest set is {newest})")?;
            }
            if *arc_recreates {
                f.write_str(": ARC makes the listener again for the newest set by itself (after 0.14 it compares the listener's spec with the one it wants; up to 0.14 it does so when the listener's hash annotations are not the scale set's, ListenerHashStale); if it does not, `kubectl arc repair` deletes it where a running controller makes it again")
            } else {
                f.write_str(": ARC up to 0.14 recreates a listener only when its hash annotations change, so it scales a set that is gone; `kubectl arc repair` deletes the listener where a running controller makes it again for the newest set (ARC #4561)")
            }
        }
        StatusReason::ListenerVersionMismatch {
            listener,
            image,
            chart_version,
        } => write!(
            f,
            "AutoscalingListener {listener} runs spec.image {image}, the controller's, while its scale set was made by chart version {chart_version} (label app.kubernetes.io/version): ARC supports only the same version of the gha-runner-scale-set-controller and gha-runner-scale-set charts; upgrade both together (ARC #4572, #4513); `kubectl arc repair` deletes the listener only when the one ARC makes again would run the chart's version"
        ),
        StatusReason::ListenerHashStale { listener, release } => write!(
            f,
            "AutoscalingListener {listener} was made from another spec of its scale set: its actions.github.com/runner-spec-hash or values-hash annotation is not the AutoscalingRunnerSet's (ListenerSpecHash() under ARC {release}); ARC deletes the listener and makes it again on its next reconcile of the scale set (by itself; a listener that stays so means the controller is not reconciling: `kubectl arc repair` makes that delete where a running controller makes it again)"
        ),
        StatusReason::ListenerPodMissing { listener } => write!(
            f,
            "AutoscalingListener {listener} has no Pod of its name: ARC's AutoscalingListener controller creates it"
        ),
        StatusReason::ListenerPodNotRunning { pod, problem } => {
            listener_pod_not_running(f, pod, problem)
        }
        _ => Ok(()),
    }
}

/// The reasons about the installation: finalizers nothing removes, one scale set registered
/// twice, CRDs older than the controller.
fn installation(f: &mut Formatter<'_>, reason: &StatusReason) -> fmt::Result {
    match reason {
        StatusReason::FinalizersLeft {
            kind,
            name,
            more,
            since,
            finalizers,
        } => {
            write!(f, "{kind} {name}")?;
            if *more > 0 {
                write!(
                    f,
                    " and {more} more {}",
                    if *more == 1 { "is" } else { "are" }
                )?;
                f.write_str(" being deleted")?;
            } else {
                f.write_str(" is being deleted")?;
            }
            if let Some(t) = since {
                write!(f, " (metadata.deletionTimestamp {t})")?;
            }
            f.write_str(" and held by metadata.finalizers ")?;
            for (i, (fin, controller)) in finalizers.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                match controller {
                    Some(c) => write!(f, "{fin} (removed by {c} of ARC)")?,
                    None => write!(f, "{fin} (not ARC's)")?,
                }
            }
            f.write_str(": if that controller is not running, or the object's scale set is gone, nothing removes it (ARC #4484); once the controller is back it finishes, else `kubectl arc repair` removes ARC's finalizers where no running controller would or what they guard is gone, never from a runner with a job")
        }
        StatusReason::DuplicateRegistration {
            scale_set,
            other_context,
            other_scale_set,
            by,
        } => {
            match by {
                crate::fleet::SameBy::ConfigUrlAndName { config_url, name } => write!(
                    f,
                    "AutoscalingRunnerSet {scale_set} registers scale set {name} of {config_url}, and so does {other_scale_set} in context {other_context}"
                )?,
                crate::fleet::SameBy::ScaleSetId(id) => write!(
                    f,
                    "AutoscalingRunnerSet {scale_set} has runner-scale-set-id {id}, and so does {other_scale_set} in context {other_context}"
                )?,
            }
            f.write_str(": one scale set, two listeners; GitHub gives its message session to one listener at a time, so the other fails to connect and jobs go to either cluster (ARC #3351, #3209, #3382): give one a runnerScaleSetName of its own, or remove it")
        }
        StatusReason::CrdsBehindController {
            controller,
            version,
            missing,
        } => {
            write!(
                f,
                "controller Deployment {controller} runs ARC {version}, but the installed CRDs lack what it writes: "
            )?;
            // One CRD at a time: `crd` lacks `field` (0.14.0), `field` (0.14.0); ...
            let mut last: Option<&str> = None;
            for m in missing {
                if last == Some(m.crd.as_str()) {
                    write!(f, ", {} ({})", m.field, m.since)?;
                } else {
                    if last.is_some() {
                        f.write_str("; ")?;
                    }
                    write!(f, "{} lacks {} ({})", m.crd, m.field, m.since)?;
                    last = Some(m.crd.as_str());
                }
            }
            write!(
                f,
                ": the API server drops those fields from what the controller writes. Helm does not upgrade CRDs: apply the CRDs of chart {version} (kubectl apply --server-side -f the chart's crds/) (ARC #4147, #4167, #3233)"
            )
        }
        _ => Ok(()),
    }
}

/// The reasons about failed runners and the counts ARC wrote.
fn failed_and_counted(f: &mut Formatter<'_>, reason: &StatusReason) -> fmt::Result {
    match reason {
        StatusReason::RunnersFailed {
            runners: group,
            oldest,
            held,
            replicas,
        } => {
            write!(
                f,
                "{} {} in phase Failed ({})",
                group.count,
                runners_word(group.count),
                Names(group)
            )?;
            if let Some(o) = oldest {
                write!(f, "; the oldest, {}", FailedText(o))?;
            }
            if *held > 0 {
                write!(
                    f,
                    "; ARC counts failed runners toward spec.replicas {replicas} (scaleTotal), so it creates {held} fewer {}: `kubectl arc repair` deletes those without a job or a running Pod so that ARC replaces them (ARC #3685)",
                    runners_word(*held)
                )
            } else {
                f.write_str("; they hold no runner's place now (the set has as many runners as spec.replicas without them), but ARC counts them toward spec.replicas while they are there")
            }
        }
        StatusReason::CountersDisagree { written, listed } => {
            let mut differ = Vec::new();
            for (field, w, l) in [
                ("currentReplicas", written.current, listed.current),
                ("pendingEphemeralRunners", written.pending, listed.pending),
                ("runningEphemeralRunners", written.running, listed.running),
                ("failedEphemeralRunners", written.failed, listed.failed),
            ] {
                if w != l {
                    differ.push(format!(
                        "status.{field} is {w}, the runners listed make {l}"
                    ));
                }
            }
            write!(
                f,
                "{}: ARC's EphemeralRunnerSet controller writes these counts after each reconcile of the set; counts that stay wrong mean it is not reconciling the set, or counts runners that are gone (ARC #3821, #4595), and the AutoscalingRunnerSet's status (and what the listener reports to GitHub) follows them; `kubectl arc repair` writes the counts of the runners listed, at the resourceVersion read",
                differ.join("; ")
            )
        }
        _ => Ok(()),
    }
}

/// A listener Pod that is not running, and what to do about it, by what its status says.
fn listener_pod_not_running(f: &mut Formatter<'_>, pod: &str, problem: &PodProblem) -> fmt::Result {
    write!(f, "listener Pod {pod} is not running: ")?;
    match problem {
        PodProblem::CrashLoop { restarts, last } => {
            write!(
                f,
                "CrashLoopBackOff after {restarts} {}",
                if *restarts == 1 {
                    "restart"
                } else {
                    "restarts"
                }
            )?;
            if let Some(last) = last {
                write!(f, " (last terminated: {last})")?;
            }
            let (ns, name) = pod.split_once('/').unwrap_or(("", pod));
            write!(
                f,
                "; read its log (kubectl logs -n {ns} {name} --previous): a GitHub App or token the listener cannot use, a scale set GitHub no longer knows (ARC #4370), or a listener image that does not match the controller (ARC #4572); `kubectl arc repair` deletes the Pod so that ARC makes one that starts without the kubelet's back-off"
            )
        }
        PodProblem::ImagePull { reason, message } => {
            write!(f, "{reason}")?;
            if let Some(m) = message {
                write!(f, " ({m})")?;
            }
            f.write_str("; the listener's image comes from the controller (its --listener-image flag, the chart's image) or the listener template: fix the image or its pull secret")
        }
        PodProblem::ContainerError { reason, message } => {
            write!(f, "{reason}")?;
            if let Some(m) = message {
                write!(f, " ({m})")?;
            }
            f.write_str("; fix the listener template of the AutoscalingRunnerSet (spec.listenerTemplate) or what it refers to")
        }
        PodProblem::Unschedulable { why } => write!(
            f,
            "not scheduled ({why}); make room or fix the listener template's node selection"
        ),
        PodProblem::Pending { reason } => {
            f.write_str("Pending")?;
            if let Some(r) = reason {
                write!(f, " ({r})")?;
            }
            f.write_str(": the kubelet is starting it")
        }
        PodProblem::Ended { phase, reason } => {
            write!(f, "{phase}")?;
            if let Some(r) = reason {
                write!(f, " ({r})")?;
            }
            f.write_str(": ARC's AutoscalingListener controller deletes it and creates another")
        }
    }
}

/// A failed runner, as its status says.
struct FailedText<'a>(&'a FailedRunner);

impl Display for FailedText<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let o = self.0;
        f.write_str(&o.name)?;
        if let Some(t) = &o.created {
            write!(f, " (created {t})")?;
        }
        match (&o.reason, &o.message) {
            (Some(r), Some(m)) => write!(f, ", status.reason {r}: {m}")?,
            (Some(r), None) => write!(f, ", status.reason {r}")?,
            (None, Some(m)) => write!(f, ", status.message {m}")?,
            (None, None) => f.write_str(", no status.reason")?,
        }
        if o.failures > 0 {
            write!(
                f,
                ", {} pod {} in status.failures",
                o.failures,
                if o.failures == 1 {
                    "failure"
                } else {
                    "failures"
                }
            )?;
        }
        Ok(())
    }
}

impl Display for BumpReason {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            BumpReason::InvalidRevision { error } => {
                write!(f, "{error}: fix the field before requesting a revision")
            }
            BumpReason::OwnerMismatch {
                scale_set,
                uid,
                found,
            } => {
                write!(
                    f,
                    "the EphemeralRunnerSet is not owned by the AutoscalingRunnerSet {scale_set} (uid {uid}): its owner reference names "
                )?;
                match found {
                    Some(o) => {
                        let field = |v: &Option<String>| v.clone().unwrap_or_else(|| "?".into());
                        write!(
                            f,
                            "{} {} (uid {})",
                            field(&o.kind),
                            field(&o.name),
                            field(&o.uid)
                        )?;
                    }
                    None => f.write_str("no controller")?,
                }
                f.write_str("; refusing to bump a set its AutoscalingRunnerSet does not control")
            }
            BumpReason::Outdated => write!(
                f,
                "{OUTDATED_EXPLANATION}. A new revision would not be acted on, so none is requested"
            ),
            BumpReason::LegacyAnnotation => write!(
                f,
                "the set still carries the {ANNOTATION_INTEGRITY_HASH} annotation (state Legacy): \
                 run `kubectl arc migrate` so that the upgrade does not act on it again"
            ),
        }
    }
}

impl Display for MigrateReason {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            MigrateReason::NoLegacyAnnotation => {
                write!(f, "no {ANNOTATION_INTEGRITY_HASH} annotation")
            }
            MigrateReason::StaleRunners { count } => write!(
                f,
                "{count} idle or pending {} on an older spec",
                runners_word(*count)
            ),
            MigrateReason::HashMatches { k8s_api } => write!(
                f,
                "annotation matches the spec's hash (k8s.io/api {k8s_api}); no stale runner"
            ),
            MigrateReason::HashMismatch { annotation } => write!(
                f,
                "annotation {annotation} matches no hash of the current spec: a legacy cleanup was pending"
            ),
            MigrateReason::HashUnverifiable { problems, policy } => {
                f.write_str("hash not reproducible (")?;
                for (i, p) in problems.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "k8s.io/api {}: {}", p.k8s_api, p.error)?;
                }
                f.write_str(match policy {
                    UnverifiablePolicy::Pending => "); treated as pending",
                    UnverifiablePolicy::Skip => "); skipped (--unverifiable=skip)",
                })
            }
        }
    }
}

/// Why ARC's hash of a template cannot be reproduced: the set `metav1.Time` fields
/// ([`crate::legacy_hash::set_times`], in the object's own path spelling) and the hash (`ARC's
/// integrity hash of the runner spec`, `ARC 0.14.2's RunnerSetSpecHash()`). Said alike by `diff`
/// and `migrate`'s words: the field, why (go-spew prints the controller's local zone), the fix.
pub struct SetTimes<'a> {
    pub fields: &'a [String],
    pub hash: &'a str,
}

impl Display for SetTimes<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let verb = if self.fields.len() == 1 { "is" } else { "are" };
        let last = |p: &str| {
            let p = p.rsplit('.').next().unwrap_or(p);
            p.split('[').next().unwrap_or(p).to_string()
        };
        let nulls: Vec<String> = self
            .fields
            .iter()
            .map(|p| format!("`{}: null`", last(p)))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        write!(
            f,
            "{} {verb} set: go-spew prints a set v1.Time with the controller process's local time zone, so {} cannot be reproduced exactly; leave the time out of the template, or write it as null ({})",
            self.fields.join(", "),
            self.hash,
            nulls.join(", ")
        )
    }
}

/// `{"reason": code, "message": English}`.
fn serialize_reason<S: Serializer>(code: &str, message: String, s: S) -> Result<S::Ok, S::Error> {
    let mut entry = s.serialize_struct("Reason", 2)?;
    entry.serialize_field("reason", code)?;
    entry.serialize_field("message", &message)?;
    entry.end()
}

/// The reasons of runners ARC counts that run no Pod ([`StatusReason::RunnerPodsMissing`],
/// [`StatusReason::RunnersUnschedulable`], [`StatusReason::RunnersBackingOff`]), as ARC 0.14.2's
/// EphemeralRunner controller treats them (`Reconcile`).
fn runners_not_running(f: &mut Formatter<'_>, reason: &StatusReason) -> fmt::Result {
    let them = |n: usize| if n == 1 { "it" } else { "them" };
    match reason {
        StatusReason::RunnerPodsMissing { runners: group } => write!(
            f,
            "{} {} in phase Running without a Pod ({}) and no failed Pod recorded: ARC counts {} running (status.runningEphemeralRunners, scaleTotal) though no runner runs; ARC's EphemeralRunner controller makes a missing Pod again on its next reconcile of the runner (a Pod deleted, evicted or gone with its node), so a runner that stays so means the controller is not reconciling it: read the controller's log, or delete the runner (kubectl delete ephemeralrunner) so that the set makes another",
            group.count,
            runners_word(group.count),
            Names(group),
            them(group.count)
        ),
        StatusReason::RunnersUnschedulable {
            runners: group,
            why,
            running,
        } => {
            let n = group.count;
            match *running {
                0 => write!(f, "{n} pending {}", runners_word(n))?,
                r if r == n => write!(f, "{n} {} in phase Running", runners_word(n))?,
                r => write!(f, "{n} {} ({r} in phase Running)", runners_word(n))?,
            }
            write!(
                f,
                " whose Pod cannot be scheduled ({}): {why}; ",
                Names(group)
            )?;
            if *running > 0 {
                f.write_str("ARC counts a runner in phase Running as running though the Pod that ran is gone (with its node) and the Pod it made again waits for a node: the runner's phase follows its Pod only once the Pod's container has a status; ")?;
            }
            write!(
                f,
                "ARC counts {} toward spec.replicas (scaleTotal) and creates no others meanwhile: fix the template's nodeSelector, tolerations, affinity or resources, or the cluster's capacity",
                them(n)
            )
        }
        StatusReason::RunnersBackingOff {
            runners: group,
            first,
            remaining,
        } => {
            write!(
                f,
                "{} {} without a Pod in ARC's failure back-off ({}): {} has {} failed {} in status.failures",
                group.count,
                runners_word(group.count),
                Names(group),
                first.name,
                first.failures,
                if first.failures == 1 { "Pod" } else { "Pods" }
            )?;
            if let Some(last) = &first.last_failure {
                write!(f, ", the last at {last}")?;
            }
            match (&first.reason, &first.message) {
                (Some(r), Some(m)) => write!(f, " ({r}: {m})")?,
                (Some(t), None) | (None, Some(t)) => write!(f, " ({t})")?,
                (None, None) => {}
            }
            match first.wait_seconds() {
                None => write!(
                    f,
                    "; that is more than maxFailures ({MAX_FAILURES}): ARC's EphemeralRunner controller deletes the runner on its next reconcile and the set makes another"
                )?,
                Some(wait) => {
                    write!(
                        f,
                        "; ARC's EphemeralRunner controller waits {} after the last failure before it makes the Pod again (failedRunnerBackoff, ARC 0.12.0 to 0.14.2)",
                        human_duration(wait)
                    )?;
                    match remaining {
                        Some(r) if *r > 0 => write!(f, ", {} from now", human_duration(*r))?,
                        Some(r) => write!(
                            f,
                            ": the wait ended {} ago, so it makes the Pod on its next reconcile of the runner (one that stays so means the controller is not reconciling it)",
                            human_duration(-*r)
                        )?,
                        None => {}
                    }
                    write!(
                        f,
                        "; after more than {MAX_FAILURES} failures (maxFailures) it deletes the runner and the set makes another"
                    )?;
                }
            }
            write!(
                f,
                "; meanwhile ARC counts {} toward spec.replicas (scaleTotal): find why the Pods fail (the runner's status.reason and status.message, the runner image, its resources)",
                them(group.count)
            )
        }
        _ => Ok(()),
    }
}

/// The reasons of an installation that ARC does not bring in line by itself
/// ([`StatusReason::ListenerBehindController`], [`StatusReason::CrdsLookOlder`],
/// [`StatusReason::ListenerOrphaned`]).
fn install_edges(f: &mut Formatter<'_>, reason: &StatusReason) -> fmt::Result {
    fn delete(f: &mut Formatter<'_>, listener: &str) -> fmt::Result {
        match listener.split_once('/') {
            Some((ns, name)) => write!(f, "kubectl delete autoscalinglistener -n {ns} {name}"),
            None => write!(f, "kubectl delete autoscalinglistener {listener}"),
        }
    }
    match reason {
        StatusReason::ListenerBehindController {
            listener,
            listener_version,
            controller,
            controller_version,
        } => {
            write!(
                f,
                "AutoscalingListener {listener} runs ARC {listener_version} while controller Deployment {controller}, which makes the listeners of this namespace, runs {controller_version}: an older controller made the listener, and ARC up to 0.14 makes a listener again only when its scale set's ListenerSpecHash() or values hash changes, not for a new image, so the old listener stays: delete it ("
            )?;
            delete(f, listener)?;
            f.write_str(") and ARC makes it again with the controller's image (ARC #4572, #4513)")
        }
        StatusReason::CrdsLookOlder {
            controller,
            version,
        } => write!(
            f,
            "no ARC CustomResourceDefinition was read, controller Deployment {controller} runs ARC {version}, and no status ARC wrote in this namespace has status.phase, which ARC 0.14.0 and later write on every reconcile of a set and a scale set: the installed CRDs look older than the controller (before 0.14.0 they do not declare status.phase, and the API server drops it). Check: kubectl get crd ephemeralrunnersets.actions.github.com -o yaml (no phase under spec.versions[0].schema.openAPIV3Schema.properties.status.properties: older CRDs); Helm does not upgrade CRDs: apply the CRDs of chart {version} (kubectl apply --server-side -f the chart's crds/) (ARC #4147, #4167)"
        ),
        StatusReason::ListenerOrphaned { listener, expected } => {
            write!(
                f,
                "AutoscalingListener {listener} serves this scale set, but ARC finds the scale set's listener only as {expected} (scaleSetListenerName: the scale set's name and a hash of its namespace, since 0.13.1 with its runner group and githubConfigUrl, in the controller's namespace), so it never updates or deletes this one: it was left behind by a change of the runner group or githubConfigUrl, or by a controller of another release or namespace, and its Pod keeps listening for the scale set: delete it ("
            )?;
            delete(f, listener)?;
            f.write_str(")")
        }
        StatusReason::DeletedByVersionCheck {
            controller,
            release,
            label,
            rule,
        } => {
            let label = match label {
                Some(l) => format!("its app.kubernetes.io/version label {l} is not allowed"),
                None => "it has no app.kubernetes.io/version label".to_string(),
            };
            match controller {
                Some(controller) => write!(
                    f,
                    "controller Deployment {controller} runs ARC {release}, whose version check deletes this scale set: "
                )?,
                None => write!(
                    f,
                    "ARC {release} (--arc-version), whose version check deletes this scale set once its controller runs: "
                )?,
            }
            write!(
                f,
                "{label} ({rule}); its sets, runners (busy ones finish their job first), listener and scale-set registration go with it. Upgrade the scale set's chart and the controller to the same minor release (ARC #4422)"
            )
        }
        _ => Ok(()),
    }
}

impl Serialize for StatusReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_reason(self.code(), self.to_string(), s)
    }
}

impl Serialize for BumpReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_reason(self.code(), self.to_string(), s)
    }
}

impl Serialize for MigrateReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_reason(self.code(), self.to_string(), s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bump::OwnerRef;
    use crate::migrate::LayoutProblem;
    use crate::revision::RevisionError;
    use crate::runners::RunnerCounts;
    use crate::status::{SetStatus, State};
    use serde_json::json;

    fn examples(count: usize) -> Examples {
        Examples {
            count,
            names: (0..count.min(3)).map(|i| format!("r{i}")).collect(),
        }
    }

    /// Codes are an interface: a JSON consumer branches on them. Renaming one is a breaking change
    /// of the report, so each is listed here.
    /// One of each status reason, with the code it must keep.
    fn status_table() -> Vec<(StatusReason, &'static str)> {
        let e = examples(1);
        vec![
            (StatusReason::Deleting, "Deleting"),
            (StatusReason::Replaced, "Replaced"),
            (StatusReason::SpecHash, "SpecHash"),
            (
                StatusReason::ReplacementPending {
                    scale_set: "ns/a".into(),
                    release: "0.14.2".into(),
                    current: "1".into(),
                    desired: "2".into(),
                },
                "ReplacementPending",
            ),
            (
                StatusReason::ReplacementWaitsForJobs {
                    busy: 1,
                    pending: 0,
                },
                "ReplacementWaitsForJobs",
            ),
            (
                StatusReason::SpecHashMatches {
                    release: "0.14.2".into(),
                    hash: "1".into(),
                },
                "SpecHashMatches",
            ),
            (
                StatusReason::OldSet {
                    newest: "a-x".into(),
                },
                "OldSet",
            ),
            (
                StatusReason::LeftBehindByNext {
                    scale_set: "a/b".into(),
                },
                "LeftBehindByNext",
            ),
            (
                StatusReason::SpecHashUnknown {
                    release: "0.14.2".into(),
                    error: "x".into(),
                },
                "SpecHashUnknown",
            ),
            (
                StatusReason::SpecMissing { error: "x".into() },
                "SpecMissing",
            ),
            (
                StatusReason::SetUndecodable { error: "x".into() },
                "SetUndecodable",
            ),
            (
                StatusReason::RunnerSpecUndecodable { error: "x".into() },
                "RunnerSpecUndecodable",
            ),
            (
                StatusReason::AppliedAhead {
                    spec: 1,
                    applied: 2,
                    next: 3,
                },
                "AppliedAhead",
            ),
            (
                StatusReason::SpecNotPropagated {
                    scale_set: "a/b".into(),
                    paths: vec!["spec".into()],
                    more: 0,
                },
                "SpecNotPropagated",
            ),
            (
                StatusReason::ObservedGenerationBehind {
                    generation: 2,
                    observed: 1,
                },
                "ObservedGenerationBehind",
            ),
            (
                StatusReason::SpecChangeDeferred {
                    busy: 1,
                    pending: 0,
                },
                "SpecChangeDeferred",
            ),
            (StatusReason::Outdated, "Outdated"),
            (StatusReason::OutdatedExplanation, "OutdatedExplanation"),
            (
                StatusReason::SwitchedOff {
                    scale_set_outdated: true,
                    listener_stopped: true,
                },
                "SwitchedOff",
            ),
            (
                StatusReason::RecycleLoop {
                    scale_set: "a/b".into(),
                    paths: vec![],
                    flips: 0,
                },
                "RecycleLoop",
            ),
            (StatusReason::LegacyAnnotation, "LegacyAnnotation"),
            (
                StatusReason::RevisionNotAcknowledged {
                    spec: 2,
                    applied: 1,
                },
                "RevisionNotAcknowledged",
            ),
            (
                StatusReason::RevisionWrittenBy {
                    manager: "m".into(),
                    ago_seconds: None,
                },
                "RevisionWrittenBy",
            ),
            (
                StatusReason::StaleRunners {
                    runners: e.clone(),
                    revision: 1,
                    set: "s".into(),
                },
                "StaleRunners",
            ),
            (
                StatusReason::AwaitingCleanup { runners: e.clone() },
                "AwaitingCleanup",
            ),
            (
                StatusReason::RunnersBusy { runners: e.clone() },
                "RunnersBusy",
            ),
            (
                StatusReason::RunnersUnregistered { runners: e.clone() },
                "RunnersUnregistered",
            ),
            (
                StatusReason::RunnersOutdated { runners: e.clone() },
                "RunnersOutdated",
            ),
            (
                StatusReason::RunnersStaleOutdated {
                    runners: e.clone(),
                    applied: 2,
                },
                "RunnersStaleOutdated",
            ),
            (
                StatusReason::RunnersDeleting { runners: e.clone() },
                "RunnersDeleting",
            ),
            (StatusReason::WaitingForController, "WaitingForController"),
            (
                StatusReason::RunnersUndecodable {
                    runners: e,
                    error: "x".into(),
                },
                "RunnersUndecodable",
            ),
            (StatusReason::Deleted, "Deleted"),
            (StatusReason::NotRegistered, "NotRegistered"),
            (StatusReason::SetNotCreated, "SetNotCreated"),
            (
                StatusReason::CannotBuild { error: "x".into() },
                "CannotBuild",
            ),
            (StatusReason::ScaleSetDeleting, "ScaleSetDeleting"),
            (
                StatusReason::ScaleSetOutdated {
                    scale_set: "a/x".into(),
                },
                "ScaleSetOutdated",
            ),
            (
                StatusReason::NoListener {
                    scale_set: "a/b".into(),
                    running: 0,
                    pending: 0,
                },
                "NoListener",
            ),
            (
                StatusReason::ListenerForOtherSet {
                    listener: "c/l".into(),
                    points_at: "x".into(),
                    exists: false,
                    newest: "b".into(),
                    arc_recreates: false,
                },
                "ListenerForOtherSet",
            ),
            (
                StatusReason::ListenerVersionMismatch {
                    listener: "c/l".into(),
                    image: "i:0.13.0".into(),
                    chart_version: "0.14.2".into(),
                },
                "ListenerVersionMismatch",
            ),
            (
                StatusReason::ListenerHashStale {
                    listener: "c/l".into(),
                    release: "0.14.2".into(),
                },
                "ListenerHashStale",
            ),
            (
                StatusReason::ReleaseDisagrees {
                    scale_set: "a/b".into(),
                    release: "0.13.1".into(),
                    other: "0.9.3".into(),
                    other_hash: "h".into(),
                    other_replaces: false,
                },
                "ReleaseDisagrees",
            ),
            (
                StatusReason::ListenerPodMissing {
                    listener: "c/l".into(),
                },
                "ListenerPodMissing",
            ),
            (
                StatusReason::ListenerPodNotRunning {
                    pod: "c/l".into(),
                    problem: crate::status::PodProblem::Pending { reason: None },
                },
                "ListenerPodNotRunning",
            ),
            (
                StatusReason::FinalizersLeft {
                    kind: "EphemeralRunner".into(),
                    name: "a/r".into(),
                    more: 0,
                    since: None,
                    finalizers: vec![],
                },
                "FinalizersLeft",
            ),
            (
                StatusReason::RunnersFailed {
                    runners: examples(1),
                    oldest: None,
                    held: 0,
                    replicas: 0,
                },
                "RunnersFailed",
            ),
            (
                StatusReason::DuplicateRegistration {
                    scale_set: "a/x".into(),
                    other_context: "west".into(),
                    other_scale_set: "b/y".into(),
                    by: crate::fleet::SameBy::ScaleSetId("4".into()),
                },
                "DuplicateRegistration",
            ),
            (
                StatusReason::CrdsBehindController {
                    controller: "arc-systems/c".into(),
                    version: "0.14.2".into(),
                    missing: vec![crate::status::install::MissingField {
                        crd: "ephemeralrunnersets.actions.github.com".into(),
                        field: "status.phase".into(),
                        since: "0.14.0".into(),
                    }],
                },
                "CrdsBehindController",
            ),
            (
                StatusReason::CountersDisagree {
                    written: crate::status::Counters::of(1, 2, 0),
                    listed: crate::status::Counters::of(1, 1, 0),
                },
                "CountersDisagree",
            ),
            (
                StatusReason::RunnerPodsMissing {
                    runners: examples(1),
                },
                "RunnerPodsMissing",
            ),
            (
                StatusReason::RunnersUnschedulable {
                    runners: examples(1),
                    why: "0/3 nodes are available".into(),
                    running: 1,
                },
                "RunnersUnschedulable",
            ),
            (
                StatusReason::RunnersBackingOff {
                    runners: examples(1),
                    first: crate::status::Backoff {
                        name: "r".into(),
                        failures: 5,
                        last_failure: Some("2026-09-01T00:00:00Z".into()),
                        reason: None,
                        message: None,
                    },
                    remaining: Some(30),
                },
                "RunnersBackingOff",
            ),
            (
                StatusReason::ListenerBehindController {
                    listener: "c/l".into(),
                    listener_version: "0.14.1".into(),
                    controller: "c/d".into(),
                    controller_version: "0.14.2".into(),
                },
                "ListenerBehindController",
            ),
            (
                StatusReason::CrdsLookOlder {
                    controller: "c/d".into(),
                    version: "0.14.2".into(),
                },
                "CrdsLookOlder",
            ),
            (
                StatusReason::ListenerOrphaned {
                    listener: "c/l".into(),
                    expected: "c/m".into(),
                },
                "ListenerOrphaned",
            ),
            (
                StatusReason::DeletedByVersionCheck {
                    controller: Some("c/d".into()),
                    release: "0.13.1".into(),
                    label: Some("0.14.2".into()),
                    rule: "r".into(),
                },
                "DeletedByVersionCheck",
            ),
        ]
    }

    #[test]
    fn every_code_is_stable_and_unique() {
        let status = status_table();
        let bump = [
            (
                BumpReason::InvalidRevision {
                    error: RevisionError::MissingSpec,
                },
                "InvalidRevision",
            ),
            (
                BumpReason::OwnerMismatch {
                    scale_set: "a".into(),
                    uid: "u".into(),
                    found: None,
                },
                "OwnerMismatch",
            ),
            (BumpReason::Outdated, "Outdated"),
            (BumpReason::LegacyAnnotation, "LegacyAnnotation"),
        ];
        let migrate = [
            (MigrateReason::NoLegacyAnnotation, "NoLegacyAnnotation"),
            (MigrateReason::StaleRunners { count: 1 }, "StaleRunners"),
            (
                MigrateReason::HashMatches {
                    k8s_api: "v0.36.2".into(),
                },
                "HashMatches",
            ),
            (
                MigrateReason::HashMismatch {
                    annotation: "x".into(),
                },
                "HashMismatch",
            ),
            (
                MigrateReason::HashUnverifiable {
                    problems: vec![],
                    policy: UnverifiablePolicy::Skip,
                },
                "HashUnverifiable",
            ),
        ];
        // A new variant does not compile until it is added to these matches; give it a row above.
        for (r, _) in &status {
            match r {
                StatusReason::Deleting
                | StatusReason::Replaced
                | StatusReason::SpecHash
                | StatusReason::SpecMissing { .. }
                | StatusReason::SetUndecodable { .. }
                | StatusReason::RunnerSpecUndecodable { .. }
                | StatusReason::AppliedAhead { .. }
                | StatusReason::SpecNotPropagated { .. }
                | StatusReason::ObservedGenerationBehind { .. }
                | StatusReason::SpecChangeDeferred { .. }
                | StatusReason::Outdated
                | StatusReason::OutdatedExplanation
                | StatusReason::SwitchedOff { .. }
                | StatusReason::RecycleLoop { .. }
                | StatusReason::LegacyAnnotation
                | StatusReason::RevisionNotAcknowledged { .. }
                | StatusReason::RevisionWrittenBy { .. }
                | StatusReason::StaleRunners { .. }
                | StatusReason::AwaitingCleanup { .. }
                | StatusReason::RunnersBusy { .. }
                | StatusReason::RunnersUnregistered { .. }
                | StatusReason::RunnersOutdated { .. }
                | StatusReason::RunnersStaleOutdated { .. }
                | StatusReason::RunnersDeleting { .. }
                | StatusReason::WaitingForController
                | StatusReason::RunnersUndecodable { .. }
                | StatusReason::Deleted
                | StatusReason::NotRegistered
                | StatusReason::SetNotCreated
                | StatusReason::CannotBuild { .. } => {}
                StatusReason::ReplacementPending { .. }
                | StatusReason::ReplacementWaitsForJobs { .. }
                | StatusReason::SpecHashMatches { .. }
                | StatusReason::OldSet { .. }
                | StatusReason::LeftBehindByNext { .. }
                | StatusReason::SpecHashUnknown { .. } => {}
                StatusReason::ScaleSetDeleting
                | StatusReason::ScaleSetOutdated { .. }
                | StatusReason::NoListener { .. }
                | StatusReason::ListenerForOtherSet { .. }
                | StatusReason::ListenerVersionMismatch { .. }
                | StatusReason::ListenerHashStale { .. }
                | StatusReason::ReleaseDisagrees { .. }
                | StatusReason::ListenerPodMissing { .. }
                | StatusReason::ListenerPodNotRunning { .. }
                | StatusReason::FinalizersLeft { .. }
                | StatusReason::RunnersFailed { .. }
                | StatusReason::DuplicateRegistration { .. }
                | StatusReason::CrdsBehindController { .. }
                | StatusReason::CountersDisagree { .. }
                | StatusReason::RunnerPodsMissing { .. }
                | StatusReason::RunnersUnschedulable { .. }
                | StatusReason::RunnersBackingOff { .. }
                | StatusReason::ListenerBehindController { .. }
                | StatusReason::CrdsLookOlder { .. }
                | StatusReason::ListenerOrphaned { .. }
                | StatusReason::DeletedByVersionCheck { .. } => {}
            }
        }
        for (r, _) in &bump {
            match r {
                BumpReason::InvalidRevision { .. }
                | BumpReason::OwnerMismatch { .. }
                | BumpReason::Outdated
                | BumpReason::LegacyAnnotation => {}
            }
        }
        for (r, _) in &migrate {
            match r {
                MigrateReason::NoLegacyAnnotation
                | MigrateReason::StaleRunners { .. }
                | MigrateReason::HashMatches { .. }
                | MigrateReason::HashMismatch { .. }
                | MigrateReason::HashUnverifiable { .. } => {}
            }
        }
        let status: Vec<(&str, &str)> = status.iter().map(|(r, c)| (r.code(), *c)).collect();
        let bump: Vec<(&str, &str)> = bump.iter().map(|(r, c)| (r.code(), *c)).collect();
        let migrate: Vec<(&str, &str)> = migrate.iter().map(|(r, c)| (r.code(), *c)).collect();
        for table in [&status, &bump, &migrate] {
            let mut codes = std::collections::BTreeSet::new();
            for (code, want) in table.iter() {
                assert_eq!(code, want);
                assert!(codes.insert(*code), "{code} twice");
                assert!(
                    code.starts_with(|c: char| c.is_ascii_uppercase())
                        && code.chars().all(|c| c.is_ascii_alphanumeric()),
                    "{code} is not UpperCamelCase"
                );
            }
        }
    }

    #[test]
    fn english_of_some_reasons() {
        let say = |r: StatusReason| r.to_string();
        assert_eq!(
            say(StatusReason::RunnersBusy {
                runners: examples(1)
            }),
            "1 runner busy with a job on an older spec: ARC lets them finish the job first (r0)"
        );
        assert_eq!(
            say(StatusReason::RunnersUnregistered {
                runners: examples(5)
            }),
            "5 idle or pending runners never registered with GitHub (status.runnerId 0): removing them \
             from the service can fail and stall the cleanup, ARC #4653 (r0, r1, r2 and 2 more)"
        );
        // One runner waits, two wait (before, one runner "wait"-ed too).
        assert_eq!(
            say(StatusReason::AwaitingCleanup {
                runners: examples(1)
            }),
            "1 idle or pending runner on an older spec waits for the cleanup (r0)"
        );
        assert_eq!(
            say(StatusReason::AwaitingCleanup {
                runners: examples(2)
            }),
            "2 idle or pending runners on an older spec wait for the cleanup (r0, r1)"
        );
        assert_eq!(
            say(StatusReason::SpecNotPropagated {
                scale_set: "arc/runners".into(),
                paths: vec!["a".into(), "b".into(), "c".into()],
                more: 2,
            }),
            "ARC's controller has not written the new runner spec of AutoscalingRunnerSet arc/runners \
             to this set yet (a, b, c, and 2 more)"
        );
        assert_eq!(
            say(StatusReason::RevisionWrittenBy {
                manager: "kubectl-arc".into(),
                ago_seconds: Some(600),
            }),
            "spec.actionableRevision was last written by kubectl-arc 10m ago"
        );
        assert_eq!(
            say(StatusReason::RevisionWrittenBy {
                manager: "kubectl-arc".into(),
                ago_seconds: None,
            }),
            "spec.actionableRevision was last written by kubectl-arc"
        );
        assert_eq!(
            say(StatusReason::AppliedAhead {
                spec: 2,
                applied: 5,
                next: 6
            }),
            "status.appliedActionableRevision 5 is ahead of spec.actionableRevision 2: ARC never writes \
             that (a lowered spec or a hand-written status); the next request is revision 6 (max + 1)"
        );
        assert_eq!(
            BumpReason::OwnerMismatch {
                scale_set: "x".into(),
                uid: "2".into(),
                found: Some(OwnerRef {
                    kind: Some("AutoscalingRunnerSet".into()),
                    name: None,
                    uid: Some("1".into()),
                }),
            }
            .to_string(),
            "the EphemeralRunnerSet is not owned by the AutoscalingRunnerSet x (uid 2): its owner \
             reference names AutoscalingRunnerSet ? (uid 1); refusing to bump a set its \
             AutoscalingRunnerSet does not control"
        );
        assert!(
            BumpReason::Outdated
                .to_string()
                .starts_with("status.phase is Outdated: a runner exited with code 7")
        );
        assert_eq!(
            MigrateReason::StaleRunners { count: 2 }.to_string(),
            "2 idle or pending runners on an older spec"
        );
        assert_eq!(
            MigrateReason::HashUnverifiable {
                problems: vec![
                    LayoutProblem {
                        k8s_api: "v0.35.10".into(),
                        error: "e1".into()
                    },
                    LayoutProblem {
                        k8s_api: "v0.36.2".into(),
                        error: "e2".into()
                    },
                ],
                policy: UnverifiablePolicy::Skip,
            }
            .to_string(),
            "hash not reproducible (k8s.io/api v0.35.10: e1; k8s.io/api v0.36.2: e2); skipped \
             (--unverifiable=skip)"
        );
    }

    /// Each reason is an object with a stable code and its English, as a Kubernetes condition
    /// carries `reason` and `message`; a set's `reasons` is a list of them.
    #[test]
    fn json_shape_of_reasons() {
        let row = SetStatus {
            namespace: "arc".into(),
            name: "runners".into(),
            spec_revision: Some(3),
            applied_revision: Some(2),
            state: State::Pending,
            runners: RunnerCounts::default(),
            reasons: vec![
                StatusReason::RevisionNotAcknowledged {
                    spec: 3,
                    applied: 2,
                },
                StatusReason::WaitingForController,
            ],
            phase: None,
            spec_revision_written_by: None,
            creation_timestamp: None,
            age_seconds: None,
            ids: Default::default(),
        };
        let v = serde_json::to_value(&row).unwrap();
        assert_eq!(
            v["reasons"],
            json!([
                {"reason": "RevisionNotAcknowledged", "message": "revision 3 is requested and not acknowledged yet (applied 2)"},
                {"reason": "WaitingForController", "message": "no runner blocks the cleanup: waiting for ARC's EphemeralRunnerSet controller (is a revision-era controller running?)"},
            ])
        );
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "namespace",
                "name",
                "specRevision",
                "appliedRevision",
                "state",
                "runners",
                "reasons",
                "kind"
            ],
            "reasons keep their place in the row"
        );
        assert_eq!(
            serde_json::to_value(MigrateReason::NoLegacyAnnotation).unwrap(),
            json!({"reason": "NoLegacyAnnotation", "message": "no actions.github.com/integrity-hash annotation"})
        );
        let yaml = serde_saphyr::to_string(&BumpReason::LegacyAnnotation).unwrap();
        assert!(
            yaml.starts_with("reason: LegacyAnnotation\nmessage: "),
            "{yaml}"
        );
    }
}
