//! `status --contexts` / `--all-contexts`: the same listing in every selected kubeconfig context,
//! read in-process and concurrently (at most `--parallel` at a time), merged into one report in
//! the order the contexts were selected, never in the order they answered.
//!
//! Ops layer. Each context gets its own client (its credentials, its namespace default, the same
//! `--request-timeout` and `--as`) from [`crate::cluster::connect`]; the fleet's own rules (one
//! scale set registered from two contexts, versions that differ) are the core's
//! ([`crate::core::fleet`]). A context that fails is a summary with its error and never hides the
//! others; any failed context makes the run's outcome Failed (exit 2).

use std::collections::BTreeSet;

use futures::StreamExt as _;

use crate::cluster::{self, ApiErrorKind, ConnectOptions};
use crate::core::fleet::{self, Registration};
use crate::core::status::install::{image_tag, version_cmp};
use crate::core::status::{SetKey, StatusReason};
use crate::ops::status::{Request, Snapshot};
use crate::report::Outcome;
use crate::report::fleet::{
    ContextError, ContextSummary, Counts, FailureKind, FleetItem, FleetNote, FleetReport,
};

/// The contexts a fleet run reads, checked before anything is contacted.
pub(crate) struct Fleet {
    /// In the order their rows are merged.
    pub(crate) contexts: Vec<String>,
    /// At most this many contexts are read at once (>= 1).
    pub(crate) parallel: usize,
}

/// `--contexts PATTERN,...` (or every context for `--all-contexts`, `patterns` empty) over the
/// kubeconfig's contexts, read as [`crate::cluster::connect`] reads it.
pub(crate) fn select(connect: &ConnectOptions, patterns: &[String]) -> anyhow::Result<Vec<String>> {
    let names = cluster::names::kubeconfig_names(connect)?;
    Ok(fleet::select_contexts(&names.contexts, patterns)?)
}

/// What a fleet run found: the report, its outcome, and the lines for stderr (each naming its
/// context).
pub(crate) struct FleetRun {
    pub(crate) report: FleetReport,
    pub(crate) outcome: Outcome,
    pub(crate) errors: Vec<String>,
    pub(crate) warnings: Vec<String>,
}

/// One context's listing, or why there is none.
struct Read {
    context: String,
    server: Option<String>,
    listing: Result<Snapshot, ContextError>,
}

/// The listing of `request` in every context of `fleet`, at most `fleet.parallel` at a time.
pub(crate) async fn list(request: &Request, fleet: &Fleet) -> FleetRun {
    merge(each(fleet, |context| read_one(request, context)).await)
}

/// `read` of every context of `fleet`, at most `fleet.parallel` at a time, the results in the
/// order of the contexts, never the order they answered. Unordered while they run: with
/// `buffered`, a slow context at the head (a dead one waiting out `--request-timeout`) held the
/// others' finished results in its window, so no new context started until it was done.
pub(crate) async fn each<'a, T, F, Fut>(fleet: &'a Fleet, read: F) -> Vec<T>
where
    F: Fn(&'a str) -> Fut,
    Fut: std::future::Future<Output = T>,
{
    let read = &read;
    let mut done: Vec<(usize, T)> = futures::stream::iter(fleet.contexts.iter().enumerate())
        .map(|(i, context)| async move { (i, read(context.as_str()).await) })
        .buffer_unordered(fleet.parallel.max(1))
        .collect()
        .await;
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

/// `connect` with `context` as its context (the fleet's other flags apply to every context), and
/// that context's server as the kubeconfig gives it.
pub(crate) fn in_context(
    connect: &ConnectOptions,
    context: &str,
) -> (ConnectOptions, Option<String>) {
    let connect = ConnectOptions {
        context: Some(context.to_string()),
        ..connect.clone()
    };
    let server = cluster::server_of(&connect);
    (connect, server)
}

async fn read_one(request: &Request, context: &str) -> Read {
    let (connect, server) = in_context(&request.connect, context);
    let one = Request {
        layout: request.layout,
        scope: request.scope.clone(),
        connect,
        clock: request.clock,
        arc_release: request.arc_release,
    };
    let listing = async {
        let (client, plan) = one.connect().await?;
        crate::ops::status::list_for_fleet(&client, &plan).await
    }
    .await
    .map_err(|e| context_failure(&e, server.as_deref()));
    Read {
        context: context.to_string(),
        server,
        listing,
    }
}

/// A context's failure: its kind, and an unreachable server named as kubectl names it.
pub(crate) fn context_failure(e: &anyhow::Error, server: Option<&str>) -> ContextError {
    let mut failed = failure(e);
    if let (FailureKind::Unreachable, Some(server)) = (failed.kind, server) {
        failed.message = format!(
            "unable to connect to the server {server}: {}",
            failed.message
        );
    }
    failed
}

/// The kind of a context's failure, from the API error in its chain (none: the kubeconfig could
/// not make a client, or the request could not be built).
fn failure(e: &anyhow::Error) -> ContextError {
    let kind = match cluster::failure_in(e) {
        Some((_, true)) => FailureKind::Unreachable,
        Some((kind, false)) => match kind {
            ApiErrorKind::Unauthorized => FailureKind::Unauthorized,
            ApiErrorKind::Forbidden => FailureKind::Forbidden,
            ApiErrorKind::CrdMissing => FailureKind::CrdsMissing,
            _ => FailureKind::Failed,
        },
        None if format!("{e}").starts_with("cannot use the kubeconfig") => FailureKind::Kubeconfig,
        None => FailureKind::Failed,
    };
    ContextError {
        kind,
        message: format!("{e:#}"),
    }
}

/// The fleet's check across contexts: a scale set that another context registers too
/// ([`fleet::duplicate_registrations`]) gets a [`StatusReason::DuplicateRegistration`] on each of
/// its rows.
fn mark_duplicate_registrations(reads: &mut [Read]) {
    // Every registration of every context that answered, and where its rows are.
    let mut registrations: Vec<Registration> = Vec::new();
    let mut rows_of: Vec<(usize, Vec<SetKey>)> = Vec::new();
    for (i, read) in reads.iter().enumerate() {
        if let Ok(snapshot) = &read.listing {
            for (r, keys) in &snapshot.fleet.registrations {
                registrations.push(Registration {
                    context: read.context.clone(),
                    ..r.clone()
                });
                rows_of.push((i, keys.clone()));
            }
        }
    }
    for d in fleet::duplicate_registrations(&registrations) {
        let r = &registrations[d.index];
        let (read, keys) = &rows_of[d.index];
        let Ok(snapshot) = &mut reads[*read].listing else {
            continue;
        };
        for row in &mut snapshot.rows {
            if keys.iter().any(|k| k.0 == row.namespace && k.1 == row.name) {
                row.reasons.push(StatusReason::DuplicateRegistration {
                    scale_set: format!("{}/{}", r.namespace, r.name),
                    other_context: d.other_context.clone(),
                    other_scale_set: d.other_scale_set.clone(),
                    by: d.by.clone(),
                });
            }
        }
    }
}

/// The reads, in order, as one report: the fleet's checks applied across them.
fn merge(mut reads: Vec<Read>) -> FleetRun {
    mark_duplicate_registrations(&mut reads);
    let notes = notes(&reads);
    let mut outcome = Outcome::Clean;
    let (mut items, mut contexts, mut errors, mut warnings) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for read in reads {
        let name = read.context;
        let mut summary = ContextSummary {
            name: name.clone(),
            server: read.server,
            arc_versions: Vec::new(),
            listener_images: Vec::new(),
            counts: Counts::default(),
            error: None,
            errors: Vec::new(),
            warnings: Vec::new(),
            chains: Vec::new(),
        };
        match read.listing {
            Err(e) => {
                outcome = Outcome::Failed;
                errors.push(format!("context {name}: {}", e.message));
                summary.error = Some(e);
            }
            Ok(snapshot) => {
                outcome = outcome.max(snapshot.outcome());
                errors.extend(
                    snapshot
                        .errors
                        .iter()
                        .map(|e| format!("context {name}: {e}")),
                );
                warnings.extend(
                    snapshot
                        .warnings
                        .iter()
                        .map(|w| format!("context {name}: {w}")),
                );
                summary.arc_versions = snapshot.fleet.versions.into_iter().collect();
                summary.listener_images = snapshot.fleet.listener_images.into_iter().collect();
                summary.counts.sets = snapshot.rows.len();
                for row in &snapshot.rows {
                    *summary
                        .counts
                        .states
                        .entry(row.state.to_string())
                        .or_default() += 1;
                }
                summary.errors = snapshot.errors;
                summary.warnings = snapshot.warnings;
                summary.chains = snapshot.chains;
                items.extend(snapshot.rows.into_iter().map(|row| FleetItem {
                    context: name.clone(),
                    row,
                }));
            }
        }
        contexts.push(summary);
    }
    FleetRun {
        report: FleetReport {
            api_version: "kubectl-arc/v1alpha1",
            kind: "StatusReport",
            items,
            contexts,
            notes,
        },
        outcome,
        errors,
        warnings,
    }
}

/// ARC releases and listener images that differ across the contexts that answered.
fn notes(reads: &[Read]) -> Vec<FleetNote> {
    let of = |pick: fn(&Snapshot) -> &BTreeSet<String>| -> Vec<(String, BTreeSet<String>)> {
        reads
            .iter()
            .filter_map(|r| Some((r.context.clone(), pick(r.listing.as_ref().ok()?).clone())))
            .collect()
    };
    let mut out = Vec::new();
    for (reason, what, values) in [
        (
            "ArcVersionsDiffer",
            "ARC releases (the scale sets' app.kubernetes.io/version)",
            fleet::differing(&of(|s| &s.fleet.versions)),
        ),
        (
            "ListenerImagesDiffer",
            "listener images (the controllers')",
            fleet::differing(&of(|s| &s.fleet.listener_images)),
        ),
    ] {
        let Some(values) = values else { continue };
        // Versions as versions (0.9.3 before 0.13.1), an image by its tag's version.
        let mut sorted: Vec<(&String, &Vec<String>)> = values.iter().collect();
        sorted.sort_by(|(a, _), (b, _)| {
            let version = |v: &str| image_tag(v).unwrap_or(v).to_string();
            version_cmp(&version(a), &version(b)).then_with(|| a.cmp(b))
        });
        let each: Vec<String> = sorted
            .iter()
            .map(|(v, contexts)| format!("{v} in {}", contexts.join(", ")))
            .collect();
        out.push(FleetNote {
            reason,
            message: format!(
                "{what} differ across the fleet: {}; ARC supports one version of its controller and scale-set charts together (ARC #4572, #4513, #4147)",
                each.join("; ")
            ),
            values,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::ApiError;
    use crate::core::runners::RunnerCounts;
    use crate::core::status::{SetStatus, State};
    use crate::ops::status::FleetFacts;

    fn row(name: &str) -> SetStatus {
        SetStatus {
            namespace: "arc".into(),
            name: name.into(),
            spec_revision: Some(1),
            applied_revision: Some(1),
            state: State::Synced,
            runners: RunnerCounts::default(),
            reasons: Vec::new(),
            phase: None,
            spec_revision_written_by: None,
            creation_timestamp: None,
            age_seconds: None,
            ids: Default::default(),
        }
    }

    fn answered(context: &str, set: &str, url: &str, version: &str) -> Read {
        let registration = Registration {
            context: String::new(),
            namespace: "arc".into(),
            name: "runners".into(),
            config_url: Some(url.into()),
            scale_set_name: None,
            scale_set_id: None,
            uid: Some(format!("uid-{context}")),
        };
        Read {
            context: context.into(),
            server: Some(format!("https://{context}:6443")),
            listing: Ok(Snapshot {
                rows: vec![row(set)],
                errors: Vec::new(),
                warnings: Vec::new(),
                chains: Vec::new(),
                fleet: FleetFacts {
                    registrations: vec![(registration, vec![("arc".into(), set.into())])],
                    versions: [version.to_string()].into(),
                    listener_images: BTreeSet::new(),
                },
            }),
        }
    }

    #[test]
    fn contexts_merge_in_order_a_failure_is_its_own_and_the_worst_outcome_wins() {
        let dead = Read {
            context: "dead".into(),
            server: None,
            listing: Err(ContextError {
                kind: FailureKind::Unreachable,
                message: "cannot list".into(),
            }),
        };
        let run = merge(vec![
            answered("b", "set-b", "https://github.com/acme", "0.14.2"),
            dead,
            answered("a", "set-a", "https://github.com/Acme/", "0.13.0"),
        ]);
        let order: Vec<_> = run
            .report
            .contexts
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(order, ["b", "dead", "a"]);
        let items: Vec<_> = run
            .report
            .items
            .iter()
            .map(|i| i.context.as_str())
            .collect();
        assert_eq!(items, ["b", "a"]);
        assert_eq!(run.outcome, Outcome::Failed);
        assert_eq!(run.errors, ["context dead: cannot list"]);
        // The one scale set registered from both: said on both rows, naming the other context.
        let reasons: Vec<String> = run
            .report
            .items
            .iter()
            .flat_map(|i| i.row.reasons.iter().map(ToString::to_string))
            .collect();
        assert_eq!(reasons.len(), 2, "{reasons:?}");
        assert!(reasons[0].contains("in context a"), "{}", reasons[0]);
        assert!(reasons[1].contains("in context b"), "{}", reasons[1]);
        assert_eq!(run.report.notes.len(), 1);
        assert_eq!(run.report.notes[0].reason, "ArcVersionsDiffer");
        assert!(
            run.report.notes[0]
                .message
                .contains("0.13.0 in a; 0.14.2 in b"),
            "{}",
            run.report.notes[0].message
        );
    }

    /// Fleet notes sort versions as versions: 0.9.3 before 0.13.1 (as text it sorts after).
    #[test]
    fn fleet_notes_sort_versions_as_versions() {
        let run = merge(vec![
            answered("new", "x", "https://github.com/one", "0.13.1"),
            answered("old", "y", "https://github.com/two", "0.9.3"),
        ]);
        let note = &run.report.notes[0];
        assert!(
            note.message.contains("0.9.3 in old; 0.13.1 in new"),
            "{}",
            note.message
        );
    }

    fn listed(e: kube::Error) -> anyhow::Error {
        anyhow::Error::new(ApiError::new(
            e,
            "list",
            "ephemeralrunnersets",
            Some("ci"),
            None,
        ))
        .context("status")
    }

    fn answer(code: u16, reason: &str) -> kube::Error {
        kube::Error::Api(Box::new(kube::core::Status {
            status: Some(kube::core::response::StatusSummary::Failure),
            code,
            message: "refused".into(),
            reason: reason.into(),
            ..Default::default()
        }))
    }

    #[test]
    fn a_contexts_failure_is_named_by_the_api_error_in_its_chain() {
        let refused = kube::Error::Service(Box::new(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "tcp connect error: Connection refused (os error 111)",
        )));
        for (e, kind) in [
            (listed(refused), FailureKind::Unreachable),
            (
                listed(answer(401, "Unauthorized")),
                FailureKind::Unauthorized,
            ),
            (listed(answer(403, "Forbidden")), FailureKind::Forbidden),
            // A plain 404: the resource is not served at all.
            (listed(answer(404, "")), FailureKind::CrdsMissing),
            (listed(answer(500, "InternalError")), FailureKind::Failed),
            (
                anyhow::anyhow!("cannot use the kubeconfig: cluster \"x\" does not exist"),
                FailureKind::Kubeconfig,
            ),
        ] {
            let got = failure(&e);
            assert_eq!(got.kind, kind, "{e:#}");
            assert_eq!(got.message, format!("{e:#}"));
        }
    }

    #[test]
    fn contexts_that_agree_give_no_note_and_a_clean_outcome() {
        let run = merge(vec![
            answered("a", "x", "https://github.com/one", "0.14.2"),
            answered("b", "y", "https://github.com/two", "0.14.2"),
        ]);
        assert_eq!(run.outcome, Outcome::Clean);
        assert!(run.report.notes.is_empty());
        assert!(run.report.items.iter().all(|i| i.row.reasons.is_empty()));
        assert_eq!(run.report.contexts[0].counts.states["Synced"], 1);
    }

    /// A slow context at the head of the selection (a dead one, waiting out its timeout) does
    /// not hold the others back: with 2 at a time, the three quick ones run one after the other
    /// beside it, and the results still come in the selection's order.
    #[tokio::test(start_paused = true)]
    async fn a_slow_context_does_not_hold_the_others_and_the_order_stays() {
        let fleet = Fleet {
            contexts: ["slow", "b", "c", "d"].map(String::from).to_vec(),
            parallel: 2,
        };
        let start = tokio::time::Instant::now();
        let got = each(&fleet, |context| async move {
            let secs = if context == "slow" { 10 } else { 1 };
            tokio::time::sleep(std::time::Duration::from_secs(secs)).await;
            (context.to_string(), start.elapsed().as_secs())
        })
        .await;
        assert_eq!(
            got,
            [
                ("slow".to_string(), 10),
                ("b".into(), 1),
                ("c".into(), 2),
                ("d".into(), 3)
            ]
        );
    }
}
