//! The guarded write of bump and migrate (`cluster::write::guarded_patch`), against a small stub
//! API server on 127.0.0.1: no test bed, the CLI in-process. The stub records every request and
//! answers as the API server does for the handful a run makes (the CRD, access reviews, the
//! controller Deployments, the lists, the get, the patch); its first patch of a run can be made to
//! meet a concurrent change (409 Conflict), as another writer would cause.
//!
//! What must hold: each patch carries the `metadata.resourceVersion` of the read it was decided on
//! (the precondition) and `fieldValidation=Strict`; a 409 is read again and decided again, never
//! written blind; `--dry-run=server` sends `dryRun=All` and nothing is stored; `--dry-run=client`
//! sends no write at all.

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

const SETS: &str = "/apis/actions.github.com/v1alpha1/namespaces/ci/ephemeralrunnersets";
const SET: &str = "/apis/actions.github.com/v1alpha1/namespaces/ci/ephemeralrunnersets/runners";

/// One request the stub received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    query: String,
    body: Value,
    /// For a read of the set: the resourceVersion it was answered with.
    answered_rv: Option<String>,
}

/// The stub's cluster: one EphemeralRunnerSet `ci/runners`, and what was asked of it.
struct State {
    set: Value,
    /// Patches still to answer 409, each after a concurrent change of the set.
    conflicts: u32,
    /// Written patches still to be followed at once by another writer (a GitOps sync that takes
    /// kubectl-arc's annotations out again), before anyone reads the set again.
    later_writes: u32,
    seen: Vec<Seen>,
}

struct Stub {
    state: Arc<Mutex<State>>,
    kubeconfig: PathBuf,
    _dir: Scratch,
}

struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn status(code: u16, reason: &str, message: &str) -> (u16, Value) {
    (
        code,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
               "message": message, "reason": reason, "code": code}),
    )
}

fn list(kind: &str, api_version: &str, items: Vec<Value>) -> (u16, Value) {
    (
        200,
        json!({"kind": kind, "apiVersion": api_version, "metadata": {"resourceVersion": "1"}, "items": items}),
    )
}

/// RFC 7386, as the API server applies a merge patch.
fn merge(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = json!({});
            }
            let t = target.as_object_mut().unwrap();
            for (k, v) in p {
                if v.is_null() {
                    t.shift_remove(k);
                } else {
                    merge(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        other => *target = other.clone(),
    }
}

fn resource_version(v: &Value) -> u64 {
    v["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap()
}

fn set_resource_version(v: &mut Value, rv: u64) {
    v["metadata"]["resourceVersion"] = json!(rv.to_string());
}

/// The answer to one request, as the API server gives it.
fn answer(state: &mut State, seen: &Seen) -> (u16, Value) {
    match (seen.method.as_str(), seen.path.as_str()) {
        (
            "GET",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/ephemeralrunnersets.actions.github.com",
        ) => (
            200,
            json!({"kind": "CustomResourceDefinition", "apiVersion": "apiextensions.k8s.io/v1",
            "metadata": {"name": "ephemeralrunnersets.actions.github.com"},
            "spec": {"versions": [{"name": "v1alpha1", "schema": {"openAPIV3Schema": {"properties": {
                "spec": {"properties": {"actionableRevision": {"type": "integer"}}},
                "status": {"properties": {"appliedActionableRevision": {"type": "integer"}}}
            }}}}]}}),
        ),
        ("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews") => {
            let mut review = seen.body.clone();
            review["status"] = json!({"allowed": true});
            (201, review)
        }
        ("GET", "/apis/apps/v1/deployments") => list("DeploymentList", "apps/v1", vec![]),
        ("GET", "/api/v1/namespaces/ci") => (
            200,
            json!({"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "ci"}}),
        ),
        ("GET", SETS) => list(
            "EphemeralRunnerSetList",
            "actions.github.com/v1alpha1",
            vec![state.set.clone()],
        ),
        ("GET", "/apis/actions.github.com/v1alpha1/namespaces/ci/ephemeralrunners") => {
            list("EphemeralRunnerList", "actions.github.com/v1alpha1", vec![])
        }
        ("GET", SET) => (200, state.set.clone()),
        ("GET", p) if p.starts_with("/apis/actions.github.com/v1alpha1/namespaces/ci/") => {
            status(404, "NotFound", &format!("{p} not found"))
        }
        ("PATCH", SET) => {
            let dry_run = seen.query.split('&').any(|q| q == "dryRun=All");
            if state.conflicts > 0 && !dry_run {
                // Another writer changes the set just before this patch arrives.
                state.conflicts -= 1;
                let rv = resource_version(&state.set) + 1;
                merge(
                    &mut state.set,
                    &json!({"metadata": {"labels": {"touched": rv.to_string()}}}),
                );
                set_resource_version(&mut state.set, rv);
            }
            // The precondition, as the API server checks it: a resourceVersion in the patch must
            // be the stored one (a patch without one is applied blind).
            if let Some(sent) = seen.body["metadata"]["resourceVersion"].as_str()
                && sent != state.set["metadata"]["resourceVersion"].as_str().unwrap()
            {
                return status(
                    409,
                    "Conflict",
                    "Operation cannot be fulfilled on ephemeralrunnersets.actions.github.com \"runners\": the object has been modified; please apply your changes to the latest version and try again",
                );
            }
            let mut after = state.set.clone();
            let mut patch = seen.body.clone();
            if let Some(m) = patch["metadata"].as_object_mut() {
                m.shift_remove("resourceVersion");
            }
            merge(&mut after, &patch);
            set_resource_version(&mut after, resource_version(&state.set) + 1);
            if !dry_run {
                state.set = after.clone();
                if state.later_writes > 0 {
                    // Another writer lands right after ours and drops our annotations.
                    state.later_writes -= 1;
                    let rv = resource_version(&state.set) + 1;
                    merge(
                        &mut state.set,
                        &json!({"metadata": {"annotations": {"kubectl-arc/bump-id": null,
                            "kubectl-arc/recent-bumps": null}}}),
                    );
                    set_resource_version(&mut state.set, rv);
                }
            }
            (200, after)
        }
        (m, p) => status(
            405,
            "MethodNotAllowed",
            &format!("the stub does not serve {m} {p}"),
        ),
    }
}

impl Stub {
    /// A stub serving `set`, whose first `conflicts` patches meet a concurrent change.
    fn start(name: &str, set: Value, conflicts: u32) -> Stub {
        Stub::start_with(name, set, conflicts, 0)
    }

    /// As [`Stub::start`], the first `later_writes` written patches each followed by another
    /// writer's bump.
    fn start_with(name: &str, set: Value, conflicts: u32, later_writes: u32) -> Stub {
        let state = Arc::new(Mutex::new(State {
            set,
            conflicts,
            later_writes,
            seen: Vec::new(),
        }));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let served = state.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                loop {
                    let Ok((conn, _)) = listener.accept().await else {
                        continue;
                    };
                    let state = served.clone();
                    tokio::spawn(async move {
                        let service = service_fn(move |req: Request<Incoming>| {
                            let state = state.clone();
                            async move { Ok::<_, Infallible>(serve(&state, req).await) }
                        });
                        let _ = http1::Builder::new()
                            .serve_connection(TokioIo::new(conn), service)
                            .await;
                    });
                }
            });
        });
        let dir = std::env::temp_dir().join(format!(
            "kubectl-arc-guarded-write-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let kubeconfig = dir.join("kubeconfig");
        std::fs::write(
            &kubeconfig,
            format!(
                "apiVersion: v1\nkind: Config\n\
                 clusters:\n- name: stub\n  cluster: {{server: \"http://127.0.0.1:{port}\"}}\n\
                 users:\n- name: u\n  user: {{}}\n\
                 contexts:\n- name: stub\n  context: {{cluster: stub, user: u, namespace: ci}}\n\
                 current-context: stub\n"
            ),
        )
        .unwrap();
        Stub {
            state,
            kubeconfig,
            _dir: Scratch(dir),
        }
    }

    /// Run the CLI in-process against the stub: (exit code, stdout, stderr).
    fn run(&self, args: &[&str]) -> (u8, String, String) {
        let mut argv = vec!["kubectl-arc"];
        argv.extend_from_slice(args);
        let kc = self.kubeconfig.to_str().unwrap();
        argv.extend_from_slice(&["--kubeconfig", kc]);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = kubectl_arc::cli::main(
            argv,
            Default::default(),
            Default::default(),
            &mut out,
            &mut err,
        );
        (
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    fn set(&self) -> Value {
        self.state.lock().unwrap().set.clone()
    }
}

async fn serve(state: &Mutex<State>, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let method = req.method().to_string();
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or("").to_string();
    let bytes = req.into_body().collect().await.unwrap().to_bytes();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let mut seen = Seen {
        method,
        path,
        query,
        body,
        answered_rv: None,
    };
    let (code, value) = {
        let mut state = state.lock().unwrap();
        let answer = answer(&mut state, &seen);
        if seen.method == "GET" && seen.path == SET {
            seen.answered_rv = answer.1["metadata"]["resourceVersion"]
                .as_str()
                .map(str::to_string);
        }
        state.seen.push(seen);
        answer
    };
    Response::builder()
        .status(code)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(value.to_string())))
        .unwrap()
}

/// The set both commands write: revisions 2 and 2, and the legacy annotation of a hash that is not
/// its spec's (migrate's Pending: a write to revision 3).
fn runners_set() -> Value {
    json!({
        "apiVersion": "actions.github.com/v1alpha1",
        "kind": "EphemeralRunnerSet",
        "metadata": {
            "name": "runners", "namespace": "ci", "uid": "0b6f7d9e-0000-4000-8000-000000000001",
            "resourceVersion": "100",
            "annotations": {"actions.github.com/integrity-hash": "0000000000"}
        },
        "spec": {
            "replicas": 1,
            "actionableRevision": 2,
            "ephemeralRunnerSpec": {
                "githubConfigUrl": "https://github.com/my-org",
                "githubConfigSecret": "gh-secret",
                "runnerScaleSetId": 1,
                "spec": {"containers": [{"name": "runner", "image": "img:1"}]}
            }
        },
        "status": {"appliedActionableRevision": 2}
    })
}

fn patches(seen: &[Seen]) -> Vec<&Seen> {
    seen.iter().filter(|s| s.method == "PATCH").collect()
}

/// The writes of a run: anything but a read or an access review (which stores nothing).
fn writes(seen: &[Seen]) -> Vec<&Seen> {
    seen.iter()
        .filter(|s| s.method != "GET")
        .filter(|s| !(s.method == "POST" && s.path.ends_with("/selfsubjectaccessreviews")))
        .collect()
}

/// Each patch carries `fieldValidation=Strict` and the resourceVersion of the read just before it
/// (a read follows every patch that was not applied: nothing is sent twice on one read).
fn assert_guarded(seen: &[Seen]) {
    let mut fresh: Option<&str> = None;
    for (i, s) in seen.iter().enumerate() {
        if s.method == "GET" && s.path == SET {
            fresh = s.answered_rv.as_deref();
        }
        if s.method == "PATCH" {
            assert_eq!(s.path, SET, "{s:?}");
            assert!(
                s.query.split('&').any(|q| q == "fieldValidation=Strict"),
                "patch {i} is not strict: {s:?}"
            );
            let sent = s.body["metadata"]["resourceVersion"].as_str();
            assert!(
                sent.is_some(),
                "patch {i} carries no metadata.resourceVersion (written blind): {s:?}"
            );
            assert!(
                fresh.is_some(),
                "patch {i} sent without a read before it: {seen:#?}"
            );
            assert_eq!(
                sent, fresh,
                "patch {i} is not decided on the read before it"
            );
            fresh = None;
        }
    }
}

/// Another write that lands between ours and its read-back (here one that takes our annotations
/// out again): ours persisted (the server answered it at its own resourceVersion), and a read-back
/// at a later version is not a failure of ours (racing restarts of ARC 0.14 sets failed so on the
/// test bed).
#[test]
fn a_later_write_before_the_read_back_is_not_a_failure() {
    let stub = Stub::start_with("bump-later", runners_set(), 0, 1);
    let (code, out, err) = stub.run(&["bump", "runners", "-o", "json"]);
    assert_eq!(code, 0, "{err}\n{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let item = &report["items"][0];
    assert_eq!(
        (&item["result"], &item["newSpecRevision"]),
        (&json!("Bumped"), &json!(3)),
        "{out}"
    );
    let seen = stub.seen();
    assert_eq!(patches(&seen).len(), 1, "{seen:#?}");
    assert_guarded(&seen);
    // The read after the patch saw the other writer's revision.
    let last_read = seen
        .iter()
        .rev()
        .find(|s| s.method == "GET" && s.path == SET);
    assert_eq!(last_read.unwrap().answered_rv.as_deref(), Some("102"));
    let set = stub.set();
    assert_eq!(set["spec"]["actionableRevision"], 3);
    assert!(
        set["metadata"]["annotations"]["kubectl-arc/bump-id"].is_null(),
        "{set}"
    );
}

#[test]
fn bump_retries_a_conflict_on_a_fresh_read_with_its_precondition() {
    let stub = Stub::start("bump-409", runners_set(), 1);
    let (code, out, err) = stub.run(&["bump", "runners", "-o", "json"]);
    assert_eq!(code, 0, "{err}\n{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let item = &report["items"][0];
    assert_eq!(item["result"], "Bumped", "{out}");
    assert_eq!(item["newSpecRevision"], 3, "{out}");
    assert_eq!(item["attempts"], 2, "one 409, then written: {out}");
    let seen = stub.seen();
    let p = patches(&seen);
    assert_eq!(p.len(), 2, "{seen:#?}");
    assert_guarded(&seen);
    // The second patch carries the resourceVersion the concurrent change made.
    assert_eq!(p[0].body["metadata"]["resourceVersion"], "100");
    assert_eq!(p[1].body["metadata"]["resourceVersion"], "101");
    let set = stub.set();
    assert_eq!(set["spec"]["actionableRevision"], 3);
    assert_eq!(
        set["metadata"]["labels"]["touched"], "101",
        "the other write is kept"
    );
}

#[test]
fn migrate_retries_a_conflict_on_a_fresh_read_with_its_precondition() {
    let stub = Stub::start("migrate-409", runners_set(), 1);
    let (code, out, err) = stub.run(&["migrate", "-o", "json"]);
    assert_eq!(code, 0, "{err}\n{out}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let item = &report["items"][0];
    assert_eq!(item["result"], "Written", "{out}");
    assert_eq!(item["newSpecRevision"], 3, "{out}");
    assert_eq!(item["attempts"], 2, "one 409, then written: {out}");
    let seen = stub.seen();
    let p = patches(&seen);
    assert_eq!(p.len(), 2, "{seen:#?}");
    assert_guarded(&seen);
    assert_eq!(p[1].body["metadata"]["resourceVersion"], "101");
    let set = stub.set();
    assert_eq!(set["spec"]["actionableRevision"], 3);
    assert!(
        set["metadata"]["annotations"]
            .get("actions.github.com/integrity-hash")
            .is_none(),
        "{set}"
    );
}

#[test]
fn a_conflict_on_every_attempt_is_reported_and_never_written_blind() {
    for command in ["bump", "migrate"] {
        let stub = Stub::start(&format!("{command}-always-409"), runners_set(), u32::MAX);
        let (code, out, err) = stub.run(&[command, "runners", "-o", "json"]);
        assert_eq!(code, 2, "{command}: {err}\n{out}");
        assert!(out.contains("conflict"), "{command}: {out}");
        let seen = stub.seen();
        // client-go's DefaultBackoff: 4 retries after the first attempt, each on a fresh read.
        assert_eq!(patches(&seen).len(), 5, "{command}: {seen:#?}");
        assert_guarded(&seen);
        assert_eq!(stub.set()["spec"]["actionableRevision"], 2, "{command}");
    }
}

#[test]
fn server_dry_run_sends_dry_run_all_and_nothing_is_stored() {
    for command in ["bump", "migrate"] {
        let stub = Stub::start(&format!("{command}-server"), runners_set(), 0);
        let before = stub.set();
        let (code, out, err) = stub.run(&[command, "runners", "--dry-run=server", "-o", "json"]);
        assert_eq!(code, 0, "{command}: {err}\n{out}");
        let seen = stub.seen();
        let w = writes(&seen);
        assert_eq!(w.len(), 1, "{command}: one patch: {seen:#?}");
        assert!(
            w[0].query.split('&').any(|q| q == "dryRun=All"),
            "{command}: {:?}",
            w[0]
        );
        assert_guarded(&seen);
        assert_eq!(
            stub.set(),
            before,
            "{command}: the dry run stored something"
        );
    }
}

#[test]
fn client_dry_run_sends_no_write() {
    for command in ["bump", "migrate"] {
        let stub = Stub::start(&format!("{command}-client"), runners_set(), 0);
        let (code, out, err) = stub.run(&[command, "runners", "--dry-run=client", "-o", "json"]);
        assert_eq!(code, 0, "{command}: {err}\n{out}");
        assert!(
            out.contains("WouldBump") || out.contains("WouldWrite"),
            "{command}: decided a write: {out}"
        );
        let seen = stub.seen();
        assert!(
            seen.iter()
                .any(|s| s.method == "GET" && s.path.starts_with(SETS)),
            "{command}: the set was read: {seen:#?}"
        );
        assert_eq!(writes(&seen).len(), 0, "{command}: {seen:#?}");
    }
}
