//! `status --contexts --watch` / `--wait`: one follow per context ([`crate::ops::status::follow`],
//! the one-context machinery), all at once on one thread, merged as they go.
//!
//! Ops layer. Each context has its own client, its own [`Follow`] and its own sink and shell (the
//! caller's: a printer naming the context on each row, a shell naming it on each line), so what
//! one context shows never waits for another. `--watch` goes on while any context is followed (a
//! context that fails is said and the others go on; exit 2 at the end); `--wait` is over when
//! every context's sets have settled (0), when `--timeout` passes (1: every context ends its own
//! wait at that deadline), or at the first context that fails (2: the fleet can no longer be
//! settled; the others are not waited for).

use std::time::Duration;

use futures::StreamExt as _;
use futures::stream::FuturesUnordered;

use crate::core::status::SetStatus;
use crate::ops::fleet::{context_failure, in_context};
use crate::ops::status::Request;
use crate::ops::status::follow::{Follow, FollowSink};
use crate::report::Outcome;
use crate::report::fleet::{ContextError, ContextSummary, Counts, FleetItem, FleetReport};
use crate::shell::Shell;

/// One context's follow: where its rows go and where its lines go.
pub(crate) struct Lane<'a> {
    pub(crate) context: String,
    pub(crate) sink: &'a mut dyn FollowSink,
    pub(crate) shell: Shell<'a>,
}

/// How one context's follow ended: its outcome, or why it failed (already said on its shell);
/// `None` when `--wait` stopped before it ended (another context failed).
pub(crate) struct Followed {
    pub(crate) context: String,
    pub(crate) server: Option<String>,
    pub(crate) result: Option<Result<Outcome, ContextError>>,
}

/// Follow `request` in every lane's context at once; the outcome over all and each context's
/// end, in the lanes' order.
pub(crate) async fn follow(
    request: &Request,
    wait: bool,
    timeout: Option<Duration>,
    lanes: Vec<Lane<'_>>,
) -> (Outcome, Vec<Followed>) {
    let mut ended: Vec<Followed> = lanes
        .iter()
        .map(|l| Followed {
            context: l.context.clone(),
            server: None,
            result: None,
        })
        .collect();
    let mut running: FuturesUnordered<_> = lanes
        .into_iter()
        .enumerate()
        .map(|(i, lane)| async move { (i, follow_one(request, wait, timeout, lane).await) })
        .collect();
    let mut outcome = Outcome::Clean;
    while let Some((i, (server, result))) = running.next().await {
        let failed = result.is_err();
        outcome = outcome.max(match &result {
            Ok(o) => *o,
            Err(_) => Outcome::Failed,
        });
        ended[i].server = server;
        ended[i].result = Some(result);
        if wait && failed {
            // Dropping the others ends their watches.
            break;
        }
    }
    (outcome, ended)
}

async fn follow_one(
    request: &Request,
    wait: bool,
    timeout: Option<Duration>,
    lane: Lane<'_>,
) -> (Option<String>, Result<Outcome, ContextError>) {
    let Lane {
        context,
        sink,
        mut shell,
    } = lane;
    let (connect, server) = in_context(&request.connect, &context);
    let one = Request {
        layout: request.layout,
        scope: request.scope.clone(),
        connect,
        clock: request.clock,
        arc_release: request.arc_release,
    };
    let result = async {
        let (client, plan) = one.connect().await?;
        let mut follow = Follow::new(wait, sink);
        crate::ops::status::follow(&client, &plan, &mut follow, timeout, &mut shell).await
    }
    .await
    .map_err(|e| context_failure(&e, server.as_deref()));
    if let Err(e) = &result {
        // The shell names the context: `error: context NAME: ...`.
        let _ = shell.error(&e.message);
    }
    (server, result)
}

/// `--wait`'s last rows of every context (`rows`, as the printers kept them) and each context's
/// end, as one report: a context that failed is a row of its own.
pub(crate) fn waited_report(
    mut rows: Vec<(String, Vec<SetStatus>)>,
    ended: Vec<Followed>,
) -> FleetReport {
    let (mut items, mut contexts) = (Vec::new(), Vec::new());
    for f in ended {
        let mut summary = ContextSummary {
            name: f.context.clone(),
            server: f.server,
            arc_versions: Vec::new(),
            listener_images: Vec::new(),
            counts: Counts::default(),
            error: None,
            errors: Vec::new(),
            warnings: Vec::new(),
            chains: Vec::new(),
        };
        match f.result {
            None => continue,
            Some(Err(e)) => summary.error = Some(e),
            Some(Ok(_)) => {
                // None kept: the follow ended before its first rows (a name not found).
                let last = match rows.iter().position(|(c, _)| *c == f.context) {
                    Some(at) => rows.swap_remove(at).1,
                    None => Vec::new(),
                };
                summary.counts.sets = last.len();
                for row in last {
                    *summary
                        .counts
                        .states
                        .entry(row.state.to_string())
                        .or_default() += 1;
                    items.push(FleetItem {
                        context: f.context.clone(),
                        row,
                    });
                }
            }
        }
        contexts.push(summary);
    }
    FleetReport {
        api_version: "kubectl-arc/v1alpha1",
        kind: "StatusReport",
        items,
        contexts,
        notes: Vec::new(),
    }
}
