//! `--watch` and `--wait`: list, then keep the census current from two watches ([`follow`]),
//! which rows changed, and when waiting is over.
//!
//! The operation decides (what changed, whether every set settled, whether waiting cannot help,
//! the [`Outcome`]); a [`FollowSink`] only shows what it is handed, as ripgrep's searcher pushes
//! matches into a printer that implements its `Sink`. The renderer's sink is
//! `render::follow::Printer`.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use anyhow::{Result, bail};

use super::gather::{
    gather, gather_parts, has_set, paired_outside, runner_pods, scale_sets_kept, without_sets,
};
use super::judge::{rejudge, scale_set_row};
use super::names::missing_names;
use super::surroundings::Surroundings;
use super::{Plan, with_rows};
use crate::cluster::api::Lent;
use crate::cluster::api::{ArcApi, Resource};
use crate::cluster::watch::Event;
use crate::core::status::wait::{self, Verdict};
use crate::core::status::{Census, RunnerFacts, SetFacts, SetKey, SetStatus, State, StatusReason};
use crate::input;
use crate::report::Outcome;
use crate::shell::Shell;

/// What `--watch` and `--wait` push to whoever shows them.
pub(crate) trait FollowSink {
    /// `--watch`: the first listing (maybe empty).
    fn listed(&mut self, rows: &[SetStatus], shell: &mut Shell<'_>) -> Result<()>;
    /// `--watch`: rows whose shown part changed, or a deleted set's last row (as Deleted).
    fn changed(&mut self, rows: &[SetStatus], shell: &mut Shell<'_>) -> Result<()>;
    /// Whether the output shows `after` otherwise than `before` (AGE aside).
    fn differs(&self, before: &SetStatus, after: &SetStatus) -> bool;
    /// `--wait`: one set's progress, first and whenever it differs.
    fn progress(&mut self, row: &SetStatus, shell: &mut Shell<'_>) -> Result<()>;
    /// `--wait` goes on: every row as it stands, sorted.
    fn waiting(&mut self, rows: &[SetStatus], shell: &mut Shell<'_>) -> Result<()>;
    /// `--wait` is over: every row as it stands, sorted, and why it ended.
    fn end(&mut self, rows: Vec<SetStatus>, why: &Ending, shell: &mut Shell<'_>) -> Result<()>;
}

/// Why `--wait` ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ending {
    /// Every set settled (exit 0).
    Settled,
    /// Waiting cannot help: only a person can change these sets (exit 1); the message names them.
    Stuck(String),
    /// `--timeout` passed (exit 1): where each set not settled stands, of `total` followed.
    TimedOut {
        after: Duration,
        waiting: Vec<String>,
        total: usize,
    },
}

impl Ending {
    pub(crate) fn outcome(&self) -> Outcome {
        match self {
            Ending::Settled => Outcome::Clean,
            Ending::Stuck(_) | Ending::TimedOut { .. } => Outcome::Drift,
        }
    }
}

/// What `--watch` and `--wait` have shown, deciding what to show next.
pub(crate) struct Follow<'s> {
    wait: bool,
    sink: &'s mut dyn FollowSink,
    rows: HashMap<SetKey, SetStatus>,
}

impl<'s> Follow<'s> {
    /// `wait`: `--wait` (else `--watch`).
    pub(crate) fn new(wait: bool, sink: &'s mut dyn FollowSink) -> Follow<'s> {
        Follow {
            wait,
            sink,
            rows: HashMap::new(),
        }
    }

    /// A set gone while the watch was away (a relist): not shown again, not waited for.
    pub(crate) fn forget(&mut self, key: &SetKey) {
        self.rows.remove(key);
    }

    fn sorted(&self) -> Vec<SetStatus> {
        let mut rows: Vec<SetStatus> = self.rows.values().cloned().collect();
        rows.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        rows
    }

    /// The first rows: shown (`--watch`), or each set's progress and maybe the end already
    /// (`--wait`: everything settled, or something waiting cannot change).
    pub(crate) fn start(
        &mut self,
        plan: &Plan,
        rows: Vec<SetStatus>,
        shell: &mut Shell<'_>,
    ) -> Result<Option<Outcome>> {
        if self.wait {
            if rows.is_empty() {
                bail!(
                    "no EphemeralRunnerSets match{}: nothing to wait for",
                    match &plan.namespace {
                        Some(ns) => format!(" in namespace {ns}"),
                        None => String::new(),
                    }
                );
            }
            for r in &rows {
                self.sink.progress(r, shell)?;
            }
        } else {
            self.sink.listed(&rows, shell)?;
        }
        for r in rows {
            self.rows.insert((r.namespace.clone(), r.name.clone()), r);
        }
        if self.wait {
            return self.verdict(shell);
        }
        Ok(None)
    }

    /// A set was deleted: `--watch` shows its row one last time as Deleted, as `kubectl get -w`
    /// prints a deleted object; `--wait` fails when it waited for that set by name.
    pub(crate) fn deleted(
        &mut self,
        plan: &Plan,
        key: &SetKey,
        shell: &mut Shell<'_>,
    ) -> Result<()> {
        let last = self.rows.remove(key);
        if self.wait {
            if plan.names.contains(&key.1) {
                bail!(
                    "EphemeralRunnerSet {}/{} was deleted while waiting for it",
                    key.0,
                    key.1
                );
            }
            return Ok(());
        }
        if let Some(mut row) = last {
            row.state = State::Deleted;
            row.reasons = vec![StatusReason::Deleted];
            self.sink.changed(&[row], shell)?;
        }
        Ok(())
    }

    /// Show what changed of the dirty sets (only what the output shows differs), and for `--wait`
    /// decide whether it is over.
    pub(crate) fn flush(
        &mut self,
        plan: &Plan,
        census: &mut Census,
        dirty: &mut HashSet<SetKey>,
        shell: &mut Shell<'_>,
    ) -> Result<Option<Outcome>> {
        let mut changed = Vec::new();
        let mut keys: Vec<SetKey> = dirty.drain().collect();
        keys.sort();
        for key in keys {
            let Some(row) = census.status(&key, plan.now()) else {
                continue;
            };
            let unchanged = self
                .rows
                .get(&key)
                .is_some_and(|before| !self.sink.differs(before, &row));
            if !unchanged {
                if self.wait {
                    self.sink.progress(&row, shell)?;
                } else {
                    changed.push(row.clone());
                }
            }
            self.rows.insert(key, row);
        }
        if self.wait {
            return self.verdict(shell);
        }
        if !changed.is_empty() {
            self.sink.changed(&changed, shell)?;
        }
        Ok(None)
    }

    /// A watch ended (a dump's, after its listing; a live watch never ends): what changed is
    /// shown, then `--watch` is over (exit 0, as `kubectl get --watch` when its stream ends) and
    /// `--wait` ends with its verdict, a set still waited for being one nothing will change
    /// (exit 1).
    pub(crate) fn ended(
        &mut self,
        plan: &Plan,
        census: &mut Census,
        dirty: &mut HashSet<SetKey>,
        shell: &mut Shell<'_>,
    ) -> Result<Outcome> {
        if let Some(code) = self.flush(plan, census, dirty, shell)? {
            return Ok(code);
        }
        if !self.wait {
            return Ok(Outcome::Clean);
        }
        let ended = self.verdict_by(wait::verdict_at_end, shell)?;
        Ok(ended.expect("verdict_at_end: never waiting"))
    }

    /// `--wait`: over when every set has settled (exit 0), or when waiting cannot help (exit 1).
    fn verdict(&mut self, shell: &mut Shell<'_>) -> Result<Option<Outcome>> {
        self.verdict_by(wait::verdict, shell)
    }

    /// `--wait` by `rule` (one of the core's wait rules): the end said, or the rows still waited
    /// for shown.
    fn verdict_by(
        &mut self,
        rule: fn(&[SetStatus]) -> Verdict,
        shell: &mut Shell<'_>,
    ) -> Result<Option<Outcome>> {
        let rows = self.sorted();
        let ending = match rule(&rows) {
            Verdict::Settled => Ending::Settled,
            Verdict::Stuck(stuck) => Ending::Stuck(stuck),
            Verdict::Waiting => {
                self.sink.waiting(&rows, shell)?;
                return Ok(None);
            }
        };
        self.sink.end(rows, &ending, shell)?;
        Ok(Some(ending.outcome()))
    }

    /// `--timeout` passed: the rows, and the sets still waited for.
    pub(crate) fn timed_out(&mut self, after: Duration, shell: &mut Shell<'_>) -> Result<Outcome> {
        let rows = self.sorted();
        let ending = Ending::TimedOut {
            after,
            waiting: wait::still_waiting(&rows),
            total: self.rows.len(),
        };
        self.sink.end(rows, &ending, shell)?;
        Ok(ending.outcome())
    }
}

/// `--watch` and `--wait`: list, then keep the census current from two watches of `api` (the
/// API server's; a dump's give their listing, then end, and the following ends with them).
pub(crate) async fn follow(
    api: &impl ArcApi,
    plan: &Plan,
    shown: &mut Follow<'_>,
    timeout: Option<Duration>,
    shell: &mut Shell<'_>,
) -> Result<Outcome> {
    let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
    // The runners' Pods as a one-shot listing reads them, read again with the listeners: the
    // rows of --watch and --wait are judged as `status` judges them.
    let mut live = Census::new(plan.layout, true);
    let pods_unreadable = match runner_pods(api, plan).await {
        Ok(pods) => {
            live.set_runner_pods(pods);
            None
        }
        Err(warning) => Some(warning),
    };
    let pods_readable = pods_unreadable.is_none();
    let gathered = gather(api, plan, live).await?.whole()?;
    let mut census = gathered.census;
    census.start_following();
    // Said once the sets could be listed, as a listing says it.
    if let Some(warning) = pods_unreadable {
        shell.warn(&warning)?;
    }
    let scale_sets = scale_sets_kept(api, plan).await;
    let around = Surroundings::read(api, plan).await;
    for w in &around.warnings {
        shell.warn(w)?;
    }
    // Scale sets, listeners, controllers and runner Pods are not watched: read again every few
    // seconds while the rows are followed, and every set judged again as a one-shot `status`
    // judges it, as also when a set comes or goes.
    rejudge(&scale_sets, &mut census, &around);
    // Scale sets without a set yet (just installed): waited for until ARC creates their set, as
    // `kubectl rollout status` waits for a new Deployment's ReplicaSet.
    let without = without_sets(plan, &scale_sets, &census);
    let waiting: Vec<input::Object> = (paired_outside(api, plan, without).await)
        .into_iter()
        .cloned()
        .collect();
    let waiting_rows: Vec<SetStatus> = (waiting.iter())
        .map(|a| scale_set_row(plan, a, &around))
        .collect();
    let missing = missing_names(plan, &census, &waiting_rows, api.not_found_in());
    if !missing.is_empty() {
        for e in &missing {
            shell.error(e)?;
        }
        return Ok(Outcome::Failed);
    }
    let rows = with_rows(census.statuses(plan.now()), waiting_rows);
    if let Some(code) = shown.start(plan, rows, shell)? {
        return Ok(code);
    }
    let watched = Watched {
        scale_sets,
        around,
        waiting,
        adopted: HashSet::new(),
        dirty: HashSet::new(),
        pods_readable,
        deadline,
        timeout: timeout.unwrap_or_default(),
    };
    let versions = (gathered.sets_version, gathered.runners_version);
    follow_events(api, plan, shown, shell, census, watched, versions).await
}

/// What [`follow`] keeps beside the census while it follows the watches.
struct Watched {
    /// The scale sets, the listeners and controllers, read again every few seconds.
    scale_sets: Vec<Lent<'static>>,
    around: Surroundings,
    /// Scale sets without a set yet, waited for until ARC creates one.
    waiting: Vec<input::Object>,
    /// Sets ARC created for a waited-for scale set, whatever their name (`<name>-xxxxx` up to
    /// 0.14): followed as if they had been named.
    adopted: HashSet<SetKey>,
    /// The sets whose rows changed since the last flush.
    dirty: HashSet<SetKey>,
    /// Whether the runners' Pods could be read when following began (else not read again).
    pods_readable: bool,
    /// When to give up (`--timeout`), and the timeout that says.
    deadline: Option<tokio::time::Instant>,
    timeout: Duration,
}

/// The follow loop: fold the events of the sets' and the runners' watches into the census, print
/// the changed rows at most every 100 ms, read the surroundings again every 5 s, and stop when
/// `shown` says so, at the deadline, or when a watch ends (nothing more will change). The
/// watches start at the listing's resource `versions` (the sets', the runners').
async fn follow_events(
    api: &impl ArcApi,
    plan: &Plan,
    shown: &mut Follow<'_>,
    shell: &mut Shell<'_>,
    mut census: Census,
    mut w: Watched,
    (sets_version, runners_version): (String, String),
) -> Result<Outcome> {
    let reread = || tokio::time::Instant::now() + Duration::from_secs(5);
    let mut reread_at = reread();
    let mut sets_watch = api.watch(
        Resource::EPHEMERAL_RUNNER_SETS,
        plan.set_scope(),
        sets_version,
    )?;
    let mut runners_watch = api.watch(
        Resource::EPHEMERAL_RUNNERS,
        plan.runner_scope(),
        runners_version,
    )?;
    let mut flush_at: Option<tokio::time::Instant> = None;
    let far = || tokio::time::Instant::now() + Duration::from_secs(86400 * 365);
    let soon = || tokio::time::Instant::now() + Duration::from_millis(100);
    loop {
        let flush_deadline = flush_at.unwrap_or_else(far);
        let timeout_deadline = w.deadline.unwrap_or_else(far);
        tokio::select! {
            event = sets_watch.next() => {
                match event? {
                    Event::Applied(o) => set_applied(&o, plan, &mut census, &mut w, shown)?,
                    Event::Deleted(o) => {
                        if let Ok(facts) = SetFacts::from_object(&o) {
                            let key = (facts.namespace, facts.name);
                            census.remove_set(&key);
                            shown.deleted(plan, &key, shell)?;
                            rejudge(&w.scale_sets, &mut census, &w.around);
                            w.dirty.extend(census.keys().cloned().collect::<Vec<_>>());
                        }
                    }
                    Event::Relist => {
                        let g = gather_parts(api, plan, census, true, false).await?.whole()?;
                        census = g.census;
                        let gone: Vec<SetKey> =
                            census.keys().filter(|k| !g.seen.contains(*k)).cloned().collect();
                        for k in gone {
                            census.remove_set(&k);
                            shown.forget(&k);
                        }
                        w.dirty.extend(g.seen);
                        sets_watch.resume_from(g.sets_version);
                    }
                    Event::Reconnecting(why) => shell.status(why)?,
                    Event::End => return shown.ended(plan, &mut census, &mut w.dirty, shell),
                }
                flush_at.get_or_insert_with(soon);
            }
            event = runners_watch.next() => {
                match event? {
                    Event::Applied(o) => {
                        if let Ok(runner) = RunnerFacts::from_object(&o)
                            && let Some(key) = census.add_runner(&runner)
                        {
                            w.dirty.insert(key);
                        }
                    }
                    Event::Deleted(o) => {
                        if let Some(key) = census.remove_runner(o.namespace(), o.name()) {
                            w.dirty.insert(key);
                        }
                    }
                    Event::Relist => {
                        census.clear_runners();
                        let g = gather_parts(api, plan, census, false, true).await?.whole()?;
                        census = g.census;
                        w.dirty.extend(census.keys().cloned().collect::<Vec<_>>());
                        runners_watch.resume_from(g.runners_version);
                    }
                    Event::Reconnecting(why) => shell.status(why)?,
                    Event::End => return shown.ended(plan, &mut census, &mut w.dirty, shell),
                }
                flush_at.get_or_insert_with(soon);
            }
            _ = tokio::time::sleep_until(flush_deadline), if flush_at.is_some() => {
                flush_at = None;
                if let Some(code) = shown.flush(plan, &mut census, &mut w.dirty, shell)? {
                    return Ok(code);
                }
            }
            _ = tokio::time::sleep_until(reread_at) => {
                reread_at = reread();
                reread_surroundings(api, plan, &mut census, &mut w).await;
                flush_at.get_or_insert_with(soon);
            }
            _ = tokio::time::sleep_until(timeout_deadline), if w.deadline.is_some() => {
                return shown.timed_out(w.timeout, shell);
            }
        }
    }
}

/// A set added or changed while followed: a selected (or adopted) set is judged again, a set
/// ARC made for a waited-for scale set is adopted, and a scale set that has its set is no longer
/// waited for.
fn set_applied(
    o: &input::Object,
    plan: &Plan,
    census: &mut Census,
    w: &mut Watched,
    shown: &mut Follow<'_>,
) -> Result<()> {
    let facts = SetFacts::from_object(o)
        .map_err(|e| anyhow::anyhow!("an EphemeralRunnerSet event: {e}"))?;
    let key = (facts.namespace.clone(), facts.name.clone());
    if plan.selects(&key) || w.adopted.contains(&key) {
        // ARC up to 0.14 replaces a set with a new one: which set is the newest (and so judged by
        // the hash, and given the listener) is decided again.
        let replaced = facts.spec_hash_era || !census.contains(&key);
        census.upsert_set(facts);
        w.dirty.insert(key);
        if replaced {
            rejudge(&w.scale_sets, census, &w.around);
            w.dirty.extend(census.keys().cloned().collect::<Vec<_>>());
        }
    } else if !w.waiting.is_empty() {
        census.upsert_set(facts);
        if w.waiting.iter().any(|a| has_set(a, census)) {
            w.adopted.insert(key.clone());
            w.dirty.insert(key);
        } else {
            census.remove_set(&key);
        }
    }
    if !w.waiting.is_empty() {
        w.waiting.retain(|a| {
            let found = has_set(a, census);
            if found {
                shown.forget(&a.key());
            }
            !found
        });
    }
    Ok(())
}

/// Read again what is not watched (the runners' Pods, if they could be read at first, the scale
/// sets and the surroundings), and judge every set again.
async fn reread_surroundings(api: &impl ArcApi, plan: &Plan, census: &mut Census, w: &mut Watched) {
    if w.pods_readable
        && let Ok(pods) = runner_pods(api, plan).await
    {
        census.set_runner_pods(pods);
    }
    w.scale_sets = scale_sets_kept(api, plan).await;
    w.around = Surroundings::read(api, plan).await;
    rejudge(&w.scale_sets, census, &w.around);
    w.dirty.extend(census.keys().cloned().collect::<Vec<_>>());
}
