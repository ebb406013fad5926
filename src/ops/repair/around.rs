//! The repairs of what stands around a set, run only where `status`'s own rows give their reason
//! ([`crate::ops::status::list`], or [`crate::ops::status::from_files`] for a dump): the
//! listener (`ListenerHashStale`, `ListenerForOtherSet`, `ListenerVersionMismatch`:
//! `DeleteListener`; `ListenerPodNotRunning`: `DeleteListenerPod`) and finalizers
//! (`FinalizersLeft`, `ScaleSetDeleting`: `RemoveFinalizer`). Each object is read again here (its
//! uid and resourceVersion guard the write), decided by the core's rules
//! ([`crate::core::repair::listener`], [`crate::core::repair::finalizer`]) and written by
//! [`Writer`].

use std::collections::HashSet;

use crate::cluster::ApiErrorKind;
use crate::cluster::api::{ArcApi, Resource};
use crate::core::arc;
use crate::core::repair::finalizer::{Guarded, Held, arc_finalizers, remove_finalizers};
use crate::core::repair::listener::{
    ControllerSeen, ListenerContext, delete_listener, delete_listener_pod,
};
use crate::core::repair::{Decision, RunnerSeen};
use crate::core::status::install::{CONTROLLER_SELECTORS, ControllerFacts, reconciler_of};
use crate::core::status::listener::{
    AUTOSCALING_LISTENERS, KIND_AUTOSCALING_LISTENER, LISTENER_CONTAINER, ListenerFacts, PodFacts,
    controller_of, deletion_of_object, pod_problem,
};
use crate::core::status::{SetStatus, StatusReason};
use crate::input::Object;
use crate::report::repair::{ObjectRef, Repair, RepairResult};

use super::Read;
use super::write::{Writer, describe_finalizers};

/// A repair and the row (`namespace`, `name`, scale set) it belongs to.
pub(super) type Found = ((String, String), Option<String>, Repair);

/// Where the objects are read: the cluster, or a dump's objects.
pub(super) struct Source<'a> {
    pub(super) client: Option<&'a kube::Client>,
    pub(super) dump: &'a [Object],
}

impl Source<'_> {
    /// `kind` `namespace/name` as read now; `Ok(None)`: it does not exist. From a dump that
    /// holds no object of that kind in that namespace: not known.
    async fn get(&self, resource: Resource, key: &str) -> Result<Option<Object>, String> {
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        if let Some(client) = self.client {
            return (client.get(resource, ns, name).await)
                .map_err(|e| format!("cannot read it: {e}"));
        }
        let kind = resource.kind;
        let mut of_kind = (self.dump.iter()).filter(|o| o.kind == kind && o.namespace() == ns);
        match of_kind.clone().find(|o| o.name() == name) {
            Some(o) => Ok(Some(o.clone())),
            None if of_kind.next().is_some() => Ok(None),
            None => Err(format!(
                "the dump holds no {kind} of namespace {ns}: whether {key} exists is not known"
            )),
        }
    }

    /// ARC's controller Deployments (by the chart's labels, in every namespace).
    async fn controllers(&self) -> Result<Vec<ControllerSeen>, String> {
        let deployments: Vec<Object> = match self.client {
            Some(client) => {
                let mut all = Vec::new();
                for selector in CONTROLLER_SELECTORS {
                    match client
                        .list(Resource::DEPLOYMENTS, None, Some(selector))
                        .await
                    {
                        Ok(found) => all.extend(found),
                        Err(e) if e.kind() == ApiErrorKind::Forbidden => {
                            return Err(format!(
                                "the controller Deployments cannot be listed ({e}): whether a controller runs is not known (deploy/rbac.yaml's kubectl-arc-repair role lists them)"
                            ));
                        }
                        Err(e) => return Err(format!("the controller Deployments: {e}")),
                    }
                }
                all
            }
            None => {
                let found: Vec<Object> = (self.dump.iter())
                    .filter(|o| o.kind == "Deployment")
                    .cloned()
                    .collect();
                if found.is_empty() {
                    return Err(
                        "the dump holds no Deployment: whether a controller runs is not known"
                            .into(),
                    );
                }
                found
            }
        };
        let mut names = HashSet::new();
        Ok((deployments.iter())
            .filter_map(ControllerSeen::from_object)
            .filter(|c| names.insert(c.facts.name.clone()))
            .collect())
    }

    /// The AutoscalingListeners in every namespace.
    async fn listeners(&self) -> Result<Vec<ListenerFacts>, String> {
        let objects = match self.client {
            Some(client) => ArcApi::list(client, Resource::AUTOSCALING_LISTENERS, None, None)
                .await
                .map_err(|e| format!("the listeners cannot be listed: {e}"))?,
            None => (self.dump.iter())
                .filter(|o| o.kind == KIND_AUTOSCALING_LISTENER)
                .cloned()
                .collect(),
        };
        Ok((objects.iter())
            .filter_map(|o| ListenerFacts::from_object(o).ok())
            .collect())
    }
}

/// What the repairs of one run share: the writer, the source, what the ops read, the controller
/// Deployments (read once, when a repair needs them) and the objects already repaired.
struct Run<'a> {
    writer: &'a Writer<'a>,
    source: &'a Source<'a>,
    read: &'a Read,
    controllers: Option<Result<Vec<ControllerSeen>, String>>,
    done: HashSet<(String, String)>,
}

/// Every listener and finalizer repair of the rows' reasons.
pub(super) async fn repairs(
    writer: &Writer<'_>,
    source: &Source<'_>,
    read: &Read,
    rows: &[SetStatus],
) -> Vec<Found> {
    let mut run = Run {
        writer,
        source,
        read,
        controllers: None,
        done: HashSet::new(),
    };
    let mut out = Vec::new();
    for row in rows {
        let key = (row.namespace.clone(), row.name.clone());
        for reason in &row.reasons {
            for repair in run.reason(row, reason).await {
                out.push((key.clone(), row.ids.scale_set.clone(), repair));
            }
        }
    }
    out
}

/// A repair's report line before its write.
fn planned(code: &'static str, action: &'static str, kind: &'static str, key: &str) -> Repair {
    let (namespace, name) = key.split_once('/').unwrap_or(("", key));
    Repair {
        repair: code,
        action,
        object: ObjectRef {
            kind,
            namespace: namespace.to_string(),
            name: name.to_string(),
        },
        evidence: String::new(),
        write: None,
        result: RepairResult::Refused,
        why: None,
    }
}

fn refused(mut r: Repair, evidence: String, why: String) -> Repair {
    r.evidence = evidence;
    r.why = Some(why);
    r
}

impl Run<'_> {
    /// The repairs of one reason of one row (none for a reason `repair` does not fix, or an
    /// object already repaired in this run).
    async fn reason(&mut self, row: &SetStatus, reason: &StatusReason) -> Vec<Repair> {
        match reason {
            StatusReason::ListenerHashStale { listener, .. }
            | StatusReason::ListenerForOtherSet { listener, .. }
            | StatusReason::ListenerVersionMismatch { listener, .. } => self
                .listener(row, reason, listener)
                .await
                .into_iter()
                .collect(),
            StatusReason::ListenerPodNotRunning { pod, .. } => {
                self.listener_pod(pod).await.into_iter().collect()
            }
            StatusReason::FinalizersLeft { kind, name, .. } => {
                self.finalizers(row, "FinalizersLeft", kind, name).await
            }
            StatusReason::ScaleSetDeleting => {
                let name = format!("{}/{}", row.namespace, row.name);
                (self.finalizers(
                    row,
                    "ScaleSetDeleting",
                    arc::KIND_AUTOSCALING_RUNNER_SET,
                    &name,
                ))
                .await
            }
            _ => Vec::new(),
        }
    }

    /// Whether `kind` `key` is repaired already in this run (then not again).
    fn first(&mut self, kind: &str, key: &str) -> bool {
        self.done.insert((kind.to_string(), key.to_string()))
    }

    async fn controllers(&mut self) -> Result<&[ControllerSeen], String> {
        if self.controllers.is_none() {
            self.controllers = Some(self.source.controllers().await);
        }
        match self.controllers.as_ref() {
            Some(Ok(c)) => Ok(c.as_slice()),
            Some(Err(e)) => Err(e.clone()),
            None => Err("not read".into()),
        }
    }

    /// The controller Deployment `pick` chooses among them as status judges them (`None`: none);
    /// `Err`: the Deployments could not be read.
    async fn controller(
        &mut self,
        pick: impl Fn(&[ControllerFacts]) -> Option<ControllerFacts>,
    ) -> Result<Option<ControllerSeen>, String> {
        let all = self.controllers().await?;
        let facts: Vec<ControllerFacts> = all.iter().map(|c| c.facts.clone()).collect();
        let found = pick(&facts);
        Ok(found.and_then(|f| all.iter().find(|c| c.facts.name == f.name).cloned()))
    }

    /// `status.runningEphemeralRunners` + `pendingEphemeralRunners` of the row's set (what
    /// `drainingJobs` reads).
    fn running_and_pending(&self, row: &SetStatus) -> i64 {
        (self.read.sets.iter())
            .find(|s| s.namespace() == row.namespace && s.name() == row.name)
            .and_then(|s| crate::core::status::SetFacts::from_object(s).ok())
            .and_then(|f| f.counters)
            .map_or(0, |c| c.running + c.pending)
    }

    /// The listener `key` as read now, with the controller that makes it again.
    async fn listener_read(
        &mut self,
        key: &str,
    ) -> Result<(Object, ListenerFacts, Option<ControllerSeen>), (String, String)> {
        let o = match self.source.get(Resource::AUTOSCALING_LISTENERS, key).await {
            Ok(Some(o)) => o,
            Ok(None) => {
                return Err((
                    format!("AutoscalingListener {key}"),
                    "it is gone since status read it".into(),
                ));
            }
            Err(why) => return Err((format!("AutoscalingListener {key}"), why)),
        };
        let facts = ListenerFacts::from_object(&o)
            .map_err(|e| (format!("AutoscalingListener {key}"), e))?;
        // The controller status finds for the scale set's listener ([`controller_of`]).
        let (ns, home) = (facts.scale_set.0.clone(), facts.namespace.clone());
        let controller = self
            .controller(|all| controller_of(all, &ns, Some(&home)).cloned())
            .await
            .map_err(|why| (format!("AutoscalingListener {key}"), why))?;
        Ok((o, facts, controller))
    }

    /// `DeleteListener` ([`delete_listener`]).
    async fn listener(
        &mut self,
        row: &SetStatus,
        reason: &StatusReason,
        key: &str,
    ) -> Option<Repair> {
        if !self.first(KIND_AUTOSCALING_LISTENER, key) {
            return None;
        }
        let r = planned(
            reason.code(),
            "DeleteListener",
            KIND_AUTOSCALING_LISTENER,
            key,
        );
        let (o, facts, controller) = match self.listener_read(key).await {
            Ok(read) => read,
            Err((evidence, why)) => return Some(refused(r, evidence, why)),
        };
        let cx = ListenerContext {
            listener: &facts,
            controller: controller.as_ref(),
            running_and_pending: self.running_and_pending(row),
        };
        let decision = delete_listener(reason, &cx)?;
        Some(
            self.write_delete(r, decision, &o, AUTOSCALING_LISTENERS)
                .await,
        )
    }

    /// `DeleteListenerPod` ([`delete_listener_pod`]), on the Pod as read now.
    async fn listener_pod(&mut self, key: &str) -> Option<Repair> {
        if !self.first("Pod", key) {
            return None;
        }
        let r = planned("ListenerPodNotRunning", "DeleteListenerPod", "Pod", key);
        let pod = match self.source.get(Resource::PODS, key).await {
            Ok(Some(o)) => o,
            Ok(None) => {
                return Some(refused(
                    r,
                    format!("Pod {key}"),
                    "it is gone since status read it: ARC makes another".into(),
                ));
            }
            Err(why) => return Some(refused(r, format!("Pod {key}"), why)),
        };
        let facts = match PodFacts::from_object(&pod, LISTENER_CONTAINER) {
            Ok(f) => f,
            Err(e) => return Some(refused(r, format!("Pod {key}"), e)),
        };
        let Some(problem) = pod_problem(&facts) else {
            return Some(refused(
                r,
                format!("Pod {key}: its listener container runs"),
                "it runs now".into(),
            ));
        };
        // The Pod has its listener's name and namespace (`newScaleSetListenerPod`).
        let (_, listener, controller) = match self.listener_read(key).await {
            Ok(read) => read,
            Err((evidence, why)) => return Some(refused(r, evidence, why)),
        };
        let cx = ListenerContext {
            listener: &listener,
            controller: controller.as_ref(),
            running_and_pending: 0,
        };
        let decision = delete_listener_pod(&problem, &facts, &cx);
        Some(self.write_delete(r, decision, &pod, "pods").await)
    }

    async fn write_delete(
        &self,
        mut r: Repair,
        decision: Decision,
        o: &Object,
        plural: &str,
    ) -> Repair {
        match decision {
            Decision::Refuse { evidence, why } => refused(r, evidence, why),
            Decision::Act { evidence } => {
                r.evidence = evidence;
                r.write = Some(self.writer.describe_delete(o, plural));
                (r.result, r.why) = self.writer.delete(r.repair, o, plural).await;
                r
            }
        }
    }

    /// `RemoveFinalizer` of the object status named (`kind` `key`); for EphemeralRunners, of
    /// every runner of the row's set that hangs in deletion (status names the first, and how
    /// many more).
    async fn finalizers(
        &mut self,
        row: &SetStatus,
        code: &'static str,
        kind: &str,
        key: &str,
    ) -> Vec<Repair> {
        let mut out = Vec::new();
        let read = self.read;
        match kind {
            k if k == arc::KIND_EPHEMERAL_RUNNER => {
                let held: Vec<&Object> = (read.runners.iter())
                    .filter(|r| r.namespace() == row.namespace)
                    .filter(|r| {
                        (r.owner(arc::KIND_EPHEMERAL_RUNNER_SET))
                            .is_some_and(|o| o.name == row.name)
                    })
                    .filter(|r| deletion_of_object(r).is_some_and(|d| !d.finalizers.is_empty()))
                    .collect();
                for runner in held {
                    let key = format!("{}/{}", runner.namespace(), runner.name());
                    if self.first(kind, &key) {
                        out.push(self.runner_finalizers(code, runner).await);
                    }
                }
            }
            k if k == arc::KIND_EPHEMERAL_RUNNER_SET => {
                let set = (self.read.sets.iter())
                    .find(|s| format!("{}/{}", s.namespace(), s.name()) == key)
                    .cloned();
                if self.first(kind, key) {
                    out.extend(self.set_finalizers(code, key, set).await);
                }
            }
            k if (k == arc::KIND_AUTOSCALING_RUNNER_SET || k == KIND_AUTOSCALING_LISTENER)
                && self.first(kind, key) =>
            {
                out.extend(self.owner_finalizers(code, kind, key).await);
            }
            _ => {}
        }
        out
    }

    /// The runners of the set `namespace/name`, as the rules read them.
    fn runners_of(&self, namespace: &str, set: &str) -> Vec<RunnerSeen> {
        (self.read.runners.iter())
            .filter(|r| r.namespace() == namespace)
            .filter(|r| (r.owner(arc::KIND_EPHEMERAL_RUNNER_SET)).is_some_and(|o| o.name == set))
            .map(|r| self.seen(r))
            .collect()
    }

    fn seen(&self, r: &Object) -> RunnerSeen {
        // A Pod without a phase yet is a Pod that has not terminated.
        let pod_phase = (self.read.pods.iter())
            .find(|p| p.namespace() == r.namespace() && p.name() == r.name())
            .map(|p| super::status_str(p, "phase").unwrap_or_else(|| "Pending".into()));
        super::seen(r, &super::runner_value(r), pod_phase)
    }

    async fn decide_finalizers(
        &mut self,
        r: Repair,
        o: &Object,
        plural: &str,
        scale_set_namespace: &str,
        guarded: Guarded,
        runners: &[RunnerSeen],
    ) -> Repair {
        let kind: &str = r.object.kind;
        let pick = |facts: &[ControllerFacts]| reconciler_of(facts, scale_set_namespace).cloned();
        let controller = match self.controller(pick).await {
            Ok(c) => c,
            Err(why) => return refused(r, format!("{kind} {}/{}", o.namespace(), o.name()), why),
        };
        let deletion = deletion_of_object(o).unwrap_or_default();
        let held = Held {
            kind,
            name: format!("{}/{}", o.namespace(), o.name()),
            deleting_since: deletion.since.clone(),
            finalizers: deletion.finalizers.clone(),
            controller: controller.as_ref(),
            guarded,
            runners: runners.iter().collect(),
        };
        let mut r = r;
        match remove_finalizers(&held) {
            Decision::Refuse { evidence, why } => refused(r, evidence, why),
            Decision::Act { evidence } => {
                let (_, keep) = arc_finalizers(&held);
                r.evidence = evidence;
                r.write = Some(describe_finalizers(o, plural, &keep));
                (r.result, r.why) = self.writer.set_finalizers(r.repair, o, plural, &keep).await;
                r
            }
        }
    }

    /// An EphemeralRunner's finalizers: it guards its Pod; its own job and Pod decide.
    async fn runner_finalizers(&mut self, code: &'static str, runner: &Object) -> Repair {
        let key = format!("{}/{}", runner.namespace(), runner.name());
        let r = planned(code, "RemoveFinalizer", arc::KIND_EPHEMERAL_RUNNER, &key);
        let seen = self.seen(runner);
        let guarded = Guarded {
            what: format!("its Pod {key}"),
            left: usize::from(seen.pod_phase.is_some()),
        };
        let ns = runner.namespace().to_string();
        self.decide_finalizers(r, runner, arc::EPHEMERAL_RUNNERS, &ns, guarded, &[seen])
            .await
    }

    /// An EphemeralRunnerSet's finalizers: it guards its runners.
    async fn set_finalizers(
        &mut self,
        code: &'static str,
        key: &str,
        set: Option<Object>,
    ) -> Option<Repair> {
        let r = planned(code, "RemoveFinalizer", arc::KIND_EPHEMERAL_RUNNER_SET, key);
        let set = set?;
        let runners = self.runners_of(set.namespace(), set.name());
        let guarded = Guarded {
            what: "its EphemeralRunners".into(),
            left: runners.len(),
        };
        let ns = set.namespace().to_string();
        Some(
            self.decide_finalizers(r, &set, arc::EPHEMERAL_RUNNER_SETS, &ns, guarded, &runners)
                .await,
        )
    }

    /// An AutoscalingRunnerSet's finalizers (it guards its listener and its sets, and so their
    /// runners), or an AutoscalingListener's (it guards its Pod).
    async fn owner_finalizers(
        &mut self,
        code: &'static str,
        kind: &str,
        key: &str,
    ) -> Option<Repair> {
        let scale_set = kind == arc::KIND_AUTOSCALING_RUNNER_SET;
        let resource = if scale_set {
            Resource::AUTOSCALING_RUNNER_SETS
        } else {
            Resource::AUTOSCALING_LISTENERS
        };
        let (kind, plural) = (resource.kind, resource.plural);
        let r = planned(code, "RemoveFinalizer", kind, key);
        let o = match self.source.get(resource, key).await {
            Ok(Some(o)) => o,
            Ok(None) => return None,
            Err(why) => return Some(refused(r, format!("{kind} {key}"), why)),
        };
        let (guarded, runners, namespace) = if scale_set {
            match self.scale_set_guards(&o).await {
                Ok(g) => g,
                Err(why) => return Some(refused(r, format!("{kind} {key}"), why)),
            }
        } else {
            let pod = self.source.get(Resource::PODS, key).await;
            let left = match pod {
                Ok(p) => usize::from(p.is_some()),
                Err(why) => return Some(refused(r, format!("{kind} {key}"), why)),
            };
            let facts = ListenerFacts::from_object(&o).ok()?;
            let guarded = Guarded {
                what: format!("its Pod {key}"),
                left,
            };
            (guarded, Vec::new(), facts.scale_set.0)
        };
        Some(
            self.decide_finalizers(r, &o, plural, &namespace, guarded, &runners)
                .await,
        )
    }

    /// What a scale set's finalizers guard: its listener and its sets (`cleanupListener`,
    /// `cleanupEphemeralRunnerSets`), and the runners of those sets.
    async fn scale_set_guards(
        &self,
        a: &Object,
    ) -> Result<(Guarded, Vec<RunnerSeen>, String), String> {
        let listeners = (self.source.listeners().await?.into_iter())
            .filter(|l| l.scale_set == a.key())
            .count();
        let sets: Vec<&Object> = (self.read.sets.iter())
            .filter(|s| s.namespace() == a.namespace())
            .filter(|s| {
                (s.owner(arc::KIND_AUTOSCALING_RUNNER_SET)).is_some_and(|o| o.name == a.name())
            })
            .collect();
        let runners = (sets.iter())
            .flat_map(|s| self.runners_of(s.namespace(), s.name()))
            .collect();
        Ok((
            Guarded {
                what: format!(
                    "its listener ({listeners}) and EphemeralRunnerSets ({})",
                    sets.len()
                ),
                left: listeners + sets.len(),
            },
            runners,
            a.namespace().to_string(),
        ))
    }
}
