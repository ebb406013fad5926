//! The bad-input corpus: every case gets a clear message naming what is wrong, the documented exit
//! code, and nothing written. Files live in tests/badinput/; the very large and very deep ones are
//! generated here.

use std::path::PathBuf;
use std::process::Command;

fn corpus(name: &str) -> String {
    format!("{}/tests/badinput/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args(args)
        .env("NO_COLOR", "1")
        // No ambient kubeconfig: offline cases must not need one.
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .env("HOME", "/nonexistent")
        .output()
        .expect("run kubectl-arc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// (arguments, exit code, a fragment of stdout+stderr)
fn check(args: &[&str], code: i32, fragment: &str) {
    let (got, out, err) = run(args);
    let all = format!("{out}{err}");
    assert_eq!(got, code, "{args:?}\n{all}");
    assert!(
        all.contains(fragment),
        "{args:?}: expected {fragment:?} in\n{all}"
    );
}

#[test]
fn malformed_files() {
    check(
        &["diff", "-f", &corpus("malformed.yaml")],
        2,
        "malformed.yaml: not valid YAML or JSON: line 3 column 8: unclosed bracket",
    );
    check(
        &["diff", "-f", &corpus("malformed.json")],
        2,
        "malformed.json: not valid YAML or JSON",
    );
    check(
        &["diff", "-f", &corpus("empty.yaml")],
        2,
        "no AutoscalingRunnerSet or EphemeralRunnerSet",
    );
    check(
        &["diff", "-f", &corpus("duplicate-keys.yaml")],
        2,
        "duplicate key \"name\"",
    );
    check(
        &["diff", "-f", &corpus("billion-laughs.yaml")],
        2,
        "billion laughs",
    );
}

#[test]
fn binary_deep_and_huge_files() {
    let dir = std::env::temp_dir().join(format!("kubectl-arc-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let binary: PathBuf = dir.join("binary.yaml");
    std::fs::write(&binary, [0x7f, b'E', b'L', b'F', 0xff, 0xfe, 0x00, 0x01]).unwrap();
    check(
        &["diff", "-f", binary.to_str().unwrap()],
        2,
        "not UTF-8 text",
    );

    let deep = dir.join("deep.yaml");
    std::fs::write(
        &deep,
        format!("a: {}{}\n", "[".repeat(5000), "]".repeat(5000)),
    )
    .unwrap();
    check(
        &["diff", "-f", deep.to_str().unwrap()],
        2,
        "nested deeper than 256 levels",
    );
    let deep_json = dir.join("deep.json");
    std::fs::write(
        &deep_json,
        format!("{}1{}", "{\"a\":".repeat(20000), "}".repeat(20000)),
    )
    .unwrap();
    check(
        &["diff", "-f", deep_json.to_str().unwrap()],
        2,
        "nested deeper",
    );

    // 200 MiB: refused by size before it is parsed.
    let huge = dir.join("huge.yaml");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&huge).unwrap());
        let line = format!("# {}\n", "x".repeat(1022));
        for _ in 0..200 * 1024 {
            f.write_all(line.as_bytes()).unwrap();
        }
    }
    check(
        &["diff", "-f", huge.to_str().unwrap()],
        2,
        "larger than the 128 MiB",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn wrong_objects() {
    check(
        &["diff", "-f", &corpus("wrong-apiversion.yaml")],
        2,
        "apiVersion \"actions.github.com/v1beta1\" is not served by ARC",
    );
    check(
        &["diff", "-f", &corpus("wrong-kind.yaml")],
        2,
        "unknown kind \"RunnerDeployment\"",
    );
    check(
        &["diff", "-f", &corpus("ars-without-annotation.yaml")],
        2,
        "annotation runner-scale-set-id is missing",
    );
    check(
        &["diff", "-f", &corpus("scale-set-id-beyond-int64.yaml")],
        2,
        "runner-scale-set-id=\"99999999999999999999\" is not an integer",
    );
    check(
        &["diff", "-f", &corpus("template-is-a-string.yaml")],
        2,
        "template: cannot decode JSON string into Go type v1.PodTemplateSpec",
    );
    check(
        &["diff", "-f", &corpus("runner-spec-is-a-string.yaml")],
        2,
        "EphemeralRunnerSet spec.ephemeralRunnerSpec does not decode",
    );
    // A List and plain documents mix fine: both scale sets are reported (their sets lack the
    // template's container: drift, exit 1).
    check(
        &["diff", "-f", &corpus("list-and-documents.yaml")],
        1,
        "ci/arc: semantic drift",
    );
    check(
        &["diff", "-f", &corpus("list-and-documents.yaml")],
        1,
        "ci/arc2: semantic drift",
    );
}

#[test]
fn missing_specs_fail_their_object_and_nothing_else() {
    let file = corpus("spec-missing.yaml");
    let (code, out, err) = run(&["diff", "-f", &file]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains("ci/arc1: error: AutoscalingRunnerSet ci/arc1 (")
            && out.contains("spec-missing.yaml#1): spec is missing"),
        "{out}"
    );
    assert!(
        out.contains("ci/arc2: error: EphemeralRunnerSet ci/arc2")
            && out.contains("spec-missing.yaml#4): spec is missing"),
        "{out}"
    );
    assert!(out.contains("ci/arc3: no drift"), "{out}");

    // status: the set without spec is Invalid with the reason; the others are read as usual.
    let (code, out, err) = run(&["status", "-o", "wide", "-f", &file]);
    assert_eq!(code, 0, "{out}{err}");
    let row = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("no row {name} in\n{out}"))
            .to_string()
    };
    assert!(
        row("arc2").contains("Invalid") && row("arc2").contains("spec is missing"),
        "{out}"
    );
    assert!(row("arc3").contains("Synced"), "{out}");

    // migrate: the set without spec fails (exit 1); the others are decided.
    check(
        &["migrate", "--dry-run=client", "-f", &file],
        1,
        "EphemeralRunnerSet ci/arc2: spec is missing",
    );
    check(
        &["migrate", "--dry-run=client", "-f", &file],
        1,
        "3 EphemeralRunnerSets: 0 pending, 0 in sync, 0 unverifiable, 2 without the legacy annotation; 0 would be written, 1 failed",
    );
}

#[test]
fn wrong_revisions_fail_the_object_and_nothing_else() {
    check(
        &[
            "migrate",
            "--dry-run=client",
            "-f",
            &corpus("revision-is-a-string.yaml"),
        ],
        1,
        "spec.actionableRevision is \"five\", not an integer",
    );
    check(
        &[
            "migrate",
            "--dry-run=client",
            "-f",
            &corpus("revision-is-negative.yaml"),
        ],
        1,
        "revisions are never negative",
    );
    check(
        &["migrate", "-f", &corpus("revision-is-negative.yaml")],
        2,
        "add --dry-run=client",
    );
}

#[test]
fn bad_arguments_and_environment() {
    check(
        &["diff", "Bad_Name", "--kubeconfig", "/nonexistent"],
        2,
        "AutoscalingRunnerSet name \"Bad_Name\" is not valid",
    );
    check(
        &["diff", "-n", "Not A Namespace"],
        2,
        "namespace \"Not A Namespace\" is not valid",
    );
    check(&["diff", "-A", "-n", "ci"], 2, "cannot be used together");
    check(&["diff", "-o", "xml"], 2, "invalid value 'xml'");
    check(
        &["diff", "--kubeconfig", "/nonexistent/config"],
        2,
        "--kubeconfig /nonexistent/config: cannot read it",
    );
    check(
        &["diff", "--kubeconfig", &corpus("kubeconfig-malformed.yaml")],
        2,
        "kubeconfig-malformed.yaml",
    );
    check(
        &[
            "diff",
            "--kubeconfig",
            &corpus("kubeconfig-dead-server.yaml"),
            "--context",
            "elsewhere",
        ],
        2,
        "elsewhere",
    );
    check(
        &[
            "diff",
            "--kubeconfig",
            &corpus("kubeconfig-dead-server.yaml"),
            "--request-timeout",
            "2s",
        ],
        2,
        "cannot list autoscalingrunnersets in namespace ci",
    );
    check(&["diff", "--request-timeout", "soon"], 2, "not a duration");
}
