//! The release as users get it (issue 24), built here for this machine's platform: the archive
//! `scripts/release-local.sh` packs with `scripts/package.sh` (as the release workflow does for
//! every platform; in the test command, from the test build's binary,
//! `KUBECTL_ARC_RELEASE_BIN_DIR`, instead of a second, `dist` build), the krew manifest rendered from `plugins/arc.yaml` with the
//! archive's real sha256, krew's own `validate-krew-manifest`, and the real krew (both built from
//! the Go module proxy by `scripts/tools.sh`) installing, upgrading and uninstalling it in a
//! temporary `KREW_ROOT`, with `kubectl arc version` and `kubectl arc <TAB>` working from krew's
//! bin directory. Also: the workflows and `action.yml` clean under actionlint and zizmor.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;

/// The directory `scripts/tools.sh` installed actionlint, zizmor, krew and validate-krew-manifest
/// into.
pub(crate) fn tools() -> PathBuf {
    match std::env::var_os("KUBECTL_ARC_TEST_TOOLS") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => panic!(
            "KUBECTL_ARC_TEST_TOOLS is not set: this test needs actionlint, zizmor and krew.\n\
             Run the whole suite with `scripts/test.sh`, or `eval \"$(scripts/tools.sh)\"`."
        ),
    }
}

fn kubectl() -> PathBuf {
    PathBuf::from(
        std::env::var_os("KUBECTL_ARC_TEST_KUBECTL")
            .filter(|v| !v.is_empty())
            .expect("KUBECTL_ARC_TEST_KUBECTL is not set: run `scripts/testbed.sh up` first"),
    )
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The release built once per test run: the archive for tag v<version> and a second one, the
/// same build packed as the next patch version, for the upgrade.
pub(crate) struct Release {
    pub(crate) dir: PathBuf,
    pub(crate) tag: String,
    pub(crate) archive: PathBuf,
    pub(crate) next_tag: String,
    pub(crate) next_archive: PathBuf,
    /// Where the packed kubectl-arc is.
    pub(crate) bin_dir: PathBuf,
}

/// The directory of the kubectl-arc that release-local.sh packs: `KUBECTL_ARC_RELEASE_BIN_DIR`
/// when set (the test command sets it to its own build), else this test build's binary. Never a
/// `dist` build of its own: one run of a single test by hand would otherwise build the whole
/// dependency tree again with LTO.
fn packed_bin_dir() -> PathBuf {
    std::env::var_os("KUBECTL_ARC_RELEASE_BIN_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(test_bin_dir)
}

/// Where cargo put the kubectl-arc these tests run.
fn test_bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .parent()
        .expect("the binary has a directory")
        .to_path_buf()
}

pub(crate) fn release() -> &'static Release {
    static RELEASE: OnceLock<Release> = OnceLock::new();
    RELEASE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("release");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
        let bin_dir = packed_bin_dir();
        let out = Command::new(root().join("scripts/release-local.sh"))
            .arg(&dir)
            .arg(&tag)
            .env("KUBECTL_ARC_RELEASE_BIN_DIR", &bin_dir)
            .output()
            .unwrap();
        let archive = PathBuf::from(ok(out, "scripts/release-local.sh").trim());
        let (major_minor, patch) = env!("CARGO_PKG_VERSION").rsplit_once('.').unwrap();
        let next_tag = format!("v{major_minor}.{}", patch.parse::<u32>().unwrap() + 1);
        let out = Command::new(root().join("scripts/package.sh"))
            .args([&next_tag, &host()])
            .arg(&bin_dir)
            .arg(&dir)
            .output()
            .unwrap();
        let next_archive = PathBuf::from(ok(out, "scripts/package.sh").trim());
        Release {
            dir,
            tag,
            archive,
            next_tag,
            next_archive,
            bin_dir,
        }
    })
}

fn host() -> String {
    let out = Command::new("rustc").arg("-vV").output().unwrap();
    ok(out, "rustc -vV")
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .unwrap()
        .to_owned()
}

/// `python3 -m http.server` on 127.0.0.1 serving `dir`, stopped on drop.
pub(crate) struct Server {
    child: Child,
    pub(crate) url: String,
}

impl Server {
    pub(crate) fn serve(dir: &Path) -> Server {
        let mut child = Command::new("python3")
            .args([
                "-u",
                "-m",
                "http.server",
                "--bind",
                "127.0.0.1",
                "0",
                "--directory",
            ])
            .arg(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
        let port = first
            .split_whitespace()
            .skip_while(|w| *w != "port")
            .nth(1)
            .unwrap_or_else(|| panic!("http.server said {first:?}"))
            .to_owned();
        Server {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn render_local(archive: &Path, tag: &str, base_url: &str, out: &Path) {
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let text = ok(
        Command::new("python3")
            .arg(root().join("scripts/krew-manifest.py"))
            .args(["--tag", tag, "--local"])
            .arg(archive)
            .args(["--base-url", base_url])
            .arg(root().join("plugins/arc.yaml"))
            .output()
            .unwrap(),
        "krew-manifest.py --local",
    );
    std::fs::write(out, text).unwrap();
}

/// kubectl, krew (as the `kubectl-krew` plugin, as krew installs itself), krew's bin directory and
/// the system's tools (git, tar) on PATH; nothing else, so no other kubectl-arc is found.
fn path_with(krew_root: &Path, shim: &Path) -> std::ffi::OsString {
    std::env::join_paths([
        krew_root.join("bin").as_path(),
        shim,
        kubectl().parent().unwrap(),
        Path::new("/usr/local/bin"),
        Path::new("/usr/bin"),
        Path::new("/bin"),
    ])
    .unwrap()
}

fn krew_shim(dir: &Path) -> PathBuf {
    let shim = dir.join("shim");
    std::fs::create_dir_all(&shim).unwrap();
    let link = shim.join("kubectl-krew");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(tools().join("krew"), &link).unwrap();
    shim
}

struct Krew {
    root: PathBuf,
    path: std::ffi::OsString,
    index: Option<PathBuf>,
}

impl Krew {
    fn kubectl(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(kubectl());
        cmd.args(args)
            .env_clear()
            .env("PATH", &self.path)
            .env("HOME", self.root.parent().unwrap())
            .env("KREW_ROOT", &self.root)
            .env("KREW_NO_UPGRADE_CHECK", "1");
        if let Some(index) = &self.index {
            cmd.env("KREW_DEFAULT_INDEX_URI", index);
        }
        cmd.output().unwrap()
    }

    /// Run and expect success, with no warning from krew.
    fn run(&self, args: &[&str]) -> String {
        let out = self.kubectl(args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let stdout = ok(out, &args.join(" "));
        // krew says this whenever stdin is not a terminal (`isTerminal(os.Stdin)` in krew's
        // cmd/krew/cmd/install.go), whatever the manifest: the one warning that is about the test.
        // And this after every install from an index (`PrintSecurityNotice`, krew's
        // cmd/krew/cmd/internal/security_notice.go), here our own local index.
        let stderr = stderr
            .replace(
                "WARNING: Detected stdin, but discarding it because of --manifest or args\n",
                "",
            )
            .replace(
                "WARNING: You installed plugin \"arc\" from the krew-index plugin repository.\n   \
                 These plugins are not audited for security by the Krew maintainers.\n   \
                 Run them at your own risk.\n",
                "",
            );
        assert!(
            !stderr.contains("WARNING") && !stdout.contains("WARNING"),
            "{args:?} warned:\n{stdout}\n{stderr}"
        );
        stdout
    }

    /// Every file and link left under the root, except krew's own index checkouts.
    fn files(&self) -> Vec<String> {
        let mut out = Vec::new();
        walk(&self.root, &self.root, &mut out);
        out.retain(|p| !p.starts_with("index/"));
        out.sort();
        out
    }
}

fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_dir() {
            walk(base, &p, out);
        } else {
            out.push(rel);
        }
    }
}

/// `kubectl arc <TAB>` through kubectl's plugin completion: kubectl runs kubectl_complete-arc from
/// PATH with the words after `arc`.
fn assert_tab_completes(krew: &Krew) {
    let answer = krew.run(&["__complete", "arc", ""]);
    let values: Vec<&str> = answer
        .lines()
        .filter(|l| !l.starts_with(':'))
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    for sub in ["diff", "status", "bump", "migrate", "version", "completion"] {
        assert!(
            values.contains(&sub),
            "kubectl arc <TAB> lacks {sub}: {answer}"
        );
    }
    let answer = krew.run(&["__complete", "arc", "diff", "-o", ""]);
    assert!(answer.lines().any(|l| l == "json"), "{answer}");
}

/// krew's validator on the manifest rendered for this machine (its install of the one platform
/// downloads from a loopback server and checks LICENSE is unpacked), and, structurally, on all five
/// platforms; the description and caveats as krew-index's reviewers ask.
#[test]
fn krew_validates_the_rendered_manifest() {
    let r = release();
    let server = Server::serve(&r.dir);
    let work = r.dir.join("validate");
    let manifest = work.join("local/arc.yaml");
    render_local(&r.archive, &r.tag, &server.url, &manifest);
    let text = std::fs::read_to_string(&manifest).unwrap();
    let digest = ok(
        Command::new("sha256sum").arg(&r.archive).output().unwrap(),
        "sha256sum",
    );
    let digest = digest.split_whitespace().next().unwrap();
    assert!(text.contains(&format!("sha256: {digest}")), "{text}");
    assert_eq!(text.matches("uri: ").count(), 1, "{text}");

    let shim = krew_shim(&work);
    let path = std::env::join_paths([
        shim.as_path(),
        kubectl().parent().unwrap(),
        Path::new("/usr/bin"),
        Path::new("/bin"),
    ])
    .unwrap();
    let validate = |manifest: &Path, extra: &[&str]| {
        let out = Command::new(tools().join("validate-krew-manifest"))
            .arg("-manifest")
            .arg(manifest)
            .args(extra)
            .env("PATH", &path)
            .env("KREW_NO_UPGRADE_CHECK", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        ok(out, "validate-krew-manifest");
        // klog's warning lines start with W and the date (W0712 ...).
        let warnings: Vec<&str> = stderr
            .lines()
            .filter(|l| {
                l.len() > 5 && l.starts_with('W') && l[1..5].bytes().all(|b| b.is_ascii_digit())
            })
            .collect();
        assert!(
            warnings.is_empty(),
            "validate-krew-manifest warned: {warnings:?}"
        );
        stderr
    };
    let said = validate(&manifest, &[]);
    assert!(
        said.contains("all 1 spec.platforms installed fine"),
        "{said}"
    );

    let all = work.join("all/arc.yaml");
    std::fs::create_dir_all(all.parent().unwrap()).unwrap();
    let text_all = ok(
        Command::new("python3")
            .arg(root().join("scripts/krew-manifest.py"))
            .args(["--tag", &r.tag, "--placeholder"])
            .arg(root().join("plugins/arc.yaml"))
            .output()
            .unwrap(),
        "krew-manifest.py --placeholder",
    );
    std::fs::write(&all, &text_all).unwrap();
    let said = validate(&all, &["-skip-install"]);
    assert!(
        said.contains("no overlapping spec.platform[].selector"),
        "{said}"
    );

    // krew-index's review habits: lines of at most 80 characters, no usage examples, and a
    // caveat that needs no hand-written file.
    let manifest: serde_json::Value = serde_saphyr::from_str(&text_all).unwrap();
    for field in ["description", "caveats"] {
        let s = manifest["spec"][field].as_str().unwrap();
        for line in s.lines() {
            assert!(line.chars().count() <= 80, "{field} line over 80: {line:?}");
        }
    }
    let description = manifest["spec"]["description"].as_str().unwrap();
    assert!(
        !description.contains("kubectl arc"),
        "usage examples in the description"
    );
    let caveats = manifest["spec"]["caveats"].as_str().unwrap();
    assert!(
        caveats.contains("kubectl arc completion install"),
        "{caveats}"
    );
    assert!(!caveats.contains("chmod"), "{caveats}");
}

/// The archive holds what the manifest's `files` name, at the top level, and LICENSE.
#[test]
fn the_archive_is_laid_out_as_the_manifest_says() {
    let r = release();
    let name = r
        .archive
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert_eq!(name, format!("kubectl-arc-{}-{}.tar.gz", r.tag, host()));
    let list = ok(
        Command::new("tar")
            .arg("-tzf")
            .arg(&r.archive)
            .output()
            .unwrap(),
        "tar -t",
    );
    let top: std::collections::BTreeSet<&str> = list
        .lines()
        .map(|l| l.trim_end_matches('/').split('/').next().unwrap())
        .collect();
    assert_eq!(
        top.into_iter().collect::<Vec<_>>(),
        ["LICENSE", "README.md", "completions", "docs", "kubectl-arc"]
    );
    // The README's relative links lead to files of the unpacked archive.
    let files: std::collections::BTreeSet<&str> = list.lines().collect();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let links: Vec<&str> = readme
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split([')', '#']).next())
        .filter(|target| !target.is_empty() && !target.contains("://"))
        .collect();
    assert!(links.len() >= 10, "the README links {links:?}");
    for target in links {
        assert!(
            files.contains(target),
            "README.md links {target}, which the archive does not hold"
        );
    }
    // Every platform of the template names the archive package.sh makes for its target, and
    // `files` that such an archive holds.
    let template = std::fs::read_to_string(root().join("plugins/arc.yaml")).unwrap();
    let workflow = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    for line in template.lines().filter(|l| l.contains("addURIAndSha")) {
        let file = line.rsplit('/').next().unwrap().split('"').next().unwrap();
        let target = file
            .trim_start_matches("kubectl-arc-{{ .TagName }}-")
            .trim_end_matches(".tar.gz")
            .trim_end_matches(".zip");
        assert!(
            workflow.contains(&format!("- target: {target}\n")),
            "the release workflow does not build {target}"
        );
        let ext = if target.contains("-windows-") {
            "zip"
        } else {
            "tar.gz"
        };
        assert_eq!(
            file,
            format!("kubectl-arc-{{{{ .TagName }}}}-{target}.{ext}")
        );
    }
}

/// krew installs the local archive, `kubectl arc version` and `kubectl arc <TAB>` work from its bin
/// directory (after `kubectl arc completion install`), an upgrade to the next version keeps the
/// completer working, and uninstalling leaves nothing behind.
#[test]
fn krew_installs_upgrades_and_uninstalls_the_release() {
    let r = release();
    let server = Server::serve(&r.dir);
    let work = r.dir.join("krew");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let shim = krew_shim(&work);

    // A local plugin index (a git repository krew clones, as it clones krew-index): krew needs
    // one even to uninstall, and upgrades only what an index installed.
    let index = work.join("index");
    std::fs::create_dir_all(index.join("plugins")).unwrap();
    let git = |args: &[&str]| {
        ok(
            Command::new("git")
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@localhost",
                    "-c",
                    "init.defaultBranch=master",
                ])
                .args(args)
                .current_dir(&index)
                .output()
                .unwrap(),
            &format!("git {args:?}"),
        )
    };
    git(&["init", "-q"]);
    render_local(
        &r.archive,
        &r.tag,
        &server.url,
        &index.join("plugins/arc.yaml"),
    );
    git(&["add", "-A"]);
    git(&["commit", "-qm", "arc v1"]);
    // 1. As the issue asks: --manifest and --archive.
    let manifest = index.join("plugins/arc.yaml");
    let krew_root = work.join("root-manifest");
    let krew = Krew {
        path: path_with(&krew_root, &shim),
        root: krew_root,
        index: Some(index.clone()),
    };
    krew.run(&["krew", "update"]);
    let said = krew.run(&[
        "krew",
        "install",
        &format!("--manifest={}", manifest.display()),
        &format!("--archive={}", r.archive.display()),
    ]);
    assert!(
        said.contains("kubectl arc completion install") || said.is_empty(),
        "{said}"
    );
    let version = krew.run(&["arc", "version"]);
    assert!(
        version.starts_with(&format!("kubectl-arc {}\n", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&krew.run(&["arc", "version", "-o", "json"])).unwrap();
    // krew runs the binary that was packed (the dist build, or the test build the test command
    // packs), built for this machine.
    let packed = Command::new(r.bin_dir.join("kubectl-arc"))
        .args(["version", "-o", "json"])
        .output()
        .unwrap();
    let packed: serde_json::Value =
        serde_json::from_str(&ok(packed, "the packed kubectl-arc version")).unwrap();
    assert_eq!(json, packed);
    // The test build is a debug build; a directory handed in by hand holds a release build.
    let same = |a: &Path, b: &Path| a.canonicalize().ok() == b.canonicalize().ok();
    let profile = if same(&r.bin_dir, &test_bin_dir()) {
        "debug"
    } else {
        "release"
    };
    assert_eq!(json["clientVersion"]["profile"], profile);
    assert_eq!(json["clientVersion"]["target"], host().as_str());
    // Before the completer is installed, kubectl knows nothing past `arc`.
    let before = krew.run(&["__complete", "arc", ""]);
    assert!(!before.lines().any(|l| l.starts_with("diff")), "{before}");
    let said = krew.run(&["arc", "completion", "install"]);
    let bin = std::fs::canonicalize(krew.root.join("bin")).unwrap();
    assert_eq!(
        said,
        format!(
            "created {} -> kubectl-arc (krew's bin directory)\n",
            bin.join("kubectl_complete-arc").display()
        )
    );
    assert_tab_completes(&krew);
    let again = krew.run(&["arc", "completion", "install"]);
    assert!(again.starts_with("already installed: "), "{again}");
    krew.run(&["arc", "completion", "uninstall"]);
    krew.run(&["krew", "uninstall", "arc"]);
    assert_eq!(krew.files(), Vec::<String>::new(), "left behind");

    // 2. The upgrade: installed from the index (krew never upgrades a --manifest install).
    let krew_root = work.join("root-index");
    let krew = Krew {
        path: path_with(&krew_root, &shim),
        root: krew_root,
        index: Some(index.clone()),
    };
    krew.run(&["krew", "update"]);
    krew.run(&["krew", "install", "arc"]);
    krew.run(&["arc", "completion", "install"]);
    assert_tab_completes(&krew);
    render_local(
        &r.next_archive,
        &r.next_tag,
        &server.url,
        &index.join("plugins/arc.yaml"),
    );
    git(&["commit", "-qam", "arc v2"]);
    krew.run(&["krew", "update"]);
    let said = krew.run(&["krew", "upgrade", "arc"]);
    let receipt = std::fs::read_to_string(krew.root.join("receipts/arc.yaml")).unwrap();
    assert!(
        receipt.contains(&format!("version: {}", r.next_tag)),
        "{said}\n{receipt}"
    );
    let store: Vec<String> = std::fs::read_dir(krew.root.join("store/arc"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        store,
        std::slice::from_ref(&r.next_tag),
        "the old version is left in krew's store"
    );
    // The completer follows krew's link to the new version.
    assert_eq!(
        std::fs::canonicalize(krew.root.join("bin/kubectl_complete-arc")).unwrap(),
        std::fs::canonicalize(
            krew.root
                .join("store/arc")
                .join(&r.next_tag)
                .join("kubectl-arc")
        )
        .unwrap()
    );
    assert_tab_completes(&krew);
    krew.run(&["arc", "completion", "uninstall"]);
    krew.run(&["krew", "uninstall", "arc"]);
    assert_eq!(krew.files(), Vec::<String>::new(), "left behind");
}

/// Every workflow and the action, clean under actionlint and zizmor (offline: no audit that asks
/// GitHub).
#[test]
fn workflows_and_action_lint_clean() {
    let workflows: Vec<PathBuf> = std::fs::read_dir(root().join(".github/workflows"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(workflows.len() >= 2, "{workflows:?}");
    ok(
        Command::new(tools().join("actionlint"))
            .arg("-no-color")
            .args(&workflows)
            .current_dir(root())
            .output()
            .unwrap(),
        "actionlint",
    );
    let out = Command::new(tools().join("zizmor"))
        .args(["--offline", "--no-progress"])
        .args(&workflows)
        .arg(root().join("action.yml"))
        .current_dir(root())
        .output()
        .unwrap();
    let said = ok(out, "zizmor --offline");
    assert!(said.contains("No findings to report"), "{said}");
}
