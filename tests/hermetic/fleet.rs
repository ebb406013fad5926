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

    /// The command with `--request-timeout 1s` after its `status`, `diff`, `bump` or `migrate`: the dead server
    /// costs a second a run (cluster/no_answer.rs), not five tries of every read.
    pub(crate) fn run(&self, args: &[&str]) -> (i32, String, String) {
        let mut args: Vec<&str> = args.to_vec();
        if args[0] != "__complete"
            && let Some(at) = args
                .iter()
                .position(|a| matches!(*a, "status" | "diff" | "bump" | "migrate"))
        {
            args.insert(at + 1, "--request-timeout=1s");
        }
        let out = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
            .args(&args)
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
            &["status", "--all-contexts", "-f", "dump.yaml"][..],
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

/// `--watch` and `--wait` across contexts: each dead context said once, naming it; the watch
/// ends when no context is left to follow, the wait at the first failure; exit 2.
#[test]
fn following_dead_contexts_ends_with_each_failure_said() {
    let k = Kubeconfig::new("follow", FLEET);
    let (code, out, err) = k.run(&["status", "--contexts", "dev,staging", "--watch"]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(out, "");
    let mut lines: Vec<&str> = err.lines().collect();
    lines.sort();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0]
            .starts_with("error: context dev: unable to connect to the server https://127.0.0.1:1"),
        "{err}"
    );
    assert!(
        lines[1].starts_with("error: context staging: unable to connect"),
        "{err}"
    );
    let (code, out, err) = k.run(&[
        "status",
        "--contexts",
        "dev,staging",
        "--wait",
        "-o",
        "json",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(
        err.lines().count(),
        1,
        "the first failure ends the wait: {err}"
    );
    // The report names the context that failed (the other was not waited for).
    let got = contexts(&out);
    assert_eq!(got.len(), 1, "{out}");
    assert_eq!(got[0].1, "Unreachable");
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

/// A shipped dump of both kinds: `diff -f` with it needs no cluster, whatever the context.
fn dump() -> String {
    format!(
        "{}/examples/scale-set-dump.yaml",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn diff_usage_errors_name_the_flags_and_write_nothing() {
    let k = Kubeconfig::new("diff-usage", FLEET);
    let dump = dump();
    for (args, says) in [
        (
            &["diff", "--contexts", "dev,staging", "--local", "-f", &dump][..],
            "the argument '--contexts <PATTERN>' cannot be used with '--local'",
        ),
        (
            &["diff", "--all-contexts", "--live", &dump][..],
            "the argument '--all-contexts' cannot be used with '--live <FILE>'",
        ),
        (
            &["diff", "--contexts", "dev,staging", "-o", "github"][..],
            "-o github annotates the files of one change: it cannot be used with --contexts/--all-contexts",
        ),
        (
            &["diff", "--contexts", "dev,qa-*"][..],
            "error: --contexts \"qa-*\": no kubeconfig context matches it",
        ),
        (
            &["diff", "--context", "dev", "--all-contexts"][..],
            "error: --context dev and --contexts/--all-contexts cannot be used together",
        ),
        (&["diff", "--parallel", "4"][..], "--contexts"),
    ] {
        let (code, out, err) = k.run(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert_eq!(out, "", "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn diff_one_context_selected_is_exactly_context() {
    let k = Kubeconfig::new("diff-one", FLEET);
    let dump = dump();
    // From files (the cluster not asked), and from the dead cluster (its error, naming it).
    for extra in [
        &["-f", dump.as_str()][..],
        &["-f", dump.as_str(), "-o", "json"][..],
        &[][..],
    ] {
        let run = |selector: &[&str]| {
            let mut args = vec!["diff"];
            args.extend_from_slice(selector);
            args.extend_from_slice(extra);
            k.run(&args)
        };
        let as_context = run(&["--context", "prod-eu"]);
        for pattern in ["prod-eu", "prod-e*", "prod-*,!prod-us,!prod-ap"] {
            assert_eq!(
                run(&["--contexts", pattern]),
                as_context,
                "{pattern} {extra:?}"
            );
        }
        assert!(!as_context.1.contains("# context"), "{as_context:?}");
    }
}

#[test]
fn diff_across_contexts_each_part_after_its_context_line() {
    let k = Kubeconfig::new("diff-parts", FLEET);
    let dump = dump();
    let one = k.run(&["diff", "--context", "dev", "-f", &dump]);
    let two = k.run(&["diff", "--contexts", "dev,staging", "-f", &dump]);
    assert_eq!(two.0, one.0, "{two:?}");
    assert_eq!(
        two.1,
        format!("# context dev\n{}\n# context staging\n{}", one.1, one.1)
    );
    // Dead clusters: each context its own line on stdout and its error on stderr, exit 2.
    let (code, out, err) = k.run(&["diff", "--contexts", "staging,dev"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        out,
        "# context staging: Unreachable\n\n# context dev: Unreachable\n"
    );
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with(
            "error: context staging: unable to connect to the server https://127.0.0.1:1"
        ),
        "{err}"
    );
    let (_, out, _) = k.run(&["diff", "--contexts", "staging,dev", "-o", "json"]);
    assert_eq!(
        contexts(&out),
        [
            ("staging".to_string(), "Unreachable".to_string()),
            ("dev".to_string(), "Unreachable".to_string())
        ]
    );
    // Completion offers the contexts to diff too.
    let (code, out, _) = k.run(&["__complete", "diff", "--contexts", "dev,st"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().next(), Some("dev,staging"), "{out}");
}
