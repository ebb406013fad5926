//! `status --contexts` / `--all-contexts` without a server: which contexts a pattern selects and
//! in which order they are reported (every context here points at a port nobody listens on, so
//! each is an Unreachable row of its own), the usage errors, and one context selected giving
//! exactly what `--context` gives.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A kubeconfig file removed when the test ends.
pub(crate) struct Kubeconfig(PathBuf);

impl Kubeconfig {
    /// Contexts `names`, all on a cluster whose server refuses connections; the first is current.
    pub(crate) fn new(test: &str, names: &[&str]) -> Kubeconfig {
        let mut text = String::from(
            "apiVersion: v1\nkind: Config\n\
             clusters:\n- name: dead\n  cluster: {server: \"https://127.0.0.1:1\"}\n\
             users:\n- name: u\n  user: {token: abc}\ncontexts:\n",
        );
        for name in names {
            text.push_str(&format!(
                "- name: {name}\n  context: {{cluster: dead, user: u, namespace: arc-{name}}}\n"
            ));
        }
        text.push_str(&format!("current-context: {}\n", names[0]));
        let path = std::env::temp_dir().join(format!(
            "kubectl-arc-fleet-{test}-{}.yaml",
            std::process::id()
        ));
        std::fs::write(&path, text).unwrap();
        Kubeconfig(path)
    }

    pub(crate) fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
            .args(args)
            .env("KUBECONFIG", &self.0)
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
}

impl Drop for Kubeconfig {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

pub(crate) const FLEET: &[&str] = &["staging", "prod-us", "prod-eu", "dev", "prod-ap"];

/// The contexts of a JSON report, in order, each with its error kind.
fn contexts(json: &str) -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    v["contexts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["error"]["kind"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn names(contexts: &[(String, String)]) -> Vec<&str> {
    contexts.iter().map(|(n, _)| n.as_str()).collect()
}

#[test]
fn patterns_select_in_the_order_given_globs_sorted_and_exclusions_removed() {
    let k = Kubeconfig::new("select", FLEET);
    let (code, out, err) = k.run(&[
        "status",
        "--contexts",
        "staging,prod-*,!prod-us",
        "-o",
        "json",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    let got = contexts(&out);
    assert_eq!(names(&got), ["staging", "prod-ap", "prod-eu"]);
    assert!(got.iter().all(|(_, kind)| kind == "Unreachable"), "{got:?}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["kind"], "StatusReport");
    assert_eq!(v["items"], serde_json::json!([]));
    assert_eq!(v["contexts"][0]["server"], "https://127.0.0.1:1");
    // One error line per context, in the same order, each naming it and its server.
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    for (line, name) in lines.iter().zip(["staging", "prod-ap", "prod-eu"]) {
        assert!(
            line.starts_with(&format!(
                "error: context {name}: unable to connect to the server https://127.0.0.1:1"
            )),
            "{line}"
        );
    }
    let (_, out, _) = k.run(&["status", "--all-contexts", "-o", "json", "--parallel", "2"]);
    assert_eq!(
        names(&contexts(&out)),
        ["dev", "prod-ap", "prod-eu", "prod-us", "staging"]
    );
    let (_, out, _) = k.run(&["status", "--contexts", "!prod-*", "-o", "json"]);
    assert_eq!(names(&contexts(&out)), ["dev", "staging"]);
}

#[test]
fn failed_contexts_are_rows_of_their_own_in_the_table() {
    let k = Kubeconfig::new("table", FLEET);
    let (code, out, err) = k.run(&["status", "--contexts", "dev,staging"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        out,
        "CONTEXT   NAMESPACE   NAME   SPEC   APPLIED   STATE         IDLE   BUSY   PENDING   FAILED   STALE   AGE\n\
         dev       -           -      -      -         Unreachable   -      -      -         -        -       -\n\
         staging   -           -      -      -         Unreachable   -      -      -         -        -       -\n"
    );
    let (_, out, _) = k.run(&[
        "status",
        "--contexts",
        "dev,staging",
        "--no-headers",
        "-o",
        "wide",
    ]);
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("dev "), "{out}");
    assert!(first.contains("Unreachable"), "{out}");
    assert!(
        first.contains("unable to connect to the server https://127.0.0.1:1"),
        "{out}"
    );
}

#[test]
fn usage_errors_name_the_pattern_and_write_nothing() {
    let k = Kubeconfig::new("usage", FLEET);
    for (args, says) in [
        (
            &["status", "--contexts", "dev,qa-*"][..],
            "error: --contexts \"qa-*\": no kubeconfig context matches it (known: dev, prod-ap, prod-eu, prod-us, staging)",
        ),
        (
            &["status", "--contexts", "!qa"][..],
            "error: --contexts \"!qa\": no kubeconfig context matches it",
        ),
        (
            &["status", "--context", "dev", "--contexts", "staging"][..],
            "error: --context dev and --contexts/--all-contexts cannot be used together",
        ),
        (
            &["--context", "dev", "status", "--all-contexts"][..],
            "error: --context dev and --contexts/--all-contexts cannot be used together",
        ),
        (
            &["status", "--contexts", "dev,,staging"][..],
            "an empty pattern",
        ),
        (
            &["status", "--contexts", "!*"][..],
            "every context is excluded",
        ),
        (
            &["status", "--all-contexts", "--parallel", "0"][..],
            "--parallel",
        ),
        (
            &["status", "--all-contexts", "--watch"][..],
            "cannot be used with",
        ),
        (&["status", "--parallel", "4"][..], "--contexts"),
    ] {
        let (code, out, err) = k.run(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert_eq!(out, "", "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn one_context_selected_is_exactly_context() {
    let k = Kubeconfig::new("one", FLEET);
    for output in ["table", "json", "wide"] {
        let as_context = k.run(&["status", "--context", "prod-eu", "-o", output]);
        for pattern in ["prod-eu", "prod-e*", "prod-*,!prod-us,!prod-ap"] {
            let selected = k.run(&["status", "--contexts", pattern, "-o", output]);
            assert_eq!(selected, as_context, "--contexts {pattern} -o {output}");
        }
    }
    // And it names the selected context's namespace, not the current context's.
    let (_, _, err) = k.run(&["status", "--contexts", "prod-eu"]);
    assert!(err.contains("arc-prod-eu"), "{err}");
}

/// The names `status --contexts WORD<TAB>` offers (kubectl's plugin completion, `__complete`; the
/// shells' scripts ask the same completer).
fn offered(k: &Kubeconfig, word: &str) -> Vec<String> {
    let (code, out, err) = k.run(&["__complete", "status", "--contexts", word]);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .filter(|l| !l.starts_with(':'))
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect()
}

#[test]
fn contexts_complete_after_a_comma_and_a_bang() {
    let k = Kubeconfig::new("complete", FLEET);
    assert_eq!(offered(&k, "prod-"), ["prod-us", "prod-eu", "prod-ap"]);
    assert_eq!(offered(&k, "dev,st"), ["dev,staging"]);
    assert_eq!(offered(&k, "dev,!prod-e"), ["dev,!prod-eu"]);
    // After a comma, the next pattern (clap puts back what was typed before it).
    assert_eq!(offered(&k, "staging,prod-u"), ["staging,prod-us"]);
}
