//! `KUBECONFIG` with several files, read as kubectl reads it (client-go's loading rules): missing
//! files are skipped (issue 14: `KUBECONFIG=/missing:/real` was fatal), the others merged with the
//! first file winning each context, cluster and user and the `current-context`; and kubeconfig
//! errors name a path once, unquoted (issue 14: `'"…/.kube/config"'`).
//!
//! What the merge gave is read back through the binary without a server: `--context` completion
//! lists the merged contexts, and an object of a `-f` file without a namespace takes the namespace
//! of the context in force.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "kubectl-arc-kubeconfig-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A kubeconfig with `current` as current context (if any) and `contexts` as (name, namespace).
fn kubeconfig(current: Option<&str>, contexts: &[(&str, &str)]) -> String {
    let mut text = String::from(
        "apiVersion: v1\nkind: Config\n\
         clusters:\n- name: dead\n  cluster: {server: \"https://127.0.0.1:1\"}\n\
         users:\n- name: u\n  user: {token: abc}\ncontexts:\n",
    );
    for (name, ns) in contexts {
        text.push_str(&format!(
            "- name: {name}\n  context: {{cluster: dead, user: u, namespace: {ns}}}\n"
        ));
    }
    if let Some(c) = current {
        text.push_str(&format!("current-context: {c}\n"));
    }
    text
}

/// An AutoscalingRunnerSet without a namespace: `diff --local` reports it in the namespace of the
/// context in force.
const RENDER: &str = "apiVersion: actions.github.com/v1alpha1
kind: AutoscalingRunnerSet
metadata:
  name: runners
spec:
  githubConfigUrl: https://github.com/my-org
  githubConfigSecret: gh-secret
  template:
    spec:
      containers:
      - name: runner
        image: ghcr.io/actions/actions-runner:2.328.0
";

fn run(kubeconfig_env: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args(args)
        .env("KUBECONFIG", kubeconfig_env)
        .env("HOME", "/nonexistent")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn list(paths: &[&Path]) -> String {
    std::env::join_paths(paths)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// The contexts `--context <TAB>` offers: the merged kubeconfig's.
fn contexts(kubeconfig_env: &str) -> Vec<String> {
    let (code, out, err) = run(kubeconfig_env, &["__complete", "diff", "--context", ""]);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .filter(|l| !l.starts_with(':'))
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect()
}

/// The namespace `diff --local -f` gives an object without one (`--context` when given).
fn namespace_in_force(kubeconfig_env: &str, render: &Path, context: Option<&str>) -> String {
    let mut args = vec!["diff", "--local", "-f", render.to_str().unwrap()];
    if let Some(c) = context {
        args.extend(["--context", c]);
    }
    let (code, out, err) = run(kubeconfig_env, &args);
    assert_eq!(code, 0, "{out}{err}");
    let line = out
        .lines()
        .find(|l| l.contains("/runners: new scale set"))
        .unwrap_or_else(|| panic!("{out}"));
    line.split('/').next().unwrap().to_string()
}

#[test]
fn a_missing_file_in_kubeconfig_is_skipped_and_the_rest_merged_first_wins() {
    let dir = Scratch::new("merge");
    let first = dir.file(
        "first",
        &kubeconfig(Some("a"), &[("a", "from-a"), ("shared", "first")]),
    );
    let second = dir.file(
        "second",
        &kubeconfig(Some("b"), &[("b", "from-b"), ("shared", "second")]),
    );
    let render = dir.file("render.yaml", RENDER);
    let missing = dir.0.join("missing");

    let env = list(&[&missing, &first, &missing, &second]);
    assert_eq!(contexts(&env), ["a", "shared", "b"]);
    // current-context from the first file that sets it; each context whole from the first file.
    assert_eq!(namespace_in_force(&env, &render, None), "from-a");
    assert_eq!(namespace_in_force(&env, &render, Some("shared")), "first");
    assert_eq!(namespace_in_force(&env, &render, Some("b")), "from-b");

    // The other order, and a first file without a current context.
    let env = list(&[&second, &first]);
    assert_eq!(contexts(&env), ["b", "shared", "a"]);
    assert_eq!(namespace_in_force(&env, &render, None), "from-b");
    assert_eq!(namespace_in_force(&env, &render, Some("shared")), "second");
    let no_current = dir.file("no-current", &kubeconfig(None, &[("c", "from-c")]));
    let env = list(&[&no_current, &second]);
    assert_eq!(namespace_in_force(&env, &render, None), "from-b");
    // Empty entries are ignored.
    assert_eq!(contexts(&list(&[&first, Path::new("")])), ["a", "shared"]);
}

#[test]
fn a_kubeconfig_whose_files_are_all_missing_is_an_error() {
    let both = list(&[Path::new("/nonexistent/a"), Path::new("/nonexistent/b")]);
    let (code, _, err) = run(&both, &["diff"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "error: KUBECONFIG={both}: none of its 2 files exists (fix or unset KUBECONFIG, or pass --kubeconfig)\n"
        )
    );
    let (code, _, err) = run("/nonexistent/a", &["status"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("KUBECONFIG=/nonexistent/a: the file does not exist"),
        "{err}"
    );
}

#[test]
fn a_malformed_file_in_the_list_is_named() {
    let dir = Scratch::new("malformed");
    let good = dir.file("good", &kubeconfig(Some("a"), &[("a", "x")]));
    let bad = dir.file("bad", "clusters: {not: [a list\n");
    let (code, _, err) = run(&list(&[&good, &bad]), &["diff"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("{}: not a valid kubeconfig", bad.display())),
        "{err}"
    );
}

#[test]
fn kubeconfig_errors_name_each_path_once_without_quotes() {
    let dir = Scratch::new("quotes");
    let (_, _, err) = run("", &["diff", "--kubeconfig", "/nonexistent/kubeconfig"]);
    assert_eq!(
        err,
        "error: --kubeconfig /nonexistent/kubeconfig: cannot read it (check the path and the file): No such file or directory (os error 2)\n"
    );
    let (_, _, err) = run("", &["diff"]);
    assert!(
        err.contains("cannot read /nonexistent/.kube/config: No such file"),
        "{err}"
    );
    // A certificate authority that is not there: kube's message quoted its path twice as well.
    let ca = dir.file(
        "ca-missing",
        "apiVersion: v1\nkind: Config\n\
         clusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\", certificate-authority: /nonexistent/ca.crt}\n\
         users:\n- name: u\n  user: {token: abc}\n\
         contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n",
    );
    let (code, _, err) = run(ca.to_str().unwrap(), &["diff"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read the certificate authority /nonexistent/ca.crt: No such file"),
        "{err}"
    );
    let (code, _, err) = run(ca.to_str().unwrap(), &["diff", "--context", "elsewhere"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("context \"elsewhere\" does not exist"),
        "{err}"
    );
    for (args, env) in [
        (vec!["diff", "--kubeconfig", "/nonexistent/kubeconfig"], ""),
        (vec!["diff"], ""),
        (vec!["diff"], ca.to_str().unwrap()),
        (vec!["diff"], "/nonexistent/a"),
    ] {
        let (_, _, err) = run(env, &args);
        assert!(!err.contains("'\""), "{args:?}: a path quoted twice: {err}");
    }
}
