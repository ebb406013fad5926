//! `bump --contexts` and `migrate --contexts`: one write carried through several kubeconfig
//! contexts, as a careful operator would by hand.
//!
//! 1. Every context is dry-run first (`--dry-run=server`: the API server validates each write,
//!    persisting nothing). If any context fails it (unreachable, refused credentials, a set
//!    refused or failing), nothing is written anywhere and the dry run is the report.
//! 2. Then the contexts are written one after the other, in the order given (so the first is the
//!    canary; with `--wait` its acknowledgement is awaited before the next is touched), and the
//!    run stops at the first context that does not succeed. The contexts after it are
//!    `NotReached`: nothing was written there.
//!
//! With `--dry-run` the dry run over every context is the whole run. One request (bump's request
//! id, the same jitter seed) is carried everywhere, so running the same command again with
//! `--request-id` finishes the request without writing any set twice.
//!
//! Ops layer: the command's own one-context operation is handed in as `run`, and what each
//! context said on stderr is said with its name ([`Shell::set_context`]).

use std::io;

use crate::cluster::ConnectOptions;
use crate::cluster::write::DryRun;
use crate::ops::fleet::{context_failure, in_context};
use crate::report::Outcome;
use crate::report::rollout::{ContextReport, Phase, Rollout, Stage, StageResult};
use crate::shell::Shell;

/// A run over several contexts, checked before anything is contacted.
pub(crate) struct RolloutPlan<'a> {
    /// In the order they are written: the first is the canary.
    pub(crate) contexts: &'a [String],
    /// The kubeconfig flags every context shares (`--context` is each in turn).
    pub(crate) connect: &'a ConnectOptions,
    /// The command's `--dry-run`.
    pub(crate) dry_run: DryRun,
}

/// Run `run` (the command's operation on one context, in a dry-run mode) through the contexts of
/// `plan` by the rules above.
pub(crate) fn roll<R: ContextReport>(
    plan: &RolloutPlan<'_>,
    shell: &mut Shell<'_>,
    mut run: impl FnMut(&ConnectOptions, DryRun, &mut Shell<'_>) -> anyhow::Result<R>,
) -> io::Result<Rollout<R>> {
    if plan.dry_run != DryRun::None {
        let stages = each(
            plan,
            |connect, context, shell| {
                shell.set_context(Some(context));
                let r = run(connect, plan.dry_run, shell);
                shell.set_context(None);
                r
            },
            shell,
        )?;
        return Ok(Rollout {
            phase: Phase::DryRun,
            dry_run: plan.dry_run,
            stages,
        });
    }
    // The dry run before any write: its lines are said only if it fails somewhere (if it passes,
    // the writes say the same again).
    let mut said: Vec<Vec<u8>> = Vec::new();
    let checks = each(
        plan,
        |connect, context, shell| {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            shell.set_context(Some(context));
            let r = run(
                connect,
                DryRun::Server,
                &mut shell.capture(&mut out, &mut err),
            );
            shell.set_context(None);
            said.push(err);
            r
        },
        shell,
    )?;
    if checks.iter().any(|s| s.result != StageResult::Succeeded) {
        for err in said {
            shell.err().write_all(&err)?;
        }
        return Ok(Rollout {
            phase: Phase::CheckFailed,
            dry_run: DryRun::Server,
            stages: checks,
        });
    }
    let mut stages: Vec<Stage<R>> = Vec::with_capacity(plan.contexts.len());
    let mut stopped = false;
    for (context, check) in plan.contexts.iter().zip(checks) {
        if stopped {
            stages.push(Stage {
                result: StageResult::NotReached,
                report: None,
                error: None,
                ..check
            });
            continue;
        }
        let (connect, _) = in_context(plan.connect, context);
        shell.set_context(Some(context));
        let r = run(&connect, DryRun::None, shell);
        shell.set_context(None);
        let written = stage(context, check.server, r);
        stopped = written.result != StageResult::Succeeded;
        stages.push(written);
    }
    Ok(Rollout {
        phase: Phase::Written,
        dry_run: DryRun::None,
        stages,
    })
}

/// `run` in every context of `plan`, in order, none skipped.
fn each<R: ContextReport>(
    plan: &RolloutPlan<'_>,
    mut run: impl FnMut(&ConnectOptions, &str, &mut Shell<'_>) -> anyhow::Result<R>,
    shell: &mut Shell<'_>,
) -> io::Result<Vec<Stage<R>>> {
    let mut stages = Vec::with_capacity(plan.contexts.len());
    for context in plan.contexts {
        let (connect, server) = in_context(plan.connect, context);
        let r = run(&connect, context, shell);
        stages.push(stage(context, server, r));
    }
    Ok(stages)
}

/// One context's stage from what its run gave: its report's outcome, or the error that stopped it
/// before any set.
fn stage<R: ContextReport>(
    context: &str,
    server: Option<String>,
    ran: anyhow::Result<R>,
) -> Stage<R> {
    match ran {
        Ok(report) => Stage {
            context: context.to_string(),
            server,
            result: match report.outcome() {
                Outcome::Clean => StageResult::Succeeded,
                Outcome::Drift => StageResult::TimedOut,
                Outcome::Failed => StageResult::Failed,
            },
            report: Some(report),
            error: None,
        },
        Err(e) => Stage {
            context: context.to_string(),
            error: Some(context_failure(&e, server.as_deref())),
            server,
            result: StageResult::Failed,
            report: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::Terminal;

    /// A context's report that is only an outcome.
    #[derive(Debug)]
    struct Said(Outcome);

    impl ContextReport for Said {
        type Item = ();
        const KIND: &'static str = "Said";
        fn items(&self) -> &[()] {
            &[]
        }
        fn outcome(&self) -> Outcome {
            self.0
        }
    }

    /// What each context gives in each mode: `check` in the dry run, `write` when written.
    #[derive(Default)]
    struct Script {
        check: Vec<(&'static str, Result<Outcome, &'static str>)>,
        write: Vec<(&'static str, Result<Outcome, &'static str>)>,
    }

    /// Roll `contexts` with `dry_run` through `script`; the rollout, every call made (context,
    /// mode) and stderr.
    fn roll_through(
        contexts: &[&str],
        dry_run: DryRun,
        script: &Script,
    ) -> (Rollout<Said>, Vec<(String, DryRun)>, String) {
        let contexts: Vec<String> = contexts.iter().map(|c| c.to_string()).collect();
        let connect = ConnectOptions::default();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut shell = Shell::new(&mut out, &mut err, Terminal::default());
        let mut calls = Vec::new();
        let plan = RolloutPlan {
            contexts: &contexts,
            connect: &connect,
            dry_run,
        };
        let rollout = roll(&plan, &mut shell, |connect, mode, shell| {
            let context = connect.context.clone().unwrap();
            calls.push((context.clone(), mode));
            shell.warn("said inside").unwrap();
            let table = if mode == DryRun::None {
                &script.write
            } else {
                &script.check
            };
            let said = table
                .iter()
                .find(|(c, _)| *c == context)
                .map_or(Ok(Outcome::Clean), |(_, r)| *r);
            said.map(Said).map_err(|e| anyhow::anyhow!(e))
        })
        .unwrap();
        drop(shell);
        (rollout, calls, String::from_utf8(err).unwrap())
    }

    fn results(r: &Rollout<Said>) -> Vec<(&str, StageResult)> {
        r.stages
            .iter()
            .map(|s| (s.context.as_str(), s.result))
            .collect()
    }

    #[test]
    fn every_context_is_dry_run_before_the_first_write() {
        let (r, calls, err) = roll_through(&["a", "b", "c"], DryRun::None, &Script::default());
        let modes: Vec<(&str, DryRun)> = calls.iter().map(|(c, m)| (c.as_str(), *m)).collect();
        assert_eq!(
            modes,
            [
                ("a", DryRun::Server),
                ("b", DryRun::Server),
                ("c", DryRun::Server),
                ("a", DryRun::None),
                ("b", DryRun::None),
                ("c", DryRun::None),
            ]
        );
        assert_eq!(r.phase, Phase::Written);
        assert_eq!(r.outcome(), Outcome::Clean);
        assert!(r.stopped_at().is_none());
        // The dry run that passed is not said; the writes' lines name their context.
        assert_eq!(
            err,
            "warning: context a: said inside\nwarning: context b: said inside\nwarning: context c: said inside\n"
        );
    }

    #[test]
    fn a_dry_run_that_fails_anywhere_keeps_every_write_back() {
        for failing in [Err("no route"), Ok(Outcome::Failed)] {
            let script = Script {
                check: vec![("c", failing)],
                ..Script::default()
            };
            let (r, calls, err) = roll_through(&["a", "b", "c"], DryRun::None, &script);
            assert!(calls.iter().all(|(_, m)| *m == DryRun::Server), "{calls:?}");
            assert_eq!(r.phase, Phase::CheckFailed);
            assert_eq!(r.dry_run, DryRun::Server);
            assert_eq!(
                results(&r),
                [
                    ("a", StageResult::Succeeded),
                    ("b", StageResult::Succeeded),
                    ("c", StageResult::Failed)
                ]
            );
            assert_eq!(r.stages[2].error.is_some(), failing.is_err());
            assert_eq!(r.outcome(), Outcome::Failed);
            // The dry run's lines are said, now that it is what the run did.
            assert_eq!(err.lines().count(), 3, "{err}");
        }
    }

    #[test]
    fn the_writes_stop_at_the_first_context_that_does_not_succeed() {
        for (failing, result) in [
            (Ok(Outcome::Drift), StageResult::TimedOut),
            (Ok(Outcome::Failed), StageResult::Failed),
            (Err("gone"), StageResult::Failed),
        ] {
            let script = Script {
                write: vec![("b", failing)],
                ..Script::default()
            };
            let (r, calls, _) = roll_through(&["a", "b", "c"], DryRun::None, &script);
            let written: Vec<&str> = calls
                .iter()
                .filter(|(_, m)| *m == DryRun::None)
                .map(|(c, _)| c.as_str())
                .collect();
            assert_eq!(written, ["a", "b"]);
            assert_eq!(
                results(&r),
                [
                    ("a", StageResult::Succeeded),
                    ("b", result),
                    ("c", StageResult::NotReached)
                ]
            );
            assert_eq!(r.stopped_at().map(|s| s.context.as_str()), Some("b"));
            assert_eq!(r.not_reached(), ["c"]);
            // A partial result is an error, even when the canary only timed out.
            assert_eq!(r.outcome(), Outcome::Failed);
        }
        // The last context timing out leaves nothing unreached: the timeout's own code.
        let script = Script {
            write: vec![("c", Ok(Outcome::Drift))],
            ..Script::default()
        };
        let (r, _, _) = roll_through(&["a", "c"], DryRun::None, &script);
        assert_eq!(r.outcome(), Outcome::Drift);
    }

    #[test]
    fn a_dry_run_asked_for_goes_through_every_context() {
        let script = Script {
            check: vec![("a", Err("refused")), ("b", Ok(Outcome::Failed))],
            ..Script::default()
        };
        let (r, calls, err) = roll_through(&["a", "b", "c"], DryRun::Client, &script);
        assert!(calls.iter().all(|(_, m)| *m == DryRun::Client), "{calls:?}");
        assert_eq!(calls.len(), 3);
        assert_eq!(r.phase, Phase::DryRun);
        assert_eq!(
            results(&r),
            [
                ("a", StageResult::Failed),
                ("b", StageResult::Failed),
                ("c", StageResult::Succeeded)
            ]
        );
        assert!(r.stopped_at().is_none());
        assert_eq!(r.outcome(), Outcome::Failed);
        assert!(
            err.starts_with("warning: context a: said inside\n"),
            "{err}"
        );
    }
}
