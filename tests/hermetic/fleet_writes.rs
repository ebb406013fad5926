//! `bump --contexts` and `migrate --contexts` without a server (every context points at a port
//! nobody listens on): the contexts are gone through in the order given, a dry run before any
//! write keeps every write back when a context fails it, one context selected is exactly
//! `--context`, and the usage errors. The writes themselves are the test bed's
//! (tests/testsuite/fleet_writes.rs).

use crate::fleet::{FLEET, Kubeconfig};

/// (context, result or error kind) of each entry of a report's `contexts[]`, and its phase.
fn stages(json: &str) -> (String, Vec<(String, String)>) {
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let stages = v["contexts"]
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
        .collect();
    (v["phase"].as_str().unwrap().to_string(), stages)
}

#[test]
fn a_dry_run_before_the_writes_keeps_every_write_back() {
    let k = Kubeconfig::new("rollout", FLEET);
    for command in ["bump", "migrate"] {
        let mut args = vec![command, "--contexts", "staging,prod-e*", "-o", "json"];
        if command == "bump" {
            args.push("--all");
        }
        let (code, out, err) = k.run(&args);
        assert_eq!(code, 2, "{command}: {out}{err}");
        let (phase, stages) = stages(&out);
        assert_eq!(phase, "CheckFailed", "{command}: {out}");
        let expected: Vec<(String, String)> = ["staging", "prod-eu"]
            .iter()
            .map(|c| (c.to_string(), "Unreachable".to_string()))
            .collect();
        assert_eq!(stages, expected, "{command}");
        assert!(
            err.contains(
                "error: context staging: unable to connect to the server https://127.0.0.1:1"
            ),
            "{command}: {err}"
        );
        assert!(
            err.ends_with(
                "error: nothing was written in any context: the dry run before the writes failed in staging; prod-eu\n"
            ),
            "{command}: {err}"
        );
    }
    // --dry-run is the dry run alone; the table has a row per context that gave nothing.
    let (code, out, err) = k.run(&[
        "bump",
        "--contexts",
        "prod-eu,staging",
        "--all",
        "--dry-run",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        [
            vec![
                "CONTEXT",
                "NAMESPACE",
                "NAME",
                "SPEC",
                "APPLIED",
                "NEW",
                "SPEC",
                "RESULT"
            ],
            vec!["prod-eu", "-", "-", "-", "-", "-", "Unreachable"],
            vec!["staging", "-", "-", "-", "-", "-", "Unreachable"],
        ],
        "{out}"
    );
    assert!(!err.contains("nothing was written in any context"), "{err}");
}

#[test]
fn one_context_selected_is_exactly_context_for_writes() {
    let k = Kubeconfig::new("rollout-one", FLEET);
    for command in [&["bump", "--all"][..], &["migrate"][..]] {
        let mut as_context = command.to_vec();
        as_context.extend(["--context", "prod-eu", "-o", "json"]);
        let mut selected = command.to_vec();
        selected.extend(["--contexts", "prod-e*", "-o", "json"]);
        let (a, b) = (k.run(&as_context), k.run(&selected));
        assert_eq!(a.0, 2, "{a:?}");
        assert_eq!(b, a, "{command:?}");
    }
}

#[test]
fn usage_errors_of_writes_across_contexts() {
    let k = Kubeconfig::new("rollout-usage", FLEET);
    for (args, says) in [
        (
            &["bump", "--all", "--contexts", "qa"][..],
            "error: --contexts \"qa\": no kubeconfig context matches it",
        ),
        (
            &["bump", "--all", "--context", "dev", "--contexts", "staging"][..],
            "error: --context dev and --contexts/--all-contexts cannot be used together",
        ),
        (
            &["bump", "--all", "--contexts", "dev", "--all-contexts"][..],
            "cannot be used with",
        ),
        (
            &[
                "migrate",
                "-f",
                "dump.yaml",
                "--dry-run",
                "--contexts",
                "dev",
            ][..],
            "cannot be used with",
        ),
        (
            &["migrate", "--user", "u", "--all-contexts"][..],
            "--cluster and --user name one context's cluster or user",
        ),
    ] {
        let (code, out, err) = k.run(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert_eq!(out, "", "{args:?}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn contexts_complete_for_writes_too() {
    let k = Kubeconfig::new("rollout-complete", FLEET);
    for command in ["bump", "migrate"] {
        let (code, out, err) = k.run(&["__complete", command, "--contexts", "staging,prod-e"]);
        assert_eq!(code, 0, "{err}");
        let offered: Vec<&str> = out
            .lines()
            .filter(|l| !l.starts_with(':'))
            .map(|l| l.split('\t').next().unwrap())
            .collect();
        assert_eq!(offered, ["staging,prod-eu"], "{command}: {out}");
    }
}
