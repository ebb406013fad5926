//! Issue 23: `status --contexts` over a fleet of four kubeconfig contexts, on the test bed's two
//! API servers: both servers (each context with its own namespace default), one whose server does
//! not answer (a port nobody listens on), one whose credentials the server refuses (a token it
//! does not know). One merged table and JSON, the two failures rows of their own and errors on
//! stderr naming their context, exit 2, and one scale set registered from both servers (the same
//! githubConfigUrl, spelled differently, and runnerScaleSetName) said on both rows.

use crate::common;

use kube::api::{DynamicObject, PostParams};
use kube::config::{Kubeconfig, NamedAuthInfo, NamedContext};
use serde_json::{Value, json};

use crate::common::cli::{exe_async, report};

/// The AutoscalingRunnerSet `name` registering scale set `scale_set` of `url`.
fn scale_set(name: &str, url: &str, scale_set: &str) -> DynamicObject {
    made_by(name, url, scale_set, "0.14.2")
}

/// [`scale_set`], made by chart release `version`.
fn made_by(name: &str, url: &str, scale_set: &str, version: &str) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/version": version}},
        "spec": {"githubConfigUrl": url, "githubConfigSecret": "gh-secret",
                 "runnerScaleSetName": scale_set,
                 "template": {"spec": {"containers": [{"name": "runner", "image": "ghcr.io/actions/actions-runner:2.328.0"}]}}}
    }))
    .unwrap()
}

/// One context of `from` (the test bed's one-context kubeconfigs), renamed `name`, defaulting to
/// `namespace`.
pub(crate) fn renamed(from: &Kubeconfig, name: &str, namespace: &str) -> Kubeconfig {
    let mut k = from.clone();
    for c in &mut k.clusters {
        c.name = name.to_string();
    }
    for u in &mut k.auth_infos {
        u.name = name.to_string();
    }
    k.contexts = vec![NamedContext {
        name: name.to_string(),
        context: Some(kube::config::Context {
            cluster: name.to_string(),
            user: Some(name.to_string()),
            namespace: Some(namespace.to_string()),
            extensions: None,
            other: Default::default(),
        }),
        other: Default::default(),
    }];
    k
}

/// A port on 127.0.0.1 that nobody listens on.
pub(crate) fn dead_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

pub(crate) fn merged(parts: Vec<Kubeconfig>) -> Kubeconfig {
    let mut all = Kubeconfig::default();
    for k in parts {
        all.clusters.extend(k.clusters);
        all.auth_infos.extend(k.auth_infos);
        all.contexts.extend(k.contexts);
    }
    all.current_context = Some("fleet-a".into());
    all
}

/// The test bed's four-context kubeconfig (written to a scratch file): `fleet-a` (the revision
/// server, namespace `ns_a`), `fleet-b` (the legacy server, `ns_b`), `fleet-dead` (a port nobody
/// listens on), `fleet-refused` (the revision server, a token it does not know). Its path, and
/// the revision server's one-context kubeconfig, and the scratch directory holding the file (it
/// is removed when dropped).
pub(crate) fn four_contexts(ns_a: &str, ns_b: &str) -> (String, Kubeconfig, common::Scratch) {
    let a = Kubeconfig::read_from(common::revision_kubeconfig()).unwrap();
    let b = Kubeconfig::read_from(common::legacy_kubeconfig()).unwrap();
    let mut dead = renamed(&a, "fleet-dead", "default");
    dead.clusters[0].cluster.as_mut().unwrap().server =
        Some(format!("https://127.0.0.1:{}", dead_port()));
    let mut refused = renamed(&a, "fleet-refused", ns_a);
    refused.auth_infos = vec![NamedAuthInfo {
        name: "fleet-refused".into(),
        auth_info: Some(kube::config::AuthInfo {
            token: Some("not-a-token-this-server-knows".to_string().into()),
            ..Default::default()
        }),
        other: Default::default(),
    }];
    let fleet = merged(vec![
        renamed(&a, "fleet-a", ns_a),
        renamed(&b, "fleet-b", ns_b),
        dead,
        refused,
    ]);
    let dir = common::scratch_dir("fleet");
    let path = dir.join("fleet.kubeconfig");
    // JSON is YAML: the kubeconfig as kube writes it.
    std::fs::write(&path, serde_json::to_string(&fleet).unwrap()).unwrap();
    (path.to_str().unwrap().to_string(), a, dir)
}

fn item<'a>(r: &'a Value, context: &str) -> &'a Value {
    r["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["context"] == context)
        .unwrap_or_else(|| panic!("no item of {context}: {r:#}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn four_contexts_one_report_failures_as_rows_and_a_duplicate_registration() {
    let revision = common::revision_kubeconfig();
    let legacy = common::legacy_kubeconfig();
    let (client_a, client_b) = (
        common::client(&revision).await,
        common::client(&legacy).await,
    );
    let ns_a = common::namespace(&client_a, "fleet-a").await;
    let ns_b = common::namespace(&client_b, "fleet-b").await;
    // One organization per test run, so no other test's scale set is the same.
    let org = common::unique_name("fleet-org");
    common::ars_api(&client_a, &ns_a)
        .create(
            &PostParams::default(),
            &scale_set("runners", &format!("https://github.com/{org}"), "linux"),
        )
        .await
        .unwrap();
    common::ars_api(&client_b, &ns_b)
        .create(
            &PostParams::default(),
            &scale_set("east", &format!("https://GitHub.com/{org}/"), "linux"),
        )
        .await
        .unwrap();
    // And one that is another scale set (another name): nothing said of it; made by another
    // release, which the fleet's note says.
    common::ars_api(&client_b, &ns_b)
        .create(
            &PostParams::default(),
            &made_by("gpu", &format!("https://github.com/{org}"), "gpu", "0.13.0"),
        )
        .await
        .unwrap();

    let (kc, a, _dir) = four_contexts(&ns_a, &ns_b);
    let run = |extra: &[&str]| {
        let mut args: Vec<String> = [
            "status",
            "--kubeconfig",
            &kc,
            "--contexts",
            "fleet-a,fleet-b,fleet-dead,fleet-refused",
            // A dead context costs this per run (cluster/no_answer.rs), not five tries a read.
            "--request-timeout",
            "2s",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        exe_async(args)
    };

    // JSON: every context's items, each naming its context; contexts[] in the order given.
    let (code, out, err) = run(&["-o", "json"]).await;
    assert_eq!(code, 2, "a partial result is an error: {out}{err}");
    let r = report(&out);
    let contexts: Vec<(&str, &str)> = r["contexts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap(),
                c["error"]["kind"].as_str().unwrap_or("ok"),
            )
        })
        .collect();
    assert_eq!(
        contexts,
        [
            ("fleet-a", "ok"),
            ("fleet-b", "ok"),
            ("fleet-dead", "Unreachable"),
            ("fleet-refused", "Unauthorized")
        ],
        "{r:#}"
    );
    assert_eq!(
        r["contexts"][0]["server"],
        a.clusters[0]
            .cluster
            .as_ref()
            .unwrap()
            .server
            .clone()
            .unwrap()
    );
    assert_eq!(r["contexts"][0]["counts"]["sets"], 1, "{r:#}");
    assert_eq!(r["contexts"][1]["counts"]["sets"], 2, "{r:#}");
    assert_eq!(r["contexts"][0]["arcVersions"], json!(["0.14.2"]));
    assert_eq!(r["contexts"][1]["arcVersions"], json!(["0.13.0", "0.14.2"]));
    assert_eq!(r["notes"][0]["reason"], "ArcVersionsDiffer", "{r:#}");
    assert_eq!(
        r["notes"][0]["values"],
        json!({"0.13.0": ["fleet-b"], "0.14.2": ["fleet-a", "fleet-b"]})
    );
    let on_a = item(&r, "fleet-a");
    assert_eq!(on_a["namespace"], ns_a.as_str());
    assert_eq!(on_a["name"], "runners");
    let dup = |i: &Value| -> Vec<String> {
        i["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["reason"] == "DuplicateRegistration")
            .map(|r| r["message"].as_str().unwrap().to_string())
            .collect()
    };
    let said_on_a = dup(on_a);
    assert_eq!(said_on_a.len(), 1, "{on_a:#}");
    assert!(
        said_on_a[0].contains(&format!("and so does {ns_b}/east in context fleet-b"))
            && said_on_a[0].contains("ARC #3351"),
        "{}",
        said_on_a[0]
    );
    let items_b: Vec<&Value> = r["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["context"] == "fleet-b")
        .collect();
    let east = items_b.iter().find(|i| i["name"] == "east").unwrap();
    let gpu = items_b.iter().find(|i| i["name"] == "gpu").unwrap();
    assert!(
        dup(east)[0].contains(&format!("and so does {ns_a}/runners in context fleet-a")),
        "{east:#}"
    );
    assert!(dup(gpu).is_empty(), "{gpu:#}");
    // The errors, after the report, one line each, naming the context.
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with(
            "error: context fleet-dead: unable to connect to the server https://127.0.0.1:"
        ),
        "{err}"
    );
    assert!(
        lines[1].starts_with("error: context fleet-refused: unauthorized"),
        "{err}"
    );

    // The table: a CONTEXT column, the rows in the contexts' order, the failures as rows.
    let (code, out, err) = run(&[]).await;
    assert_eq!(code, 2, "{err}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows[0],
        [
            "CONTEXT",
            "NAMESPACE",
            "NAME",
            "SPEC",
            "APPLIED",
            "STATE",
            "IDLE",
            "BUSY",
            "PENDING",
            "FAILED",
            "STALE",
            "AGE"
        ],
        "{out}"
    );
    let firsts: Vec<(&str, &str, &str)> = rows[1..].iter().map(|r| (r[0], r[2], r[5])).collect();
    assert_eq!(
        firsts,
        [
            ("fleet-a", "runners", "Registering"),
            ("fleet-b", "east", "Registering"),
            ("fleet-b", "gpu", "Registering"),
            ("fleet-dead", "-", "Unreachable"),
            ("fleet-refused", "-", "Unauthorized"),
        ],
        "{out}"
    );
    assert!(
        err.lines().any(|l| l.starts_with("note: ARC releases (the scale sets' app.kubernetes.io/version) differ across the fleet: 0.13.0 in fleet-b; 0.14.2 in fleet-a, fleet-b")),
        "{err}"
    );
    println!("{out}{err}");

    // -o wide says the duplicate on the row; -o name is context/namespace/name.
    let (_, out, _) = run(&["-o", "wide"]).await;
    let row_a = out.lines().find(|l| l.starts_with("fleet-a ")).unwrap();
    assert!(
        row_a.contains("in context fleet-b: one scale set, two listeners"),
        "{out}"
    );
    let (_, out, _) = run(&["-o", "name"]).await;
    assert_eq!(
        out,
        format!("fleet-a/{ns_a}/runners\nfleet-b/{ns_b}/east\nfleet-b/{ns_b}/gpu\n")
    );

    // One context selected is --context, byte for byte (JSON: the table's AGE may tick between
    // two runs).
    let one = |selector: &str, name: &str| {
        exe_async(
            ["status", "--kubeconfig", &kc, selector, name, "-o", "json"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        )
    };
    let as_context = one("--context", "fleet-b").await;
    assert_eq!(as_context.0, 0, "{as_context:?}");
    assert_eq!(one("--contexts", "fleet-b").await, as_context);
    assert_eq!(one("--contexts", "fleet-b*").await, as_context);
    assert!(!as_context.1.contains("\"context\""), "{}", as_context.1);

    // The two servers alone: exit 0, the duplicate still said.
    let (code, out, err) = exe_async(
        [
            "status",
            "--kubeconfig",
            &kc,
            "--contexts",
            "fleet-a,fleet-b",
            "-o",
            "json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    )
    .await;
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(dup(item(&report(&out), "fleet-a")).len(), 1);
}

/// The scale set `runners` of `image`, as a render or the cluster holds it.
fn runners(image: &str) -> Value {
    json!({
        "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "runners"},
        "spec": {"githubConfigUrl": "https://github.com/my-org", "githubConfigSecret": "gh-secret",
                 "template": {"spec": {"containers": [{"name": "runner", "image": image}]}}}
    })
}

/// The runner spec ARC wrote for `runners` of `image`.
fn stored(image: &str) -> Value {
    json!({"runnerScaleSetId": 7, "spec": {"containers": [{"name": "runner", "image": image}]}})
}

/// The real binary with `stdin` on its standard input; (exit code, stdout, stderr).
async fn exe_with_stdin(args: Vec<String>, stdin: String) -> (i32, String, String) {
    tokio::task::spawn_blocking(move || {
        use std::io::Write as _;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
            .args(&args)
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    })
    .await
    .unwrap()
}

/// Issue 23: `diff --contexts`. The scale set `runners` runs image 1 in fleet-a and image 2 in
/// fleet-b: against its own AutoscalingRunnerSet (image 2 in both) fleet-a drifts and fleet-b does
/// not, and a render of image 2 given once on stdin is judged in each context the same way. One
/// report: each context's part after its `# context` line, JSON items naming their context and
/// `contexts[]`; the dead and refused contexts are their own entries; exit 1 for drift alone, 2
/// with a failed context; one context selected is `--context`, byte for byte.
#[tokio::test(flavor = "multi_thread")]
async fn diff_across_contexts_drift_in_one_failures_of_their_own() {
    let (client_a, client_b) = (
        common::client(&common::revision_kubeconfig()).await,
        common::client(&common::legacy_kubeconfig()).await,
    );
    let ns_a = common::namespace(&client_a, "fleetdiff-a").await;
    let ns_b = common::namespace(&client_b, "fleetdiff-b").await;
    for (client, ns, live_image) in [(&client_a, &ns_a, "img:1"), (&client_b, &ns_b, "img:2")] {
        common::ars_api(client, ns)
            .create(
                &PostParams::default(),
                &serde_json::from_value::<DynamicObject>(runners("img:2")).unwrap(),
            )
            .await
            .unwrap();
        common::create_ers(client, ns, "runners", stored(live_image)).await;
    }
    let (kc, _, _dir) = four_contexts(&ns_a, &ns_b);
    let diff = |contexts: &str, extra: &[&str]| {
        let mut args: Vec<String> = [
            "diff",
            "--kubeconfig",
            &kc,
            "--contexts",
            contexts,
            // A dead context costs this per run (cluster/no_answer.rs), not five tries a read.
            "--request-timeout",
            "2s",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };

    // The two servers: drift in fleet-a only, exit 1.
    let (code, out, err) = exe_async(diff("fleet-a,fleet-b", &[])).await;
    assert_eq!(code, 1, "drift somewhere, no failure: {out}{err}");
    let parts: Vec<&str> = out.split("\n\n# context ").collect();
    assert_eq!(parts.len(), 2, "{out}");
    assert!(parts[0].starts_with("# context fleet-a\n"), "{out}");
    assert!(
        parts[0].contains(&format!("{ns_a}/runners: semantic drift")),
        "{out}"
    );
    assert!(parts[0].contains("-    image: img:1"), "{out}");
    assert!(parts[0].contains("+    image: img:2"), "{out}");
    assert!(parts[1].starts_with("fleet-b\n"), "{out}");
    assert!(
        parts[1].contains(&format!("{ns_b}/runners: no drift")),
        "{out}"
    );
    assert!(!parts[1].contains("image:"), "{out}");

    // All four, JSON: the items of the two servers, the failures in contexts[], exit 2.
    let (code, out, err) = exe_async(diff(
        "fleet-a,fleet-b,fleet-dead,fleet-refused",
        &["-o", "json"],
    ))
    .await;
    assert_eq!(code, 2, "a partial result is an error: {out}{err}");
    let r = report(&out);
    assert_eq!(r["kind"], "DiffReport");
    let items: Vec<(&str, &str, bool)> = r["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["context"].as_str().unwrap(),
                i["namespace"].as_str().unwrap(),
                i["recycle"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        items,
        [
            ("fleet-a", ns_a.as_str(), true),
            ("fleet-b", ns_b.as_str(), false)
        ],
        "{r:#}"
    );
    let contexts: Vec<(&str, &str, &Value)> = r["contexts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap(),
                c["error"]["kind"].as_str().unwrap_or("ok"),
                &c["counts"],
            )
        })
        .collect();
    let counts = |sets: usize, recycle: usize| json!({"scaleSets": sets, "recycle": recycle, "new": 0, "errors": 0});
    assert_eq!(
        contexts,
        [
            ("fleet-a", "ok", &counts(1, 1)),
            ("fleet-b", "ok", &counts(1, 0)),
            ("fleet-dead", "Unreachable", &counts(0, 0)),
            ("fleet-refused", "Unauthorized", &counts(0, 0)),
        ],
        "{r:#}"
    );
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with(
            "error: context fleet-dead: unable to connect to the server https://127.0.0.1:"
        ),
        "{err}"
    );
    assert!(
        lines[1].starts_with("error: context fleet-refused: unauthorized"),
        "{err}"
    );
    // The text names the failed contexts too, each in its place.
    let (code, out, _) = exe_async(diff("fleet-a,fleet-b,fleet-dead,fleet-refused", &[])).await;
    assert_eq!(code, 2);
    let heads: Vec<&str> = out.lines().filter(|l| l.starts_with("# context")).collect();
    assert_eq!(
        heads,
        [
            "# context fleet-a",
            "# context fleet-b",
            "# context fleet-dead: Unreachable",
            "# context fleet-refused: Unauthorized"
        ],
        "{out}"
    );

    // A render of image 2 on stdin, read once, judged in each context: fleet-a's set is
    // replaced (drift), fleet-b's is what the render says.
    let render = serde_json::to_string(&runners("img:2")).unwrap();
    let (code, out, err) = exe_with_stdin(
        diff("fleet-a,fleet-b", &["-f", "-", "-o", "json"]),
        render.clone(),
    )
    .await;
    assert_eq!(code, 1, "{out}{err}");
    let r = report(&out);
    let judged: Vec<(&str, &str, bool)> = r["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["context"].as_str().unwrap(),
                i["namespace"].as_str().unwrap(),
                i["recycle"].as_bool().unwrap(),
            )
        })
        .collect();
    // The render names no namespace: each context's default.
    assert_eq!(
        judged,
        [
            ("fleet-a", ns_a.as_str(), true),
            ("fleet-b", ns_b.as_str(), false)
        ],
        "{r:#}"
    );
    // -o name: context/namespace/name.
    let (_, out, _) = exe_with_stdin(
        diff(
            "fleet-*,!fleet-dead,!fleet-refused",
            &["-f", "-", "-o", "name"],
        ),
        render.clone(),
    )
    .await;
    assert_eq!(
        out,
        format!("fleet-a/{ns_a}/runners\nfleet-b/{ns_b}/runners\n")
    );

    // One context selected is --context, byte for byte.
    let one = |selector: &str, name: &str| {
        exe_with_stdin(
            ["diff", "--kubeconfig", &kc, selector, name, "-f", "-"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            render.clone(),
        )
    };
    let as_context = one("--context", "fleet-a").await;
    assert_eq!(as_context.0, 1, "{as_context:?}");
    assert_eq!(one("--contexts", "fleet-a").await, as_context);
    assert_eq!(one("--contexts", "fleet-a*").await, as_context);
    assert!(!as_context.1.contains("# context"), "{}", as_context.1);
}

/// The EphemeralRunnerSet `runners` asking for revision `spec` with `applied` acknowledged.
async fn revision_set(client: &kube::Client, ns: &str, spec: i64, applied: i64) {
    let mut ers = common::ers_object("runners", common::runner_spec("img:1"));
    ers.data["spec"]["actionableRevision"] = json!(spec);
    common::ers_api(client, ns)
        .create(&PostParams::default(), &ers)
        .await
        .unwrap();
    common::acknowledge(client, ns, "runners", applied).await;
}

/// Issue 23: `status --contexts --wait`. Two contexts (two namespaces of the revision server,
/// each its context's default): the wait goes on while one set is Pending, each context's
/// progress a line naming it, and ends (exit 0) once both are settled, with one report of
/// both; with a dead context beside them it is 2, at once.
#[tokio::test(flavor = "multi_thread")]
async fn wait_across_contexts_ends_when_every_context_settled_and_fails_on_a_dead_one() {
    use std::io::{BufRead as _, BufReader};
    use std::process::{Command, Stdio};
    use std::sync::mpsc;

    let client = common::client(&common::revision_kubeconfig()).await;
    let ns_one = common::namespace(&client, "fleetwait-one").await;
    let ns_two = common::namespace(&client, "fleetwait-two").await;
    revision_set(&client, &ns_one, 3, 2).await;
    revision_set(&client, &ns_two, 2, 2).await;
    // Pending for good: nobody acknowledges it.
    let ns_stuck = common::namespace(&client, "fleetwait-stuck").await;
    revision_set(&client, &ns_stuck, 5, 4).await;
    let a = Kubeconfig::read_from(common::revision_kubeconfig()).unwrap();
    let mut dead = renamed(&a, "wait-dead", "default");
    dead.clusters[0].cluster.as_mut().unwrap().server =
        Some(format!("https://127.0.0.1:{}", dead_port()));
    let fleet = merged(vec![
        renamed(&a, "wait-one", &ns_one),
        renamed(&a, "wait-two", &ns_two),
        renamed(&a, "wait-stuck", &ns_stuck),
        dead,
    ]);
    let dir = common::scratch_dir("fleetwait");
    let path = dir.join("fleet.kubeconfig");
    std::fs::write(&path, serde_json::to_string(&fleet).unwrap()).unwrap();
    let kc = path.to_str().unwrap().to_string();

    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args([
            "status",
            "--kubeconfig",
            &kc,
            "--contexts",
            "wait-one,wait-two",
            "--wait",
            "--timeout",
            "60s",
            "-o",
            "json",
        ])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, err_lines) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    while !seen.iter().any(|l: &String| {
        l.starts_with("context wait-one: Waiting for EphemeralRunnerSet")
            && l.contains("Pending (spec revision 3, applied 2)")
    }) {
        let line = err_lines
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("no wait line: {e}; {seen:?}"));
        seen.push(line);
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "still waiting: {seen:?}"
    );
    common::acknowledge(&client, &ns_one, "runners", 3).await;
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    reader.join().unwrap();
    seen.extend(err_lines.try_iter());
    assert_eq!(out.status.code(), Some(0), "{seen:?}");
    assert!(
        seen.iter()
            .any(|l| l == &format!("context wait-two: EphemeralRunnerSet {ns_two}/runners is Synced (spec revision 2, applied 2)")),
        "{seen:?}"
    );
    let r = report(&String::from_utf8(out.stdout).unwrap());
    let rows: Vec<(&str, &str, &str)> = r["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["context"].as_str().unwrap(),
                i["namespace"].as_str().unwrap(),
                i["state"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("wait-one", ns_one.as_str(), "Synced"),
            ("wait-two", ns_two.as_str(), "Synced")
        ],
        "{r:#}"
    );

    // `status NAME` in several contexts: each context's describe-style lines, as `--context`
    // gives them, the set named with its context (lines with an age aside: they tick).
    let status = |selector: &str, contexts: &str| {
        exe_async(
            ["status", "--kubeconfig", &kc, selector, contexts, "runners"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        )
    };
    let steady = |text: &str| -> String {
        text.lines()
            .filter(|l| !l.contains(" ago"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (code, fleet_out, err) = status("--contexts", "wait-one,wait-two").await;
    assert_eq!(code, 0, "{fleet_out}{err}");
    for (context, ns) in [("wait-one", &ns_one), ("wait-two", &ns_two)] {
        let (code, one, err) = status("--context", context).await;
        assert_eq!(code, 0, "{one}{err}");
        let (_, block) = one.split_once("\n\n").unwrap_or_else(|| panic!("{one}"));
        assert!(block.lines().count() > 2, "a chain: {block}");
        let named = block.replacen(
            &format!("{ns}/runners:"),
            &format!("{ns}/runners in context {context}:"),
            1,
        );
        assert!(
            steady(&fleet_out).contains(&steady(&named)),
            "{fleet_out}\n---\n{named}"
        );
    }

    // A dead context: exit 2 at once, without waiting for the Pending one (the timeout is far).
    let started = std::time::Instant::now();
    let (code, out, err) = exe_async(
        [
            "status",
            "--kubeconfig",
            &kc,
            "--contexts",
            "wait-stuck,wait-dead",
            "--wait",
            "--timeout",
            "60s",
            "--request-timeout",
            "1s",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    )
    .await;
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert!(
        err.lines().any(|l| l.starts_with(
            "error: context wait-dead: unable to connect to the server https://127.0.0.1:"
        )),
        "{err}"
    );
    assert!(
        out.contains("wait-dead"),
        "the dead context is a row: {out}"
    );
}
