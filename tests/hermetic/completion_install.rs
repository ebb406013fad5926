//! `kubectl arc completion install|uninstall` on real directories: where kubectl's completer goes
//! (next to the executable, krew's bin directory, `--dir`), that the link it makes answers as
//! kubectl's completer, that a second run changes nothing, that `--dry-run` writes nothing, and
//! that a file it did not make is left alone.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh directory under cargo's temporary directory for integration tests (on the target
/// directory's file system, so the executable can be hard-linked there, as a copy would be).
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("completion-install-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// This build's executable at `path`, as an install puts it there (a hard link: a copy).
fn place_exe(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    if std::fs::hard_link(env!("CARGO_BIN_EXE_kubectl-arc"), path).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_kubectl-arc"), path).unwrap();
    }
}

fn run(exe: &Path, args: &[&str], home: &Path, path: &Path, krew_root: Option<&Path>) -> Output {
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", path);
    if let Some(root) = krew_root {
        cmd.env("KREW_ROOT", root);
    }
    cmd.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn next_to_the_executable_once_and_idempotent() {
    let t = scratch("next-to-exe");
    let bin = t.join("bin");
    let exe = bin.join("kubectl-arc");
    place_exe(&exe);
    let link = bin.join("kubectl_complete-arc");

    let out = run(
        &exe,
        &["completion", "install", "--dry-run"],
        &t,
        &bin,
        None,
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        text(&out.stdout),
        format!(
            "would create {} -> kubectl-arc (next to kubectl-arc)\n",
            link.display()
        )
    );
    assert!(std::fs::symlink_metadata(&link).is_err(), "--dry-run wrote");

    let out = run(&exe, &["completion", "install"], &t, &bin, None);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        text(&out.stdout),
        format!(
            "created {} -> kubectl-arc (next to kubectl-arc)\n",
            link.display()
        )
    );
    assert!(
        text(&out.stderr).contains("note: kubectl arc <TAB> completes"),
        "{out:?}"
    );
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("kubectl-arc"));

    // The link answers as kubectl's completer (cobra's protocol: candidates, then `:directive`).
    let out = Command::new(&link)
        .args(["diff", "-o", ""])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let answer = text(&out.stdout);
    assert!(answer.lines().any(|l| l == "json"), "{answer}");
    assert!(answer.lines().last().unwrap().starts_with(':'), "{answer}");

    let out = run(&exe, &["completion", "install"], &t, &bin, None);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        text(&out.stdout),
        format!(
            "already installed: {} -> kubectl-arc (next to kubectl-arc)\n",
            link.display()
        )
    );
    assert!(out.stderr.is_empty(), "{out:?}");

    let out = run(&exe, &["completion", "uninstall"], &t, &bin, None);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(text(&out.stdout), format!("removed {}\n", link.display()));
    assert!(std::fs::symlink_metadata(&link).is_err());
    let out = run(&exe, &["completion", "uninstall"], &t, &bin, None);
    assert_eq!(
        text(&out.stdout),
        format!("not installed: no {}\n", link.display())
    );
    let _ = std::fs::remove_dir_all(&t);
}

/// krew links `bin/kubectl-arc` to `store/arc/VERSION/kubectl-arc`; the completer goes beside
/// krew's link and points at it, so it follows a krew upgrade.
#[test]
fn from_krew_into_krews_bin_directory() {
    let t = scratch("krew");
    let root = t.join("krew");
    let store = root.join("store/arc/v0.1.0/kubectl-arc");
    place_exe(&store);
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(&store, bin.join("kubectl-arc")).unwrap();
    let out = run(
        &bin.join("kubectl-arc"),
        &["completion", "install"],
        &t,
        &bin,
        Some(&root),
    );
    assert!(out.status.success(), "{out:?}");
    let link = bin.join("kubectl_complete-arc");
    assert_eq!(
        text(&out.stdout),
        format!(
            "created {} -> kubectl-arc (krew's bin directory)\n",
            std::fs::canonicalize(&bin)
                .unwrap()
                .join("kubectl_complete-arc")
                .display()
        )
    );
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("kubectl-arc"));
    let _ = std::fs::remove_dir_all(&t);
}

#[test]
fn a_file_it_did_not_make_is_left_alone_and_the_old_script_replaced() {
    let t = scratch("other-file");
    let dir = t.join("dir");
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("kubectl_complete-arc");
    std::fs::write(&link, "#!/bin/sh\necho mine\n").unwrap();
    let exe = Path::new(env!("CARGO_BIN_EXE_kubectl-arc"));
    let dir_arg = dir.to_str().unwrap();
    let out = run(
        exe,
        &["completion", "install", "--dir", dir_arg],
        &t,
        &dir,
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    assert_eq!(
        text(&out.stderr),
        format!(
            "error: {} exists and is not kubectl-arc's completer; remove it, or pass --dir\n",
            std::fs::canonicalize(&link).unwrap().display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(&link).unwrap(),
        "#!/bin/sh\necho mine\n"
    );

    // The script `kubectl arc completion kubectl` prints (the old caveat's way) is replaced.
    let script = Command::new(exe)
        .args(["completion", "kubectl"])
        .output()
        .unwrap();
    std::fs::write(&link, &script.stdout).unwrap();
    let out = run(
        exe,
        &["completion", "install", "--dir", dir_arg],
        &t,
        &dir,
        None,
    );
    assert!(out.status.success(), "{out:?}");
    let canon_exe = std::fs::canonicalize(exe).unwrap();
    assert!(
        text(&out.stdout).starts_with(&format!(
            "replaced {} -> {} (--dir)",
            std::fs::canonicalize(&dir)
                .unwrap()
                .join("kubectl_complete-arc")
                .display(),
            canon_exe.display()
        )),
        "{out:?}"
    );
    assert_eq!(std::fs::canonicalize(&link).unwrap(), canon_exe);

    // A directory that is not on PATH is said.
    let elsewhere = t.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let out = run(
        exe,
        &[
            "completion",
            "install",
            "--dir",
            elsewhere.to_str().unwrap(),
        ],
        &t,
        &dir,
        None,
    );
    assert!(out.status.success(), "{out:?}");
    assert!(
        text(&out.stderr).contains("is not on PATH: kubectl will not find kubectl_complete-arc"),
        "{out:?}"
    );
    let out = run(
        exe,
        &["completion", "install", "--dir", "/nonexistent/dir"],
        &t,
        &dir,
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(
        text(&out.stderr),
        "error: --dir /nonexistent/dir: not a directory\n"
    );
    let _ = std::fs::remove_dir_all(&t);
}
