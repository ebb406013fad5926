//! Issue 23: `bump --contexts` and `migrate --contexts` on the test bed's two API servers. Every
//! context is dry-run before anything is written, so one that would fail (a server whose CRDs
//! lack the revision fields, one that does not answer) keeps every write back; then the contexts
//! are written one after the other, the run stops at the first that does not succeed (a canary
//! whose `--wait` times out), and the same request id finishes the rest without bumping a set
//! twice.

use std::collections::BTreeMap;

use kube::api::PostParams;
use kube::config::Kubeconfig;
use serde_json::{Value, json};

use crate::common;
use crate::common::cli::{args, exe_async, report};
use crate::fleet_cluster::{dead_port, merged, renamed};

/// The contexts of this file's kubeconfig: two namespaces of the revision-era server, one of the
/// legacy server, and a dead port.
struct Fleet {
    kubeconfig: String,
    client: kube::Client,
    ns1: String,
    ns2: String,
    _dir: common::Scratch,
}

/// The fleet, its legacy server's set carrying integrity hash `legacy_hash` when given.
async fn fleet(prefix: &str, legacy_hash: Option<&str>) -> Fleet {
    let revision = common::revision_kubeconfig();
    let legacy = common::legacy_kubeconfig();
    let client = common::client(&revision).await;
    let legacy_client = common::client(&legacy).await;
    let ns1 = common::namespace(&client, &format!("{prefix}-1")).await;
    let ns2 = common::namespace(&client, &format!("{prefix}-2")).await;
    let ns_legacy = common::namespace(&legacy_client, &format!("{prefix}-l")).await;
    // A set the legacy server's CRD cannot take a revision for: bump and migrate refuse there.
    let mut set = common::ers_object("runners", json!({}));
    set.metadata.annotations = legacy_hash.map(legacy_annotation);
    common::ers_api(&legacy_client, &ns_legacy)
        .create(&PostParams::default(), &set)
        .await
        .unwrap();
    let a = Kubeconfig::read_from(&revision).unwrap();
    let b = Kubeconfig::read_from(&legacy).unwrap();
    let mut dead = renamed(&a, "w-dead", "default");
    dead.clusters[0].cluster.as_mut().unwrap().server =
        Some(format!("https://127.0.0.1:{}", dead_port()));
    let all = merged(vec![
        renamed(&a, "w-1", &ns1),
        renamed(&a, "w-2", &ns2),
        renamed(&b, "w-legacy", &ns_legacy),
        dead,
    ]);
    let dir = common::scratch_dir(prefix);
    let path = dir.join("fleet.kubeconfig");
    std::fs::write(&path, serde_json::to_string(&all).unwrap()).unwrap();
    Fleet {
        kubeconfig: path.to_str().unwrap().to_string(),
        client,
        ns1,
        ns2,
        _dir: dir,
    }
}

/// ARC's integrity-hash annotation.
fn legacy_annotation(hash: &str) -> BTreeMap<String, String> {
    BTreeMap::from([(
        "actions.github.com/integrity-hash".to_string(),
        hash.to_string(),
    )])
}

impl Fleet {
    /// `kubectl-arc COMMAND --kubeconfig FLEET --request-timeout 5s ARGS...`.
    async fn run(&self, command: &str, extra: &[&str]) -> (i32, String, String) {
        let mut argv = vec![
            command,
            "--kubeconfig",
            &self.kubeconfig,
            "--request-timeout",
            "5s",
        ];
        argv.extend_from_slice(extra);
        exe_async(args(&argv)).await
    }

    /// `spec.actionableRevision` of each namespace's `runners`.
    async fn revisions(&self) -> (i64, i64) {
        let get = |ns: &str| {
            let api = common::ers_api(&self.client, ns);
            async move {
                api.get("runners").await.unwrap().data["spec"]["actionableRevision"]
                    .as_i64()
                    .unwrap_or(0)
            }
        };
        (get(&self.ns1).await, get(&self.ns2).await)
    }
}

/// (context, result) of each entry of `contexts[]`.
fn results(r: &Value) -> Vec<(String, String)> {
    r["contexts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["error"]["kind"]
                    .as_str()
                    .or(c["result"].as_str())
                    .unwrap()
                    .to_string(),
            )
        })
        .collect()
}

/// `fields` of each item of a report, as text (numbers and null printed).
fn fields(r: &Value, fields: &[&str]) -> Vec<Vec<String>> {
    r["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            fields
                .iter()
                .map(|f| match &i[*f] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect()
        })
        .collect()
}

/// A table's rows, split into words.
fn table(out: &str) -> Vec<Vec<&str>> {
    out.lines()
        .map(|l| l.split_whitespace().collect())
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn bump_dry_runs_every_context_first_then_writes_one_after_another_and_stops_at_the_first_failure()
 {
    let f = fleet("w-bump", None).await;
    for ns in [&f.ns1, &f.ns2] {
        let mut set = common::ers_object("runners", common::runner_spec("img:1"));
        set.data["spec"]["actionableRevision"] = json!(1);
        common::ers_api(&f.client, ns)
            .create(&PostParams::default(), &set)
            .await
            .unwrap();
        common::acknowledge(&f.client, ns, "runners", 1).await;
    }

    // A context that would refuse (the legacy CRD) or does not answer: nothing is written in any.
    for (bad, kind) in [("w-legacy", "Failed"), ("w-dead", "Unreachable")] {
        let list = format!("w-1,{bad},w-2");
        let (code, out, err) = f
            .run("bump", &["--contexts", &list, "--all", "-o", "json"])
            .await;
        assert_eq!(code, 2, "{out}{err}");
        let r = report(&out);
        assert_eq!(r["phase"], "CheckFailed", "{r:#}");
        assert_eq!(r["dryRun"], "server", "{r:#}");
        assert_eq!(
            results(&r),
            pairs(&[("w-1", "Succeeded"), (bad, kind), ("w-2", "Succeeded")]),
            "{r:#}"
        );
        assert!(
            err.contains(&format!(
                "error: nothing was written in any context: the dry run before the writes failed in {bad}"
            )),
            "{err}"
        );
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("error: context {bad}: "))),
            "{err}"
        );
        assert_eq!(f.revisions().await, (1, 1), "{bad}: nothing written");
    }

    // Both good contexts: written in the order given, one request id in both.
    let (code, out, err) = f
        .run(
            "bump",
            &[
                "--contexts",
                "w-1,w-2",
                "--all",
                "--reason",
                "canary",
                "-o",
                "json",
            ],
        )
        .await;
    assert_eq!(code, 0, "{out}{err}");
    let r = report(&out);
    assert_eq!(r["phase"], "Written", "{r:#}");
    assert_eq!(
        results(&r),
        pairs(&[("w-1", "Succeeded"), ("w-2", "Succeeded")])
    );
    assert_eq!(
        fields(&r, &["context", "result", "newSpecRevision"]),
        [["w-1", "Bumped", "2"], ["w-2", "Bumped", "2"]]
    );
    assert_eq!(f.revisions().await, (2, 2));
    let id = r["bumpId"].as_str().unwrap();
    for ns in [&f.ns1, &f.ns2] {
        let set = common::ers_api(&f.client, ns).get("runners").await.unwrap();
        let annotations: BTreeMap<String, String> = set.metadata.annotations.unwrap();
        assert_eq!(annotations["kubectl-arc/bump-id"], id, "{ns}");
    }

    // A canary whose acknowledgement does not come: the run stops there, w-2 is not touched.
    let (code, out, err) = f
        .run(
            "bump",
            &[
                "--contexts",
                "w-1,w-2",
                "--all",
                "--wait",
                "--timeout",
                "2s",
            ],
        )
        .await;
    assert_eq!(code, 2, "{out}{err}");
    let rows = table(&out);
    assert_eq!(
        rows[0],
        [
            "CONTEXT",
            "NAMESPACE",
            "NAME",
            "SPEC",
            "APPLIED",
            "NEW",
            "SPEC",
            "RESULT"
        ],
        "{out}"
    );
    assert_eq!(rows[1][0], "w-1", "{out}");
    assert_eq!(rows[1][2], "runners", "{out}");
    assert_eq!(rows[1].last(), Some(&"Bumped"), "{out}");
    assert_eq!(
        rows[2],
        ["w-2", "-", "-", "-", "-", "-", "NotReached"],
        "{out}"
    );
    assert!(
        err.contains("error: context w-1: timed out waiting for ARC to acknowledge 1/1")
            && err.contains("see `kubectl arc status --context w-1 -n NAMESPACE NAME`"),
        "{err}"
    );
    assert!(
        err.contains("error: stopped at context w-1: nothing was written in w-2 (not reached)"),
        "{err}"
    );
    assert_eq!(f.revisions().await, (3, 2));
    println!("{out}{err}");
    let hint = err
        .lines()
        .find_map(|l| l.strip_prefix("hint: "))
        .unwrap_or_else(|| panic!("a hint to finish the request: {err}"));
    let id = hint.rsplit(' ').next().unwrap().to_string();

    // ARC acknowledges the canary; the same request finishes: w-1 is not bumped again.
    common::acknowledge(&f.client, &f.ns1, "runners", 3).await;
    let (code, out, err) = f
        .run(
            "bump",
            &[
                "--contexts",
                "w-1,w-2",
                "--all",
                "--request-id",
                &id,
                "-o",
                "json",
            ],
        )
        .await;
    assert_eq!(code, 0, "{out}{err}");
    let r = report(&out);
    assert_eq!(
        fields(&r, &["context", "reason"]),
        [["w-1", "AlreadyBumped"], ["w-2", "null"]],
        "{r:#}"
    );
    assert_eq!(f.revisions().await, (3, 3));

    // --dry-run goes through every context and writes nothing; a dead one is its own row.
    let (code, out, err) = f
        .run("bump", &["--contexts", "w-1,w-dead", "--all", "--dry-run"])
        .await;
    assert_eq!(code, 2, "{out}{err}");
    let rows = table(&out);
    assert_eq!(rows[1].last(), Some(&"WouldBump"), "{out}");
    assert_eq!(
        rows[2],
        ["w-dead", "-", "-", "-", "-", "-", "Unreachable"],
        "{out}"
    );
    assert_eq!(f.revisions().await, (3, 3));
}

#[tokio::test(flavor = "multi_thread")]
async fn migrate_goes_through_the_contexts_in_order() {
    let f = fleet("w-mig", Some("7b4dd5c9f8")).await;
    for ns in [&f.ns1, &f.ns2] {
        let mut set = common::ers_object("runners", common::runner_spec("img:1"));
        // A legacy hash that is not the spec's: a cleanup ARC still owes, to become a revision.
        set.metadata.annotations = Some(legacy_annotation("7b4dd5c9f8"));
        common::ers_api(&f.client, ns)
            .create(&PostParams::default(), &set)
            .await
            .unwrap();
    }
    let (code, out, err) = f
        .run("migrate", &["--contexts", "w-legacy,w-1,w-2", "-o", "json"])
        .await;
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(report(&out)["phase"], "CheckFailed", "{out}");
    assert_eq!(f.revisions().await, (0, 0), "nothing written: {err}");

    let (code, out, err) = f
        .run("migrate", &["--contexts", "w-1,w-2", "-o", "json"])
        .await;
    assert_eq!(code, 0, "{out}{err}");
    let r = report(&out);
    assert_eq!(
        fields(&r, &["context", "decision", "result"]),
        [["w-1", "Pending", "Written"], ["w-2", "Pending", "Written"]],
        "{r:#}"
    );
    assert_eq!(f.revisions().await, (1, 1));
    for ns in ["w-1", "w-2"] {
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("context {ns}: 1 EphemeralRunnerSets: 1 pending"))),
            "{err}"
        );
    }
}
