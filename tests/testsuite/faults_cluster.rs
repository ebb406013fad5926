//! Faulty clusters: the real API server behind a proxy that cuts connections, answers 429 and
//! 5xx, answers too slowly, drops the answers of writes that landed, and refuses connections as
//! during a restart. Reads retry where kubectl would, writes only when they are known not to have
//! landed or are guarded, and a re-run always reaches the undisturbed final state.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use crate::common::apiserver::Replica;
use crate::common::cli::exe_async;
use crate::common::faults::{Fault, FaultProxy, Rule};
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::{Value, json};

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
    let (code, undisturbed, err) = exe_async(args(&[])).await;
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
    let (code, out, err) = exe_async(args(&[])).await;
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
    let (code, _, err) = exe_async(args(&[])).await;
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
    let (code, _, err) = exe_async(args(&["--request-timeout", "1s"])).await;
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
    let (code, _, err) = exe_async(
        ["migrate", "--kubeconfig", kc.to_str().unwrap(), "-n", &calm]
            .iter()
            .map(|s| s.to_string())
            .collect(),
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let want = common::ers_revisions(&admin, &calm).await;

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
    let (code, out, err) = exe_async(
        ["migrate", "--kubeconfig", &pk, "--force", "-o", "json"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
    )
    .await;
    let injected = proxy.injected();
    if code != 0 {
        // Whatever failed is reported, and a re-run completes it.
        assert_eq!(code, 2, "{err}\n{out}");
        let (code, _, err) = exe_async(
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
    let got = common::ers_revisions(&admin, &disturbed).await;
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
    let (code, _, _) = exe_async(
        ["migrate", "--kubeconfig", kc.to_str().unwrap(), "-n", &calm]
            .iter()
            .map(|s| s.to_string())
            .collect(),
    )
    .await;
    assert_eq!(code, 0);
    let want = common::ers_revisions(&admin, &calm).await;

    let proxy = FaultProxy::start(&kc).await;
    let pk = proxy.kubeconfig(&disturbed).to_str().unwrap().to_string();
    // Throttled, so the "restart" (connections refused for a while) lands mid-run.
    let run_task = tokio::spawn(exe_async(
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
    let partial = common::ers_revisions(&admin, &disturbed).await;
    for (name, (rev, legacy)) in &partial {
        // Never past the target; never an annotation removed without its revision.
        assert!(*rev <= want[name].0, "{name}");
        if !legacy {
            assert_eq!(*rev, want[name].0, "{name}");
        }
    }
    let (code, _, err) = exe_async(
        ["migrate", "--kubeconfig", &pk, "--force"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(common::ers_revisions(&admin, &disturbed).await, want);
    assert!(proxy.injected() > 0, "the restart was met");
}

/// A set asking for revision 3 with revision 2 applied (Pending), written as ARC writes them.
async fn pending_set(client: &kube::Client, ns: &str, name: &str) {
    let api = common::ers_api(client, ns);
    let mut o = common::ers_object(name, runner_spec("img:1"));
    o.data["spec"]["actionableRevision"] = json!(3);
    api.create(&PostParams::default(), &o).await.unwrap();
    common::acknowledge(client, ns, name, 2).await;
}

/// Poll `cond` every 20 ms for up to 60 s; on timeout, fail with `what` and the proxy's log.
async fn until(what: &str, proxy: &FaultProxy, cond: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !cond() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting: {what}; injected {}, cuts {}, requests {:#?}",
            proxy.injected(),
            proxy.cuts(),
            proxy.log()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The proxy's log lines from `from` on that are GETs of EphemeralRunnerSets, as "list" or
/// "watch" (the watch with the resourceVersion it asked for).
fn set_reads(proxy: &FaultProxy, from: usize) -> Vec<String> {
    proxy.log()[from..]
        .iter()
        .filter(|l| l.starts_with("GET ") && l.contains("/ephemeralrunnersets?"))
        .map(|l| {
            if l.contains("watch=true") {
                let rv = l
                    .split(['?', '&'])
                    .find_map(|p| p.strip_prefix("resourceVersion="))
                    .unwrap_or("");
                format!("watch from {rv}")
            } else {
                "list".to_string()
            }
        })
        .collect()
}

/// Watches cut in the middle of their stream, refused with 410 Gone before it, and expired (410)
/// inside it: `status --wait` resumes from the last resourceVersion it saw, or lists again and
/// watches from the new list, and never misses the acknowledgement it waits for, even one written
/// while its watch was down.
#[tokio::test(flavor = "multi_thread")]
async fn watches_survive_cuts_and_expired_history() {
    let kc = common::revision_kubeconfig();
    let admin = common::client(&kc).await;
    let ns = common::namespace(&admin, "arc-fault-watch").await;
    pending_set(&admin, &ns, "resume").await;
    pending_set(&admin, &ns, "relist").await;
    let proxy = FaultProxy::start(&kc).await;
    let pk = proxy.kubeconfig(&ns).to_str().unwrap().to_string();
    let wait = |name: &str| -> Vec<String> {
        [
            "status",
            "--kubeconfig",
            &pk,
            name,
            "--wait",
            "--timeout",
            "90s",
            "-o",
            "json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let applied = |out: &str| -> i64 {
        let r: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
        r["items"][0]["appliedRevision"].as_i64().unwrap()
    };

    // 1. The set watch is cut after a second; the acknowledgement is written after the cut and
    //    before the watch is back (the proxy holds the reconnecting watch for 2 s before it
    //    reaches the API server). The watch resumes from the resourceVersion it had seen (no
    //    list in between), and the API server replays the acknowledgement from there.
    proxy.add(rule(
        Some("GET"),
        "/ephemeralrunnersets?*watch=true",
        Fault::CutStream(Duration::from_secs(1)),
        1,
    ));
    proxy.add(rule(
        Some("GET"),
        "/ephemeralrunnersets?*watch=true",
        Fault::Delay(Duration::from_secs(2)),
        1,
    ));
    let from = proxy.log().len();
    let task = tokio::spawn(exe_async(wait("resume")));
    until("the set watch is cut", &proxy, || proxy.cuts() == 1).await;
    common::acknowledge(&admin, &ns, "resume", 3).await;
    let (code, out, err) = task.await.unwrap();
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(applied(&out), 3, "{out}");
    let reads = set_reads(&proxy, from);
    assert_eq!(reads[0], "list", "{reads:?}");
    assert!(
        reads.len() >= 3,
        "a list, the cut watch, the resumed one: {reads:?}"
    );
    assert!(
        reads[1].starts_with("watch from ") && reads[2] == reads[1],
        "the watch after the cut resumed from the same resourceVersion, without a list: {reads:?}"
    );
    assert!(reads[1].len() > "watch from ".len(), "{reads:?}");

    // 2. The set watch is refused with 410 before its stream, then expires (410) inside it, and
    //    the runner watch is cut: each 410 makes the client list again and watch from the new
    //    list's resourceVersion. The acknowledgement comes after all of that.
    proxy.add(rule(
        Some("GET"),
        "/ephemeralrunnersets?*watch=true",
        Fault::Status(410),
        1,
    ));
    proxy.add(rule(
        Some("GET"),
        "/ephemeralrunnersets?*watch=true",
        Fault::WatchGone,
        1,
    ));
    proxy.add(rule(
        Some("GET"),
        "/ephemeralrunners?*watch=true",
        Fault::CutStream(Duration::from_millis(300)),
        1,
    ));
    assert_eq!(proxy.injected(), 2, "the cut and the held reconnection");
    let injected = proxy.injected();
    let from = proxy.log().len();
    let task = tokio::spawn(exe_async(wait("relist")));
    until("every watch fault was met", &proxy, || {
        if task.is_finished() {
            panic!(
                "status --wait ended early; injected {} cuts {} log {:#?}",
                proxy.injected() - injected,
                proxy.cuts(),
                &proxy.log()[from..]
            );
        }
        proxy.injected() == injected + 3 && proxy.cuts() == 2
    })
    .await;
    // The set watch after the second 410 is open (it follows the third list).
    until("the set watch is open again", &proxy, || {
        set_reads(&proxy, from)
            .iter()
            .filter(|r| *r == "list")
            .count()
            == 3
            && set_reads(&proxy, from)
                .last()
                .is_some_and(|r| r.starts_with("watch"))
    })
    .await;
    common::acknowledge(&admin, &ns, "relist", 3).await;
    let (code, out, err) = task.await.unwrap();
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(applied(&out), 3, "{out}");
    let reads = set_reads(&proxy, from);
    assert_eq!(
        reads.iter().map(|r| &r[..4]).collect::<Vec<_>>()[..6],
        ["list", "watc", "list", "watc", "list", "watc"],
        "list, watch (410), list, watch (410 in the stream), list, watch: {reads:?}"
    );

    // 3. A slow watch open is not abandoned when the other watch has events: the runner watch
    //    is held 1.5 s by the proxy while the set changes five times; it is opened exactly once.
    pending_set(&admin, &ns, "churn").await;
    proxy.add(rule(
        Some("GET"),
        "/ephemeralrunners?*watch=true",
        Fault::Delay(Duration::from_millis(1500)),
        1,
    ));
    let from = proxy.log().len();
    let runner_watches = |proxy: &FaultProxy| {
        proxy.log()[from..]
            .iter()
            .filter(|l| l.contains("/ephemeralrunners?") && l.contains("watch=true"))
            .count()
    };
    let task = tokio::spawn(exe_async(wait("churn")));
    until("the runner watch is opening", &proxy, || {
        runner_watches(&proxy) == 1 && set_reads(&proxy, from).len() == 2
    })
    .await;
    for i in 0..5 {
        common::ers_api(&admin, &ns)
            .patch(
                "churn",
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"labels": {"touch": i.to_string()}}})),
            )
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    common::acknowledge(&admin, &ns, "churn", 3).await;
    let (code, out, err) = task.await.unwrap();
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(applied(&out), 3, "{out}");
    assert_eq!(
        runner_watches(&proxy),
        1,
        "the runner watch was opened once: {:#?}",
        &proxy.log()[from..]
    );
    proxy.clear();
}

/// Poll `f` every 50 ms until it returns `Some`, for up to 60 s.
async fn poll<T, F: std::future::Future<Output = Option<T>>>(what: &str, f: impl Fn() -> F) -> T {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting: {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Kill the replica (SIGKILL) once `ready` holds, keep it down for `outage`, start it again.
async fn crash_when<F: std::future::Future<Output = bool>>(
    replica: &mut Replica,
    outage: Duration,
    what: &str,
    ready: impl Fn() -> F,
) {
    poll(what, || async { ready().await.then_some(()) }).await;
    replica.kill();
    tokio::time::sleep(outage).await;
    replica.restart().await;
}

/// A real API-server restart, not a simulated one: kubectl-arc talks to a kube-apiserver replica
/// (the test bed's storage, its own process) that is killed with SIGKILL part way through
/// `migrate` and `bump --all` and started again. A short outage is ridden through (reads and the
/// write guard retry); a long one fails the sets it hits, with nothing lowered or written twice,
/// and re-running (for bump: with the request id the first run printed) ends exactly like an
/// undisturbed run.
#[tokio::test(flavor = "multi_thread")]
async fn a_real_api_server_restart_during_migrate_and_bump() {
    let kc = common::revision_kubeconfig();
    let admin = common::client(&kc).await;
    let disturbed = common::namespace(&admin, "arc-crash").await;
    let calm = common::namespace(&admin, "arc-crash-calm").await;
    populate(&admin, &disturbed, 40).await;
    populate(&admin, &calm, 40).await;
    let (code, _, err) = exe_async(common::cli::args(&[
        "migrate",
        "--kubeconfig",
        kc.to_str().unwrap(),
        "-n",
        &calm,
    ]))
    .await;
    assert_eq!(code, 0, "{err}");
    let want = common::ers_revisions(&admin, &calm).await;

    let mut replica = Replica::start().await;
    let rk = replica.kubeconfig.to_str().unwrap().to_string();
    let states = || common::ers_revisions(&admin, &disturbed);
    let long = Duration::from_secs(8);
    let throttled = |cmd: &[&str]| {
        let mut a = common::cli::args(cmd);
        a.extend(common::cli::args(&[
            "--kubeconfig",
            &rk,
            "-n",
            &disturbed,
            "--qps",
            "10",
            "--burst",
            "1",
        ]));
        a
    };

    // 1. migrate, killed after 5 sets for 8 s: longer than a set's retries, so sets fail.
    let task = tokio::spawn(exe_async(throttled(&["migrate", "--force"])));
    crash_when(&mut replica, long, "5 sets migrated", || async {
        states()
            .await
            .values()
            .filter(|(_, legacy)| !legacy)
            .count()
            >= 5
    })
    .await;
    let (code, out, err) = task.await.unwrap();
    assert_eq!(
        code, 2,
        "some sets failed, the others were written\n{out}\n{err}"
    );
    let failed_rows = out.lines().filter(|l| l.contains(" Failed ")).count();
    assert!(failed_rows >= 1, "{out}");
    let partial = states().await;
    for (name, (rev, legacy)) in &partial {
        assert!(*rev <= want[name].0, "{name}: past the target");
        if !legacy {
            assert_eq!(
                *rev, want[name].0,
                "{name}: annotation gone without its revision"
            );
        }
    }
    assert_ne!(partial, want, "the crash left work undone");
    let (code, _, err) = exe_async(throttled(&["migrate", "--force"])).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        states().await,
        want,
        "migrate: the re-run ends like the calm run"
    );

    // 2. bump --all, killed after 5 sets and started again at once: ridden through.
    let before = states().await;
    let bumped_by = |s: &BTreeMap<String, (i64, bool)>, n: i64| {
        s.iter()
            .filter(|(k, (rev, _))| *rev == before[*k].0 + n)
            .count()
    };
    let task = tokio::spawn(exe_async(throttled(&["bump", "--all", "-o", "json"])));
    crash_when(&mut replica, Duration::ZERO, "5 sets bumped", || async {
        bumped_by(&states().await, 1) >= 5
    })
    .await;
    let (code, out, err) = task.await.unwrap();
    assert_eq!(
        code, 0,
        "a restart shorter than the retries is ridden through\n{err}"
    );
    assert_eq!(bumped_by(&states().await, 1), 40, "{out}");

    // 3. bump --all again, killed after 5 sets for 8 s: the sets it hits fail (none is written
    //    twice, none is lowered); the same request, run again with its id, finishes the rest.
    let task = tokio::spawn(exe_async(throttled(&["bump", "--all", "-o", "json"])));
    crash_when(&mut replica, long, "5 sets bumped again", || async {
        bumped_by(&states().await, 2) >= 5
    })
    .await;
    let (code, out, err) = task.await.unwrap();
    assert_eq!(code, 2, "{out}\n{err}");
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    let id = report["bumpId"].as_str().unwrap().to_string();
    assert!(err.contains(&format!("--request-id {id}")), "{err}");
    let after = states().await;
    let mut failed = 0;
    for item in report["items"].as_array().unwrap() {
        let name = item["name"].as_str().unwrap();
        let rev = after[name].0;
        assert!(
            rev == before[name].0 + 1 || rev == before[name].0 + 2,
            "{name}: {} -> {rev}",
            before[name].0 + 1
        );
        match item["result"].as_str().unwrap() {
            "Bumped" => assert_eq!(rev, before[name].0 + 2, "{name}: reported bumped"),
            "Failed" => failed += 1,
            other => panic!("{name}: {other}: {item}"),
        }
    }
    assert!(failed >= 1, "{out}");
    let finish = throttled(&["bump", "--all", "-o", "json", "--request-id", &id]);
    let (code, out, err) = exe_async(finish).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        bumped_by(&states().await, 2),
        40,
        "every set bumped exactly once by the request"
    );
    let again: Value = serde_json::from_str(&out).unwrap();
    let already = again["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| {
            i["reason"] == "AlreadyBumped"
                && i["message"]
                    .as_str()
                    .is_some_and(|m| m.contains(&format!("request {id} already wrote revision")))
        })
        .count();
    assert!(already >= 40 - failed, "{out}");

    // 4. bump --all once more, and the server dies for good after 5 sets: three sets in a row
    //    find it unreachable, the rest are not attempted (a dead server costs seconds, not
    //    seconds per set). Started again, the same request finishes: each set bumped once.
    let task = tokio::spawn(exe_async(throttled(&["bump", "--all", "-o", "json"])));
    poll("5 sets bumped a third time", || async {
        (bumped_by(&states().await, 3) >= 5).then_some(())
    })
    .await;
    replica.kill();
    let (code, out, err) = task.await.unwrap();
    assert_eq!(code, 2, "{out}\n{err}");
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    let id = report["bumpId"].as_str().unwrap().to_string();
    let messages: Vec<&str> = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["result"] == "Failed")
        .map(|i| i["message"].as_str().unwrap())
        .collect();
    let not_attempted = messages
        .iter()
        .filter(|m| m.starts_with("not attempted: the API server did not answer for the 3 objects"))
        .count();
    let done = bumped_by(&states().await, 3);
    assert_eq!(messages.len(), 40 - done, "{messages:#?}");
    assert_eq!(
        not_attempted,
        40 - done - 3,
        "three failures, then the breaker: {messages:#?}"
    );
    replica.restart().await;
    let (code, _, err) = exe_async(throttled(&[
        "bump",
        "--all",
        "-o",
        "json",
        "--request-id",
        &id,
    ]))
    .await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        bumped_by(&states().await, 3),
        40,
        "every set bumped exactly once"
    );

    // 5. migrate on a fresh namespace, and the server dies for good after 5 sets: three sets in a
    //    row find it unreachable, the rest are not attempted; started again, a re-run converges.
    let dead = common::namespace(&admin, "arc-crash-dead").await;
    populate(&admin, &dead, 40).await;
    let dead_states = || common::ers_revisions(&admin, &dead);
    let mut dead_args = common::cli::args(&["migrate", "--force", "-o", "json"]);
    dead_args.extend(common::cli::args(&[
        "--kubeconfig",
        &rk,
        "-n",
        &dead,
        "--qps",
        "10",
        "--burst",
        "1",
    ]));
    let task = tokio::spawn(exe_async(dead_args.clone()));
    poll("5 sets migrated in the doomed run", || async {
        let s = dead_states().await;
        (s.values().filter(|(_, legacy)| !legacy).count() >= 5).then_some(())
    })
    .await;
    replica.kill();
    let (code, out, err) = task.await.unwrap();
    assert_eq!(code, 2, "{out}\n{err}");
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    let errors: Vec<&str> = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["result"] == "Failed")
        .map(|i| i["error"].as_str().unwrap())
        .collect();
    let migrate_not_attempted = errors
        .iter()
        .filter(|m| m.starts_with("not attempted: the API server did not answer for the 3 objects"))
        .count();
    let migrated = dead_states().await.values().filter(|(_, l)| !l).count();
    assert_eq!(errors.len(), 40 - migrated, "{errors:#?}");
    assert_eq!(
        migrate_not_attempted,
        40 - migrated - 3,
        "three failures, then the breaker: {errors:#?}"
    );
    replica.restart().await;
    let (code, _, err) = exe_async(dead_args).await;
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        dead_states().await,
        want,
        "the re-run ends like the calm run"
    );

    eprintln!(
        "real restarts: 5 kills (8 s, 0 s, 8 s, until the run ended twice) across 40 sets x 5 runs; migrate: {failed_rows} sets failed then converged; \
         bump: {failed} failed then finished with --request-id; dead server: bump 3 failed and {not_attempted} not attempted, \
         migrate 3 failed and {migrate_not_attempted} not attempted; 0 lowered, 0 doubled; replica started {} times",
        replica.starts
    );
}
