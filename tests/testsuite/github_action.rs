//! The pull-request check (`action.yml`), its steps run as a runner runs a composite action: each
//! `run:` step in bash with its `env:` (the `${{ }}` expressions it uses resolved), `GITHUB_OUTPUT`
//! and `GITHUB_STEP_SUMMARY` files in a temporary directory, and the release downloaded from a
//! loopback server serving this machine's archive (`release_krew::release`) and a SHA256SUMS. The
//! `uses:` step (actions/cache) is GitHub's; its directory simply persists here between runs.
//! Golden job summaries and annotations: `tests/data/action/*.{summary.md,annotations}`
//! (`KUBECTL_ARC_BLESS=1` rewrites them).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::release_krew::{Server, release};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A loopback "GitHub releases": `<url>/<tag>/<archive>` and `<url>/<tag>/SHA256SUMS`.
struct Releases {
    dir: PathBuf,
    server: Server,
}

fn releases(name: &str, corrupt_sum: bool) -> Releases {
    let r = release();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("action-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let tag_dir = dir.join("releases").join(&r.tag);
    std::fs::create_dir_all(&tag_dir).unwrap();
    let archive = r
        .archive
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    std::fs::copy(&r.archive, tag_dir.join(&archive)).unwrap();
    let out = Command::new("sha256sum")
        .arg(&archive)
        .current_dir(&tag_dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut sums = String::from_utf8(out.stdout).unwrap();
    if corrupt_sum {
        // One hex digit changed: a tampered archive, or the wrong SHA256SUMS.
        let flipped = if sums.starts_with('0') { "1" } else { "0" };
        sums.replace_range(0..1, flipped);
    }
    std::fs::write(tag_dir.join("SHA256SUMS"), sums).unwrap();
    let server = Server::serve(&dir.join("releases"));
    Releases { dir, server }
}

struct Run {
    /// Per step id (or index): exit code and stdout.
    steps: Vec<(String, i32, String, String)>,
    outputs: BTreeMap<String, String>,
    summary: String,
}

/// Run action.yml's steps with `inputs` (over the action's defaults).
fn run_action(rel: &Releases, inputs: &[(&str, &str)]) -> Run {
    let action: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(root().join("action.yml")).unwrap())
            .unwrap();
    let mut values: BTreeMap<String, String> = BTreeMap::new();
    for (name, spec) in action["inputs"].as_object().unwrap() {
        if let Some(d) = spec["default"].as_str() {
            values.insert(format!("inputs.{name}"), d.to_owned());
        }
    }
    values.insert("inputs.release-url".into(), rel.server.url.clone());
    values.insert("inputs.version".into(), release().tag.clone());
    for (k, v) in inputs {
        values.insert(format!("inputs.{k}"), (*v).to_owned());
    }
    let runner = rel.dir.join("runner");
    let temp = runner.join("temp");
    let tool_cache = rel.dir.join("tool-cache");
    std::fs::create_dir_all(&temp).unwrap();
    values.insert("runner.tool_cache".into(), tool_cache.display().to_string());
    values.insert("runner.temp".into(), temp.display().to_string());
    values.insert("github.action_path".into(), root().display().to_string());
    let summary_file = runner.join("step_summary.md");
    let _ = std::fs::remove_file(&summary_file);
    let mut steps = Vec::new();
    let mut outputs = BTreeMap::new();
    for (i, step) in action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let Some(script) = step["run"].as_str() else {
            assert!(step["uses"].as_str().unwrap().starts_with("actions/cache@"));
            continue;
        };
        let id = step["id"].as_str().map_or(i.to_string(), str::to_owned);
        assert_eq!(step["shell"], "bash", "step {id}");
        let output_file = runner.join(format!("output-{id}"));
        let _ = std::fs::remove_file(&output_file);
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .current_dir(root())
            .env("GITHUB_OUTPUT", &output_file)
            .env("GITHUB_STEP_SUMMARY", &summary_file)
            .env("RUNNER_TEMP", &temp)
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            // The archive built here is for this machine's target (gnu), not the musl build the
            // release workflow makes for Linux runners.
            .env("ARC_TARGET", host_target());
        for (k, v) in step["env"].as_object().unwrap() {
            cmd.env(k, expand(v.as_str().unwrap(), &values));
        }
        let out = cmd.output().unwrap();
        let code = out.status.code().unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        for line in std::fs::read_to_string(&output_file)
            .unwrap_or_default()
            .lines()
        {
            let (k, v) = line.split_once('=').unwrap();
            values.insert(format!("steps.{id}.outputs.{k}"), v.to_owned());
            outputs.insert(k.to_owned(), v.to_owned());
        }
        steps.push((id, code, stdout, stderr));
        if code != 0 {
            break;
        }
    }
    Run {
        steps,
        outputs,
        summary: std::fs::read_to_string(&summary_file).unwrap_or_default(),
    }
}

fn host_target() -> String {
    let name = release()
        .archive
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    name.trim_start_matches(&format!("kubectl-arc-{}-", release().tag))
        .trim_end_matches(".tar.gz")
        .to_owned()
}

/// `${{ a.b }}` replaced by its value; an expression the test does not know fails the test.
fn expand(s: &str, values: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${{") {
        out.push_str(&rest[..i]);
        let j = rest[i..].find("}}").unwrap() + i;
        let expr = rest[i + 3..j].trim();
        out.push_str(
            values
                .get(expr)
                .unwrap_or_else(|| panic!("action.yml uses ${{{{ {expr} }}}}, unknown here")),
        );
        rest = &rest[j + 2..];
    }
    out.push_str(rest);
    out
}

fn golden(name: &str, actual: &str) {
    let path = root().join("tests/data/action").join(name);
    if std::env::var_os("KUBECTL_ARC_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "{} is missing: KUBECTL_ARC_BLESS=1 writes it",
            path.display()
        )
    });
    assert_eq!(
        actual,
        want,
        "{} differs (KUBECTL_ARC_BLESS=1 rewrites it)",
        path.display()
    );
}

fn step<'a>(run: &'a Run, id: &str) -> &'a (String, i32, String, String) {
    run.steps
        .iter()
        .find(|s| s.0 == id)
        .unwrap_or_else(|| panic!("step {id} did not run: {:?}", run.steps))
}

#[test]
fn the_shipped_example_annotates_and_summarises() {
    let rel = releases("example", false);
    let run = run_action(&rel, &[("files", "examples/scale-set-dump.yaml")]);
    let install = step(&run, "install");
    assert_eq!(install.1, 0, "{install:?}");
    assert!(install.2.contains("verified"), "{install:?}");
    let check = step(&run, "check");
    // Drift is exit 1 of kubectl arc diff; fail-on's default (error) passes it.
    assert_eq!(check.1, 0, "{check:?}");
    assert_eq!(run.outputs["recycle"], "true");
    assert_eq!(run.outputs["exit-code"], "1");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&run.outputs["report"]).unwrap()).unwrap();
    assert_eq!(report["kind"], "DiffReport");
    golden("example.annotations", &check.2);
    golden("example.summary.md", &run.summary);
    // The warning is attached to the line of the first change: the init container's image.
    let rendered = std::fs::read_to_string(root().join("examples/scale-set-dump.yaml")).unwrap();
    let first = check.2.lines().next().unwrap();
    let line: usize = first
        .split("line=")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        rendered.lines().nth(line - 1).unwrap().trim(),
        "image: ghcr.io/actions/actions-runner:2.329.0"
    );

    // fail-on: recycle fails the step on drift; the archive now comes from the cache, checked again.
    let run = run_action(
        &rel,
        &[
            ("files", "examples/scale-set-dump.yaml"),
            ("fail-on", "recycle"),
        ],
    );
    assert!(step(&run, "install").2.contains("verified"));
    assert_eq!(step(&run, "check").1, 1);
}

#[test]
fn more_changes_than_the_annotation_budget() {
    let rel = releases("budget", false);
    let run = run_action(
        &rel,
        &[
            ("files", "tests/data/action/twelve-scale-sets.yaml"),
            ("fail-on", "never"),
        ],
    );
    let check = step(&run, "check");
    assert_eq!(check.1, 0, "{check:?}");
    let warnings: Vec<&str> = check
        .2
        .lines()
        .filter(|l| l.starts_with("::warning "))
        .collect();
    assert_eq!(warnings.len(), 10, "{}", check.2);
    // What `-o github` itself writes: every warning, unbudgeted.
    let raw = Command::new(&run.outputs["bin"])
        .args([
            "diff",
            "-f",
            "tests/data/action/twelve-scale-sets.yaml",
            "-o",
            "github",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    let raw = String::from_utf8(raw.stdout).unwrap();
    let all = raw.lines().filter(|l| l.starts_with("::warning ")).count();
    assert!(all >= 12, "{raw}");
    // The recycling warnings first (nine), then one that counts the others.
    assert!(
        warnings[..9]
            .iter()
            .all(|w| !w.contains("title=Integrity-hash-era")),
        "{}",
        check.2
    );
    assert!(
        warnings[9].contains(&format!("{} more warnings", all - 9)),
        "{}",
        warnings[9]
    );
    golden("twelve.annotations", &check.2);
    golden("twelve.summary.md", &run.summary);
    assert_eq!(
        run.summary
            .matches("| **yes**: ARC 0.14.2 replaces the set |")
            .count(),
        12,
        "{}",
        run.summary
    );
}

#[test]
fn a_wrong_checksum_is_refused() {
    let rel = releases("bad-sum", true);
    let run = run_action(&rel, &[("files", "examples/scale-set-dump.yaml")]);
    let install = step(&run, "install");
    assert_ne!(install.1, 0, "{install:?}");
    assert!(
        install.2.contains("does not match SHA256SUMS"),
        "{install:?}"
    );
    assert!(install.2.starts_with("::error "), "{install:?}");
    assert!(
        run.steps.iter().all(|s| s.0 != "check"),
        "the check ran: {:?}",
        run.steps
    );
    // Nothing unverified is kept for the next run.
    let cached = rel.dir.join("tool-cache/kubectl-arc").join(&release().tag);
    let kept: Vec<_> = walk(&cached);
    assert!(kept.iter().all(|p| !p.ends_with(".tar.gz")), "{kept:?}");
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().unwrap().is_dir() {
                out.extend(walk(&e.path()));
            } else {
                out.push(e.path().display().to_string());
            }
        }
    }
    out
}

/// Issue 30: everything the Action writes follows the verdict of the release in use (the item's
/// `recycle`, `release` and `runnerSpecHash`), as its exit code does. On ARC 0.14.2 a change of
/// notation replaces the set (though a revision-era ARC would not act), and a change of
/// `ephemeralRunnerConfigSecretMetadata`, which 0.14.2 does not hash, replaces nothing (though a
/// revision-era ARC would act).
#[test]
fn the_summary_and_outputs_follow_the_release_in_use() {
    let rel = releases("hash-era", false);
    let live = "--live tests/data/action/hash-era/current.yaml";
    let run = run_action(
        &rel,
        &[
            ("files", "tests/data/action/hash-era/notation.yaml"),
            ("args", live),
            ("fail-on", "recycle"),
        ],
    );
    let check = step(&run, "check");
    assert_eq!(check.1, 1, "fail-on recycle fails the step: {check:?}");
    assert_eq!(run.outputs["recycle"], "true", "{check:?}");
    assert!(
        run.summary
            .contains("| `arc-runners/arc-runner-set` | **yes**: ARC 0.14.2 replaces the set |"),
        "{}",
        run.summary
    );
    assert!(
        run.summary
            .contains("runner-spec hash of ARC 0.14.2: `79cfb87949` -> `5c997bbd6`"),
        "{}",
        run.summary
    );
    assert!(
        !run.summary.contains("ARC does not act"),
        "a hash decides: every difference acts\n{}",
        run.summary
    );
    // A --live dump without the set's EphemeralRunners: who is hit is not known, never a 0.
    assert!(
        run.summary.contains(
            "| **yes**: ARC 0.14.2 replaces the set | runners not in the input (add ephemeralrunners to the dump): who is hit is not known; job pickup pauses while the listener is made again;"
        ),
        "{}",
        run.summary
    );
    assert!(
        run.summary.contains(
            "**Impact** on 1 scale set: job pickup pauses for 1 scale set (1 without its runners in the input: not counted)"
        ),
        "{}",
        run.summary
    );
    let warning = check
        .2
        .lines()
        .find(|l| l.starts_with("::warning "))
        .unwrap();
    let line: usize = warning
        .split("line=")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let render =
        std::fs::read_to_string(root().join("tests/data/action/hash-era/notation.yaml")).unwrap();
    assert_eq!(
        render.lines().nth(line - 1).unwrap().trim(),
        "cpu: 1000m",
        "the annotation points at the change that replaces the set"
    );

    let run = run_action(
        &rel,
        &[
            ("files", "tests/data/action/hash-era/secret-metadata.yaml"),
            ("args", live),
            ("fail-on", "recycle"),
        ],
    );
    let check = step(&run, "check");
    assert_eq!(check.1, 0, "nothing is replaced: {check:?}");
    assert_eq!(run.outputs["recycle"], "false", "{check:?}");
    assert!(
        run.summary
            .contains("| `arc-runners/arc-runner-set` | no | runners not in the input (add ephemeralrunners to the dump): who is hit is not known; job pickup pauses while the listener is made again; update strategy immediate: the release's default (the controller Deployment was not read: not in the input) | runner-spec hash of ARC 0.14.2: `79cfb87949` -> `79cfb87949`"),
        "nothing is replaced, but the listener (its hash covers the whole spec) is made again: {}",
        run.summary
    );
}

/// Issue 32: `fail-on: jobs` fails the step only where work in flight is hit (an item's
/// `impact.waitsForJobs`: kubectl-arc's own `--fail-on jobs`), or on an error. The shipped dump
/// replaced under ARC's default strategy (immediate) deletes idle and pending runners and lets the
/// busy one finish, so no job waits: it passes. The same dump with the controller Deployment started
/// with `--update-strategy=eventual` makes new jobs wait for the set's running ones: it fails. The
/// job summary says the impact per scale set (its own column) and in total, before the footer.
#[test]
fn fail_on_jobs_fails_where_new_jobs_wait_and_the_summary_says_the_impact() {
    let rel = releases("jobs", false);
    let dump = "examples/scale-set-dump.yaml";
    let run = run_action(&rel, &[("files", dump), ("fail-on", "jobs")]);
    let check = step(&run, "check");
    assert_eq!(check.1, 0, "no job waits: {check:?}");
    assert_eq!(run.outputs["exit-code"], "0", "{check:?}");
    assert_eq!(run.outputs["recycle"], "true", "{check:?}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&run.outputs["report"]).unwrap()).unwrap();
    assert_eq!(
        report["items"][0]["impact"]["waitsForJobs"], false,
        "{report:#}"
    );
    assert!(
        run.summary
            .contains("| Scale set | Recycles runners | Impact | Why |"),
        "{}",
        run.summary
    );
    assert!(
        run.summary.contains(
            "| `arc-runners/arc-runner-set` | **yes**: ARC 0.14.2 replaces the set | 3 runners deleted now (2 idle, 1 pending); 1 busy runner finishes its job first (acme/api: build, run 812); job pickup pauses while the listener is made again; update strategy immediate: the release's default (the controller Deployment was not read: not in the input) | runner-spec hash"
        ),
        "{}",
        run.summary
    );
    assert!(
        run.summary.contains(
            "**Impact** on 1 scale set: 3 runners deleted now, 1 busy runner finishing its job first, job pickup pauses for 1 scale set\n\nkubectl arc diff: 1 scale set checked"
        ),
        "the totals, before the footer\n{}",
        run.summary
    );
    let warning = check.2.lines().next().unwrap();
    assert!(
        warning.starts_with("::warning ")
            && warning.contains("::Impact: 2 idle and 1 pending runners deleted now"),
        "{warning}"
    );

    let eventual = format!("{dump} tests/data/action/impact/controller-eventual.yaml");
    let run = run_action(&rel, &[("files", &eventual), ("fail-on", "jobs")]);
    let check = step(&run, "check");
    assert_eq!(check.1, 1, "new jobs wait: {check:?}");
    assert_eq!(run.outputs["exit-code"], "1", "{check:?}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&run.outputs["report"]).unwrap()).unwrap();
    let impact = &report["items"][0]["impact"];
    assert_eq!(impact["waitsForJobs"], true, "{report:#}");
    assert_eq!(impact["updateStrategy"]["value"], "eventual", "{report:#}");
    assert_eq!(report["impact"]["waitsForJobs"], 1, "{report:#}");
    golden("jobs.summary.md", &run.summary);
    assert!(
        run.summary.contains(
            "new jobs wait until the set's running and pending runners are gone; no job is picked up until the listener is made again after that; update strategy eventual: controller Deployment arc-gha-rs-controller in tests/data/action/impact/controller-eventual.yaml (--update-strategy=eventual) |"
        ),
        "{}",
        run.summary
    );
    assert!(
        run.summary
            .contains(", new jobs wait for running ones in 1 scale set\n\nkubectl arc diff:"),
        "{}",
        run.summary
    );

    // The same change under fail-on's default (error): kubectl-arc's own default (recycle) gives
    // the exit-code output, and only an error fails the step.
    let run = run_action(&rel, &[("files", &eventual)]);
    assert_eq!(step(&run, "check").1, 0);
    assert_eq!(run.outputs["exit-code"], "1");

    // An error fails the step under jobs too.
    let run = run_action(
        &rel,
        &[
            ("files", "tests/data/action/impact/absent.yaml"),
            ("fail-on", "jobs"),
        ],
    );
    let check = step(&run, "check");
    assert_eq!(check.1, 1, "{check:?}");
    assert_eq!(run.outputs["exit-code"], "2", "{check:?}");

    // A value fail-on does not take: an error naming those it takes, and no diff is run.
    let run = run_action(&rel, &[("files", dump), ("fail-on", "busy")]);
    let check = step(&run, "check");
    assert_eq!(check.1, 2, "{check:?}");
    assert!(
        check
            .2
            .contains("fail-on: 'busy' is not one of recycle, jobs, error, never"),
        "{check:?}"
    );
    assert!(!run.outputs.contains_key("exit-code"), "{:?}", run.outputs);
}
