//! Build facts for `kubectl arc version`: the commit, target, profile and compiler a binary was built
//! from, as `KUBECTL_ARC_BUILD_*` variables for `env!` (`src/cli/version.rs`).
//!
//! The commit is git's when the source is a git checkout, else `KUBECTL_ARC_COMMIT` (the release
//! workflow sets it; a source tarball has no `.git`), else `unknown`. No build-time dependency: git
//! and rustc are run as they are found.

use std::path::Path;
use std::process::Command;

fn run(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

fn git(args: &[&str]) -> Option<String> {
    run("git", args)
}

fn main() {
    println!("cargo:rerun-if-env-changed=KUBECTL_ARC_COMMIT");
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    // `.git` is a directory in a clone and a file in a worktree.
    let from_git = Path::new(&manifest_dir).join(".git").exists();
    let commit = std::env::var("KUBECTL_ARC_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| {
            if !from_git {
                return None;
            }
            // Rebuild when HEAD moves: HEAD itself, the branch it names, and packed refs.
            for path in ["HEAD", "packed-refs"] {
                if let Some(p) = git(&["rev-parse", "--git-path", path]) {
                    println!(
                        "cargo:rerun-if-changed={}",
                        Path::new(&manifest_dir).join(p).display()
                    );
                }
            }
            if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
                && let Some(p) = git(&["rev-parse", "--git-path", &branch])
            {
                println!(
                    "cargo:rerun-if-changed={}",
                    Path::new(&manifest_dir).join(p).display()
                );
            }
            git(&["rev-parse", "HEAD"])
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let rustc_version = run(&rustc, &["-V"]).unwrap_or_else(|| "unknown".to_owned());
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_owned());
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".to_owned());
    println!("cargo:rustc-env=KUBECTL_ARC_BUILD_COMMIT={commit}");
    println!("cargo:rustc-env=KUBECTL_ARC_BUILD_TARGET={target}");
    println!("cargo:rustc-env=KUBECTL_ARC_BUILD_PROFILE={profile}");
    println!("cargo:rustc-env=KUBECTL_ARC_BUILD_RUSTC={rustc_version}");
}
