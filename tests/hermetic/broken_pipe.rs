//! A reader that goes away (`kubectl arc diff -o json | head -3`) ends the run quietly: no
//! "error: Broken pipe" (issue 14), no panic, whichever renderer was writing, and with the exit
//! code of the report it was writing (issue 30: `diff -f X | head -1` under `pipefail` must not
//! turn diff's 1 into a pass); 0 where no report was said (help, completion, version).
//!
//! Each command writes into a real pipe whose reading end is already closed, so every write meets
//! `EPIPE`, deterministically (a `head` that exits early races with the writer).

use std::process::{Command, Stdio};

const EXAMPLE: &str = "examples/scale-set-dump.yaml";

/// Run kubectl-arc with stdout (or stderr, with `on_stderr`) a pipe nobody reads; (exit code,
/// the stream that is not the closed pipe: stderr, or stdout with `on_stderr`).
fn into_closed_pipe(args: &[&str], on_stderr: bool) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"));
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .env("HOME", "/nonexistent")
        .stdin(Stdio::null());
    let out = if on_stderr {
        cmd.stderr(writer).output().unwrap()
    } else {
        cmd.stdout(writer).output().unwrap()
    };
    let open = if on_stderr { &out.stdout } else { &out.stderr };
    (
        out.status.code(),
        String::from_utf8_lossy(open).into_owned(),
    )
}

/// The exit code of the same run with a stdout that is read.
fn code_when_read(args: &[&str]) -> Option<i32> {
    Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .env("HOME", "/nonexistent")
        .stdin(Stdio::null())
        .output()
        .unwrap()
        .status
        .code()
}

fn assert_quiet(args: &[&str]) {
    let (code, err) = into_closed_pipe(args, false);
    assert_eq!(
        code,
        code_when_read(args),
        "{args:?}: a closed stdout keeps the exit code; stderr:\n{err}"
    );
    assert!(err.is_empty(), "{args:?}: stderr must stay quiet:\n{err}");
}

/// Issue 30: the verdict survives `| head -1`: the example's set is replaced (exit 1), with every
/// renderer, and a refused input stays exit 2.
#[test]
fn a_closed_stdout_keeps_the_verdicts_exit_code() {
    for output in ["text", "json", "yaml", "github", "name"] {
        let (code, err) = into_closed_pipe(&["diff", "-f", EXAMPLE, "-o", output], false);
        assert_eq!(code, Some(1), "-o {output}: stderr:\n{err}");
    }
    let refused = "tests/badinput/scalar-kubectl-refuses.yaml";
    let (code, _) = into_closed_pipe(&["diff", "-f", refused], false);
    assert_eq!(code, Some(2), "an error stays an error");
    let (code, _) = into_closed_pipe(&["version"], false);
    assert_eq!(code, Some(0));
}

#[test]
fn every_renderer_ends_quietly_on_a_closed_stdout() {
    for output in ["text", "json", "yaml", "github"] {
        assert_quiet(&["diff", "-f", EXAMPLE, "-o", output]);
    }
    for output in ["table", "wide", "json", "yaml"] {
        assert_quiet(&["status", "-f", EXAMPLE, "-o", output]);
    }
    for output in ["table", "json", "yaml"] {
        assert_quiet(&["migrate", "--dry-run=client", "-f", EXAMPLE, "-o", output]);
    }
    assert_quiet(&["version"]);
    assert_quiet(&["version", "-o", "json"]);
    assert_quiet(&[]);
    assert_quiet(&["completion", "bash"]);
    assert_quiet(&["--help"]);
    assert_quiet(&["diff", "--help"]);
    assert_quiet(&["__complete", "diff", "-o", ""]);
}

#[test]
fn kubectls_completer_ends_quietly_on_a_closed_stdout() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    // The executable under kubectl's completer's name, as `completion install` links it.
    let dir = std::env::temp_dir().join(format!("kubectl-arc-completer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let completer = dir.join("kubectl_complete-arc");
    let _ = std::fs::remove_file(&completer);
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_kubectl-arc"), &completer).unwrap();
    let out = Command::new(&completer)
        .args(["diff", "-o", ""])
        .stdout(writer)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
}

/// Diagnostics meet the closed pipe instead (`kubectl arc ... 2>&1 | head -1`): they are lost, and
/// the exit code still says how the run went. Each input exists, and stdout shows it was read: an
/// exit 2 for "cannot read" would not do.
#[test]
fn a_closed_stderr_keeps_the_exit_code() {
    let existing = |file: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        assert!(
            path.is_file(),
            "{file} must exist for this test to mean anything"
        );
        file.to_string()
    };
    // A file YAML cannot read at all: its error goes to the closed stderr, nothing to stdout.
    let malformed = existing("tests/badinput/malformed.yaml");
    let (code, out) = into_closed_pipe(&["diff", "-f", &malformed], true);
    assert_eq!(code, Some(2), "an error stays an error");
    assert_eq!(out, "", "nothing compared");
    // One object kubectl refuses beside a healthy pair, still compared: both are items of the
    // report on stdout; only the summary on stderr is lost.
    let refused = existing("tests/badinput/scalar-kubectl-refuses.yaml");
    let (code, out) = into_closed_pipe(&["diff", "-f", &refused], true);
    assert_eq!(code, Some(2), "the refused object still fails the run");
    assert!(
        out.contains("ci/arc2: no drift"),
        "the healthy pair was read and compared:\n{out}"
    );
    assert!(
        out.contains("ci/arc: error: ") && out.contains("terminationGracePeriodSeconds"),
        "the refused set is reported as its item, naming the field:\n{out}"
    );
    let (code, out) = into_closed_pipe(&["diff", "--bogus"], true);
    assert_eq!(code, Some(2));
    assert_eq!(out, "");
    let (code, out) = into_closed_pipe(&["diff", "-f", &existing(EXAMPLE)], true);
    assert_eq!(code, Some(1), "drift");
    assert!(
        out.contains("drift"),
        "the example's drift is reported:\n{out}"
    );
}
