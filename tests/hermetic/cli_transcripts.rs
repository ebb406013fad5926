//! CLI transcripts: every command's `--help`, each error class with its exit code, and the offline
//! examples, as a user sees them in a terminal (`tests/cmd/*.trycmd`, run by trycmd). Also the
//! generated artefacts a release ships: the completion scripts under `completions/` and the krew
//! manifest.
//!
//! `TRYCMD=overwrite cargo test --test cli_transcripts` rewrites the transcripts after an intended
//! change; `KUBECTL_ARC_BLESS=1` does the same for `completions/`.

use std::path::{Path, PathBuf};

use clap::CommandFactory as _;
use kubectl_arc::cli::Cli;
use kubectl_arc::cli::completion::{Shell, write_script};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn transcripts() {
    trycmd::TestCases::new()
        // Help wraps at the terminal's width; tests have none, so pin what clap would read.
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        // No ~/.kube/config: a transcript that needs a kubeconfig names it on its command line
        // (case-level variables win over a step's, so KUBECONFIG is left to each step).
        .env("HOME", "/nonexistent/kubectl-arc-transcripts")
        .case("tests/cmd/*.trycmd");
}

/// Commands whose help transcript is still to come: the engineer who lands a command adds
/// `tests/cmd/<command>-help.trycmd` (copy `diff-help.trycmd`, then `TRYCMD=overwrite`) and
/// removes it from here.
const HELP_TRANSCRIPT_PENDING: &[&str] = &[];

#[test]
fn every_command_has_a_help_transcript() {
    let mut missing = Vec::new();
    for sub in Cli::command().get_subcommands() {
        let name = sub.get_name();
        let path = root().join(format!("tests/cmd/{name}-help.trycmd"));
        let pending = HELP_TRANSCRIPT_PENDING.contains(&name);
        match (path.exists(), pending) {
            (false, false) => missing.push(path.display().to_string()),
            (true, true) => panic!(
                "{name} has a help transcript now: remove it from HELP_TRANSCRIPT_PENDING in {}",
                file!()
            ),
            _ => {}
        }
    }
    assert!(
        missing.is_empty(),
        "commands without a help transcript: {missing:?}"
    );
}

/// Each command's help has a one-line summary, a paragraph of what it reads and writes, and
/// examples: the shape a newcomer can rely on.
#[test]
fn every_help_says_what_it_reads_and_writes_and_shows_examples() {
    let mut cli = Cli::command();
    cli.build();
    for sub in cli.get_subcommands() {
        let name = sub.get_name();
        if name == "help" || HELP_TRANSCRIPT_PENDING.contains(&name) {
            continue;
        }
        assert!(sub.get_about().is_some(), "{name}: no one-line summary");
        let long = sub
            .get_long_about()
            .unwrap_or_else(|| panic!("{name}: no long help"))
            .to_string();
        assert!(
            long.contains("Reads") || long.contains("reads"),
            "{name}: the long help does not say what it reads:\n{long}"
        );
        let after = sub
            .get_after_help()
            .unwrap_or_else(|| panic!("{name}: no examples"))
            .to_string();
        assert!(after.starts_with("Examples:"), "{name}: {after}");
    }
}

#[test]
fn completion_scripts_are_up_to_date() {
    let bless = std::env::var_os("KUBECTL_ARC_BLESS").is_some_and(|v| !v.is_empty());
    let mut stale = Vec::new();
    for (shell, file) in Shell::SCRIPTS {
        let path = root().join("completions").join(file);
        let mut script = Vec::new();
        write_script(shell, &mut script).unwrap();
        let committed = std::fs::read(&path).unwrap_or_default();
        if committed != script {
            if bless {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &script).unwrap();
            } else {
                stale.push(file);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "completions/{stale:?} differ from what `kubectl arc completion` prints: regenerate them with\n  \
         KUBECTL_ARC_BLESS=1 cargo test --test cli_transcripts completion_scripts_are_up_to_date"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let shim = root().join("completions/kubectl_complete-arc");
        if bless {
            std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let mode = std::fs::metadata(&shim).unwrap().permissions().mode();
        assert!(mode & 0o111 != 0, "{} must be executable", shim.display());
    }
}

/// The bash script really completes: bash sources it and asks it as on a TAB, and the answer comes
/// from this build's kubectl-arc.
#[test]
fn the_bash_script_completes_through_the_binary() {
    let Some(bash) = which("bash") else {
        panic!("bash is needed for this test");
    };
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .parent()
        .unwrap()
        .to_path_buf();
    let script = root().join("completions/kubectl-arc.bash");
    let path = std::env::join_paths(
        std::iter::once(bin_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let ask = |line: &str| -> String {
        let out = std::process::Command::new(&bash)
            .arg("-c")
            .arg(format!(
                "source {script}; COMP_WORDS=({line}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
                 _clap_complete_kubectl_arc kubectl-arc \"${{COMP_WORDS[COMP_CWORD]}}\"; \
                 printf '%s\\n' \"${{COMPREPLY[@]}}\"",
                script = script.display()
            ))
            .env("PATH", &path)
            .env("KUBECONFIG", "/nonexistent/kubectl-arc-transcripts/config")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(ask("kubectl-arc mig"), "migrate\n");
    assert_eq!(ask("kubectl-arc diff -o j"), "json\njsonpath=\n");
    assert_eq!(ask("kubectl-arc migrate --dry-run=s"), "--dry-run=server\n");
    // For a new word clap's engine offers the values first, then the flags.
    let shells = ask("kubectl-arc completion ''");
    assert!(
        shells.starts_with("install\nuninstall\nbash\nzsh\nfish\npowershell\nelvish\nkubectl\n--"),
        "{shells}"
    );
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// Render the krew-release-bot template as the bot does for `tag`: `{{ .TagName }}` and each
/// `{{addURIAndSha "URL" .TagName }}` line (here with a dummy checksum).
fn render_krew_template(template: &str, tag: &str) -> String {
    let text = template.replace("{{ .TagName }}", tag);
    let mut out = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("{{addURIAndSha \"") {
            let indent = &line[..line.len() - trimmed.len()];
            let (uri, tail) = rest.split_once('"').expect("a quoted URI");
            assert_eq!(tail.trim(), ".TagName }}", "{line}");
            out.push_str(&format!(
                "{indent}uri: {uri}\n{indent}sha256: {}\n",
                "0".repeat(64)
            ));
        } else {
            assert!(!line.contains("{{"), "unrendered template: {line}");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The krew manifest names the plugin, its binary and every platform a release builds, and its
/// archives are named as the release workflow (scripts/package.sh) makes them.
#[test]
fn krew_manifest_matches_the_release() {
    let template = std::fs::read_to_string(root().join("plugins/arc.yaml")).unwrap();
    let text = render_krew_template(&template, "v0.1.0");
    let manifest: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(
        manifest["apiVersion"],
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(manifest["kind"], "Plugin");
    assert_eq!(manifest["metadata"]["name"], "arc");
    let spec = &manifest["spec"];
    assert_eq!(spec["version"], "v0.1.0");
    assert!(spec["shortDescription"].as_str().unwrap().len() <= 50);
    let workflow = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    let platforms = spec["platforms"].as_array().unwrap();
    assert_eq!(platforms.len(), 5);
    for p in platforms {
        let bin = p["bin"].as_str().unwrap();
        assert!(bin == "kubectl-arc" || bin == "kubectl-arc.exe", "{p}");
        let uri = p["uri"].as_str().unwrap();
        let archive = uri.rsplit('/').next().unwrap();
        assert!(
            archive.starts_with("kubectl-arc-v0.1.0-"),
            "{archive}: not scripts/package.sh's archive name"
        );
        let target = archive
            .trim_start_matches("kubectl-arc-v0.1.0-")
            .trim_end_matches(".tar.gz")
            .trim_end_matches(".zip");
        assert!(
            workflow.contains(&format!("- target: {target}\n")),
            "the release workflow does not build {target}"
        );
        let files: Vec<&str> = p["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["from"].as_str().unwrap())
            .collect();
        assert_eq!(files, [bin, "LICENSE"], "{p}");
    }
}

/// The `-o github` example of docs/diff.md (once the README's) is what the shipped example really
/// prints (issue 14: "The README's examples are the real output of the shipped example").
#[test]
fn the_docs_github_example_is_the_real_output() {
    let page = std::fs::read_to_string(root().join("docs/diff.md")).unwrap();
    let intro = "For the shipped example (`kubectl arc diff -f examples/scale-set-dump.yaml -o github`, exit 1):";
    let after = &page[page.find(intro).expect("docs/diff.md shows the example") + intro.len()..];
    let block = after
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a text block follows");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args(["diff", "-f", "examples/scale-set-dump.yaml", "-o", "github"])
        .current_dir(root())
        .env("HOME", "/nonexistent/kubectl-arc-readme")
        .env_remove("KUBECONFIG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), block);
}

/// Issue 20: `migrate --help` said 1 for a failed set where the README's table (and the code)
/// say 2. The help's exit status line and the README's migrate column agree.
#[test]
fn migrate_help_and_readme_agree_on_exit_codes() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    // The conventions table: | code | diff | status | bump | migrate |
    let migrate_column = |code: &str| -> String {
        let line = readme
            .lines()
            .find(|l| {
                l.starts_with(&format!("  | {code} |")) || l.starts_with(&format!("| {code} |"))
            })
            .unwrap_or_else(|| panic!("README has no exit-code row {code}"));
        line.trim()
            .trim_matches('|')
            .split('|')
            .nth(4)
            .unwrap()
            .trim()
            .to_string()
    };
    let mut cli = Cli::command();
    let help = cli
        .find_subcommand_mut("migrate")
        .unwrap()
        .render_long_help()
        .to_string();
    let exit = &help[help
        .find("Exit status:")
        .expect("migrate help says its exit status")..];
    let exit = exit.split("\n\n").next().unwrap().replace('\n', " ");
    assert_eq!(migrate_column("1"), "(never)");
    assert!(exit.contains("Never 1"), "{exit}");
    assert!(
        migrate_column("2").contains("a failed set"),
        "{}",
        migrate_column("2")
    );
    assert!(exit.contains("2 some set failed"), "{exit}");
    assert!(!exit.contains("1 some set failed"), "{exit}");
}

/// Issue 20: the "test bed by hand" block (the README's then, docs/how-it-is-built.md's now)
/// started a second test bed (`up /tmp/tb`) that its `down` did not stop. Each
/// `scripts/testbed.sh up [DIR]` of the block has a `down` of the same directory after it.
#[test]
fn test_bed_by_hand_block_leaves_no_second_test_bed() {
    let page = std::fs::read_to_string(root().join("docs/how-it-is-built.md")).unwrap();
    let start = page
        .find("To use the test bed by hand:")
        .expect("docs/how-it-is-built.md has the block");
    let block = &page[start..];
    let block = &block[block.find("```sh").unwrap() + 5..];
    let block = &block[..block.find("```").unwrap()];
    let dir_of = |line: &str, verb: &str| -> Option<String> {
        let at = line.find(&format!("scripts/testbed.sh {verb}"))?;
        let rest = line[at + "scripts/testbed.sh ".len() + verb.len()..].trim_start();
        let word = rest.split_whitespace().next().unwrap_or("");
        Some(if word.is_empty() || word.starts_with(['#', '|', ')']) {
            ".cache/testbed/run".to_string()
        } else {
            word.to_string()
        })
    };
    let mut running: Vec<String> = Vec::new();
    for line in block.lines() {
        if let Some(dir) = dir_of(line, "up") {
            running.push(dir);
        }
        if let Some(dir) = dir_of(line, "down") {
            running.retain(|d| *d != dir);
        }
    }
    assert!(
        running.is_empty(),
        "left running by the block: {running:?}\n{block}"
    );
    assert!(block.contains("scripts/testbed.sh up"), "{block}");
}
