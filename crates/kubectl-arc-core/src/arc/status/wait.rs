//! `status --wait`'s rules: when a set has settled, where a set stands, and when waiting cannot
//! help. Pure functions of the rows, as kube-runtime's `wait::conditions` are of an object and
//! kubectl's `rollout status` decides from its `StatusViewer.Status` alone
//! (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go): the follow loop only asks them what
//! the rows it holds say ([`verdict`]), and shows the answer.

use super::{SetStatus, State};

/// What `--wait` makes of the rows it follows ([`verdict`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every set settled ([`settled`]): waiting is over (exit 0).
    Settled,
    /// Only a person can change some sets ([`cannot_progress`], its message): waiting is over
    /// (exit 1).
    Stuck(String),
    /// Waiting goes on.
    Waiting,
}

/// What `--wait` waits for: [`SetStatus::settled`] (Synced, or a set being deleted).
pub fn settled(row: &SetStatus) -> bool {
    row.settled()
}

/// A set's state and its first reason, for a message about waiting: `ns/name is Pending (...)`.
pub fn where_it_stands(row: &SetStatus) -> String {
    let reason = row.reasons.first().map(|x| format!(" ({x})"));
    format!(
        "{}/{} is {}{}",
        row.namespace,
        row.name,
        row.state,
        reason.unwrap_or_default()
    )
}

/// Whether waiting cannot change a set of this state: what only a person fixes (a spec ARC
/// refuses or cannot build, a mechanism `migrate` must change, a listener or runners that fail, a
/// version check that deletes the scale set). What ARC does by itself is waited for.
pub fn only_a_person_changes(state: State) -> bool {
    matches!(
        state,
        State::Outdated
            | State::Invalid
            | State::Legacy
            | State::SpecHash
            | State::RecycleLoop
            | State::ListenerFailing
            | State::RunnersFailed
            | State::VersionRejected
    )
}

/// The sets whose state waiting cannot change ([`only_a_person_changes`]), said with their
/// reasons: `--wait` fails at once on them instead of waiting for its timeout (or forever).
pub fn cannot_progress(rows: &[SetStatus]) -> Option<String> {
    let stuck: Vec<String> = rows
        .iter()
        .filter(|r| only_a_person_changes(r.state))
        .map(where_it_stands)
        .collect();
    (!stuck.is_empty()).then(|| format!("waiting cannot help: {}", name_a_few(&stuck, 3)))
}

/// `--wait`'s verdict on the rows as they stand: over when every set has settled, or when waiting
/// cannot help; else it goes on.
pub fn verdict(rows: &[SetStatus]) -> Verdict {
    if rows.iter().all(settled) {
        Verdict::Settled
    } else if let Some(stuck) = cannot_progress(rows) {
        Verdict::Stuck(stuck)
    } else {
        Verdict::Waiting
    }
}

/// `--wait`'s verdict when nothing more will come (the source's watch ended: a dump's, after its
/// listing): [`verdict`], with a set still waited for one that will not change (never
/// [`Verdict::Waiting`]).
pub fn verdict_at_end(rows: &[SetStatus]) -> Verdict {
    match verdict(rows) {
        Verdict::Waiting => Verdict::Stuck(format!(
            "nothing more will come (the watch ended): {}",
            name_a_few(&still_waiting(rows), 3)
        )),
        done => done,
    }
}

/// Where each set not settled stands ([`where_it_stands`]), in the rows' order: what `--timeout`
/// says it waited for.
pub fn still_waiting(rows: &[SetStatus]) -> Vec<String> {
    rows.iter()
        .filter(|r| !settled(r))
        .map(where_it_stands)
        .collect()
}

/// The first `few` of `things` joined by `; `, and how many more (`a; b; c; and 2 more`), as the
/// reports name a few (`report::name_a_few`).
fn name_a_few(things: &[String], few: usize) -> String {
    if things.len() <= few {
        return things.join("; ");
    }
    format!(
        "{}; and {} more",
        things[..few].join("; "),
        things.len() - few
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runners::RunnerCounts;
    use crate::status::StatusReason;

    fn row(name: &str, state: State) -> SetStatus {
        SetStatus {
            namespace: "ci".into(),
            name: name.into(),
            spec_revision: Some(1),
            applied_revision: Some(1),
            state,
            runners: RunnerCounts::default(),
            reasons: Vec::new(),
            phase: None,
            spec_revision_written_by: None,
            creation_timestamp: None,
            age_seconds: None,
            ids: Default::default(),
        }
    }

    #[test]
    fn wait_settles_on_synced_or_deleting_and_gives_up_on_what_only_a_person_fixes() {
        assert!(settled(&row("a", State::Synced)));
        assert!(settled(&row("a", State::Deleting)));
        for state in [State::Pending, State::Stale, State::Propagating] {
            assert!(!settled(&row("a", state)), "{state:?}");
        }
        let waiting = [row("a", State::Pending), row("b", State::Propagating)];
        assert_eq!(cannot_progress(&waiting), None);
        let stuck = [
            row("a", State::Pending),
            row("b", State::Outdated),
            row("c", State::Invalid),
        ];
        // What a person must fix fails at once too; what ARC fixes by itself is waited for.
        for state in [
            State::ListenerFailing,
            State::RunnersFailed,
            State::VersionRejected,
        ] {
            assert!(cannot_progress(&[row("x", state)]).is_some(), "{state:?}");
        }
        assert_eq!(cannot_progress(&[row("x", State::ListenerDown)]), None);
        assert!(!settled(&row("x", State::ListenerDown)));
        let why = cannot_progress(&stuck).unwrap();
        assert_eq!(
            why,
            "waiting cannot help: ci/b is Outdated; ci/c is Invalid"
        );
    }

    /// A set is said with its first reason; more than three stuck sets are named three and
    /// counted.
    #[test]
    fn where_a_set_stands_is_its_state_and_first_reason_and_a_few_are_named() {
        let mut deleted = row("a", State::Deleted);
        deleted.reasons = vec![StatusReason::Deleted, StatusReason::Deleted];
        assert_eq!(
            where_it_stands(&deleted),
            "ci/a is Deleted (the EphemeralRunnerSet was deleted)"
        );
        assert_eq!(
            where_it_stands(&row("b", State::Pending)),
            "ci/b is Pending"
        );
        let stuck: Vec<SetStatus> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|n| row(n, State::Legacy))
            .collect();
        assert_eq!(
            cannot_progress(&stuck).unwrap(),
            "waiting cannot help: ci/a is Legacy; ci/b is Legacy; ci/c is Legacy; and 2 more"
        );
    }

    /// The verdict: settled when every row is (none: settled, as `all` of nothing), stuck when a
    /// row only a person changes is among those still moving, else waiting; the timeout names
    /// the rows not settled, in order.
    #[test]
    fn the_verdict_is_settled_stuck_or_waiting() {
        assert_eq!(verdict(&[]), Verdict::Settled);
        let synced = row("a", State::Synced);
        let deleting = row("b", State::Deleting);
        assert_eq!(verdict(&[synced.clone(), deleting]), Verdict::Settled);
        let pending = row("c", State::Pending);
        assert_eq!(
            verdict(&[synced.clone(), pending.clone()]),
            Verdict::Waiting
        );
        let legacy = row("d", State::Legacy);
        assert_eq!(
            verdict(&[pending.clone(), legacy]),
            Verdict::Stuck("waiting cannot help: ci/d is Legacy".into())
        );
        let creating = row("e", State::Creating);
        assert_eq!(
            still_waiting(&[pending, synced, creating]),
            ["ci/c is Pending", "ci/e is Creating"]
        );
        for state in [
            State::Pending,
            State::Stale,
            State::Propagating,
            State::Registering,
            State::Creating,
            State::Replacing,
            State::Draining,
            State::ListenerDown,
            State::RunnersNotRunning,
            State::Deleted,
        ] {
            assert!(!only_a_person_changes(state), "{state:?}");
        }
    }

    /// When nothing more will come, a set still waited for will not change: stuck, naming where
    /// it stands; settled and stuck rows end as they would.
    #[test]
    fn at_the_end_nothing_is_waited_for() {
        let (synced, pending) = (row("a", State::Synced), row("c", State::Pending));
        assert_eq!(
            verdict_at_end(std::slice::from_ref(&synced)),
            Verdict::Settled
        );
        assert_eq!(
            verdict_at_end(&[synced, pending.clone()]),
            Verdict::Stuck("nothing more will come (the watch ended): ci/c is Pending".into())
        );
        let legacy = row("d", State::Legacy);
        assert_eq!(
            verdict_at_end(&[pending, legacy]),
            Verdict::Stuck("waiting cannot help: ci/d is Legacy".into())
        );
    }
}
