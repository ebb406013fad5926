//! The impact forecast in words: the clause a verdict line carries, and the totals line that
//! closes a report.

use crate::core::impact::{BusyRunner, Impact, ImpactTotals};

/// How many busy runners a line names before it counts the rest.
const BUSY_NAMED: usize = 3;

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// One busy runner's job: `acme/api: build, run 812` (its runner's name when the status has no
/// job details).
fn job(b: &BusyRunner) -> String {
    let mut s = b.job_repository_name.clone().unwrap_or_default();
    if let Some(name) = &b.job_display_name {
        if !s.is_empty() {
            s.push_str(": ");
        }
        s.push_str(name);
    }
    if let Some(run) = b.workflow_run_id {
        if !s.is_empty() {
            s.push_str(", ");
        }
        s.push_str(&format!("run {run}"));
    }
    if s.is_empty() { b.name.clone() } else { s }
}

/// The busy runners' jobs, the first few named.
pub(crate) fn jobs(busy: &[BusyRunner]) -> String {
    let mut named: Vec<String> = busy.iter().take(BUSY_NAMED).map(job).collect();
    if busy.len() > BUSY_NAMED {
        named.push(format!("and {} more", busy.len() - BUSY_NAMED));
    }
    named.join("; ")
}

/// The clause of a verdict line: what is deleted now, which jobs finish first, whether new jobs
/// wait and job pickup pauses.
pub(crate) fn clause(i: &Impact) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !i.runners_known {
        parts.push(
            "its runners are not in the input (add ephemeralrunners to the dump), so who is hit is not known"
                .to_string(),
        );
    } else {
        let terminated = i.deleted - i.idle - i.pending;
        let mut now = Vec::new();
        if i.idle > 0 {
            now.push(format!("{} idle", i.idle));
        }
        if i.pending > 0 {
            now.push(format!("{} pending", i.pending));
        }
        if terminated > 0 {
            now.push(format!("{terminated} finished or failed"));
        }
        if !now.is_empty() {
            let n = i.deleted;
            parts.push(format!(
                "{} {} deleted now",
                and_list(&now),
                if n == 1 { "runner" } else { "runners" }
            ));
        }
        if !i.busy.is_empty() {
            let n = i.busy.len();
            let what = if n == 1 {
                "busy runner finishes its job"
            } else {
                "busy runners finish their jobs"
            };
            parts.push(format!("{n} {what} first ({})", jobs(&i.busy)));
        }
        if i.unregistered > 0 {
            parts.push(format!(
                "{} not registered with GitHub (status.runnerId 0) {} and the cleanup retries (ARC #4653)",
                plural(i.unregistered, "runner", "runners"),
                if i.unregistered == 1 { "stays" } else { "stay" }
            ));
        }
        if parts.is_empty() && !i.waits_for_jobs {
            parts.push("no runner is deleted".to_string());
        }
    }
    if i.waits_for_jobs {
        let mut wait =
            "new jobs wait until the set's running and pending runners are gone".to_string();
        if i.idle_runners_hold_the_wait {
            wait.push_str(
                " (idle runners count as running and, without a listener, nothing removes them)",
            );
        }
        parts.push(wait);
    }
    if i.scale_set_deleted {
        parts.push(
            "job pickup stops: the listener and the scale set's registration with GitHub are deleted with it"
                .to_string(),
        );
    } else if i.job_pickup_pauses {
        parts.push(if i.waits_for_jobs {
            "no job is picked up until the listener is made again after that".to_string()
        } else {
            "job pickup pauses while the listener is made again".to_string()
        });
    }
    parts.join("; ")
}

/// Whether an impact touches any work: a runner deleted, kept busy or unknown, job pickup paused,
/// new jobs held back.
pub(crate) fn touches(i: &Impact) -> bool {
    !i.runners_known
        || i.deleted > 0
        || !i.busy.is_empty()
        || i.unregistered > 0
        || i.job_pickup_pauses
        || i.waits_for_jobs
        || i.scale_set_deleted
}

/// The detail line naming the update strategy and where it was read (ARC up to 0.14).
pub(crate) fn strategy_line(i: &Impact) -> Option<String> {
    let s = i.update_strategy.as_ref()?;
    Some(format!("update strategy {}: {}", s.value.as_str(), s.from))
}

/// The totals line that closes a report.
pub(crate) fn totals_line(t: &ImpactTotals) -> String {
    let mut parts = Vec::new();
    if t.runners_unknown < t.scale_sets {
        parts.push(format!(
            "{} deleted now",
            plural(t.deleted, "runner", "runners")
        ));
        parts.push(format!(
            "{} finishing {} first",
            plural(t.busy, "busy runner", "busy runners"),
            if t.busy == 1 { "its job" } else { "their jobs" }
        ));
    }
    if t.job_pickup_pauses > 0 {
        parts.push(format!(
            "job pickup pauses for {}",
            plural(t.job_pickup_pauses, "scale set", "scale sets")
        ));
    }
    if t.scale_sets_deleted > 0 {
        parts.push(format!(
            "{} deleted by the version check",
            plural(t.scale_sets_deleted, "scale set", "scale sets")
        ));
    }
    if t.waits_for_jobs > 0 {
        parts.push(format!(
            "new jobs wait for running ones in {}",
            plural(t.waits_for_jobs, "scale set", "scale sets")
        ));
    }
    let mut line = format!(
        "impact on {}",
        plural(t.scale_sets, "scale set", "scale sets")
    );
    if !parts.is_empty() {
        line.push_str(&format!(": {}", parts.join(", ")));
    }
    if t.runners_unknown > 0 {
        line.push_str(&format!(
            " ({} without {} runners in the input: not counted)",
            t.runners_unknown,
            if t.runners_unknown == 1 {
                "its"
            } else {
                "their"
            }
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy(n: usize) -> Vec<BusyRunner> {
        (0..n)
            .map(|k| BusyRunner {
                name: format!("r-{k}"),
                job_repository_name: Some("acme/api".into()),
                job_workflow_ref: None,
                workflow_run_id: Some(800 + k as i64),
                job_display_name: Some("build".into()),
            })
            .collect()
    }

    fn impact() -> Impact {
        Impact {
            runners_known: true,
            idle: 3,
            pending: 1,
            busy: busy(2),
            deleted: 4,
            unregistered: 0,
            listener_recreated: true,
            job_pickup_pauses: true,
            waits_for_jobs: false,
            idle_runners_hold_the_wait: false,
            scale_set_deleted: false,
            update_strategy: None,
        }
    }

    #[test]
    fn a_replacement_reads_as_the_issue_asks() {
        assert_eq!(
            clause(&impact()),
            "3 idle and 1 pending runners deleted now; 2 busy runners finish their jobs first (acme/api: build, run 800; acme/api: build, run 801); job pickup pauses while the listener is made again"
        );
        let mut i = impact();
        i.busy = busy(5);
        i.waits_for_jobs = true;
        assert!(clause(&i).contains("run 802; and 2 more"));
        assert!(clause(&i).contains("new jobs wait until"));
        i.runners_known = false;
        assert!(clause(&i).starts_with("its runners are not in the input"));
    }
}
