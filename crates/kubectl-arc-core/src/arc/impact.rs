//! What a change does to the work running now: which runners ARC deletes, which jobs finish first,
//! whether job pickup pauses and whether new jobs wait for running ones. Pure core.
//!
//! Each rule is read from the code of the release that decides (docs/arc-releases.md, "What a
//! replacement does to running work"; paths under `controllers/actions.github.com/`):
//! - **ARC 0.9.0 to 0.14.2, a new set** (`AutoscalingRunnerSetReconciler.Reconcile`): the listener
//!   is deleted first (its `runner-spec-hash` annotation is `ListenerSpecHash()`, which hashes the
//!   whole spec). Then, when `drainingJobs` holds (`--update-strategy=eventual` and the newest
//!   set's `status.runningEphemeralRunners + status.pendingEphemeralRunners > 0`), the set is
//!   scaled to 0 (`spec.replicas` and, from 0.9.1, `spec.patchID`), so the EphemeralRunnerSet
//!   controller's `deleteIdleEphemeralRunners` removes its registered idle and pending runners
//!   (busy ones skipped, `cleanupFinishedEphemeralRunners` deleting the finished) and the new set
//!   waits until none is running or pending. Otherwise (`immediate`, or nothing running) the new
//!   set is made at once and the old set deleted: its controller's `cleanUpEphemeralRunners`
//!   deletes the terminated runners (finished and failed, and from 0.14.0 outdated) and removes
//!   every pending and running one from the service, where `RemoveRunner` refuses a runner still
//!   running a job (`JobStillRunningException`): that runner is left alone until its job ends.
//!   The listener comes back (`createAutoScalingListenerForRunnerSet`) once the old sets are
//!   deleted, or under `eventual` once the newest set has drained.
//! - **ARC 0.9.0 to 0.14.2, the listener alone** (`ListenerSpecHash()` or the `values-hash`
//!   annotation changed, the runner-spec hash not): the listener is deleted and made again; under
//!   `eventual` with runners running or pending, it is made again only once they are gone.
//! - **The integrity-hash and revision eras, a change through the scale set** (master 2ee6b3b8's
//!   `Reconcile`, kept by ARC PR #4638): while the set's `runningEphemeralRunners +
//!   pendingEphemeralRunners > 0` the controller deletes the listener and requeues every second
//!   without patching the set; once they drain it patches the set and the set's cleanup runs.
//! - **The set's own cleanup** (a pending integrity-hash cleanup, `spec.actionableRevision` ahead
//!   of `status.appliedActionableRevision`, a bumped revision): `cleanUpEphemeralRunners` deletes
//!   terminated runners and removes pending and idle ones; a runner with a job (`HasJob()`) is
//!   skipped and finishes on the old spec. The listener is not touched.
//!
//! A runner not registered with GitHub (`status.runnerId` 0) is skipped by
//! `deleteIdleEphemeralRunners` and makes `cleanUpEphemeralRunners`' `RemoveRunner(0)` fail, so the
//! cleanup retries while it exists (ARC #4653): such runners are counted apart, never as deleted.
//!
//! The controller decides on the set's status counters, not on its runners: the wait (`eventual`,
//! the deferral) is forecast from them, as ARC reads them.

use serde::Serialize;
use serde_json::Value;

use crate::release::{Mechanism, version_at_least};
use crate::runners::{self, RunnerState};

/// The controller's `--update-strategy` (ARC 0.9.0 to 0.14.2, `main.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UpdateStrategy {
    Immediate,
    Eventual,
}

impl UpdateStrategy {
    pub fn as_str(self) -> &'static str {
        match self {
            UpdateStrategy::Immediate => "immediate",
            UpdateStrategy::Eventual => "eventual",
        }
    }
}

/// The update strategy in force and where it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StrategyRead {
    pub value: UpdateStrategy,
    /// `controller Deployment ns/name (--update-strategy=eventual)`, or `the release's default
    /// (the controller Deployment was not read)`.
    pub from: String,
}

impl StrategyRead {
    /// The default of every release (`flag.StringVar(&updateStrategy, "update-strategy",
    /// "immediate", ...)`), said as such.
    pub fn release_default(why: &str) -> StrategyRead {
        StrategyRead {
            value: UpdateStrategy::Immediate,
            from: format!("the release's default ({why})"),
        }
    }
}

/// What the manager's arguments set, as Go's `flag` package reads them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManagerFlags {
    /// `--update-strategy`, as given (the last one wins).
    pub update_strategy: Option<String>,
    pub auto_scaling_runner_set_only: bool,
    pub watch_single_namespace: Option<String>,
}

impl ManagerFlags {
    /// The strategy the scale-set controller runs with: `main.go`'s switch inside
    /// `if autoScalingRunnerSetOnly`, which keeps `immediate` and `eventual` (exact case) and turns
    /// anything else into `immediate`.
    pub fn strategy(&self) -> UpdateStrategy {
        match self.update_strategy.as_deref() {
            Some("eventual") => UpdateStrategy::Eventual,
            _ => UpdateStrategy::Immediate,
        }
    }
}

/// The manager's boolean flags (`flag.BoolVar` in `main.go`, the same three in 0.9.0 to 0.14.2):
/// they take no separate value.
const BOOL_FLAGS: [&str; 3] = [
    "enable-leader-election",
    "runner-status-update-hook",
    "auto-scaling-runner-set-only",
];

/// The flags every release's `main.go` defines (0.9.0), and those later tags add.
const FLAGS_0_9_0: [&str; 33] = [
    "auto-scaler-image-pull-secrets",
    "auto-scaling-runner-set-only",
    "common-runner-labels",
    "default-scale-down-delay",
    "docker-gid",
    "docker-image",
    "docker-registry-mirror",
    "enable-leader-election",
    "github-app-id",
    "github-app-installation-id",
    "github-app-private-key",
    "github-basicauth-password",
    "github-basicauth-username",
    "github-enterprise-url",
    "github-token",
    "github-upload-url",
    "github-url",
    "leader-election-id",
    "listener-metrics-addr",
    "listener-metrics-endpoint",
    "log-format",
    "log-level",
    "metrics-addr",
    "port",
    "runner-github-url",
    "runner-image-pull-secret",
    "runner-image",
    "runner-status-update-hook",
    "sync-period",
    "update-strategy",
    "watch-namespace",
    "watch-single-namespace",
    // Not a flag of ARC's: Go's flag package answers -h and -help itself.
    "",
];
const FLAGS_0_9_3: [&str; 1] = ["exclude-label-propagation-prefix"];
const FLAGS_0_10_0: [&str; 3] = [
    "k8s-client-rate-limiter-burst",
    "k8s-client-rate-limiter-qps",
    "runner-max-concurrent-reconciles",
];
const FLAGS_0_14_2: [&str; 3] = [
    "health-probe-bind-address",
    "pprof-addr",
    "workqueue-rate-limiter",
];

/// Whether `name` is a flag of release `version`'s `main.go` (`None`: an unreleased controller,
/// whose flags are 0.14.2's).
fn defines(version: Option<&str>, name: &str) -> bool {
    let at_least = |v: &str| version.is_none_or(|have| version_at_least(have, v));
    (!name.is_empty() && FLAGS_0_9_0.contains(&name))
        || (at_least("0.9.3") && FLAGS_0_9_3.contains(&name))
        || (at_least("0.10.0") && FLAGS_0_10_0.contains(&name))
        || (at_least("0.14.2") && FLAGS_0_14_2.contains(&name))
}

/// Read the manager's arguments as Go's `flag.FlagSet.Parse` does (`parseOne`): `-x`, `--x`,
/// `-x=v`, `--x v` (a non-boolean flag takes the next argument whatever it is), a boolean flag's
/// `=value` read by `strconv.ParseBool`, parsing ending at the first non-flag argument or after
/// `--`. An error is what makes the controller exit before it reconciles anything (an unknown
/// flag, a flag without its value, bad syntax). Values of numeric flags are not checked.
pub fn parse_manager_args(version: Option<&str>, args: &[String]) -> Result<ManagerFlags, String> {
    let mut flags = ManagerFlags::default();
    let mut rest = args;
    while let Some((s, after)) = rest.split_first() {
        if s.len() < 2 || !s.starts_with('-') {
            break;
        }
        let minuses = if s.as_bytes()[1] == b'-' {
            if s.len() == 2 {
                break; // "--" ends the flags.
            }
            2
        } else {
            1
        };
        let name = &s[minuses..];
        if name.is_empty() || name.starts_with('-') || name.starts_with('=') {
            return Err(format!("bad flag syntax: {s}"));
        }
        rest = after;
        let (name, value) = match name.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (name, None),
        };
        if name == "h" || name == "help" {
            return Err(format!("-{name}: the manager prints its usage and exits"));
        }
        if !defines(version, name) {
            return Err(format!("flag provided but not defined: -{name}"));
        }
        let value = if BOOL_FLAGS.contains(&name) {
            match value.as_deref() {
                None => "true".to_string(),
                Some(v) => match parse_bool(v) {
                    Some(b) => b.to_string(),
                    None => {
                        return Err(format!(
                            "invalid boolean value {v:?} for -{name}: parse error"
                        ));
                    }
                },
            }
        } else {
            match value {
                Some(v) => v,
                None => match rest.split_first() {
                    Some((v, after)) => {
                        rest = after;
                        v.clone()
                    }
                    None => return Err(format!("flag needs an argument: -{name}")),
                },
            }
        };
        match name {
            "update-strategy" => flags.update_strategy = Some(value),
            "auto-scaling-runner-set-only" => flags.auto_scaling_runner_set_only = value == "true",
            "watch-single-namespace" => flags.watch_single_namespace = Some(value),
            _ => {}
        }
    }
    Ok(flags)
}

/// Go's `strconv.ParseBool`.
fn parse_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// What a change does to one scale set, as the release that decides does it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// ARC 0.9.0 to 0.14.2: `RunnerSetSpecHash()` differs, a new set replaces the newest.
    NewSet,
    /// ARC 0.9.0 to 0.14.2: only the listener is made again.
    ListenerOnly,
    /// The integrity-hash or revision era: the scale set's controller patches the set (a spec
    /// change), deferring while runners are running or pending.
    SpecPatched,
    /// The set's own controller cleans up (a pending cleanup, a bumped revision).
    Cleanup,
    /// The scale set is deleted (ARC's version check): `AutoscalingRunnerSetReconciler.Reconcile`'s
    /// deletion branch deletes the listener (`cleanupListener`), then the sets
    /// (`cleanupEphemeralRunnerSets`, each cleaned up by `cleanUpEphemeralRunners`), then the scale
    /// set's registration (`deleteRunnerScaleSet`): nothing picks up its jobs any more.
    ScaleSetDeleted,
}

/// A busy runner and its job, as the EphemeralRunner's status carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BusyRunner {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_repository_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_workflow_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workflow_run_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_display_name: Option<String>,
}

impl BusyRunner {
    fn of(name: &str, runner: &Value) -> BusyRunner {
        let text = |f: &str| {
            runner
                .pointer(&format!("/status/{f}"))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        BusyRunner {
            name: name.to_string(),
            job_repository_name: text("jobRepositoryName"),
            job_workflow_ref: text("jobWorkflowRef"),
            workflow_run_id: runner
                .pointer("/status/workflowRunId")
                .and_then(Value::as_i64)
                .filter(|n| *n != 0),
            job_display_name: text("jobDisplayName"),
        }
    }
}

/// The runners of the set concerned, as one pass sorts them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunnerTally {
    pub idle: usize,
    pub pending: usize,
    pub busy: Vec<BusyRunner>,
    /// Idle or pending runners with `status.runnerId` 0.
    pub unregistered: usize,
    pub finished: usize,
    pub failed: usize,
    pub outdated: usize,
    pub deleting: usize,
}

impl RunnerTally {
    /// Sort one runner (its name and object) as release `version` does
    /// (`newEphemeralRunnersByStates`; before 0.14.0 an `Outdated` phase is pending, as any phase
    /// the switch does not name).
    pub fn add(&mut self, version: Option<&str>, name: &str, runner: &Value) {
        let mut state = RunnerState::of(runner);
        if state == RunnerState::Outdated && version.is_some_and(|v| !version_at_least(v, "0.14.0"))
        {
            state = RunnerState::Pending;
        }
        let registered = runners::runner_id(runner) != 0;
        match state {
            RunnerState::Idle | RunnerState::Pending if !registered => self.unregistered += 1,
            RunnerState::Idle => self.idle += 1,
            RunnerState::Pending => self.pending += 1,
            RunnerState::Busy => self.busy.push(BusyRunner::of(name, runner)),
            RunnerState::Finished => self.finished += 1,
            RunnerState::Failed => self.failed += 1,
            RunnerState::Outdated => self.outdated += 1,
            RunnerState::Deleting => self.deleting += 1,
        }
    }
}

/// A set's `status.runningEphemeralRunners` and `status.pendingEphemeralRunners`, the counters
/// `drainingJobs` and the deferral read (0 when absent, as Go decodes them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub running: i64,
    pub pending: i64,
}

impl Counters {
    pub fn of(set_status: Option<&Value>) -> Counters {
        let n = |f: &str| {
            set_status
                .and_then(|s| s.get(f))
                .and_then(Value::as_i64)
                .unwrap_or(0)
        };
        Counters {
            running: n("runningEphemeralRunners"),
            pending: n("pendingEphemeralRunners"),
        }
    }

    fn active(self) -> bool {
        self.running + self.pending > 0
    }
}

/// The set a verdict was made against, as the forecast reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SetFacts {
    pub name: String,
    /// `status.runningEphemeralRunners` and `pendingEphemeralRunners`.
    pub counters: Counters,
    /// `status.currentReplicas` is 0: the set has no runner, whatever the input holds.
    pub empty: bool,
}

impl SetFacts {
    pub fn of(name: &str, status: Option<&Value>) -> SetFacts {
        let empty =
            status.is_some_and(|s| s.get("currentReplicas").and_then(Value::as_i64) == Some(0));
        SetFacts {
            name: name.to_string(),
            counters: Counters::of(status),
            empty,
        }
    }
}

/// What one change does to a scale set's work, per item of `diff` and `bump`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Impact {
    /// Whether the set's runners were read (a dump without EphemeralRunners: false, and no count
    /// below is a count).
    pub runners_known: bool,
    /// Idle runners (registered) deleted by this change.
    pub idle: usize,
    /// Pending runners (registered) deleted by this change.
    pub pending: usize,
    /// Runners with a job: they finish it first (on the old spec).
    pub busy: Vec<BusyRunner>,
    /// The runners ARC deletes at once: the idle and pending above, and the finished and failed
    /// (and outdated) ones the cleanup deletes.
    pub deleted: usize,
    /// Idle or pending runners not registered with GitHub (`status.runnerId` 0): ARC cannot
    /// remove them from the service, so they stay and the cleanup retries (ARC #4653).
    #[serde(skip_serializing_if = "is_zero")]
    pub unregistered: usize,
    /// The listener is deleted and made again.
    pub listener_recreated: bool,
    /// No job is picked up for this scale set from the listener's deletion until it runs again.
    pub job_pickup_pauses: bool,
    /// New jobs wait for the running ones: the update waits until the set's running and pending
    /// runners are gone (`eventual`, or the deferral of the later eras).
    pub waits_for_jobs: bool,
    /// The scale set is deleted (ARC's version check): its listener and registration go, so no
    /// job is picked up for it until it is made again.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub scale_set_deleted: bool,
    /// The wait can last forever: idle runners count as running and, without a listener, nothing
    /// scales them down (read from the code, not seen run).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub idle_runners_hold_the_wait: bool,
    /// ARC 0.9.0 to 0.14.2: the controller's `--update-strategy`, and where it was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update_strategy: Option<StrategyRead>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What the forecast reads of one scale set.
#[derive(Debug, Clone)]
pub struct Situation<'a> {
    pub change: Change,
    pub mechanism: Mechanism,
    /// The deciding release (`0.14.2`), `None` for the unreleased eras.
    pub version: Option<&'a str>,
    /// The set's runners, when read.
    pub runners: Option<&'a RunnerTally>,
    /// The counters of the set the decision reads (the newest set).
    pub counters: Counters,
    /// Whether the listener is made again besides (`listenerRestart` of the verdict).
    pub listener_restart: bool,
    /// ARC up to 0.14.2: the strategy in force.
    pub strategy: Option<&'a StrategyRead>,
}

/// The forecast of one change (see the module's rules).
pub fn forecast(s: &Situation<'_>) -> Impact {
    let empty = RunnerTally::default();
    let tally = s.runners.unwrap_or(&empty);
    let outdated_terminated = s.version.is_none_or(|v| version_at_least(v, "0.14.0"));
    let terminated = tally.finished
        + tally.failed
        + if outdated_terminated {
            tally.outdated
        } else {
            0
        };
    let eventual = s
        .strategy
        .is_some_and(|st| st.value == UpdateStrategy::Eventual);
    let mut impact = Impact {
        runners_known: s.runners.is_some(),
        idle: 0,
        pending: 0,
        busy: Vec::new(),
        deleted: 0,
        unregistered: 0,
        listener_recreated: false,
        job_pickup_pauses: false,
        waits_for_jobs: false,
        scale_set_deleted: false,
        idle_runners_hold_the_wait: false,
        update_strategy: match s.mechanism {
            Mechanism::RunnerSpecHash => s.strategy.cloned(),
            _ => None,
        },
    };
    let remove_now = |impact: &mut Impact, deleted_terminated: usize| {
        impact.idle = tally.idle;
        impact.pending = tally.pending;
        impact.busy = tally.busy.clone();
        impact.unregistered = tally.unregistered;
        impact.deleted = tally.idle + tally.pending + deleted_terminated;
    };
    let wait = |impact: &mut Impact| {
        impact.waits_for_jobs = true;
        impact.job_pickup_pauses = true;
        impact.listener_recreated = true;
        impact.busy = tally.busy.clone();
        impact.idle_runners_hold_the_wait =
            s.counters.running > 0 && (tally.idle > 0 || s.runners.is_none());
    };
    match s.change {
        Change::NewSet if eventual && s.counters.active() => {
            // drainingJobs: scaled to 0, idle and pending removed, finished deleted; busy runners
            // hold the new set back.
            remove_now(&mut impact, tally.finished);
            impact.waits_for_jobs = true;
            impact.job_pickup_pauses = true;
            impact.listener_recreated = true;
        }
        Change::NewSet => {
            // The old set deleted: cleanUpEphemeralRunners.
            remove_now(&mut impact, terminated);
            impact.job_pickup_pauses = true;
            impact.listener_recreated = true;
        }
        Change::ScaleSetDeleted => {
            // Every set deleted whatever the strategy: cleanUpEphemeralRunners.
            remove_now(&mut impact, terminated);
            impact.job_pickup_pauses = true;
            impact.scale_set_deleted = true;
        }
        Change::ListenerOnly if eventual && s.counters.active() => wait(&mut impact),
        Change::ListenerOnly => {
            impact.listener_recreated = true;
            impact.job_pickup_pauses = true;
        }
        Change::SpecPatched if s.counters.active() => wait(&mut impact),
        Change::SpecPatched | Change::Cleanup => {
            remove_now(&mut impact, terminated);
            if s.change == Change::SpecPatched && s.listener_restart {
                impact.listener_recreated = true;
                impact.job_pickup_pauses = true;
            }
        }
    }
    if s.change == Change::ScaleSetDeleted {
        impact.update_strategy = None; // the deletion does not look at it
    }
    if !impact.runners_known {
        impact.idle = 0;
        impact.pending = 0;
        impact.deleted = 0;
        impact.unregistered = 0;
    }
    impact
}

/// The totals of a report's impacts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImpactTotals {
    /// Scale sets with an impact.
    pub scale_sets: usize,
    /// Of those, the ones whose runners were not read.
    pub runners_unknown: usize,
    pub idle: usize,
    pub pending: usize,
    pub busy: usize,
    pub deleted: usize,
    #[serde(skip_serializing_if = "is_zero")]
    pub unregistered: usize,
    pub listeners_recreated: usize,
    pub job_pickup_pauses: usize,
    pub waits_for_jobs: usize,
    #[serde(skip_serializing_if = "is_zero")]
    pub scale_sets_deleted: usize,
}

impl ImpactTotals {
    pub fn of<'a>(impacts: impl IntoIterator<Item = &'a Impact>) -> ImpactTotals {
        let mut t = ImpactTotals::default();
        for i in impacts {
            t.scale_sets += 1;
            t.runners_unknown += usize::from(!i.runners_known);
            t.idle += i.idle;
            t.pending += i.pending;
            t.busy += i.busy.len();
            t.deleted += i.deleted;
            t.unregistered += i.unregistered;
            t.listeners_recreated += usize::from(i.listener_recreated);
            t.job_pickup_pauses += usize::from(i.job_pickup_pauses);
            t.waits_for_jobs += usize::from(i.waits_for_jobs);
            t.scale_sets_deleted += usize::from(i.scale_set_deleted);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn manager_args_are_read_as_go_flag_reads_them() {
        let p = |a: &[&str]| parse_manager_args(Some("0.14.2"), &args(a));
        let f = p(&[
            "--auto-scaling-runner-set-only",
            "--update-strategy",
            "eventual",
            "-log-level=debug",
        ])
        .unwrap();
        assert!(f.auto_scaling_runner_set_only);
        assert_eq!(f.strategy(), UpdateStrategy::Eventual);
        // The last one wins; anything but the two names is immediate.
        let f = p(&["--update-strategy=eventual", "-update-strategy=Eventual"]).unwrap();
        assert_eq!(f.strategy(), UpdateStrategy::Immediate);
        // A boolean flag takes no separate value: the next argument ends the flags.
        let f = p(&[
            "--auto-scaling-runner-set-only",
            "true",
            "--update-strategy=eventual",
        ])
        .unwrap();
        assert_eq!(f.update_strategy, None);
        // "--" ends the flags.
        let f = p(&["--", "--update-strategy=eventual"]).unwrap();
        assert_eq!(f.update_strategy, None);
        // A non-boolean flag takes the next argument, whatever it is.
        let f = p(&["--watch-single-namespace", "--update-strategy=eventual"]).unwrap();
        assert_eq!(
            f.watch_single_namespace.as_deref(),
            Some("--update-strategy=eventual")
        );
        assert!(p(&["--auto-scaling-runner-set-only=yes"]).is_err());
        assert!(p(&["--update-strategy"]).is_err());
        assert!(p(&["---update-strategy=x"]).is_err());
        assert!(p(&["--no-such-flag"]).is_err());
        assert!(p(&["-h"]).is_err());
        // pprof-addr is 0.14.2's alone.
        assert!(p(&["--pprof-addr=:6060"]).is_ok());
        assert!(parse_manager_args(Some("0.14.1"), &args(&["--pprof-addr=:6060"])).is_err());
        assert!(
            parse_manager_args(
                Some("0.9.2"),
                &args(&["--exclude-label-propagation-prefix=a"])
            )
            .is_err()
        );
    }

    fn runner(phase: Option<&str>, id: i64, job: Option<&str>) -> Value {
        let mut status = json!({"runnerId": id});
        if let Some(p) = phase {
            status["phase"] = json!(p);
        }
        if let Some(j) = job {
            status["jobId"] = json!(j);
            status["jobRepositoryName"] = json!("acme/api");
            status["jobDisplayName"] = json!("build");
            status["workflowRunId"] = json!(812);
        }
        json!({"status": status})
    }

    fn tally(version: Option<&str>) -> RunnerTally {
        let mut t = RunnerTally::default();
        t.add(version, "idle-1", &runner(Some("Running"), 1, None));
        t.add(version, "idle-2", &runner(Some("Running"), 2, None));
        t.add(version, "busy-1", &runner(Some("Running"), 3, Some("j1")));
        t.add(version, "pending-1", &runner(Some("Pending"), 4, None));
        t.add(version, "new", &runner(None, 0, None));
        t.add(version, "done", &runner(Some("Succeeded"), 5, None));
        t.add(version, "failed", &runner(Some("Failed"), 6, None));
        t.add(version, "outdated", &runner(Some("Outdated"), 7, None));
        let mut gone = runner(Some("Running"), 8, None);
        gone["metadata"] = json!({"deletionTimestamp": "2026-01-01T00:00:00Z"});
        t.add(version, "gone", &gone);
        t
    }

    fn situation<'a>(
        change: Change,
        mechanism: Mechanism,
        version: Option<&'a str>,
        runners: Option<&'a RunnerTally>,
        counters: Counters,
        strategy: Option<&'a StrategyRead>,
    ) -> Situation<'a> {
        Situation {
            change,
            mechanism,
            version,
            runners,
            counters,
            listener_restart: false,
            strategy,
        }
    }

    #[test]
    fn the_runner_spec_hash_era_deletes_the_old_set_or_drains_it() {
        let t = tally(Some("0.14.2"));
        assert_eq!(
            (t.idle, t.pending, t.busy.len(), t.unregistered),
            (2, 1, 1, 1)
        );
        let immediate = StrategyRead::release_default("offline");
        let active = Counters {
            running: 3,
            pending: 2,
        };
        let i = forecast(&situation(
            Change::NewSet,
            Mechanism::RunnerSpecHash,
            Some("0.14.2"),
            Some(&t),
            active,
            Some(&immediate),
        ));
        // idle 2 + pending 1 + finished, failed and outdated (0.14's terminated()).
        assert_eq!(i.deleted, 6);
        assert_eq!(i.unregistered, 1);
        assert_eq!(i.busy[0].job_repository_name.as_deref(), Some("acme/api"));
        assert!(i.listener_recreated && i.job_pickup_pauses && !i.waits_for_jobs);
        // Before 0.14.0 an Outdated phase is pending.
        let t13 = tally(Some("0.13.1"));
        assert_eq!(t13.pending, 2);
        let i = forecast(&situation(
            Change::NewSet,
            Mechanism::RunnerSpecHash,
            Some("0.13.1"),
            Some(&t13),
            active,
            Some(&immediate),
        ));
        assert_eq!(i.deleted, 2 + 2 + 2);
        let eventual = StrategyRead {
            value: UpdateStrategy::Eventual,
            from: "x".into(),
        };
        let i = forecast(&situation(
            Change::NewSet,
            Mechanism::RunnerSpecHash,
            Some("0.14.2"),
            Some(&t),
            active,
            Some(&eventual),
        ));
        // deleteIdleEphemeralRunners and cleanupFinishedEphemeralRunners: failed ones stay.
        assert_eq!(i.deleted, 2 + 1 + 1);
        assert!(i.waits_for_jobs && i.job_pickup_pauses);
        // Nothing running or pending: eventual acts as immediate.
        let i = forecast(&situation(
            Change::NewSet,
            Mechanism::RunnerSpecHash,
            Some("0.14.2"),
            Some(&t),
            Counters::default(),
            Some(&eventual),
        ));
        assert!(!i.waits_for_jobs);
        assert_eq!(i.update_strategy.unwrap().value, UpdateStrategy::Eventual);
    }

    #[test]
    fn a_listener_change_pauses_pickup_and_under_eventual_waits() {
        let t = tally(Some("0.14.2"));
        let eventual = StrategyRead {
            value: UpdateStrategy::Eventual,
            from: "x".into(),
        };
        let i = forecast(&situation(
            Change::ListenerOnly,
            Mechanism::RunnerSpecHash,
            Some("0.14.2"),
            Some(&t),
            Counters {
                running: 3,
                pending: 0,
            },
            Some(&eventual),
        ));
        assert!(
            i.listener_recreated
                && i.job_pickup_pauses
                && i.waits_for_jobs
                && i.idle_runners_hold_the_wait
        );
        assert_eq!(i.deleted, 0);
        let immediate = StrategyRead::release_default("offline");
        let i = forecast(&situation(
            Change::ListenerOnly,
            Mechanism::RunnerSpecHash,
            Some("0.14.2"),
            Some(&t),
            Counters {
                running: 3,
                pending: 0,
            },
            Some(&immediate),
        ));
        assert!(i.job_pickup_pauses && !i.waits_for_jobs);
    }

    #[test]
    fn later_eras_defer_through_the_scale_set_and_clean_up_at_once_in_the_set() {
        let t = tally(None);
        let active = Counters {
            running: 1,
            pending: 0,
        };
        let i = forecast(&situation(
            Change::SpecPatched,
            Mechanism::ActionableRevision,
            None,
            Some(&t),
            active,
            None,
        ));
        assert!(i.waits_for_jobs && i.job_pickup_pauses && i.listener_recreated);
        assert_eq!(i.deleted, 0);
        assert!(i.update_strategy.is_none());
        let i = forecast(&situation(
            Change::Cleanup,
            Mechanism::ActionableRevision,
            None,
            Some(&t),
            active,
            None,
        ));
        assert!(!i.waits_for_jobs && !i.job_pickup_pauses && !i.listener_recreated);
        assert_eq!(i.deleted, 6);
        // Unknown runners: never a count.
        let i = forecast(&situation(
            Change::Cleanup,
            Mechanism::IntegrityHash,
            None,
            None,
            active,
            None,
        ));
        assert!(!i.runners_known);
        assert_eq!((i.deleted, i.idle, i.busy.len()), (0, 0, 0));
    }

    #[test]
    fn totals_add_up() {
        let t = tally(Some("0.14.2"));
        let s = StrategyRead::release_default("offline");
        let a = forecast(&situation(
            Change::NewSet,
            Mechanism::RunnerSpecHash,
            Some("0.14.2"),
            Some(&t),
            Counters::default(),
            Some(&s),
        ));
        let b = forecast(&situation(
            Change::NewSet,
            Mechanism::RunnerSpecHash,
            Some("0.14.2"),
            None,
            Counters::default(),
            Some(&s),
        ));
        let totals = ImpactTotals::of([&a, &b]);
        assert_eq!(
            (
                totals.scale_sets,
                totals.runners_unknown,
                totals.deleted,
                totals.busy
            ),
            (2, 1, 6, 1)
        );
    }
}
