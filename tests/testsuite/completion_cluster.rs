//! Completion against the real API server: the real `kubectl_complete-arc` executable and the
//! committed bash script list the live namespaces and scale-set names of the context, honour the
//! global flags typed on the line, and give up on a server that never answers, within the deadline.

use crate::common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::cli::completion_values as values;
use crate::common::scratch_dir;
use kube::api::{DynamicObject, PostParams};
use serde_json::json;

/// `kubectl_complete-arc`, as `kubectl arc completion install` makes it: a link to this build.
fn completer() -> &'static Path {
    static COMPLETER: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    COMPLETER.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("completer");
        std::fs::create_dir_all(&dir).unwrap();
        crate::kubectl_plugin::install_completer(&dir)
    })
}

/// Run `kubectl_complete-arc WORDS...` as kubectl does; (stdout, how long it took).
fn complete(words: &[&str], env: &[(&str, &str)]) -> (String, Duration) {
    let start = Instant::now();
    let mut cmd = Command::new(completer());
    cmd.args(words).env_remove("KUBECONFIG");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run kubectl_complete-arc");
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "completion must leave the terminal alone (stderr): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (String::from_utf8(out.stdout).unwrap(), start.elapsed())
}

async fn create_ars(client: &kube::Client, ns: &str, name: &str) {
    let ars: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1",
        "kind": "AutoscalingRunnerSet",
        "metadata": {"name": name},
        "spec": {
            "githubConfigUrl": "https://github.com/my-org",
            "githubConfigSecret": "gh-secret",
            "template": {"spec": {"containers": [{"name": "runner", "image": "runner:1"}]}},
        }
    }))
    .unwrap();
    common::ars_api(client, ns)
        .create(&PostParams::default(), &ars)
        .await
        .unwrap();
}

/// A namespace holding two AutoscalingRunnerSets and an EphemeralRunnerSet of another name.
async fn scale_sets() -> (PathBuf, String) {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-compl").await;
    create_ars(&client, &ns, "runners-a").await;
    create_ars(&client, &ns, "runners-b").await;
    common::create_ers(
        &client,
        &ns,
        "runners-a-x7k2p",
        json!({"spec": {"containers": []}}),
    )
    .await;
    (kubeconfig, ns)
}

#[tokio::test(flavor = "multi_thread")]
async fn live_scale_set_names_in_the_namespace_typed_on_the_line() {
    let (kubeconfig, ns) = scale_sets().await;
    let kc = kubeconfig.to_str().unwrap();

    let (out, _) = complete(&["diff", "--kubeconfig", kc, "-n", &ns, ""], &[]);
    assert_eq!(values(&out), ["runners-a", "runners-b", ":4"], "{out}");
    assert!(
        out.contains(&format!("runners-a\tAutoscalingRunnerSet in {ns}")),
        "{out}"
    );

    // A prefix, the `--namespace=` form, and names already typed are not offered again.
    let (out, _) = complete(
        &[
            "diff",
            "--kubeconfig",
            kc,
            &format!("--namespace={ns}"),
            "runners-a",
            "run",
        ],
        &[],
    );
    assert_eq!(values(&out), ["runners-b", ":4"], "{out}");
    let (out, _) = complete(&["--kubeconfig", kc, "-n", &ns, "diff", "runners-b"], &[]);
    assert_eq!(values(&out), ["runners-b", ":4"], "{out}");

    // migrate names EphemeralRunnerSets.
    let (out, _) = complete(&["migrate", "--kubeconfig", kc, "-n", &ns, ""], &[]);
    assert_eq!(values(&out), ["runners-a-x7k2p", ":4"], "{out}");

    // `kubectl-arc __complete` (what `kubectl arc completion kubectl` installs) answers the same,
    // and stays silent on stderr even at -v 9.
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args([
            "__complete",
            "diff",
            "--kubeconfig",
            kc,
            "-v",
            "9",
            "-n",
            &ns,
            "",
        ])
        .env_remove("KUBECONFIG")
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    assert_eq!(
        values(&String::from_utf8(out.stdout).unwrap()),
        ["runners-a", "runners-b", ":4"]
    );

    // The read-only user lists them too.
    let restricted = common::restricted_kubeconfig();
    let (out, _) = complete(
        &[
            "diff",
            "--kubeconfig",
            restricted.to_str().unwrap(),
            "-n",
            &ns,
            "",
        ],
        &[],
    );
    assert_eq!(values(&out), ["runners-a", "runners-b", ":4"], "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn namespaces_contexts_and_the_context_namespace_from_kubeconfig() {
    let (kubeconfig, ns) = scale_sets().await;
    let kc = kubeconfig.to_str().unwrap();

    let (out, _) = complete(&["--kubeconfig", kc, "-n", ""], &[]);
    assert!(values(&out).contains(&ns.as_str()), "{out}");
    assert!(values(&out).contains(&"kube-system"), "{out}");
    let (out, _) = complete(&["diff", "--kubeconfig", kc, "--namespace", &ns[..9]], &[]);
    assert!(values(&out).contains(&ns.as_str()), "{out}");

    let (out, _) = complete(&["diff", "--kubeconfig", kc, "--context", ""], &[]);
    assert_eq!(values(&out), ["revision", ":4"], "{out}");

    // KUBECONFIG with several files, as kubectl merges them; the context's namespace is the scope.
    let dir = scratch_dir("kubeconfigs");
    let with_ns = dir.join("with-namespace.kubeconfig");
    let text = std::fs::read_to_string(&kubeconfig).unwrap();
    std::fs::write(
        &with_ns,
        text.replace("namespace: default", &format!("namespace: {ns}")),
    )
    .unwrap();
    let extra = dir.join("extra.kubeconfig");
    let mut f = std::fs::File::create(&extra).unwrap();
    writeln!(
        f,
        "apiVersion: v1\nkind: Config\ncontexts:\n- name: other\n  context: {{cluster: revision, user: arc-admin}}"
    )
    .unwrap();
    let list = std::env::join_paths([&with_ns, &extra]).unwrap();
    let list = list.to_str().unwrap();
    let (out, _) = complete(&["diff", ""], &[("KUBECONFIG", list)]);
    assert_eq!(values(&out), ["runners-a", "runners-b", ":4"], "{out}");
    let (out, _) = complete(&["diff", "--context", ""], &[("KUBECONFIG", list)]);
    assert_eq!(values(&out), ["revision", "other", ":4"], "{out}");
}

/// `status -A <TAB>` (issue 14: it offered nothing): the names of every namespace, each name once
/// however many namespaces hold it, its description naming them.
#[tokio::test(flavor = "multi_thread")]
async fn with_all_namespaces_the_names_of_every_namespace_each_once() {
    let kubeconfig = common::revision_kubeconfig();
    let client = common::client(&kubeconfig).await;
    let first = common::namespace(&client, "arc-compl-all").await;
    let second = common::namespace(&client, "arc-compl-all").await;
    // Names unique to this test (other tests fill the same server), shared by both namespaces.
    let shared = common::unique_name("everywhere");
    let only = format!("{shared}-only");
    for ns in [&first, &second] {
        common::create_ers(&client, ns, &shared, json!({"spec": {"containers": []}})).await;
    }
    common::create_ers(&client, &second, &only, json!({"spec": {"containers": []}})).await;
    let kc = kubeconfig.to_str().unwrap();

    for command in ["status", "bump", "migrate"] {
        let (out, _) = complete(&[command, "--kubeconfig", kc, "-A", &shared], &[]);
        assert_eq!(
            values(&out),
            [shared.as_str(), only.as_str(), ":4"],
            "{out}"
        );
        let mut both = [first.as_str(), second.as_str()];
        both.sort();
        assert!(
            out.contains(&format!(
                "{shared}\tEphemeralRunnerSet in {}, {}",
                both[0], both[1]
            )),
            "{out}"
        );
        assert!(
            out.contains(&format!("{only}\tEphemeralRunnerSet in {second}")),
            "{out}"
        );
    }
    // --all-namespaces spelled out, and a name already typed is not offered again.
    let (out, _) = complete(
        &[
            "status",
            "--all-namespaces",
            "--kubeconfig",
            kc,
            &shared,
            &shared,
        ],
        &[],
    );
    assert_eq!(values(&out), [only.as_str(), ":4"], "{out}");
    // Without -A, the namespace in scope only.
    let (out, _) = complete(&["status", "--kubeconfig", kc, "-n", &first, &shared], &[]);
    assert_eq!(values(&out), [shared.as_str(), ":4"], "{out}");
}

/// The bash script of `kubectl arc completion bash` completes live names as well.
#[tokio::test(flavor = "multi_thread")]
async fn the_bash_script_completes_live_names() {
    let (kubeconfig, ns) = scale_sets().await;
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .parent()
        .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/kubectl-arc.bash");
    let path = std::env::join_paths(
        std::iter::once(bin_dir.to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source {}; COMP_WORDS=(kubectl-arc diff --kubeconfig {} -n {ns} ''); COMP_CWORD=6; \
             _clap_complete_kubectl_arc kubectl-arc ''; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display(),
            kubeconfig.display()
        ))
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("runners-a\nrunners-b\n"),
        "live names first, then flags:\n{text}"
    );
}

/// A server that accepts connections and never answers: completion ends within its deadline, with
/// no names and nothing on stderr, so the shell never hangs.
#[test]
fn a_server_that_never_answers_does_not_hang_the_shell() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().take(16) {
            held.push(stream); // accepted, never read nor answered
        }
        std::thread::sleep(Duration::from_secs(30));
    });
    let dir = scratch_dir("silent");
    let kubeconfig = dir.join("silent.kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: silent\n  cluster:\n    server: https://127.0.0.1:{port}\n    insecure-skip-tls-verify: true\n\
             users:\n- name: u\n  user: {{token: t}}\ncontexts:\n- name: silent\n  context: {{cluster: silent, user: u, namespace: arc}}\ncurrent-context: silent\n"
        ),
    )
    .unwrap();
    let kc = kubeconfig.to_str().unwrap();

    let (out, took) = complete(
        &["diff", "--kubeconfig", kc, ""],
        &[("KUBECTL_ARC_COMPLETION_TIMEOUT", "700ms")],
    );
    assert_eq!(out, ":4\n");
    assert!(
        took >= Duration::from_millis(600) && took < Duration::from_millis(2000),
        "{took:?}"
    );

    // The default deadline is 2s; --request-timeout on the line shortens it.
    let (out, took) = complete(&["--kubeconfig", kc, "-n", ""], &[]);
    assert_eq!(out, ":4\n");
    assert!(took < Duration::from_millis(3500), "{took:?}");
    let (out, took) = complete(
        &["diff", "--request-timeout", "300ms", "--kubeconfig", kc, ""],
        &[],
    );
    assert_eq!(out, ":4\n");
    assert!(took < Duration::from_millis(1500), "{took:?}");
}
