//! Faulty clusters: the real API server behind a proxy that cuts connections, answers 429 and
//! 5xx, answers too slowly, drops the answers of writes that landed, and refuses connections as
//! during a restart. Reads retry where kubectl would, writes only when they are known not to have
//! landed or are guarded, and a re-run always reaches the undisturbed final state.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::faults::{Fault, FaultProxy, Rule};
use kube::api::{ListParams, PostParams};
use serde_json::{Value, json};

fn run(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

async fn run_async(args: Vec<String>) -> (i32, String, String) {
    tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        run(&a)
    })
    .await
    .unwrap()
}

fn rule(method: Option<&'static str>, path: &str, fault: Fault, times: usize) -> Rule {
    Rule {
        method,
        path_contains: path.to_string(),
        fault,
        times,
    }
}

fn runner_spec(image: &str) -> Value {
    json!({"githubConfigUrl": "https://github.com/o", "githubConfigSecret": "s", "runnerScaleSetId": 1,
           "spec": {"containers": [{"name": "runner", "image": image}]}})
}

/// n sets with a stale legacy annotation, and their ARSs.
async fn populate(client: &kube::Client, ns: &str, n: usize) {
    let ers = common::ers_api(client, ns);
    for i in 0..n {
        let mut o = common::ers_object(&format!("set-{i:02}"), runner_spec("img:1"));
        o.metadata.annotations = Some(BTreeMap::from([(
            "actions.github.com/integrity-hash".to_string(),
            "stale".to_string(),
        )]));
        o.data["spec"]["actionableRevision"] = json!(i % 3);
        ers.create(&PostParams::default(), &o).await.unwrap();
    }
}

async fn revisions(client: &kube::Client, ns: &str) -> BTreeMap<String, (i64, bool)> {
    common::ers_api(client, ns)
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|o| {
            let legacy = o
                .metadata
                .annotations
                .as_ref()
                .is_some_and(|a| a.contains_key("actions.github.com/integrity-hash"));
            (
                o.metadata.name.unwrap(),
                (
                    o.data["spec"]["actionableRevision"].as_i64().unwrap_or(0),
                    legacy,
                ),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_survive_cuts_429_and_503_and_fail_clearly_on_persistent_errors() {
    let kc = common::revision_kubeconfig();
    let admin = common::client(&kc).await;
    let ns = common::namespace(&admin, "arc-fault-read").await;
    populate(&admin, &ns, 5).await;
    let proxy = FaultProxy::start(&kc).await;
    let pk = proxy.kubeconfig(&ns).to_str().unwrap().to_string();
    let args = |extra: &[&str]| {
        let mut a: Vec<String> = [
            "migrate",
            "--kubeconfig",
            &pk,
            "--dry-run=client",
            "-o",
            "json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let (code, undisturbed, err) = run_async(args(&[])).await;
    assert_eq!(code, 0, "{err}");

    // A list cut in the middle, then 429 and 503: retried, same answer.
    proxy.add(rule(
        Some("GET"),
        "/ephemeralrunnersets?",
        Fault::CutBody,
        1,
    ));
    proxy.add(rule(
        Some("GET"),
        "customresourcedefinitions/",
        Fault::CutBody,
        1,
    ));
    proxy.add(rule(
        Some("POST"),
        "selfsubjectaccessreviews",
        Fault::Status(503),
        1,
    ));
    proxy.add(rule(
        Some("GET"),
        "/ephemeralrunners?",
        Fault::Status(429),
        2,
    ));
    proxy.add(rule(
        Some("GET"),
        "/ephemeralrunnersets?",
        Fault::Status(503),
        1,
    ));
    let before = proxy.injected();
    let (code, out, err) = run_async(args(&[])).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, undisturbed);
    assert_eq!(
        proxy.injected() - before,
        6,
        "every fault was met and survived"
    );

    // A server that keeps failing: a bounded number of tries, then a clear error.
    proxy.add(rule(
        Some("GET"),
        "/ephemeralrunnersets?",
        Fault::Status(500),
        1000,
    ));
    let seen = proxy.requests();
    let (code, _, err) = run_async(args(&[])).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot list ephemeralrunnersets"), "{err}");
    let tries = proxy.requests() - seen;
    // The CRD read and three access reviews, then the list: five tries, then it gives up.
    assert_eq!(tries, 4 + 5, "retries are bounded ({tries} requests)");
    proxy.clear();

    // Slower than --request-timeout: a timeout, not a hang.
    proxy.add(rule(
        Some("GET"),
        "/ephemeralrunnersets?",
        Fault::Delay(Duration::from_secs(30)),
        1000,
    ));
    let (code, _, err) = run_async(args(&["--request-timeout", "1s"])).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot list ephemeralrunnersets"), "{err}");
    proxy.clear();
}

#[tokio::test(flavor = "multi_thread")]
async fn writes_whose_answers_are_lost_are_never_applied_twice() {
    let kc = common::revision_kubeconfig();
    let admin = common::client(&kc).await;
    let disturbed = common::namespace(&admin, "arc-fault-write").await;
    let calm = common::namespace(&admin, "arc-fault-calm").await;
    populate(&admin, &disturbed, 12).await;
    populate(&admin, &calm, 12).await;
    let (code, _, err) = run_async(
        ["migrate", "--kubeconfig", kc.to_str().unwrap(), "-n", &calm]
            .iter()
            .map(|s| s.to_string())
            .collect(),
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let want = revisions(&admin, &calm).await;

    let proxy = FaultProxy::start(&kc).await;
    let pk = proxy.kubeconfig(&disturbed).to_str().unwrap().to_string();
    // Every other patch lands but its answer is lost; some patches meet 503 before landing; one
    // read after a write is cut.
    proxy.add(rule(
        Some("PATCH"),
        "ephemeralrunnersets/set-0",
        Fault::DropAnswer,
        6,
    ));
    proxy.add(rule(
        Some("PATCH"),
        "ephemeralrunnersets/set-1",
        Fault::Status(503),
        2,
    ));
    proxy.add(rule(
        Some("GET"),
        "ephemeralrunnersets/set-05",
        Fault::CutBody,
        1,
    ));
    let (code, out, err) = run_async(
        ["migrate", "--kubeconfig", &pk, "--force", "-o", "json"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
    )
    .await;
    let injected = proxy.injected();
    if code != 0 {
        // Whatever failed is reported, and a re-run completes it.
        assert_eq!(code, 1, "{err}\n{out}");
        let (code, _, err) = run_async(
            [
                "migrate",
                "--kubeconfig",
                kc.to_str().unwrap(),
                "-n",
                &disturbed,
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        )
        .await;
        assert_eq!(code, 0, "{err}");
    }
    let got = revisions(&admin, &disturbed).await;
    assert_eq!(
        got, want,
        "the disturbed namespace ends exactly like the calm one"
    );
    assert!(injected >= 9, "faults injected: {injected}");
    eprintln!(
        "faults injected: {injected}; objects at risk: {}; objects lost or doubled: 0",
        want.len()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restart_during_migrate_then_a_rerun_converges() {
    let kc = common::revision_kubeconfig();
    let admin = common::client(&kc).await;
    let disturbed = common::namespace(&admin, "arc-fault-restart").await;
    let calm = common::namespace(&admin, "arc-fault-restart-calm").await;
    populate(&admin, &disturbed, 40).await;
    populate(&admin, &calm, 40).await;
    let (code, _, _) = run_async(
        ["migrate", "--kubeconfig", kc.to_str().unwrap(), "-n", &calm]
            .iter()
            .map(|s| s.to_string())
            .collect(),
    )
    .await;
    assert_eq!(code, 0);
    let want = revisions(&admin, &calm).await;

    let proxy = FaultProxy::start(&kc).await;
    let pk = proxy.kubeconfig(&disturbed).to_str().unwrap().to_string();
    // Throttled, so the "restart" (connections refused for a while) lands mid-run.
    let run_task = tokio::spawn(run_async(
        [
            "migrate",
            "--kubeconfig",
            &pk,
            "--force",
            "--qps",
            "20",
            "--burst",
            "1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    ));
    tokio::time::sleep(Duration::from_millis(700)).await;
    proxy.refuse();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    proxy.resume();
    let (code, _, err) = run_task.await.unwrap();
    assert!(code == 0 || code == 1 || code == 2, "{err}");
    let partial = revisions(&admin, &disturbed).await;
    for (name, (rev, legacy)) in &partial {
        // Never past the target; never an annotation removed without its revision.
        assert!(*rev <= want[name].0, "{name}");
        if !legacy {
            assert_eq!(*rev, want[name].0, "{name}");
        }
    }
    let (code, _, err) = run_async(
        ["migrate", "--kubeconfig", &pk, "--force"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(revisions(&admin, &disturbed).await, want);
    assert!(proxy.injected() > 0, "the restart was met");
}
