//! A dump as a source of ARC's objects: the objects of `-f` files, answering the
//! [`ArcApi`] as the API server would, and writing nothing.
//!
//! Cluster layer, over `input`: the objects are read through [`crate::input::read`] with
//! kubectl's namespace rules ([`crate::input::resolve_namespaces`]). A get finds the object of
//! that kind, namespace and name; a list selects by namespace, by label selector
//! (`core::selector`, as the API server's `labels.Parse` reads it) and by the field selectors an
//! object's metadata answers (`metadata.name`, `metadata.namespace`), in the dump's order (a
//! `kubectl get -o yaml` dump is in the API server's). Objects kubectl would refuse are listed
//! with their problem, for the operation to report. A guarded patch is decided on the dump's
//! object and, with `--dry-run=client`, answered with what the merge patch would make; any other
//! write is refused, nothing sent.

use std::io::Read;
use std::path::PathBuf;

use super::ApiError;
use super::api::{ArcApi, Resource, object_text};
use super::watch::{Scope, Watcher};
use super::write::{
    Decision, DryRun, Guarded, ObjectText, Outcome, WriteError, WriteOptions, client_dry_run,
};
use crate::core::arc;
use crate::core::selector::Selector;
use crate::input::{self, Object};

/// The objects of a dump.
#[derive(Debug, Default)]
pub(crate) struct Dump {
    objects: Vec<Object>,
}

impl Dump {
    /// Read the `-f` arguments (`stdin` for `-`), an object without a namespace taking
    /// `namespace` (an explicit `-n` when `explicit`, whose contradiction is the object's problem).
    /// Only ARC's objects of `resources` are kept: the dump answers nothing else, and the rest
    /// of a dump (AutoscalingRunnerSets, Pods, a chart's RBAC) is dropped as it is read.
    /// Returns the dump and the files that could not be read (the others are still used).
    pub(crate) fn read(
        paths: &[PathBuf],
        stdin: &mut dyn Read,
        namespace: &str,
        explicit: bool,
        resources: &[Resource],
    ) -> (Dump, Vec<String>) {
        let keep = |o: &Object| {
            o.api_version == arc::API_VERSION && resources.iter().any(|r| r.kind == o.kind)
        };
        let inputs = input::read_only(paths, stdin, &keep);
        let mut objects = inputs.objects;
        input::resolve_namespaces(&mut objects, namespace, explicit);
        (Dump { objects }, inputs.errors)
    }

    /// A dump of objects already read (their namespaces resolved).
    pub(crate) fn of(objects: Vec<Object>) -> Dump {
        Dump { objects }
    }

    fn of_resource(&self, resource: Resource) -> impl Iterator<Item = &Object> {
        self.objects
            .iter()
            .filter(move |o| o.kind == resource.kind && o.api_version == arc::API_VERSION)
    }
}

/// A label or field selector the dump cannot answer, as the API server's 400 would say it.
fn bad_query(resource: Resource, query: &Scope, why: String) -> ApiError {
    ApiError::invalid("list", resource.plural, query.namespace.as_deref(), why)
}

/// `query`'s field selector as `(field, equal, value)` terms, the fields an object's metadata
/// answers (`fields.ParseSelector`: `=`, `==` and `!=`, joined by commas).
fn field_terms(selector: &str) -> Result<Vec<(&str, bool, &str)>, String> {
    selector
        .split(',')
        .filter(|t| !t.trim().is_empty())
        .map(|term| {
            let (field, equal, value) = if let Some((f, v)) = term.split_once("!=") {
                (f, false, v)
            } else if let Some((f, v)) = term.split_once("==") {
                (f, true, v)
            } else if let Some((f, v)) = term.split_once('=') {
                (f, true, v)
            } else {
                return Err(format!("invalid field selector term {term:?}"));
            };
            match field.trim() {
                f @ ("metadata.name" | "metadata.namespace") => Ok((f, equal, value.trim())),
                other => Err(format!(
                    "field selector {other:?} is not supported by a dump (metadata.name and metadata.namespace are)"
                )),
            }
        })
        .collect()
}

impl ArcApi for Dump {
    async fn get(
        &self,
        resource: Resource,
        namespace: &str,
        name: &str,
    ) -> Result<Option<Object>, ApiError> {
        Ok(self
            .of_resource(resource)
            .find(|o| o.namespace() == namespace && o.meta.name.as_deref() == Some(name))
            .cloned())
    }

    async fn list_each<E: From<ApiError>>(
        &self,
        resource: Resource,
        query: &Scope,
        mut each: impl FnMut(Object) -> Result<(), E>,
    ) -> Result<String, E> {
        let labels = match &query.label_selector {
            Some(s) => {
                Some(Selector::parse(s).map_err(|e| bad_query(resource, query, e.to_string()))?)
            }
            None => None,
        };
        let fields = match &query.field_selector {
            Some(s) => field_terms(s).map_err(|e| bad_query(resource, query, e))?,
            None => Vec::new(),
        };
        for o in self.of_resource(resource) {
            let in_namespace = query
                .namespace
                .as_deref()
                .is_none_or(|ns| o.namespace() == ns);
            let labelled = labels.as_ref().is_none_or(|s| s.matches(&o.meta.labels));
            let fielded = fields.iter().all(|&(field, equal, value)| {
                let have = match field {
                    "metadata.name" => o.name(),
                    _ => o.namespace(),
                };
                (have == value) == equal
            });
            if in_namespace && labelled && fielded {
                each(o.clone())?;
            }
        }
        Ok(String::new())
    }

    async fn check_namespace(&self, _namespace: &str) -> anyhow::Result<()> {
        // A dump holds no Namespace objects to check against: nothing found is the answer.
        Ok(())
    }

    fn watch(
        &self,
        resource: Resource,
        query: Scope,
        _resource_version: String,
    ) -> Result<Watcher, ApiError> {
        Err(ApiError::invalid(
            "watch",
            resource.plural,
            query.namespace.as_deref(),
            "files have no changes to follow: a watch needs a cluster".to_string(),
        ))
    }

    async fn guarded_patch<D>(
        &self,
        resource: Resource,
        namespace: &str,
        name: &str,
        opts: &WriteOptions,
        mut decide: impl FnMut(&ObjectText) -> (D, Decision),
    ) -> Guarded<D> {
        let what = format!("{} {namespace}/{name}", resource.plural);
        let before = match self.get(resource, namespace, name).await {
            Ok(Some(o)) => object_text(&o),
            Ok(None) => {
                return Guarded {
                    decision: None,
                    outcome: Err(WriteError::NotFound(what)),
                };
            }
            Err(e) => {
                return Guarded {
                    decision: None,
                    outcome: Err(e.into()),
                };
            }
        };
        let (decision, write) = decide(&before);
        let outcome = match write {
            Decision::Skip(reason) => Ok(Outcome::Skipped { before, reason }),
            Decision::Refuse(reason) => Ok(Outcome::Refused { before, reason }),
            Decision::Patch { .. } if opts.dry_run != DryRun::Client => {
                Err(WriteError::Other(anyhow::anyhow!(
                    "{what}: a dump (-f) is not a cluster: nothing can be written to it; decide with --dry-run=client, or write to the cluster without -f"
                )))
            }
            Decision::Patch { mut body, verify } => {
                // The precondition the API server would be sent, where the dump's object has one.
                if let Some(rv) = before.resource_version().map(str::to_string) {
                    body["metadata"]["resourceVersion"] = rv.into();
                }
                client_dry_run(before, body, &verify, &what, 1)
            }
        };
        Guarded {
            decision: Some(decision),
            outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn run<T>(f: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    fn set(ns: Option<&str>, name: &str, team: &str) -> Value {
        let mut v = json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
            "metadata": {"name": name, "labels": {"team": team}, "resourceVersion": "7"},
            "spec": {"replicas": 1, "actionableRevision": 2}
        });
        if let Some(ns) = ns {
            v["metadata"]["namespace"] = json!(ns);
        }
        v
    }

    /// A dump of `items` given on stdin, objects without a namespace in `ci`.
    fn dump(items: Vec<Value>) -> Dump {
        let text = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
        let (dump, errors) = Dump::read(
            &["-".into()],
            &mut text.as_bytes(),
            "ci",
            false,
            &[Resource::EPHEMERAL_RUNNER_SETS, Resource::EPHEMERAL_RUNNERS],
        );
        assert!(errors.is_empty(), "{errors:?}");
        dump
    }

    #[test]
    fn a_dump_has_no_changes_to_watch() {
        let e = example()
            .watch(
                Resource::EPHEMERAL_RUNNER_SETS,
                Scope::default(),
                String::new(),
            )
            .err()
            .expect("a dump refuses a watch");
        assert_eq!(e.code(), Some(400));
        assert!(format!("{e}").contains("a watch needs a cluster"), "{e}");
    }

    #[test]
    fn a_dump_keeps_only_the_resources_asked_for() {
        let scale_set = json!({"apiVersion": "actions.github.com/v1alpha1",
            "kind": "AutoscalingRunnerSet", "metadata": {"name": "a", "namespace": "ci"}});
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}});
        let d = dump(vec![set(None, "a", "red"), scale_set, pod]);
        // The foreign objects were dropped as they were read, not only filtered at each list.
        assert_eq!(d.objects.len(), 1);
        assert_eq!(d.objects[0].kind, "EphemeralRunnerSet");
    }

    fn example() -> Dump {
        let runner = json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
            "metadata": {"name": "a-1", "namespace": "ci"}});
        // Of another group: not ARC's EphemeralRunnerSet.
        let foreign = json!({"apiVersion": "example.com/v1", "kind": "EphemeralRunnerSet",
            "metadata": {"name": "a", "namespace": "ci"}});
        dump(vec![
            set(None, "a", "red"),
            set(Some("ci"), "b", "blue"),
            set(Some("other"), "a", "red"),
            runner,
            foreign,
        ])
    }

    fn names(objects: &[Object]) -> Vec<String> {
        (objects.iter())
            .map(|o| format!("{}/{}", o.namespace(), o.name()))
            .collect()
    }

    const SETS: Resource = Resource::EPHEMERAL_RUNNER_SETS;

    #[test]
    fn get_finds_the_object_of_its_kind_namespace_and_name() {
        let d = example();
        let got = run(d.get(SETS, "ci", "a")).unwrap().unwrap();
        assert_eq!(
            got.meta.labels["team"], "red",
            "the namespace was resolved to ci"
        );
        assert_eq!(got.origin.to_string(), "<stdin>[0]");
        let other = run(d.get(SETS, "other", "a")).unwrap().unwrap();
        assert_eq!(other.origin.to_string(), "<stdin>[2]");
        assert!(run(d.get(SETS, "nowhere", "a")).unwrap().is_none());
        assert!(
            run(d.get(SETS, "ci", "a-1")).unwrap().is_none(),
            "a runner, not a set"
        );
        let runner = run(d.get(Resource::EPHEMERAL_RUNNERS, "ci", "a-1")).unwrap();
        assert_eq!(runner.unwrap().kind, "EphemeralRunner");
    }

    #[test]
    fn list_selects_by_namespace_labels_and_fields_in_the_dumps_order() {
        let d = example();
        let list = |ns: Option<&str>, labels: Option<&str>| run(d.list(SETS, ns, labels)).unwrap();
        assert_eq!(names(&list(None, None)), ["ci/a", "ci/b", "other/a"]);
        assert_eq!(names(&list(Some("ci"), None)), ["ci/a", "ci/b"]);
        assert_eq!(names(&list(None, Some("team=red"))), ["ci/a", "other/a"]);
        assert_eq!(names(&list(Some("ci"), Some("team!=red"))), ["ci/b"]);
        assert_eq!(
            names(&list(None, Some("team in (green)"))),
            Vec::<String>::new()
        );
        let fields = |f: &str| {
            let query = Scope {
                field_selector: Some(f.to_string()),
                ..Scope::default()
            };
            let mut out = Vec::new();
            run(d.list_each(SETS, &query, |o| {
                out.push(o);
                Ok::<_, ApiError>(())
            }))
            .map(|rv| {
                assert_eq!(rv, "", "a dump has no resourceVersion to watch from");
                names(&out)
            })
        };
        assert_eq!(fields("metadata.name=a").unwrap(), ["ci/a", "other/a"]);
        assert_eq!(
            fields("metadata.name==a,metadata.namespace!=ci").unwrap(),
            ["other/a"]
        );
        let refused = fields("status.phase=Running").unwrap_err();
        assert_eq!(refused.code(), Some(400));
        assert!(
            refused
                .to_string()
                .contains("\"status.phase\" is not supported by a dump"),
            "{refused}"
        );
        let refused = run(d.list(SETS, None, Some("team in red"))).unwrap_err();
        assert_eq!(refused.code(), Some(400), "{refused}");
    }

    fn opts(dry_run: DryRun) -> WriteOptions {
        WriteOptions {
            dry_run,
            field_manager: "test".into(),
            backoff: Default::default(),
            jitter_seed: 0,
        }
    }

    /// A write that bumps `spec.actionableRevision`, verified; the caller's decision is the
    /// revision it read.
    fn bump(dump: &Dump, name: &str, dry_run: DryRun) -> Guarded<i64> {
        run(
            dump.guarded_patch(SETS, "ci", name, &opts(dry_run), |o: &ObjectText| {
                let read = o
                    .value
                    .pointer("/spec/actionableRevision")
                    .and_then(Value::as_i64);
                let read = read.unwrap_or(0);
                let verify = move |after: &Value| match after.pointer("/spec/actionableRevision") {
                    Some(v) if v.as_i64() == Some(read + 1) => Ok(()),
                    other => Err(format!("spec.actionableRevision is {other:?}")),
                };
                let body = json!({"spec": {"actionableRevision": read + 1}});
                (
                    read,
                    Decision::Patch {
                        body,
                        verify: Box::new(verify),
                    },
                )
            }),
        )
    }

    #[test]
    fn a_client_dry_run_is_decided_on_the_dumps_object() {
        let d = example();
        let g = bump(&d, "a", DryRun::Client);
        assert_eq!(g.decision, Some(2), "the caller's decision comes back");
        let Ok(Outcome::Written {
            after,
            patch,
            attempts,
            before,
        }) = g.outcome
        else {
            panic!("{:?}", g.outcome);
        };
        assert_eq!(before.resource_version(), Some("7"));
        assert_eq!(after.pointer("/spec/actionableRevision"), Some(&json!(3)));
        assert_eq!(after.pointer("/spec/replicas"), Some(&json!(1)), "merged");
        assert_eq!(
            patch,
            json!({"spec": {"actionableRevision": 3}, "metadata": {"resourceVersion": "7"}})
        );
        assert_eq!(attempts, 1);
        // The dump is unchanged: a client dry run writes nothing.
        let again = run(d.get(SETS, "ci", "a")).unwrap().unwrap();
        assert_eq!(
            again.spec.unwrap().get(),
            r#"{"actionableRevision":2,"replicas":1}"#
        );
        // A decision to skip or refuse is reported as made.
        let skipped = run(
            d.guarded_patch(SETS, "ci", "b", &opts(DryRun::Client), |_| {
                ((), Decision::Skip("done".into()))
            }),
        );
        assert!(
            matches!(skipped.outcome, Ok(Outcome::Skipped { ref reason, .. }) if reason == "done")
        );
    }

    #[test]
    fn a_dump_refuses_every_write_but_a_client_dry_run() {
        let d = example();
        for dry_run in [DryRun::None, DryRun::Server] {
            let g = bump(&d, "a", dry_run);
            assert_eq!(g.decision, Some(2), "decided, then refused");
            let e = g.outcome.unwrap_err();
            assert!(
                e.to_string().starts_with(
                    "ephemeralrunnersets ci/a: a dump (-f) is not a cluster: nothing can be written to it"
                ),
                "{e}"
            );
            assert!(!e.server_unreachable());
        }
        let missing = bump(&d, "nowhere", DryRun::Client);
        assert_eq!(missing.decision, None, "nothing read, nothing decided");
        assert_eq!(
            missing.outcome.unwrap_err().to_string(),
            "ephemeralrunnersets ci/nowhere not found"
        );
    }
}
