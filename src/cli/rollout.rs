//! What a run over several contexts one after the other (`bump`, `migrate` with `--contexts`)
//! says at its end, after each context's own lines.

use super::{Shell, name_a_few};

/// Where a run over several contexts ended, after each context's own lines: nothing written
/// anywhere because the dry run failed somewhere, or the context the writes stopped at and those
/// they did not reach.
pub(crate) fn say_rollout<R: crate::report::rollout::ContextReport>(
    rollout: &crate::report::rollout::Rollout<R>,
    shell: &mut Shell<'_>,
) -> std::io::Result<()> {
    use crate::report::rollout::{Phase, StageResult};
    match rollout.phase {
        Phase::CheckFailed => {
            let failed: Vec<String> = rollout
                .stages
                .iter()
                .filter(|s| s.result != StageResult::Succeeded)
                .map(|s| s.context.clone())
                .collect();
            shell.error(format_args!(
                "nothing was written in any context: the dry run before the writes failed in {}",
                name_a_few(&failed, 5)
            ))
        }
        Phase::Written => match rollout.stopped_at() {
            Some(stopped) if !rollout.not_reached().is_empty() => shell.error(format_args!(
                "stopped at context {}: nothing was written in {} (not reached)",
                stopped.context,
                name_a_few(&rollout.not_reached(), 5)
            )),
            _ => Ok(()),
        },
        Phase::DryRun => Ok(()),
    }
}
