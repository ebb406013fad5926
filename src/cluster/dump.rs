//! A dump as a source of ARC's objects: the objects of `-f` files, answering the
//! [`ArcApi`] as the API server would, and writing nothing.
//!
//! Cluster layer, over `input`: the objects are read through [`crate::input::read`] with
//! kubectl's namespace rules ([`crate::input::resolve_namespaces`]). A get finds the object of
//! that kind, namespace and name; a list selects by namespace, by label selector
//! (`core::selector`, as the API server's `labels.Parse` reads it) and by the field selectors an
//! object's metadata answers (`metadata.name`, `metadata.namespace`), in the dump's order (a
//! `kubectl get -o yaml` dump is in the API server's). Objects kubectl would refuse are listed
//! with their problem, for the operation to report. Besides ARC's objects a dump answers for the
//! Pods, Deployments and CRDs it holds (a `-f` of `kubectl get pods,deployments -o yaml` too): the
//! runner list is read from its EphemeralRunners, the controller arguments from its Deployments
//! by the rule the API server's lists go through ([`super::preflight::add_controllers`]), and a
//! watch gives what a list gives, then its end. A guarded patch is decided on the dump's
//! object and, with `--dry-run=client`, answered with what the merge patch would make; any other
//! write is refused, nothing sent.

use std::io::Read;
use std::path::PathBuf;

use super::api::{ArcApi, Lent, Resource, object_text};
use super::preflight::{ControllerArgs, add_controllers};
use super::resource::Scope;
use super::watch::Watcher;
use super::write::{
    Decision, DryRun, Guarded, ObjectText, Outcome, WriteError, WriteOptions, client_dry_run,
};
use super::{ApiError, RunnerRead};
use crate::core::selector::Selector;
use crate::core::status::install::CONTROLLER_SELECTORS;
use crate::input::{self, Object};

/// The objects of a dump.
#[derive(Debug, Default)]
pub(crate) struct Dump {
    objects: Vec<Object>,
}

impl Dump {
    /// Read the `-f` arguments (`stdin` for `-`), an object without a namespace taking
    /// `namespace` (an explicit `-n` when `explicit`, whose contradiction is the object's problem).
    /// Only the objects of `resources` are kept, and those kubectl refuses ([`Dump::refused`]):
    /// the dump answers nothing else, and the rest of a dump (AutoscalingRunnerSets, Pods, a
    /// chart's RBAC, unless asked for) is dropped as it is read. A Pod or Deployment without a
    /// namespace is in `namespace`, as kubectl puts it.
    /// Returns the dump and the files that could not be read (the others are still used).
    pub(crate) fn read(
        paths: &[PathBuf],
        stdin: &mut dyn Read,
        namespace: &str,
        explicit: bool,
        resources: &[Resource],
    ) -> (Dump, Vec<String>) {
        let asked = |o: &Object| resources.iter().any(|r| r.is_of(o));
        // ARC's group whole until the namespaces are resolved: an explicit `-n` may refuse an
        // object of a kind not asked.
        let keep = |o: &Object| o.problem.is_some() || o.in_arc_group() || asked(o);
        let inputs = input::read_only(paths, stdin, &keep);
        let mut objects = inputs.objects;
        input::resolve_namespaces(&mut objects, namespace, explicit);
        objects.retain(|o| o.problem.is_some() || asked(o));
        // ARC's objects are resolved above (with kubectl's check of an explicit `-n`); the other
        // namespaced kinds kept take the namespace where they have none.
        for o in objects.iter_mut().filter(|o| !o.in_arc_group()) {
            let namespaced = resources.iter().any(|r| r.is_of(o) && r.namespaced);
            if namespaced && o.meta.namespace.is_none() {
                o.set_namespace(namespace);
            }
        }
        (Dump { objects }, inputs.errors)
    }

    /// [`ArcApi::list_each`]: the objects of `resource` that `query` selects, to `each` in the
    /// dump's order.
    fn select<E: From<ApiError>>(
        &self,
        resource: Resource,
        query: &Scope,
        mut each: impl FnMut(Object) -> Result<(), E>,
    ) -> Result<(), E> {
        for o in self.matching(resource, query)? {
            each(o.clone())?;
        }
        Ok(())
    }

    /// The objects of `resource` that `query` selects (its namespace, its label selector as the
    /// API server's `labels.Parse` reads it, the metadata fields of its field selector), in the
    /// dump's order; a selector that cannot be read is the API server's 400.
    fn matching<'a>(
        &'a self,
        resource: Resource,
        query: &Scope,
    ) -> Result<impl Iterator<Item = &'a Object> + 'a, ApiError> {
        let labels = match &query.label_selector {
            Some(s) => {
                Some(Selector::parse(s).map_err(|e| bad_query(resource, query, e.to_string()))?)
            }
            None => None,
        };
        let fields = match &query.field_selector {
            Some(s) => field_terms(s)
                .map_err(|e| bad_query(resource, query, e))?
                .into_iter()
                .map(|(field, equal, value)| (field, equal, value.to_string()))
                .collect(),
            None => Vec::new(),
        };
        let namespace = query.namespace.clone();
        Ok(self.of_resource(resource).filter(move |o| {
            let in_namespace =
                !resource.namespaced || (namespace.as_deref()).is_none_or(|ns| o.namespace() == ns);
            let labelled = labels.as_ref().is_none_or(|s| s.matches(&o.meta.labels));
            let fielded = fields.iter().all(|(field, equal, value)| {
                let have = match *field {
                    "metadata.name" => o.name(),
                    _ => o.namespace(),
                };
                (have == value) == *equal
            });
            in_namespace && labelled && fielded
        }))
    }

    /// The objects kubectl refuses (whatever their kind, each with its problem), in the dump's
    /// order: an operation that reports them all reports them from here, where the files were
    /// read; those of the kinds asked are also listed with their problem.
    pub(crate) fn refused(&self) -> impl Iterator<Item = &Object> {
        self.objects.iter().filter(|o| o.problem.is_some())
    }

    fn of_resource(&self, resource: Resource) -> impl Iterator<Item = &Object> {
        self.objects.iter().filter(move |o| resource.is_of(o))
    }
}

/// A label or field selector the dump cannot answer, as the API server's 400 would say it.
fn bad_query(resource: Resource, query: &Scope, why: String) -> ApiError {
    ApiError::invalid("list", resource.plural, query.namespace.as_deref(), why)
}

/// `query`'s field selector as `(field, equal, value)` terms, the fields an object's metadata
/// answers (`fields.ParseSelector`: `=`, `==` and `!=`, joined by commas).
fn field_terms(selector: &str) -> Result<Vec<(&'static str, bool, &str)>, String> {
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
                "metadata.name" => Ok(("metadata.name", equal, value.trim())),
                "metadata.namespace" => Ok(("metadata.namespace", equal, value.trim())),
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
            .find(|o| {
                (!resource.namespaced || o.namespace() == namespace)
                    && o.meta.name.as_deref() == Some(name)
            })
            .cloned())
    }

    async fn list_each<E: From<ApiError>>(
        &self,
        resource: Resource,
        query: &Scope,
        each: impl FnMut(Object) -> Result<(), E>,
    ) -> Result<String, E> {
        self.select(resource, query, each)?;
        Ok(String::new())
    }

    async fn list_each_lent<'s, E: From<ApiError>>(
        &'s self,
        resource: Resource,
        query: &Scope,
        mut each: impl FnMut(Lent<'s>) -> Result<(), E>,
    ) -> Result<String, E> {
        for o in self.matching(resource, query)? {
            each(Lent::Borrowed(o))?;
        }
        Ok(String::new())
    }

    async fn list_lent(
        &self,
        resource: Resource,
        namespace: Option<&str>,
        selector: Option<&str>,
    ) -> Result<Vec<Lent<'_>>, ApiError> {
        let query = Scope {
            namespace: namespace.map(str::to_string),
            label_selector: selector.map(str::to_string),
            field_selector: None,
        };
        Ok(self
            .matching(resource, &query)?
            .map(Lent::Borrowed)
            .collect())
    }

    fn answers_for(
        &self,
        resource: Resource,
        label_selector: Option<&str>,
    ) -> Option<std::collections::HashSet<String>> {
        let query = Scope {
            label_selector: label_selector.map(str::to_string),
            ..Scope::default()
        };
        // A selector the dump cannot read answers for no namespace (the list itself says why).
        let held = match self.matching(resource, &query) {
            Ok(objects) => objects.map(|o| o.namespace().to_string()).collect(),
            Err(_) => Default::default(),
        };
        Some(held)
    }

    fn lends(&self) -> bool {
        true
    }

    fn not_found_in(&self) -> &'static str {
        " in the files"
    }

    async fn check_namespace(&self, _namespace: &str) -> anyhow::Result<()> {
        // A dump holds no Namespace objects to check against: nothing found is the answer.
        Ok(())
    }

    async fn list_runners(&self, namespace: Option<&str>) -> Result<Vec<RunnerRead>, ApiError> {
        let runners = self.of_resource(Resource::EPHEMERAL_RUNNERS);
        Ok(runners
            .filter(|o| namespace.is_none_or(|ns| o.namespace() == ns))
            .map(RunnerRead::from)
            .collect())
    }

    async fn controller_args(&self) -> anyhow::Result<Option<Vec<ControllerArgs>>> {
        let mut found = Vec::new();
        for selector in CONTROLLER_SELECTORS {
            let listed = self
                .list(Resource::DEPLOYMENTS, None, Some(selector))
                .await?;
            let deployments = listed.iter().map(|o| {
                o.read_parts().map_err(|e| {
                    anyhow::anyhow!(
                        "{}: Deployment {}/{} cannot be read: {e}",
                        o.origin,
                        o.namespace(),
                        o.name()
                    )
                })
            });
            add_controllers(&mut found, deployments.collect::<anyhow::Result<Vec<_>>>()?);
        }
        Ok(Some(found))
    }

    fn watch(
        &self,
        resource: Resource,
        query: Scope,
        _resource_version: String,
    ) -> Result<Watcher, ApiError> {
        // The listing is all a dump knows (no resourceVersion to start from, no changes after).
        let mut listing = Vec::new();
        let each = |o| {
            listing.push(o);
            Ok::<_, ApiError>(())
        };
        self.select(resource, &query, each)?;
        Ok(Watcher::of_listing(listing))
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
    use crate::cluster::watch::Event;
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
    fn a_dumps_watch_gives_its_listing_then_the_end() {
        let d = example();
        let query = Scope {
            label_selector: Some("team=red".into()),
            ..Scope::default()
        };
        let mut watch = (d.watch(SETS, query, String::new())).expect("a dump's watch");
        let mut seen = Vec::new();
        loop {
            match run(watch.next()).unwrap() {
                Event::Applied(o) => seen.push(format!("{}/{}", o.namespace(), o.name())),
                Event::End => break,
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(
            seen,
            ["ci/a", "other/a"],
            "what the list gives, in its order"
        );
        watch.resume_from("12".into());
        assert!(
            matches!(run(watch.next()), Ok(Event::End)),
            "and it stays ended"
        );
        let bad = Scope {
            field_selector: Some("status.phase=Running".into()),
            ..Scope::default()
        };
        let e = d.watch(SETS, bad, String::new()).err().expect("refused");
        assert_eq!(e.code(), Some(400), "as the list refuses it");
    }

    /// A dump of `items` kept as every resource the commands read.
    fn around(items: Vec<Value>) -> Dump {
        let text = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
        let every = [
            Resource::EPHEMERAL_RUNNER_SETS,
            Resource::EPHEMERAL_RUNNERS,
            Resource::AUTOSCALING_LISTENERS,
            Resource::PODS,
            Resource::DEPLOYMENTS,
            Resource::CUSTOM_RESOURCE_DEFINITIONS,
        ];
        let (dump, errors) = Dump::read(&["-".into()], &mut text.as_bytes(), "ci", false, &every);
        assert!(errors.is_empty(), "{errors:?}");
        dump
    }

    fn controller(ns: &str, name: &str, labels: Value, args: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns, "labels": labels,
                "annotations": {"meta.helm.sh/release-name": "arc"}},
            "spec": {"selector": {}, "template": {"spec": {"containers": [
                {"name": "sidecar", "image": "busybox"},
                {"name": "manager", "image": "ghcr.io/actions/gha-runner-scale-set-controller:0.12.1",
                 "args": args}]}}}})
    }

    #[test]
    fn a_dump_answers_for_pods_deployments_and_crds() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "a-1", "labels": {"actions-ephemeral-runner": "True"}}});
        let elsewhere = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "b-1", "namespace": "other"}});
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "ephemeralrunnersets.actions.github.com"},
            "spec": {"group": "actions.github.com"}});
        let listener = json!({"apiVersion": "actions.github.com/v1alpha1",
            "kind": "AutoscalingListener", "metadata": {"name": "l", "namespace": "arc-systems"}});
        let deploy = controller(
            "arc-systems",
            "arc-gha-rs-controller",
            json!({"app.kubernetes.io/part-of": "gha-rs-controller"}),
            json!(["--update-strategy=eventual"]),
        );
        let d = around(vec![pod, elsewhere, crd, listener, deploy]);
        let pods = Resource::PODS;
        let got = run(d.get(pods, "ci", "a-1"))
            .unwrap()
            .expect("the Pod took -n's namespace");
        assert_eq!((got.api_version.as_str(), got.kind.as_str()), ("v1", "Pod"));
        assert_eq!(
            names(&run(d.list(pods, None, None)).unwrap()),
            ["ci/a-1", "other/b-1"]
        );
        let selected = run(d.list(pods, None, Some("actions-ephemeral-runner=True"))).unwrap();
        assert_eq!(names(&selected), ["ci/a-1"]);
        assert!(run(d.get(pods, "ci", "b-1")).unwrap().is_none());
        // Cluster-scoped: found whatever namespace is asked, and listed in any.
        let crds = Resource::CUSTOM_RESOURCE_DEFINITIONS;
        let crd = run(d.get(crds, "ci", "ephemeralrunnersets.actions.github.com")).unwrap();
        assert_eq!(
            crd.expect("the CRD").namespace(),
            "",
            "no namespace given to it"
        );
        assert_eq!(run(d.list(crds, Some("ci"), None)).unwrap().len(), 1);
        let listeners = run(d.list(Resource::AUTOSCALING_LISTENERS, None, None)).unwrap();
        assert_eq!(names(&listeners), ["arc-systems/l"]);
        let deployments = run(d.list(Resource::DEPLOYMENTS, Some("arc-systems"), None)).unwrap();
        assert_eq!(names(&deployments), ["arc-systems/arc-gha-rs-controller"]);
        assert!(
            run(d.list(Resource::DEPLOYMENTS, Some("ci"), None))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_dumps_runners_are_its_ephemeral_runners() {
        let runner = |ns: &str, name: &str| {
            json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunner",
                "metadata": {"name": name, "namespace": ns,
                    "deletionTimestamp": "2026-01-02T03:04:05Z",
                    "ownerReferences": [{"apiVersion": "actions.github.com/v1alpha1",
                        "kind": "EphemeralRunnerSet", "name": "a", "uid": "u", "controller": true}]},
                "spec": {"big": true}, "status": {"phase": "Running"}})
        };
        let d = around(vec![
            runner("ci", "a-1"),
            runner("other", "a-2"),
            set(None, "a", "red"),
        ]);
        let all = run(d.list_runners(None)).unwrap();
        let keys: Vec<_> = all
            .iter()
            .map(|r| format!("{}/{}", r.namespace, r.name))
            .collect();
        assert_eq!(keys, ["ci/a-1", "other/a-2"]);
        let ci = run(d.list_runners(Some("ci"))).unwrap();
        assert_eq!(ci.len(), 1);
        let r = &ci[0];
        assert_eq!(r.controller.as_ref().map(|c| c.name.as_str()), Some("a"));
        assert_eq!(
            r.deletion_timestamp.as_deref(),
            Some("2026-01-02T03:04:05Z")
        );
        assert_eq!(
            r.status.as_ref().map(|s| s.get()),
            Some(r#"{"phase":"Running"}"#)
        );
    }

    #[test]
    fn a_dumps_controller_arguments_are_read_by_the_clusters_rule() {
        let by_part = controller(
            "arc-systems",
            "arc-gha-rs-controller",
            json!({"app.kubernetes.io/part-of": "gha-rs-controller", "app.kubernetes.io/name": "gha-rs-controller"}),
            json!(["--update-strategy=eventual"]),
        );
        let by_name = controller(
            "other",
            "second",
            json!({"app.kubernetes.io/name": "gha-rs-controller"}),
            json!([]),
        );
        let not_arc = controller("ci", "web", json!({"app": "web"}), json!(["--x"]));
        let d = around(vec![by_name.clone(), not_arc, by_part.clone()]);
        let found = run(d.controller_args()).unwrap().expect("read");
        // The same answer as the rule over the API server's two lists, selector by selector.
        let typed = |v: &Value| serde_json::from_value(v.clone()).unwrap();
        let mut expected = Vec::new();
        crate::cluster::preflight::add_controllers(&mut expected, [typed(&by_part)]);
        crate::cluster::preflight::add_controllers(
            &mut expected,
            [typed(&by_name), typed(&by_part)],
        );
        assert_eq!(found, expected);
        let at: Vec<_> = found.iter().map(|c| c.at.as_str()).collect();
        assert_eq!(
            at,
            [
                "controller Deployment arc-systems/arc-gha-rs-controller",
                "controller Deployment other/second"
            ]
        );
        assert_eq!(found[0].args, ["--update-strategy=eventual"]);
        assert_eq!(found[0].helm_release.as_deref(), Some("arc"));
        assert_eq!(found[0].image_tag.as_deref(), Some("0.12.1"));
        assert_eq!(found[0].version.as_deref(), Some("0.12.1"));
        // No Deployment in the dump: none found (not unreadable).
        assert_eq!(run(example().controller_args()).unwrap(), Some(Vec::new()));
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
