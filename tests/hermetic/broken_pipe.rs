//! A reader that goes away (`kubectl arc diff -o json | head -3`) ends the run quietly with exit 0,
//! as ripgrep does: no "error: Broken pipe" (issue 14), no panic, whichever renderer was writing.
//!
//! Each command writes into a real pipe whose reading end is already closed, so every write meets
//! `EPIPE`, deterministically (a `head` that exits early races with the writer).

use std::process::{Command, Stdio};

const EXAMPLE: &str = "examples/scale-set-dump.yaml";

/// Run kubectl-arc with stdout (or stderr, with `on_stderr`) a pipe nobody reads; (exit code,
/// stderr).
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
        cmd.stderr(writer).stdout(Stdio::null()).output().unwrap()
    } else {
        cmd.stdout(writer).output().unwrap()
    };
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_quiet(args: &[&str]) {
    let (code, err) = into_closed_pipe(args, false);
    assert_eq!(code, Some(0), "{args:?}: exit {code:?}, stderr:\n{err}");
    assert!(err.is_empty(), "{args:?}: stderr must stay quiet:\n{err}");
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
/// the exit code still says how the run went.
#[test]
fn a_closed_stderr_keeps_the_exit_code() {
    let (code, _) = into_closed_pipe(&["diff", "-f", "tests/badinput/malformed.yaml"], true);
    assert_eq!(code, Some(2), "an error stays an error");
    let (code, _) = into_closed_pipe(
        &["diff", "-f", "tests/badinput/scalar-read-otherwise.yaml"],
        true,
    );
    assert_eq!(code, Some(2));
    let (code, _) = into_closed_pipe(&["diff", "--bogus"], true);
    assert_eq!(code, Some(2));
    let (code, _) = into_closed_pipe(&["diff", "-f", EXAMPLE], true);
    assert_eq!(code, Some(1), "drift");
}
