//! `status -f`: the one listing ([`super::list`]) over a dump of the files
//! ([`crate::cluster::dump::Dump`]), which answers as the cluster would for what it holds and says
//! nothing of the rest (runner counts, listeners, their Pods and the controllers are judged only
//! where it holds them: [`crate::cluster::api::ArcApi::answers_for`]).

use crate::cluster::api::Resource;
use crate::cluster::dump::Dump;
use crate::core::arc;
use crate::input;

use super::names::resolve_names;
use super::{Files, FleetFacts, Plan, Snapshot, list};

/// What `status` reads: ARC's four kinds, and the Pods, Deployments and CRDs around them.
pub(super) const READS: [Resource; 7] = [
    Resource::EPHEMERAL_RUNNER_SETS,
    Resource::EPHEMERAL_RUNNERS,
    Resource::AUTOSCALING_RUNNER_SETS,
    Resource::AUTOSCALING_LISTENERS,
    Resource::PODS,
    Resource::DEPLOYMENTS,
    Resource::CUSTOM_RESOURCE_DEFINITIONS,
];

/// The error of an object kubectl refuses: a set or runner by its name, any other kind by its
/// origin when the problem names the kind already.
fn refusal(o: &input::Object) -> Option<String> {
    let problem = o.problem.as_ref()?;
    let set_or_runner =
        o.is_arc(arc::KIND_EPHEMERAL_RUNNER_SET) || o.is_arc(arc::KIND_EPHEMERAL_RUNNER);
    Some(if !set_or_runner && problem.starts_with(&o.kind) {
        format!("{}: {problem}", o.origin)
    } else {
        format!("{}: {problem}", o.describe())
    })
}

/// `-f`: the rows of a dump, and the problems found (files that cannot be read, objects kubectl
/// would refuse, whatever their kind, said where the files are read; then the listing's).
pub(crate) fn from_files(plan: &Plan, files: &Files, stdin: &mut dyn std::io::Read) -> Snapshot {
    let (dump, mut errors) = Dump::read(
        &files.paths,
        stdin,
        &files.namespace,
        files.namespace_given,
        &READS,
    );
    errors.extend(dump.refused().filter_map(refusal));
    let listed = crate::ops::runtime().and_then(|rt| {
        rt.block_on(async {
            // A scale set's name stands for its sets, in the namespace of `-n` (else the
            // context's), as against the cluster; the sets are then looked for in every
            // namespace of the dump.
            let names = match plan.names.is_empty() {
                true => Vec::new(),
                false => {
                    let ns = plan.namespace.as_deref().unwrap_or(&files.namespace);
                    resolve_names(&dump, ns, &plan.names).await?
                }
            };
            let plan = Plan {
                names,
                namespace: plan.namespace.clone(),
                selector: plan.selector.clone(),
                parsed_selector: plan.parsed_selector.clone(),
                ..*plan
            };
            list(&dump, &plan).await
        })
    });
    match listed {
        Ok(snapshot) => {
            errors.extend(snapshot.errors);
            Snapshot { errors, ..snapshot }
        }
        Err(e) => {
            errors.push(format!("{e:#}"));
            Snapshot {
                rows: Vec::new(),
                errors,
                warnings: Vec::new(),
                chains: Vec::new(),
                fleet: FleetFacts::default(),
            }
        }
    }
}
