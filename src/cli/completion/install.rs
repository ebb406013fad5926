//! `kubectl arc completion install|uninstall`: put `kubectl_complete-arc` on PATH, the name kubectl
//! 1.26+ runs to complete `kubectl arc <TAB>` (kubernetes/kubectl `pkg/cmd/plugin/plugin_completion.go`).
//!
//! Command layer. `kubectl-arc` answers as the completer when started under that name
//! ([`super::invoked_as_kubectl_completer`]), so the completer is a symbolic link to
//! it (a copy where there are no links: Windows). krew links one `bin` per plugin (krew issue 812),
//! so from a krew install the link goes into krew's bin directory and points at krew's own
//! `kubectl-arc` link there: a krew upgrade moves that link to the new version, and ours follows.
//! Where it goes and what happens to what is there are decided purely ([`placement`], [`decide`]),
//! then done.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use clap::Args;

use super::{BIN, KUBECTL_COMPLETER, KUBECTL_SCRIPT};
use crate::cli::{EXIT_ERROR, EXIT_OK};
use crate::shell::{Env, Shell};

#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// The directory for kubectl_complete-arc (one on PATH), instead of krew's bin directory or
    /// the executable's own.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
    /// Say what would be done, and do nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Install,
    Uninstall,
}

/// Why the completer goes where it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    /// kubectl-arc runs from krew's store: krew's bin directory, where krew links `kubectl-arc`.
    Krew,
    /// Next to the executable (`cargo install`, a release archive unpacked onto PATH).
    NextToExecutable,
    /// `--dir`.
    Dir,
}

/// Where the completer goes: `dir/kubectl_complete-arc`, a link to `target` (relative when it is
/// in the same directory, so the link survives the directory being moved or krew relinking).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placement {
    pub(crate) dir: PathBuf,
    pub(crate) target: PathBuf,
    pub(crate) why: Why,
}

/// The completer's file name on this platform.
fn completer_name() -> String {
    format!("{KUBECTL_COMPLETER}{}", std::env::consts::EXE_SUFFIX)
}

fn bin_name() -> String {
    format!("{BIN}{}", std::env::consts::EXE_SUFFIX)
}

/// Where the completer goes, from the running executable `exe` and krew's root (both
/// canonical) and `--dir`.
pub(crate) fn placement(exe: &Path, krew_root: Option<&Path>, dir: Option<&Path>) -> Placement {
    let exe_dir = exe.parent().unwrap_or(Path::new("/"));
    let krew_bin = krew_root
        .filter(|root| exe.starts_with(root.join("store")))
        .map(|root| root.join("bin"));
    match (dir, krew_bin) {
        (Some(dir), krew_bin) => {
            let target = if dir == exe_dir {
                PathBuf::from(exe.file_name().unwrap_or_default())
            } else if let Some(bin) = krew_bin.filter(|bin| bin != dir) {
                // krew's link, not the version in krew's store an upgrade removes.
                bin.join(bin_name())
            } else if krew_root.is_some_and(|root| dir == root.join("bin")) {
                PathBuf::from(bin_name())
            } else {
                exe.to_path_buf()
            };
            Placement {
                dir: dir.to_path_buf(),
                target,
                why: Why::Dir,
            }
        }
        (None, Some(bin)) => Placement {
            dir: bin,
            target: PathBuf::from(bin_name()),
            why: Why::Krew,
        },
        (None, None) => Placement {
            dir: exe_dir.to_path_buf(),
            target: PathBuf::from(exe.file_name().unwrap_or_default()),
            why: Why::NextToExecutable,
        },
    }
}

/// What is at the completer's path now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Existing {
    Absent,
    /// A symbolic link, with what it points to.
    Link(PathBuf),
    /// The script `kubectl arc completion kubectl` prints (the old way to install it).
    Script,
    /// A copy of this executable.
    Copy,
    /// Anything else: not ours to replace.
    Other,
}

/// What to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Create,
    /// Replace what is there (an older link, the script).
    Replace,
    /// Nothing: already so.
    AlreadyInstalled,
    NotInstalled,
    Remove,
    /// Leave it alone: it is not kubectl-arc's completer.
    Refuse,
}

pub(crate) fn decide(action: Action, existing: &Existing, target: &Path) -> Step {
    match (action, existing) {
        (Action::Install, Existing::Absent) => Step::Create,
        (Action::Install, Existing::Link(t)) if t == target => Step::AlreadyInstalled,
        (Action::Install, Existing::Copy) if !cfg!(unix) => Step::AlreadyInstalled,
        (Action::Install, Existing::Link(_) | Existing::Script | Existing::Copy) => Step::Replace,
        (Action::Uninstall, Existing::Absent) => Step::NotInstalled,
        (Action::Uninstall, Existing::Link(_) | Existing::Script | Existing::Copy) => Step::Remove,
        (_, Existing::Other) => Step::Refuse,
    }
}

/// Read what is at `path` (a link is not followed: a dangling one is still ours to replace).
fn existing(path: &Path, exe: &Path) -> Result<Existing> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Existing::Absent),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    if meta.file_type().is_symlink() {
        let target =
            std::fs::read_link(path).with_context(|| format!("cannot read {}", path.display()))?;
        return Ok(Existing::Link(target));
    }
    if !meta.is_file() {
        return Ok(Existing::Other);
    }
    let script = KUBECTL_SCRIPT.len() as u64;
    if meta.len() == script {
        let text =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        if text == KUBECTL_SCRIPT.as_bytes() {
            return Ok(Existing::Script);
        }
    }
    let same_size = std::fs::metadata(exe).is_ok_and(|m| m.len() == meta.len());
    if same_size && std::fs::read(path).ok() == std::fs::read(exe).ok() {
        return Ok(Existing::Copy);
    }
    Ok(Existing::Other)
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

fn on_path(dir: &Path, path_var: Option<&std::ffi::OsStr>) -> bool {
    let dir = canonical(dir);
    path_var.is_some_and(|p| std::env::split_paths(p).any(|entry| canonical(&entry) == dir))
}

#[cfg(unix)]
fn make(target: &Path, link: &Path, _exe: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn make(_target: &Path, link: &Path, exe: &Path) -> std::io::Result<()> {
    std::fs::copy(exe, link).map(|_| ())
}

pub(crate) fn run(action: Action, args: InstallArgs, env: &Env, ui: &mut Shell) -> Result<u8> {
    let Some(exe) = env.exe.as_deref() else {
        ui.error("cannot tell where kubectl-arc runs from; pass --dir")?;
        return Ok(EXIT_ERROR);
    };
    let exe = canonical(exe);
    let krew_root = env
        .var_os("KREW_ROOT")
        .filter(|r| !r.is_empty())
        .map(PathBuf::from)
        .or_else(|| env.home.as_ref().map(|h| h.join(".krew")))
        .map(|r| canonical(&r));
    let dir = match &args.dir {
        Some(d) if !d.is_dir() => {
            ui.error(format_args!("--dir {}: not a directory", d.display()))?;
            return Ok(EXIT_ERROR);
        }
        Some(d) => Some(canonical(d)),
        None => None,
    };
    let place = placement(&exe, krew_root.as_deref(), dir.as_deref());
    let link = place.dir.join(completer_name());
    let now = existing(&link, &exe)?;
    let step = decide(action, &now, &place.target);
    let where_ = match place.why {
        Why::Krew => "krew's bin directory",
        Why::NextToExecutable => "next to kubectl-arc",
        Why::Dir => "--dir",
    };
    let shown = if cfg!(unix) {
        format!("{} -> {}", link.display(), place.target.display())
    } else {
        format!("{} (a copy of {})", link.display(), exe.display())
    };
    let would = if args.dry_run { "would " } else { "" };
    let mut changed = false;
    match step {
        Step::Refuse => {
            ui.error(format_args!(
                "{} exists and is not kubectl-arc's completer; remove it, or pass --dir",
                link.display()
            ))?;
            return Ok(EXIT_ERROR);
        }
        Step::AlreadyInstalled => writeln!(ui.out(), "already installed: {shown} ({where_})")?,
        Step::NotInstalled => writeln!(ui.out(), "not installed: no {}", link.display())?,
        Step::Create | Step::Replace => {
            let verb = match (step == Step::Replace, args.dry_run) {
                (true, true) => "replace",
                (true, false) => "replaced",
                (false, true) => "create",
                (false, false) => "created",
            };
            if !args.dry_run {
                if step == Step::Replace {
                    std::fs::remove_file(&link)
                        .with_context(|| format!("cannot remove {}", link.display()))?;
                }
                make(&place.target, &link, &exe)
                    .with_context(|| format!("cannot create {}", link.display()))?;
                changed = true;
            }
            writeln!(ui.out(), "{would}{verb} {shown} ({where_})")?;
        }
        Step::Remove => {
            if !args.dry_run {
                std::fs::remove_file(&link)
                    .with_context(|| format!("cannot remove {}", link.display()))?;
                changed = true;
            }
            let verb = if args.dry_run { "remove" } else { "removed" };
            writeln!(ui.out(), "{would}{verb} {}", link.display())?;
        }
    }
    if action == Action::Install && !on_path(&place.dir, env.var_os("PATH")) {
        ui.warn(format_args!(
            "{} is not on PATH: kubectl will not find {}",
            place.dir.display(),
            completer_name()
        ))?;
    }
    if changed && action == Action::Install {
        ui.note("kubectl arc <TAB> completes through kubectl's completion (kubectl 1.26+)")?;
    }
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_krew_the_link_goes_to_krews_bin_and_points_at_krews_link() {
        let root = Path::new("/home/u/.krew");
        let exe = Path::new("/home/u/.krew/store/arc/v0.1.0/kubectl-arc");
        let p = placement(exe, Some(root), None);
        assert_eq!(p.dir, Path::new("/home/u/.krew/bin"));
        assert_eq!(p.target, Path::new(&bin_name()));
        assert_eq!(p.why, Why::Krew);
    }

    #[test]
    fn elsewhere_the_link_goes_next_to_the_executable() {
        let root = Path::new("/home/u/.krew");
        let exe = Path::new("/home/u/.cargo/bin/kubectl-arc");
        let p = placement(exe, Some(root), None);
        assert_eq!(p.dir, Path::new("/home/u/.cargo/bin"));
        assert_eq!(p.target, Path::new("kubectl-arc"));
        assert_eq!(p.why, Why::NextToExecutable);
    }

    #[test]
    fn dir_elsewhere_points_at_the_executable_or_krews_link() {
        let exe = Path::new("/opt/arc/kubectl-arc");
        let p = placement(exe, None, Some(Path::new("/usr/local/bin")));
        assert_eq!(p.target, exe);
        assert_eq!(p.why, Why::Dir);
        let root = Path::new("/k");
        let exe = Path::new("/k/store/arc/v1/kubectl-arc");
        let p = placement(exe, Some(root), Some(Path::new("/usr/local/bin")));
        assert_eq!(p.target, Path::new("/k/bin").join(bin_name()));
        let p = placement(exe, Some(root), Some(Path::new("/k/bin")));
        assert_eq!(p.target, Path::new(&bin_name()));
    }

    #[test]
    fn only_our_own_files_are_replaced_or_removed() {
        let t = Path::new("kubectl-arc");
        let i = Action::Install;
        let u = Action::Uninstall;
        assert_eq!(decide(i, &Existing::Absent, t), Step::Create);
        assert_eq!(
            decide(i, &Existing::Link(t.into()), t),
            Step::AlreadyInstalled
        );
        assert_eq!(decide(i, &Existing::Link("/old".into()), t), Step::Replace);
        assert_eq!(decide(i, &Existing::Script, t), Step::Replace);
        assert_eq!(decide(i, &Existing::Other, t), Step::Refuse);
        assert_eq!(decide(u, &Existing::Absent, t), Step::NotInstalled);
        assert_eq!(decide(u, &Existing::Link("/x".into()), t), Step::Remove);
        assert_eq!(decide(u, &Existing::Script, t), Step::Remove);
        assert_eq!(decide(u, &Existing::Other, t), Step::Refuse);
    }
}
