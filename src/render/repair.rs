//! `repair`'s text: one line per repair (the object, the action, its result, why), then what a
//! cleanup CronJob's selector would have deleted besides, then a summary.

use std::io::{self, Write};

use crate::report::repair::{RepairReport, RepairResult};

pub(crate) fn write_text(r: &RepairReport, out: &mut dyn Write) -> io::Result<()> {
    let mut counts = [0usize; 4];
    if !r.items.is_empty() {
        writeln!(
            out,
            "request {} (annotation kubectl-arc/repair-id on each object written)",
            r.request_id
        )?;
    }
    for item in &r.items {
        for rep in &item.repairs {
            let (would, done) = match rep.action {
                "RemoveFinalizer" => ("would remove finalizers", "removed finalizers"),
                a if a.starts_with("Delete") => ("would delete", "deleted"),
                _ => ("would patch", "patched"),
            };
            let result = match rep.result {
                RepairResult::WouldWrite => would,
                RepairResult::Written => done,
                RepairResult::Refused => "refused",
                RepairResult::Failed => "failed",
            };
            counts[rep.result as usize] += 1;
            write!(
                out,
                "{}/{}: {} {} ({}: {})",
                rep.object.namespace, rep.object.name, rep.repair, result, item.name, rep.evidence
            )?;
            match &rep.why {
                Some(why) => writeln!(out, ": {why}")?,
                None => writeln!(out)?,
            }
        }
        if let Some(b) = &item.cron_job_would_also_delete {
            writeln!(
                out,
                "  a cleanup CronJob selecting runners with a past failure would also delete {} runner(s) of {} ({} with a job): {}",
                b.runners.len(),
                item.name,
                b.with_a_job,
                b.runners.join(", ")
            )?;
        }
    }
    if r.items.is_empty() {
        writeln!(out, "nothing to repair")?;
        return Ok(());
    }
    writeln!(
        out,
        "{} would be written, {} written, {} refused, {} failed",
        counts[0], counts[1], counts[2], counts[3]
    )
}
