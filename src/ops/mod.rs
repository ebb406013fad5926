//! Operations: what each command does, apart from its arguments and its output.
//!
//! A command (`crate::cli`) is its clap arguments, a `validate` step that turns them into a plan
//! before anything is read or contacted (kubectl's Options/Complete/Validate), and one call to its
//! operation here. An operation takes the plan, the sources it reads (stdin from the injected
//! [`crate::shell::Env`], the cluster through [`crate::cluster`]) and a
//! [`crate::shell::Shell`] for progress and warnings only, and returns a typed report. The
//! command hands the report to [`crate::render::emit`] and turns its
//! [`crate::report::Outcome`] into the exit code: one rule for every command.
//!
//! What bump and migrate share lives here: a run of guarded writes, one EphemeralRunnerSet after
//! another, throttled and stopped by a breaker ([`write_each`]).

pub(crate) mod bump;
pub(crate) mod defaults;
pub(crate) mod diff;
pub(crate) mod fleet;
pub(crate) mod fleet_diff;
pub(crate) mod fleet_follow;
pub(crate) mod impact;
pub(crate) mod migrate;
pub(crate) mod parallel;
pub(crate) mod release;
pub(crate) mod repair;
pub(crate) mod rollout;
pub(crate) mod status;
pub(crate) mod upgrade;

use crate::cluster::ratelimit::RateLimiter;
use crate::cluster::write::{Breaker, Guarded, WriteError};
use crate::shell::Shell;

/// Which objects a command is about: kubectl's `-n`, `-A`, NAME... and `-l`, checked by
/// `crate::cli::args::checked_scope` before anything is read. The same in every command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Scope {
    /// `-n`, when given; else the kubeconfig context's namespace.
    pub(crate) namespace: Option<String>,
    /// `-A`: every namespace.
    pub(crate) all_namespaces: bool,
    /// The names given; none: every object in scope.
    pub(crate) names: Vec<String>,
    /// `-l`, as typed (the API server filters a list with it) and parsed (to filter files).
    pub(crate) selector: Option<(String, crate::core::selector::Selector)>,
}

impl Scope {
    /// `-l` as typed.
    pub(crate) fn selector_text(&self) -> Option<&str> {
        self.selector.as_ref().map(|(text, _)| text.as_str())
    }

    /// `-n`, else the kubeconfig context's namespace (`context_default`).
    pub(crate) fn namespace_or(&self, context_default: &str) -> String {
        self.namespace
            .clone()
            .unwrap_or_else(|| context_default.to_string())
    }

    /// The namespace kubectl gives the objects of `-f` files that name none: `-n`, else the
    /// kubeconfig context's (read without contacting anything), else `default`.
    pub(crate) fn file_namespace(&self, connect: &crate::cluster::ConnectOptions) -> String {
        self.namespace.clone().unwrap_or_else(|| {
            crate::cluster::context_namespace(connect).unwrap_or_else(|| "default".into())
        })
    }

    /// The namespace to list in: none with `-A`, else [`Scope::namespace_or`].
    pub(crate) fn listed_namespace(&self, context_default: &str) -> Option<String> {
        (!self.all_namespaces).then(|| self.namespace_or(context_default))
    }

    /// `-l` parsed.
    pub(crate) fn selector(&self) -> Option<&crate::core::selector::Selector> {
        self.selector.as_ref().map(|(_, parsed)| parsed)
    }
}

/// A single-threaded runtime for the operations that talk to a cluster.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

/// Client-side throttling of a run of requests (`--qps`, `--burst`; a qps of 0 is unlimited).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Throttle {
    pub(crate) qps: f64,
    pub(crate) burst: u32,
}

impl Throttle {
    pub(crate) fn limiter(self) -> RateLimiter {
        RateLimiter::new(self.qps, self.burst)
    }
}

/// What stands before each write of a run: the breaker (once the API server has stopped
/// answering, the rest are not attempted), then the rate limiter.
pub(crate) struct Gate {
    limiter: RateLimiter,
    breaker: Breaker,
}

impl Gate {
    /// Send one guarded write through the gate: `Err(why)` without sending it when the breaker is
    /// open (the item says why it was not attempted); otherwise once the rate limiter lets it,
    /// noting whether it found the API server unreachable.
    pub(crate) async fn write<D>(
        &mut self,
        write: impl Future<Output = Guarded<D>>,
    ) -> Result<Guarded<D>, String> {
        if self.breaker.open() {
            return Err(self.breaker.reason());
        }
        self.limiter.acquire().await;
        let guarded = write.await;
        self.breaker.record(
            guarded
                .outcome
                .as_ref()
                .is_err_and(WriteError::server_unreachable),
        );
        Ok(guarded)
    }
}

/// Each of `sets` through `one`, in order, every write through one [`Gate`]; for 20 sets or more a
/// progress line on a terminal (`bumping 3/40 EphemeralRunnerSets`, `verb` being `bumping`).
/// `one` decides what an item without a write is (an error found before, nothing to write, a
/// client-side dry run): those pass neither the breaker nor the limiter.
pub(crate) async fn write_each<T, R>(
    sets: &[T],
    throttle: Throttle,
    verb: &str,
    shell: &mut Shell<'_>,
    mut one: impl AsyncFnMut(&T, &mut Gate) -> R,
) -> anyhow::Result<Vec<R>> {
    let mut gate = Gate {
        limiter: throttle.limiter(),
        breaker: Breaker::default(),
    };
    let total = sets.len();
    let mut items = Vec::with_capacity(total);
    for (n, set) in sets.iter().enumerate() {
        if total >= 20 {
            shell.progress(format_args!("{verb} {}/{total} EphemeralRunnerSets", n + 1))?;
        }
        items.push(one(set, &mut gate).await);
    }
    shell.clear_progress();
    Ok(items)
}

/// The request id a write records: the one given (`--request-id`), or a new one made from the
/// run's `seed`.
pub(crate) fn request_id(given: Option<&str>, seed: u64) -> String {
    given.map_or_else(|| format!("{seed:016x}"), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::Terminal;

    fn unreachable_server() -> WriteError {
        WriteError::OutcomeUnknown {
            what: "EphemeralRunnerSet arc/a".into(),
            sent: "connection reset".into(),
            reread: "connection refused".into(),
        }
    }

    /// Three sets in a row that found the API server unreachable: the rest are not attempted;
    /// sets without a write pass the gate by.
    #[test]
    fn the_breaker_stops_a_run_once_the_server_is_gone() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut shell = Shell::new(&mut out, &mut err, Terminal::default());
        let throttle = Throttle { qps: 0.0, burst: 1 };
        let mut sent = 0;
        let results = runtime()
            .unwrap()
            .block_on(write_each(
                &["a", "b", "skip", "c", "d", "e"],
                throttle,
                "bumping",
                &mut shell,
                async |set: &&str, gate: &mut Gate| {
                    if *set == "skip" {
                        return "no write".to_string();
                    }
                    let written = gate
                        .write(async {
                            sent += 1;
                            Guarded::<()> {
                                decision: None,
                                outcome: Err(unreachable_server()),
                            }
                        })
                        .await;
                    match written.map(|w| w.outcome) {
                        Ok(Err(_)) => "unreachable".to_string(),
                        Ok(Ok(_)) => "written".to_string(),
                        Err(why) => why,
                    }
                },
            ))
            .unwrap();
        assert_eq!(sent, 3);
        assert_eq!(
            results[..4],
            ["unreachable", "unreachable", "no write", "unreachable"]
        );
        for not_attempted in &results[4..] {
            assert!(
                not_attempted.starts_with("not attempted: the API server did not answer"),
                "{not_attempted}"
            );
        }
    }

    /// One progress line on a terminal for 20 sets or more, cleared at the end; none for fewer.
    #[test]
    fn progress_counts_the_sets_from_twenty() {
        let term = Terminal {
            stdout_is_tty: true,
            stderr_is_tty: true,
            no_color: false,
        };
        let throttle = Throttle { qps: 0.0, burst: 1 };
        for (count, shown) in [(19, false), (20, true)] {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let mut shell = Shell::new(&mut out, &mut err, term);
            let sets = vec![(); count];
            runtime()
                .unwrap()
                .block_on(write_each(
                    &sets,
                    throttle,
                    "migrating",
                    &mut shell,
                    async |_, _| (),
                ))
                .unwrap();
            drop(shell);
            let err = String::from_utf8(err).unwrap();
            assert_eq!(
                err.contains(&format!(
                    "\rmigrating {count}/{count} EphemeralRunnerSets\x1b[K"
                )),
                shown,
                "{err:?}"
            );
            assert_eq!(err.ends_with("\r\x1b[K"), shown, "{err:?}");
        }
    }
}
