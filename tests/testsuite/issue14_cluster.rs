//! kubectl's habits (issue 14) against the real API server: `-v 6` and up log each request as
//! kubectl does (`GET https://... 200 OK in 12 milliseconds`), not kube's tracing spans; and a
//! reader that goes away ends `status --watch` quietly with exit 0 instead of a run that never
//! ends or an "error: Broken pipe".

use crate::common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::cli::exe;
use serde_json::json;

/// One scale set and its EphemeralRunnerSet in a fresh namespace (the set alone, which `bump`
/// accepts, without `with_scale_set`); (kubeconfig, namespace).
async fn scale_set(prefix: &str, with_scale_set: bool) -> (String, String) {
    let kubeconfig = common::revision_kubeconfig();
    let client = common::client(&kubeconfig).await;
    let ns = common::namespace(&client, prefix).await;
    let container = json!({"name": "runner", "image": "ghcr.io/actions/actions-runner:2.328.0"});
    let ars: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1",
        "kind": "AutoscalingRunnerSet",
        "metadata": {"name": "runners", "annotations": {"runner-scale-set-id": "7"}},
        "spec": {
            "githubConfigUrl": "https://github.com/my-org",
            "githubConfigSecret": "gh-secret",
            "template": {"spec": {"containers": [container.clone()]}},
        }
    }))
    .unwrap();
    if with_scale_set {
        common::ars_api(&client, &ns)
            .create(&kube::api::PostParams::default(), &ars)
            .await
            .unwrap();
    }
    common::create_ers(
        &client,
        &ns,
        "runners",
        json!({"runnerScaleSetId": 7, "spec": {"containers": [container]}}),
    )
    .await;
    (kubeconfig.to_str().unwrap().to_string(), ns)
}

/// The request lines of a -v log: what follows `kubectl_arc::http: `.
fn http_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter_map(|l| l.split_once("kubectl_arc::http: ").map(|(_, rest)| rest))
        .collect()
}

/// `GET URL 200 OK in N milliseconds`: (method, URL, status) when `line` is one.
fn request_line(line: &str) -> Option<(&str, &str, &str)> {
    let (before, ms) = line.strip_suffix(" milliseconds")?.rsplit_once(" in ")?;
    ms.parse::<u64>().ok()?;
    let (method, rest) = before.split_once(' ')?;
    let (url, status) = rest.split_once(' ')?;
    Some((method, url, status))
}

#[tokio::test(flavor = "multi_thread")]
async fn verbosity_6_logs_each_request_as_kubectl_does() {
    let (kc, ns) = scale_set("arc-verbosity", true).await;
    let diff = |level: &str| {
        let (code, out, err) = exe(&["diff", "--kubeconfig", &kc, "-n", &ns, "-v", level]);
        assert_eq!(code, 0, "{out}{err}");
        err
    };

    // Up to 5: no request lines.
    assert!(http_lines(&diff("5")).is_empty());

    // 6: one line per request, kubectl's words; no tracing spans.
    let err = diff("6");
    let lines = http_lines(&err);
    assert!(!lines.is_empty(), "{err}");
    let parsed: Vec<_> = lines
        .iter()
        .map(|l| request_line(l).unwrap_or_else(|| panic!("not kubectl's request line: {l}")))
        .collect();
    let server = common::revision_kubeconfig();
    let server = std::fs::read_to_string(server)
        .unwrap()
        .lines()
        .find_map(|l| l.trim().strip_prefix("server: ").map(str::to_string))
        .unwrap();
    let listed = format!(
        "{}/apis/actions.github.com/v1alpha1/namespaces/{ns}/autoscalingrunnersets?",
        server.trim_matches('"').trim_end_matches('/')
    );
    assert!(
        parsed
            .iter()
            .any(|(m, url, status)| *m == "GET" && url.starts_with(&listed) && *status == "200 OK"),
        "no `GET {listed}... 200 OK in N milliseconds` in\n{err}"
    );
    for span in ["HTTP{", "http.url=", "http.method=", "otel."] {
        assert!(!err.contains(span), "a tracing span: {span} in\n{err}");
    }

    // 7: the request before it goes, then the status apart, as kubectl -v 7.
    let err = diff("7");
    assert!(
        http_lines(&err)
            .iter()
            .any(|l| l.starts_with("GET ") && l.contains("/autoscalingrunnersets?")),
        "{err}"
    );
    assert!(err.contains("Response Status: 200 OK in "), "{err}");

    // 8 and 9: the response headers too.
    let err = diff("8");
    assert!(err.contains("Response Headers:"), "{err}");
    assert!(err.contains("Audit-Id: "), "{err}");
}

/// At -v 9 a write shows its body (our JSON merge patch), and never a credential: the admin
/// kubeconfig's client key and the token of a token kubeconfig are covered by secrets_cluster.
#[tokio::test(flavor = "multi_thread")]
async fn verbosity_9_shows_request_bodies_not_credentials() {
    let (kc, ns) = scale_set("arc-verbosity-write", false).await;
    let (code, out, err) = exe(&[
        "bump",
        "--kubeconfig",
        &kc,
        "-n",
        &ns,
        "runners",
        "--dry-run=server",
        "-v=9",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("PATCH https://") && err.contains("dryRun=All"),
        "{err}"
    );
    assert!(
        err.contains("Request Body: {\"metadata\":{\"annotations\":{\"kubectl-arc/bump-id\""),
        "{err}"
    );
    assert!(!err.contains("Authorization"), "{err}");
    assert!(!err.contains("PRIVATE KEY"), "{err}");
}

/// `kubectl arc status --watch | head -1`: the reader goes away; kubectl-arc ends quietly at its
/// next write (issue 14), where it used to print "error: Broken pipe" or watch on forever.
#[tokio::test(flavor = "multi_thread")]
async fn a_watch_into_a_closed_pipe_ends_quietly() {
    let (kc, ns) = scale_set("arc-watch-pipe", true).await;
    // The table writes through io::Write; JSON rows through serde_json, whose error wraps EPIPE.
    for output in ["table", "json", "yaml"] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let start = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
            .args([
                "status",
                "--watch",
                "--kubeconfig",
                &kc,
                "-n",
                &ns,
                "-o",
                output,
            ])
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("status --watch -o {output} kept running with nobody reading");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert_eq!(status.code(), Some(0), "-o {output}: {err}");
        assert!(err.is_empty(), "-o {output}: quietly: {err}");
    }
}

/// At a terminal (stderr a tty), progress is one line that rewrites itself and is erased before
/// anything else is said: bump's count of sets written, and `status --wait`'s count of sets
/// Synced, revisions acknowledged and stale runners left, instead of a line per set.
#[tokio::test(flavor = "multi_thread")]
async fn progress_at_a_terminal_is_one_line_erased_before_the_rest() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "tty").await;
    for i in 0..20 {
        common::create_ers(&client, &ns, &format!("s{i:02}"), json!({})).await;
    }
    let kc = kubeconfig.to_str().unwrap().to_string();
    let tty = |list: &[&str]| {
        let list = common::cli::args(list);
        tokio::task::spawn_blocking(move || {
            let refs: Vec<&str> = list.iter().map(String::as_str).collect();
            common::cli::in_process_tty(&refs)
        })
    };
    let (code, out, err) = tty(&["bump", "--kubeconfig", &kc, "-n", &ns, "--all"])
        .await
        .unwrap();
    assert_eq!(code, 0, "{err:?}");
    assert!(
        err.starts_with("\rbumping 1/20 EphemeralRunnerSets\x1b[K"),
        "{err:?}"
    );
    assert!(
        err.ends_with("\rbumping 20/20 EphemeralRunnerSets\x1b[K\r\x1b[K"),
        "the line is erased at the end: {err:?}"
    );
    assert_eq!(out.lines().count(), 21, "a header and 20 rows: {out}");

    // Every set now waits for ARC to acknowledge revision 1: one line of counts, then the
    // timeout's table and error, the line erased first.
    let (code, out, err) = tty(&[
        "status",
        "--kubeconfig",
        &kc,
        "-n",
        &ns,
        "--wait",
        "--timeout",
        "2s",
    ])
    .await
    .unwrap();
    assert_eq!(code, 1, "{err:?}");
    assert!(
        err.starts_with(
            "\rWaiting for ARC: 20 of 20 EphemeralRunnerSets not Synced yet (0 of 20 revisions acknowledged), 0 stale runners left\x1b[K"
        ),
        "{err:?}"
    );
    assert!(
        !err.contains("Waiting for EphemeralRunnerSet"),
        "no line per set: {err:?}"
    );
    assert!(
        err.contains("\x1b[K\r\x1b[Kerror: timed out after 2s waiting for every EphemeralRunnerSet to be Synced"),
        "{err:?}"
    );
    assert_eq!(out.lines().count(), 21, "{out}");

    // Not at a terminal, the same wait writes a line per set, and no escape sequence.
    let (code, _, err) = common::cli::in_process_async(common::cli::args(&[
        "status",
        "--kubeconfig",
        &kc,
        "-n",
        &ns,
        "--wait",
        "--timeout",
        "1s",
    ]))
    .await;
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        err.lines()
            .filter(|l| l.starts_with("Waiting for EphemeralRunnerSet"))
            .count(),
        20,
        "{err}"
    );
    assert!(!err.contains('\x1b'), "{err:?}");
}
