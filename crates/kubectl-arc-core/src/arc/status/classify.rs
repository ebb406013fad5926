//! The verdict on one set: its state and reasons from its facts, its runners' tally and what its
//! AutoscalingRunnerSet wants (the revision handshake, a replacement by hash, propagation).

use super::facts::SetFacts;
use super::tally::{Examples, Tally};
use super::{SetStatus, State, StatusReason, Unobserved, unix_seconds};
use crate::layout::Layout;
use crate::revision::Handshake;
use crate::runners::RunnerCounts;

/// What holds back runners of a set: busy ones on an older spec, unregistered, Outdated or
/// deleting ones, each with the runners named (the cleanup rules of `cleanUpEphemeralRunners`).
fn blockers(tally: &Tally, reasons: &mut Vec<StatusReason>) {
    let named = |group: &Examples| (group.count > 0).then(|| group.clone());
    reasons.extend(named(&tally.busy_stale).map(|runners| StatusReason::RunnersBusy { runners }));
    reasons.extend(
        named(&tally.unregistered).map(|runners| StatusReason::RunnersUnregistered { runners }),
    );
    reasons.extend(named(&tally.outdated).map(|runners| StatusReason::RunnersOutdated { runners }));
    reasons.extend(named(&tally.deleting).map(|runners| StatusReason::RunnersDeleting { runners }));
}

/// Why a set is Invalid: revisions that are not ARC's, a runner spec ARC cannot decode, or an
/// applied revision ahead of the requested one.
fn invalid_reason(facts: &SetFacts, spec_error: Option<&str>) -> Option<StatusReason> {
    match (&facts.revisions, spec_error) {
        (Err(e), _) if facts.spec_missing => Some(StatusReason::SpecMissing { error: e.clone() }),
        (Err(e), _) => Some(StatusReason::SetUndecodable { error: e.clone() }),
        (Ok(_), Some(e)) => Some(StatusReason::RunnerSpecUndecodable {
            error: e.to_string(),
        }),
        (Ok(r), None) if r.handshake() == Handshake::AppliedAhead => {
            Some(StatusReason::AppliedAhead {
                spec: r.spec,
                applied: r.applied,
                next: r.next(),
            })
        }
        _ => None,
    }
}

/// The reasons that follow a state: what blocks the cleanup, and the Outdated phase's meaning.
fn follow_up_reasons(
    state: State,
    tally: &Tally,
    outdated_phase: bool,
    reasons: &mut Vec<StatusReason>,
) {
    match state {
        State::Pending => {
            if tally.stale_idle_or_pending.count > 0 {
                reasons.push(StatusReason::AwaitingCleanup {
                    runners: tally.stale_idle_or_pending.clone(),
                });
            }
            blockers(tally, reasons);
            if outdated_phase {
                reasons.push(StatusReason::OutdatedExplanation);
            }
            if tally.busy_stale.count == 0
                && tally.unregistered.count == 0
                && tally.outdated.count == 0
                && tally.deleting.count == 0
                && !outdated_phase
            {
                reasons.push(StatusReason::WaitingForController);
            }
        }
        State::Stale | State::Invalid | State::Legacy | State::RecycleLoop => {
            blockers(tally, reasons);
            if outdated_phase {
                reasons.push(StatusReason::OutdatedExplanation);
            }
        }
        State::Outdated => {
            blockers(tally, reasons);
            reasons.push(StatusReason::OutdatedExplanation);
        }
        State::Deleting
        | State::SpecHash
        | State::Propagating
        | State::Deleted
        | State::Registering
        | State::Creating
        | State::Replacing
        | State::Draining
        | State::ListenerDown
        | State::ListenerFailing
        | State::RunnersFailed
        | State::RunnersNotRunning
        | State::VersionRejected => {}
        State::Synced => {
            if tally.busy_stale.count > 0 {
                reasons.push(StatusReason::RunnersBusy {
                    runners: tally.busy_stale.clone(),
                });
            }
            if outdated_phase {
                reasons.push(StatusReason::OutdatedExplanation);
            }
        }
    }
}

/// Why a set is Propagating: what differs, and why ARC may not have written it yet.
fn propagation_reasons(
    waiting: &Waiting,
    tally: &Tally,
    outdated_phase: bool,
    reasons: &mut Vec<StatusReason>,
) {
    reasons.push(StatusReason::SpecNotPropagated {
        scale_set: waiting.scale_set.clone(),
        paths: waiting.paths.clone(),
        more: waiting.more,
    });
    if let Some(u) = waiting.unobserved {
        reasons.push(StatusReason::ObservedGenerationBehind {
            generation: u.generation,
            observed: u.observed,
        });
    }
    let c = &tally.counts;
    if c.busy + c.pending > 0 {
        reasons.push(StatusReason::SpecChangeDeferred {
            busy: c.busy,
            pending: c.pending,
        });
    }
    if outdated_phase {
        reasons.push(StatusReason::Outdated);
    }
}

/// What a set's scale set and surroundings say of it, for [`classify`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Context<'a> {
    /// Whether the scale set's desired runner spec has reached the set.
    pub propagation: Option<&'a Propagation>,
    /// The integrity-hash recycle loop of its scale set.
    pub recycle_loop: Option<&'a RecycleLoop>,
    /// ARC up to 0.14: what its scale set says of the set.
    pub replacement: Option<&'a Replacement>,
    /// Its listener and the listener's Pod, its scale set's deletion
    /// ([`super::listener::listener_reasons`]).
    pub around: &'a [StatusReason],
    /// The next release judges the set ([`NextSide`]); `None`: a released one, or none known.
    pub next: Option<&'a NextSide>,
}

/// What the next release reads around a set beyond its revisions ([`crate::next`]): its scale
/// set's observed generation and phase, its listener's `spec.phase`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NextSide {
    /// Where the next release was stated: `--arc-version next`, or the controller recognised as
    /// running it and why ([`crate::next::recognised_as_next`]).
    pub from: String,
    /// [`crate::next::observed_generation_behind`] of its AutoscalingRunnerSet.
    pub unobserved: Option<Unobserved>,
    /// The AutoscalingRunnerSet's `status.phase`.
    pub scale_set_phase: Option<String>,
    /// Its listener's `spec.phase` (`None`: no listener read, or none written).
    pub listener_phase: Option<String>,
}

/// The verdict on one set. `spec_error` is a failure to decode the set's runner spec (found when
/// a runner's spec had to be compared with it); `now` is the clock in Unix seconds.
pub fn classify(
    facts: &SetFacts,
    tally: &Tally,
    spec_error: Option<&str>,
    context: Context<'_>,
    now: Option<i64>,
) -> SetStatus {
    let Context {
        propagation,
        recycle_loop,
        replacement,
        around,
        next,
    } = context;
    let created = facts.creation_timestamp.as_deref().and_then(unix_seconds);
    let mut reasons = Vec::new();
    let (spec_revision, applied_revision) = match &facts.revisions {
        // ARC 0.14 and older have no revisions: 0/0 would read as a handshake.
        Ok(_) if facts.spec_hash_era => (None, None),
        Ok(r) => (Some(r.spec), Some(r.applied)),
        Err(_) => (None, None),
    };
    let outdated_phase = outdated_phase(facts, next);
    let (tally, stale_outdated) = next_tally(facts, tally, next);
    let tally = &*tally;
    let invalid = invalid_reason(facts, spec_error);
    let state = if facts.deleting {
        reasons.push(if facts.spec_hash_era {
            StatusReason::Replaced
        } else {
            StatusReason::Deleting
        });
        State::Deleting
    } else if facts.spec_hash_era {
        hash_era_state(facts, tally, replacement, &mut reasons)
    } else if let Some(why) = invalid {
        reasons.push(why);
        State::Invalid
    } else if let Some(Propagation::Waiting(waiting)) = propagation {
        propagation_reasons(waiting, tally, outdated_phase, &mut reasons);
        State::Propagating
    } else if outdated_phase
        && facts
            .revisions
            .as_ref()
            .is_ok_and(|r| r.handshake() != Handshake::Pending)
    {
        // An Outdated phase counts as a verdict on the current spec only once the revision is
        // acknowledged (`ephemeralRunnerSetOutdatedForAppliedRevision`); a pending revision is
        // the cure in progress.
        reasons.push(StatusReason::Outdated);
        State::Outdated
    } else if let Some(l) = recycle_loop.filter(|_| facts.legacy_annotation) {
        reasons.push(StatusReason::RecycleLoop {
            scale_set: l.scale_set.clone(),
            paths: l.paths.clone(),
            flips: l.flips,
        });
        State::RecycleLoop
    } else if facts.legacy_annotation {
        reasons.push(StatusReason::LegacyAnnotation);
        State::Legacy
    } else {
        handshake_state(facts, tally, now, &mut reasons)
    };
    follow_up_reasons(state, tally, outdated_phase, &mut reasons);
    reasons.extend(stale_outdated);
    let state = match next {
        Some(n) => next_state(state, n, outdated_phase, &mut reasons),
        None => state,
    };
    if tally.undecodable.count > 0 {
        reasons.push(StatusReason::RunnersUndecodable {
            runners: tally.undecodable.clone(),
            error: tally.first_decode_error.clone().unwrap_or_default(),
        });
    }
    let state = surroundings(facts, tally, around, (state, now), &mut reasons);
    SetStatus {
        namespace: facts.namespace.clone(),
        name: facts.name.clone(),
        spec_revision,
        applied_revision,
        state,
        runners: tally.counts,
        reasons,
        phase: facts.phase.clone(),
        spec_revision_written_by: facts.revision_writer.clone(),
        creation_timestamp: facts.creation_timestamp.clone(),
        age_seconds: match (created, now) {
            (Some(c), Some(n)) => Some(n - c),
            _ => None,
        },
        ids: row_ids(facts, replacement, next),
    }
}

/// Whether the set counts as Outdated: its `status.phase`, and under the next release also its
/// scale set's phase or its listener stopped ([`crate::next::switched_off`]).
fn outdated_phase(facts: &SetFacts, next: Option<&NextSide>) -> bool {
    match next {
        Some(n) => crate::next::switched_off(
            n.scale_set_phase.as_deref(),
            facts.phase.as_deref(),
            n.listener_phase.as_deref(),
        ),
        None => facts.phase.as_deref() == Some(crate::next::PHASE_OUTDATED),
    }
}

/// The tally as the next release sees it: its `staleOutdated` runners (#4644, made for a revision
/// older than the applied one) no longer counted among the Outdated ones that hold the set, and
/// said as [`StatusReason::RunnersStaleOutdated`] when there are any. Unchanged for a set judged
/// by a released ARC.
fn next_tally<'a>(
    facts: &SetFacts,
    tally: &'a Tally,
    next: Option<&NextSide>,
) -> (std::borrow::Cow<'a, Tally>, Option<StatusReason>) {
    let applied = match (next, &facts.revisions) {
        (Some(_), Ok(r)) if !facts.spec_hash_era => r.applied,
        _ => return (std::borrow::Cow::Borrowed(tally), None),
    };
    let (current, stale) = tally.current_outdated(applied);
    let mut t = tally.clone();
    t.outdated = current;
    let said = (stale.count > 0).then_some(StatusReason::RunnersStaleOutdated {
        runners: stale,
        applied,
    });
    (std::borrow::Cow::Owned(t), said)
}

/// The state under the next release: the Outdated lifecycle (#4652/#4660) said as
/// [`StatusReason::SwitchedOff`] in place of the released releases' Outdated reasons, and an
/// AutoscalingRunnerSet whose latest generation is not observed (#4636) keeps a set that is
/// otherwise Synced or Stale Pending ([`StatusReason::ObservedGenerationBehind`]).
fn next_state(
    state: State,
    next: &NextSide,
    outdated_phase: bool,
    reasons: &mut Vec<StatusReason>,
) -> State {
    if outdated_phase {
        let at = reasons.iter().position(|r| {
            matches!(
                r,
                StatusReason::Outdated | StatusReason::OutdatedExplanation
            )
        });
        reasons.retain(|r| {
            !matches!(
                r,
                StatusReason::Outdated | StatusReason::OutdatedExplanation
            )
        });
        let off = StatusReason::SwitchedOff {
            scale_set_outdated: next.scale_set_phase.as_deref()
                == Some(crate::next::PHASE_OUTDATED),
            listener_stopped: next.listener_phase.as_deref()
                == Some(crate::next::LISTENER_PHASE_STOPPED),
        };
        reasons.insert(at.unwrap_or(reasons.len()).min(reasons.len()), off);
    }
    let Some(u) = next.unobserved else {
        return state;
    };
    let said = reasons
        .iter()
        .any(|r| matches!(r, StatusReason::ObservedGenerationBehind { .. }));
    if !said {
        reasons.push(StatusReason::ObservedGenerationBehind {
            generation: u.generation,
            observed: u.observed,
        });
    }
    match state {
        State::Synced | State::Stale => State::Pending,
        other => other,
    }
}

/// The state of a set made by ARC 0.14 or older (no revisions): whether its scale set replaces it,
/// as the judging release's `RunnerSetSpecHash()` says by the one replacement rule
/// ([`crate::replacement::replaces`]), or whether it is an old set draining.
fn hash_era_state(
    facts: &SetFacts,
    tally: &Tally,
    replacement: Option<&Replacement>,
    reasons: &mut Vec<StatusReason>,
) -> State {
    let c = &tally.counts;
    match replacement {
        Some(Replacement::Judged {
            scale_set,
            release,
            desired: Ok(desired),
        }) => {
            let current = facts.runner_spec_hash.clone().unwrap_or_default();
            let verdict = crate::replacement::Verdict::RunnerSpecHash {
                desired,
                annotation: facts.runner_spec_hash.as_deref(),
            };
            if crate::replacement::replaces(verdict) != Some(true) {
                reasons.push(StatusReason::SpecHashMatches {
                    release: release.clone(),
                    hash: current,
                });
                State::Synced
            } else {
                reasons.push(StatusReason::ReplacementPending {
                    scale_set: scale_set.clone(),
                    release: release.clone(),
                    current,
                    desired: desired.clone(),
                });
                if facts.replicas == Some(0) && c.busy + c.pending > 0 {
                    reasons.push(StatusReason::ReplacementWaitsForJobs {
                        busy: c.busy,
                        pending: c.pending,
                    });
                }
                State::Replacing
            }
        }
        Some(Replacement::Judged {
            release,
            desired: Err(error),
            ..
        }) => {
            reasons.push(StatusReason::SpecHashUnknown {
                release: release.clone(),
                error: error.clone(),
            });
            State::SpecHash
        }
        Some(Replacement::Old { newest }) => {
            reasons.push(StatusReason::OldSet {
                newest: newest.clone(),
            });
            State::Draining
        }
        Some(Replacement::LeftBehind { scale_set }) => {
            reasons.push(StatusReason::LeftBehindByNext {
                scale_set: scale_set.clone(),
            });
            State::SpecHash
        }
        None => {
            reasons.push(StatusReason::SpecHash);
            State::SpecHash
        }
    }
}

/// The state of a revision-era set past every earlier verdict: the revision handshake (with who
/// last wrote `spec.actionableRevision` while it is pending), then stale runners.
fn handshake_state(
    facts: &SetFacts,
    tally: &Tally,
    now: Option<i64>,
    reasons: &mut Vec<StatusReason>,
) -> State {
    let c = &tally.counts;
    let written = facts
        .revision_writer
        .as_ref()
        .map(|w| StatusReason::RevisionWrittenBy {
            manager: w.manager.clone(),
            ago_seconds: match (w.time.as_deref().and_then(unix_seconds), now) {
                (Some(t), Some(now)) => Some(now - t),
                _ => None,
            },
        });
    let r = facts.revisions.clone().expect("checked above");
    match r.handshake() {
        Handshake::Pending => {
            reasons.push(StatusReason::RevisionNotAcknowledged {
                spec: r.spec,
                applied: r.applied,
            });
            reasons.extend(written);
            State::Pending
        }
        _ if c.stale_idle_or_pending > 0 => {
            reasons.push(StatusReason::StaleRunners {
                runners: tally.stale_idle_or_pending.clone(),
                revision: r.spec,
                set: facts.name.clone(),
            });
            State::Stale
        }
        _ => State::Synced,
    }
}

/// What the row of a set is and what judges it ([`super::RowIds`]): its scale set (ARC's label
/// `actions.github.com/scale-set-name`, else the one that judged it), the release and hashes of
/// ARC up to 0.14, the integrity hash; `next` and where it was stated when the next release
/// judges it.
fn row_ids(
    facts: &SetFacts,
    replacement: Option<&Replacement>,
    next: Option<&NextSide>,
) -> super::RowIds {
    if let Some(n) = next {
        return super::RowIds {
            release: Some("next".to_string()),
            release_from: Some(n.from.clone()),
            ..row_ids(facts, replacement, None)
        };
    }
    let (judged_by, release, desired) = match replacement {
        Some(Replacement::Judged {
            scale_set,
            release,
            desired,
        }) => (
            scale_set.split_once('/').map(|(_, n)| n.to_string()),
            Some(release.clone()).filter(|r| r != "?"),
            desired.as_ref().ok().cloned(),
        ),
        _ => (None, None, None),
    };
    super::RowIds {
        kind: crate::arc::KIND_EPHEMERAL_RUNNER_SET,
        scale_set: facts
            .labels
            .get(crate::pairing::LABEL_SCALE_SET_NAME)
            .cloned()
            .or(judged_by),
        release,
        release_from: None,
        runner_spec_hash: facts.runner_spec_hash.clone(),
        desired_runner_spec_hash: desired,
        integrity_hash: facts.integrity_hash.clone(),
    }
}

/// How many of `replicas` failed runners hold: ARC's EphemeralRunnerSet controller counts them
/// in `scaleTotal()` (pending + running + failed) and creates `replicas - total` runners, so
/// they take the place of runners it would otherwise create (`Reconcile`'s scale-up case).
pub fn failed_runners_hold(replicas: i64, running: usize, pending: usize, failed: usize) -> usize {
    let want = |total: usize| (replicas - total as i64).max(0);
    (want(running + pending) - want(running + pending + failed)) as usize
}

/// The reasons of what stands around the set's handshake (failed runners, finalizers left, its
/// listener and scale set), and the state they put a set in whose handshake is Synced, Stale or
/// Pending: the reason that decides it goes first.
fn surroundings(
    facts: &SetFacts,
    tally: &Tally,
    around: &[StatusReason],
    (state, now): (State, Option<i64>),
    reasons: &mut Vec<StatusReason>,
) -> State {
    let c = &tally.counts;
    if tally.failed.count > 0 {
        reasons.push(StatusReason::RunnersFailed {
            runners: tally.failed.clone(),
            oldest: tally.oldest_failed.clone(),
            held: failed_runners_hold(
                facts.replicas.unwrap_or(0),
                c.idle + c.busy,
                c.pending,
                c.failed,
            ),
            replicas: facts.replicas.unwrap_or(0),
        });
    }
    if tally.pod_missing.count > 0 {
        reasons.push(StatusReason::RunnerPodsMissing {
            runners: tally.pod_missing.clone(),
        });
    }
    if let Some(first) = tally.first_backoff.as_ref() {
        reasons.push(StatusReason::RunnersBackingOff {
            runners: tally.backing_off.clone(),
            first: first.clone(),
            remaining: first.remaining(now),
        });
    }
    if tally.unschedulable.count > 0 {
        reasons.push(StatusReason::RunnersUnschedulable {
            runners: tally.unschedulable.clone(),
            why: tally.first_unschedulable.clone().unwrap_or_default(),
            running: tally.unschedulable_running,
        });
    }
    if let Some(written) = facts.counters.filter(|_| !facts.deleting) {
        let listed = super::Counters::of(c.pending, c.idle + c.busy, c.failed);
        if written != listed {
            reasons.push(StatusReason::CountersDisagree { written, listed });
        }
    }
    if let Some(d) = facts.deletion.as_ref().filter(|d| !d.finalizers.is_empty()) {
        let name = format!("{}/{}", facts.namespace, facts.name);
        reasons.push(super::listener::finalizers_left(
            crate::arc::KIND_EPHEMERAL_RUNNER_SET,
            &name,
            d,
        ));
    }
    if let Some(d) = &tally.first_held {
        let first = tally.held.names.first().cloned().unwrap_or_default();
        let mut r = super::listener::finalizers_left(
            crate::arc::KIND_EPHEMERAL_RUNNER,
            &format!("{}/{first}", facts.namespace),
            d,
        );
        if let StatusReason::FinalizersLeft { more, .. } = &mut r {
            *more = tally.held.count - 1;
        }
        reasons.push(r);
    }
    reasons.extend(around.iter().cloned());
    if let Some(rejected) = version_rejected(state, reasons) {
        return rejected;
    }
    if !matches!(state, State::Synced | State::Stale | State::Pending) {
        return state;
    }
    let rank = |s: State| match s {
        State::ListenerFailing => 4,
        State::RunnersFailed => 3,
        State::ListenerDown => 2,
        State::RunnersNotRunning => 1,
        _ => 0,
    };
    let Some((i, escalated)) = reasons
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.escalation().map(|s| (i, s)))
        .max_by_key(|(i, s)| (rank(*s), std::cmp::Reverse(*i)))
    else {
        return state;
    };
    let first = reasons.remove(i);
    reasons.insert(0, first);
    escalated
}

/// [`State::VersionRejected`] when the reasons hold [`StatusReason::DeletedByVersionCheck`], that
/// reason moved first: ARC's `AutoscalingRunnerSetReconciler.Reconcile` (0.9.0 to 0.14.2) checks
/// the scale set's version right after handling its deletion and before anything else, so its
/// controller deletes the scale set whatever its set's handshake or hash says: the hash's verdict
/// (replaced, or matching) is dropped, as it is never reached. A set already being deleted stays
/// `Deleting`.
fn version_rejected(state: State, reasons: &mut Vec<StatusReason>) -> Option<State> {
    if state == State::Deleting {
        return None;
    }
    let i = reasons
        .iter()
        .position(|r| matches!(r, StatusReason::DeletedByVersionCheck { .. }))?;
    let first = reasons.remove(i);
    reasons.retain(|r| {
        !matches!(
            r,
            StatusReason::ReplacementPending { .. }
                | StatusReason::ReplacementWaitsForJobs { .. }
                | StatusReason::SpecHashMatches { .. }
        )
    });
    reasons.insert(0, first);
    Some(State::VersionRejected)
}

/// An AutoscalingRunnerSet without a set, as [`scale_set_without_set`] reads it.
#[derive(Debug, Clone, Copy)]
pub struct WithoutSet<'a> {
    pub key: &'a SetKey,
    /// Its `spec` as JSON text (`None`: absent).
    pub spec_json: Option<&'a str>,
    /// Its `runner-scale-set-id` annotation.
    pub scale_set_id: Option<&'a str>,
    /// Its `status.phase`.
    pub phase: Option<&'a str>,
    pub creation_timestamp: Option<&'a str>,
    pub deletion: Option<&'a super::Deletion>,
    /// [`StatusReason::DeletedByVersionCheck`] of the scale set, when the release that judges it
    /// does not allow its `app.kubernetes.io/version`.
    pub version_check: Option<&'a StatusReason>,
    /// The next release judges it: an Outdated scale set without a set is rebuilt
    /// (`outdatedRunnerSpecCorrected` counts a missing set as corrected, ARC #4660).
    pub next: bool,
}

/// The row of an AutoscalingRunnerSet for which ARC's `listEphemeralRunnerSets` finds no set (a
/// scale set just installed): Deleting while it is deleted; Outdated when its `status.phase` is
/// (ARC 0.14's `Reconcile` then deletes its listener and sets, `cleanUpResources`, and makes none
/// until the scale set's `Hash()` differs from its `actions.github.com/change-hash` annotation,
/// when it resets the phase to Pending; the next release's `outdatedRunnerSpecCorrected` counts a
/// missing set as corrected and rebuilds it, so under `next` the row goes on as below); Invalid when ARC cannot build its set (the checks of
/// [`crate::desired::check_builds`], as for an existing one), else Registering until the
/// `runner-scale-set-id` annotation is there, then Creating until the set is. `now` is the clock
/// in Unix seconds.
pub fn scale_set_without_set(
    layout: &Layout,
    scale_set: WithoutSet<'_>,
    now: Option<i64>,
) -> SetStatus {
    let WithoutSet {
        key,
        spec_json,
        scale_set_id,
        phase,
        creation_timestamp,
        deletion,
        version_check,
        next,
    } = scale_set;
    let row = |state: State, reasons: Vec<StatusReason>| SetStatus {
        age_seconds: match (now, creation_timestamp.and_then(unix_seconds)) {
            (Some(now), Some(created)) => Some(now - created),
            _ => None,
        },
        namespace: key.0.clone(),
        name: key.1.clone(),
        spec_revision: None,
        applied_revision: None,
        state,
        runners: RunnerCounts::default(),
        reasons,
        phase: None,
        spec_revision_written_by: None,
        creation_timestamp: creation_timestamp.map(str::to_string),
        ids: super::RowIds {
            kind: crate::arc::KIND_AUTOSCALING_RUNNER_SET,
            scale_set: Some(key.1.clone()),
            ..Default::default()
        },
    };
    if let Some(d) = deletion {
        // `Reconcile` of a scale set being deleted only cleans up: no set is made for it.
        let name = format!("{}/{}", key.0, key.1);
        let mut reasons = vec![StatusReason::ScaleSetDeleting];
        if !d.finalizers.is_empty() {
            reasons.push(super::listener::finalizers_left(
                crate::arc::KIND_AUTOSCALING_RUNNER_SET,
                &name,
                d,
            ));
        }
        return row(State::Deleting, reasons);
    }
    // The version check comes next in `Reconcile`, before the phase and the registration.
    if let Some(check) = version_check {
        return row(State::VersionRejected, vec![check.clone()]);
    }
    if phase == Some(crate::next::PHASE_OUTDATED) && !next {
        return row(
            State::Outdated,
            vec![StatusReason::ScaleSetOutdated {
                scale_set: format!("{}/{}", key.0, key.1),
            }],
        );
    }
    let built = match spec_json {
        Some(spec) => {
            crate::desired::check_builds(layout, spec, scale_set_id).map_err(|e| e.to_string())
        }
        None => Err("spec is missing: there is no runner template to build a set from".into()),
    };
    let (state, reason) = match (built, scale_set_id) {
        (Err(error), _) => (State::Invalid, StatusReason::CannotBuild { error }),
        (Ok(()), None) => (State::Registering, StatusReason::NotRegistered),
        (Ok(()), Some(_)) => (State::Creating, StatusReason::SetNotCreated),
    };
    row(state, vec![reason])
}

/// Namespace and name of an EphemeralRunnerSet.
pub type SetKey = (String, String);

/// What a set's AutoscalingRunnerSet wants of it, for the Propagating state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesiredSpec {
    /// `namespace/name` of the AutoscalingRunnerSet.
    pub scale_set: String,
    /// Its `spec` JSON text.
    pub spec_json: String,
    /// The runner scale set id (its annotation, else the set's `runnerScaleSetId`).
    pub scale_set_id: Option<String>,
    /// `metadata.generation` > `status.observedGeneration`, when the object has both: said as a
    /// reason.
    pub unobserved: Option<Unobserved>,
}

/// The integrity-hash recycle loop of a set's scale set (see [`crate::recycle_loop`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecycleLoop {
    /// `namespace/name` of the AutoscalingRunnerSet.
    pub scale_set: String,
    /// The fields Go's round trip changes.
    pub paths: Vec<String>,
    /// How often the set's integrity-hash annotation changed while watched.
    pub flips: usize,
}

/// A set of ARC up to 0.14 as its scale set sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replacement {
    /// The newest set: release `release`'s `RunnerSetSpecHash()` of the AutoscalingRunnerSet (or
    /// why it cannot be computed), compared with the set's annotation.
    Judged {
        scale_set: String,
        release: String,
        desired: Result<String, String>,
    },
    /// An old set, not the newest of its scale set (`newest`).
    Old { newest: String },
    /// The next release judges the scale set (`namespace/name`), and this set of ARC up to 0.14
    /// is not named like it: the next release gets the set by the scale set's own name and
    /// leaves this one running.
    LeftBehind { scale_set: String },
}

/// Whether the desired runner spec has reached the set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Propagation {
    /// Semantic-equal: ARC has written it (or nothing changed).
    Reached,
    /// Not yet.
    Waiting(Waiting),
}

/// A desired runner spec that has not reached the set: the semantic differences, and why ARC may
/// not have acted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    /// `namespace/name` of the AutoscalingRunnerSet.
    pub scale_set: String,
    /// The first paths that differ (at most 3).
    pub paths: Vec<String>,
    /// How many more paths differ.
    pub more: usize,
    pub unobserved: Option<Unobserved>,
}

/// Compare what the AutoscalingRunnerSet wants with the set's runner spec, as ARC's controller
/// does (`apiequality.Semantic.DeepEqual` of `newEphemeralRunnerSet`'s spec and the stored one).
/// `None` when the comparison cannot be made (the desired spec does not build): the set's own
/// state stands.
pub fn propagation(
    layout: &Layout,
    desired: &DesiredSpec,
    runner_spec: Option<&str>,
) -> Option<Propagation> {
    let d = crate::drift::drift(
        layout,
        &desired.spec_json,
        desired.scale_set_id.as_deref(),
        runner_spec,
    )
    .ok()?;
    if !d.semantic_drift() {
        return Some(Propagation::Reached);
    }
    let paths: Vec<String> = d
        .comparison
        .differences
        .iter()
        .filter(|x| !x.reason.semantic_equal())
        .map(|x| x.path.clone())
        .collect();
    Some(Propagation::Waiting(Waiting {
        scale_set: desired.scale_set.clone(),
        more: paths.len().saturating_sub(3),
        paths: paths.into_iter().take(3).collect(),
        unobserved: desired.unobserved,
    }))
}
