//! Issue 20: the pull-request check judges the change and nothing else, and fails closed. Offline,
//! against dumps (`tests/badinput/issue20/`); the same against the real API server is
//! `tests/testsuite/pr_check_cluster.rs`.

use std::process::Command;

use serde_json::Value;

fn data(name: &str) -> String {
    format!("{}/tests/badinput/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Run kubectl-arc with no kubeconfig anywhere: (exit code, stdout, stderr).
pub(crate) fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args(args)
        .env("NO_COLOR", "1")
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

fn report(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn render() -> String {
    data("render.yaml")
}

/// Point 1: a render of one scale set against a dump of its namespace judges that set alone; the
/// other, unpropagated one is counted as not in the change, never blamed on it.
#[test]
fn sets_the_change_does_not_touch_are_not_judged() {
    let live = data("issue20/two-sets-live.yaml");
    let (code, out, err) = run(&["diff", "-f", &render(), "--live", &live, "-o", "github"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("team-b"), "{out}");
    assert_eq!(
        out.trim_end(),
        "kubectl arc diff: 1 scale set checked, 1 not in the change; 0 would recycle runners, 0 with strict-only differences, 0 with a legacy recycle loop, 0 errors"
    );
    let (code, out, _) = run(&["diff", "-f", &render(), "--live", &live, "-o", "json"]);
    assert_eq!(code, 0);
    let r = report(&out);
    assert_eq!(r["notInChange"], 1, "{r:#}");
    let items = r["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{r:#}");
    assert_eq!(items[0]["name"], "arc-runner-set");
    assert_eq!(items[0]["semanticDrift"], false);
    // `--live` alone has no change to judge: the dump's sets are compared with their own.
    let (code, out, _) = run(&["diff", "--live", &live, "-o", "json"]);
    assert_eq!(code, 1, "{out}");
    let r = report(&out);
    let names: Vec<&str> = r["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["arc-runner-set", "team-b"]);
}

/// Point 6, last item: `diff -f DUMP NAME` needs no kubeconfig when the dump holds the live side,
/// and the namespace's other sets do not become errors.
#[test]
fn diff_of_a_dump_and_a_name_needs_no_kubeconfig_and_judges_the_name_alone() {
    let live = data("issue20/two-sets-live.yaml");
    let (code, out, err) = run(&["diff", "-f", &live, "arc-runner-set", "-o", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let r = report(&out);
    let items = r["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{r:#}");
    assert_eq!(items[0]["name"], "arc-runner-set");
    assert!(items[0].get("error").is_none(), "{r:#}");
    let (code, out, err) = run(&["diff", "-f", &live, "team-b"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.starts_with("arc-runners/team-b: semantic drift"),
        "{out}"
    );
}

/// Point 2: every check that runs for an existing set runs for a new one, with exit 2.
#[test]
fn a_new_set_arc_cannot_build_is_an_error() {
    for (file, fragment) in [
        (
            "issue20/new-set-metadata-labels-only.yaml",
            "ARC's controller panics on every reconcile of this set",
        ),
        (
            "issue20/new-set-bad-config-url.yaml",
            "spec.githubConfigUrl: ARC will not update this set",
        ),
        (
            "issue20/new-set-bad-id.yaml",
            "runner-scale-set-id=\"seven\" is not an integer",
        ),
    ] {
        let (code, out, err) = run(&["diff", "--local", "-f", &data(file)]);
        assert_eq!(code, 2, "{file}: {out}{err}");
        assert!(out.contains(fragment), "{file}: {out}");
        assert!(!out.contains("new scale set"), "{file}: {out}");
        let (_, out, _) = run(&["diff", "--local", "-f", &data(file), "-o", "github"]);
        assert!(out.starts_with("::error "), "{file}: {out}");
    }
}

/// Point 3: an empty live side is an error naming the input, unless it is meant.
#[test]
fn an_empty_live_side_fails_closed() {
    let empty = data("issue20/empty-live.yaml");
    let (code, out, err) = run(&["diff", "-f", &render(), "--live", &empty]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(&format!(
            "--live {empty}: no AutoscalingRunnerSet or EphemeralRunnerSet"
        )),
        "{err}"
    );
    assert!(err.contains("--allow-empty-live"), "{err}");
    let (code, out, err) = run(&[
        "diff",
        "-f",
        &render(),
        "--live",
        &empty,
        "--allow-empty-live",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("new scale set"), "{out}");
    // -o github says it where the pull request shows it.
    let (code, out, _) = run(&["diff", "-f", &render(), "--live", &empty, "-o", "github"]);
    assert_eq!(code, 2);
    assert!(out.starts_with(&format!("::error file={empty},")), "{out}");
    assert!(out.trim_end().ends_with("1 error"), "{out}");
}

/// Point 4: a set given twice is an error, not an error and a verdict; the summary counts one.
#[test]
fn a_set_given_twice_is_one_item() {
    let (code, out, err) = run(&[
        "diff",
        "--local",
        "-f",
        &render(),
        "-f",
        &render(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    let r = report(&out);
    let items = r["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{r:#}");
    assert!(
        items[0]["error"]
            .as_str()
            .unwrap()
            .contains("is given twice"),
        "{r:#}"
    );
    assert!(items[0].get("semanticDrift").is_none(), "{r:#}");
    let full = data("full-dump.yaml");
    let (code, out, _) = run(&["diff", "-f", &render(), "-f", &full, "-o", "github"]);
    assert_eq!(code, 2);
    assert_eq!(
        out.lines().filter(|l| l.starts_with("::")).count(),
        1,
        "{out}"
    );
    assert!(
        out.trim_end().starts_with("::error ")
            && out
                .lines()
                .last()
                .unwrap()
                .starts_with("kubectl arc diff: 1 scale set checked;"),
        "{out}"
    );
}

/// Point 6: `-o github` prints `::error` for an unreadable file and for a file without ARC
/// objects, and its summary counts the errors.
#[test]
fn github_output_reports_unreadable_and_empty_files() {
    let missing = "/nonexistent/render.yaml";
    let (code, out, _) = run(&["diff", "--local", "-f", missing, "-o", "github"]);
    assert_eq!(code, 2);
    assert!(
        out.starts_with(&format!("::error file={missing},")),
        "{out}"
    );
    assert!(out.trim_end().ends_with(", 1 error"), "{out}");
    let none = data("issue20/no-arc-objects.yaml");
    let (code, out, _) = run(&["diff", "--local", "-f", &none, "-o", "github"]);
    assert_eq!(code, 2);
    assert!(out.starts_with(&format!("::error file={none},")), "{out}");
    assert!(
        out.contains("no AutoscalingRunnerSet or EphemeralRunnerSet"),
        "{out}"
    );
    assert!(out.trim_end().ends_with(", 1 error"), "{out}");
    // A readable render beside an unreadable file: both said, two errors... one of them the file.
    let (code, out, _) = run(&[
        "diff",
        "--local",
        "-f",
        &render(),
        "-f",
        missing,
        "-o",
        "github",
    ]);
    assert_eq!(code, 2);
    assert!(out.starts_with("::error "), "{out}");
    assert!(out.contains("::notice "), "{out}");
    assert!(out.trim_end().ends_with("1 new, 1 error"), "{out}");
}

/// Point 6: `diff` accepts `--no-headers`: no header row with custom-columns, no `---`/`+++`
/// lines in the text diff.
#[test]
fn diff_accepts_no_headers() {
    let dump = format!(
        "{}/examples/scale-set-dump.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let (code, out, err) = run(&[
        "diff",
        "-f",
        &dump,
        "-o",
        "custom-columns=NAME:.name,DRIFT:.semanticDrift",
        "--no-headers",
    ]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out, "arc-runner-set   true\n");
    let (_, with, _) = run(&["diff", "-f", &dump]);
    let (_, without, _) = run(&["diff", "-f", &dump, "--no-headers"]);
    assert!(with.contains("\n--- current: "), "{with}");
    assert!(
        !without.contains("--- current: ") && !without.contains("+++ desired: "),
        "{without}"
    );
    assert_eq!(with.lines().count(), without.lines().count() + 2);
}

/// Point 6: `diff --local` with nothing to read is a usage error.
#[test]
fn diff_local_without_input_is_a_usage_error() {
    let (code, out, err) = run(&["diff", "--local"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("--local compares only what files give"),
        "{err}"
    );
}

/// Point 6: the text output's first line is the verdict (`| head -1`); the ARC release closes the
/// report, followed only by the impact's totals (issue 32: "the totals close the output").
#[test]
fn text_output_first_line_is_the_verdict() {
    let dump = format!(
        "{}/examples/scale-set-dump.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let (code, out, err) = run(&["diff", "-f", &dump]);
    assert_eq!(code, 1);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .starts_with("arc-runners/arc-runner-set: replaced: ARC 0.14.2 will replace"),
        "{out}"
    );
    assert!(err.is_empty(), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[lines.len() - 2].starts_with("ARC 0.14.2 (label app.kubernetes.io/version"),
        "{out}"
    );
    assert_eq!(
        lines[lines.len() - 1],
        "impact on 1 scale set: 3 runners deleted now, 1 busy runner finishing its job first, job pickup pauses for 1 scale set",
        "{out}"
    );
}

/// Point 6: `-o yaml` does not fold a single-line string into `>` (kubectl's YAML never does).
#[test]
fn yaml_output_does_not_fold_short_strings() {
    let dump = format!(
        "{}/examples/scale-set-dump.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let (_, out, _) = run(&["diff", "-f", &dump, "-o", "yaml"]);
    assert!(!out.contains(": >"), "{out}");
    assert!(
        out.contains("desiredFrom: AutoscalingRunnerSet arc-runners/arc-runner-set (")
            || out.contains("desiredFrom: 'AutoscalingRunnerSet arc-runners/arc-runner-set ("),
        "{out}"
    );
}

/// Point 5, offline: `status -f` shows an AutoscalingRunnerSet without a set as a row, and
/// `status -f DUMP NAME` finds it.
#[test]
fn status_shows_a_scale_set_without_a_set() {
    for (file, name, state) in [
        ("render.yaml", "arc-runner-set", "Registering"),
        (
            "issue20/new-set-metadata-labels-only.yaml",
            "team-c",
            "Invalid",
        ),
    ] {
        let (code, out, err) = run(&["status", "-f", &data(file), "-o", "json"]);
        assert_eq!(code, 0, "{out}{err}");
        let r = report(&out);
        assert_eq!(r["items"][0]["name"], name, "{r:#}");
        assert_eq!(r["items"][0]["state"], state, "{r:#}");
        let (code, out, err) = run(&["status", "-f", &data(file), name]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains(state), "{out}");
    }
    let (_, out, _) = run(&[
        "status",
        "-f",
        &data("issue20/new-set-bad-id.yaml"),
        "-o",
        "wide",
    ]);
    assert!(out.contains("Invalid"), "{out}");
    // A registered one waits for the controller.
    let (_, out, _) = run(&[
        "status",
        "-f",
        &data("issue20/new-set-registered.yaml"),
        "-o",
        "json",
    ]);
    let r = report(&out);
    assert_eq!(r["items"][0]["state"], "Creating", "{r:#}");
    assert_eq!(
        r["items"][0]["reasons"][0]["reason"], "SetNotCreated",
        "{r:#}"
    );
}

/// Complete in a real bash with the script `completion bash` prints: bash's words as bash splits
/// them (`=` is in COMP_WORDBREAKS), the word under the cursor, and what the script replies, with
/// the last `compopt` it asked for.
fn bash_complete(words: &[&str], current: &str) -> (Vec<String>, String) {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_kubectl-arc"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let script = format!(
        r#"source <(kubectl-arc completion bash)
compopt() {{ ASKED="$1 $2"; }}
COMP_WORDS=({words})
COMP_CWORD={cword}
COMP_LINE="{line}"
COMP_POINT=${{#COMP_LINE}}
COMP_TYPE=9
_clap_complete_kubectl_arc kubectl-arc '{current}' '{previous}'
printf '%s\n' "${{COMPREPLY[@]}}"
echo "compopt: $ASKED"
"#,
        words = quoted.join(" "),
        cword = words.len() - 1,
        line = words.join(" "),
        previous = words[words.len().saturating_sub(2)],
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .env("PATH", path)
        .env("HOME", "/nonexistent")
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .output()
        .expect("bash");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let asked = lines.pop().unwrap_or_default();
    (lines, asked)
}

/// Point 6: bash splits `--output=js` at `=`; the script joins it again, so kubectl-arc completes
/// the value, and replies with the value alone (bash keeps `--output=`).
#[test]
fn bash_completes_flag_equals_value() {
    let (replies, _) = bash_complete(&["kubectl-arc", "diff", "--output", "=", "ya"], "ya");
    assert_eq!(replies, ["yaml"]);
    // Right after the `=`.
    let (replies, _) = bash_complete(&["kubectl-arc", "diff", "--output", "="], "");
    assert!(replies.contains(&"json".to_string()), "{replies:?}");
    assert!(
        replies.iter().all(|r| !r.starts_with("--output")),
        "{replies:?}"
    );
    // A value that takes more (`jsonpath=`) keeps the cursor on the word.
    let (replies, asked) = bash_complete(
        &["kubectl-arc", "diff", "--output", "=", "custom-col"],
        "custom-col",
    );
    assert_eq!(replies, ["custom-columns="]);
    assert_eq!(asked, "compopt: -o nospace");
    // Words after a joined one are where they were.
    let (replies, _) = bash_complete(
        &["kubectl-arc", "diff", "-o", "=", "json", "--loc"],
        "--loc",
    );
    assert_eq!(replies, ["--local"]);
}

/// Point 6: `-o <TAB>` answers with a trailing space (clap's script looked at the first reply
/// only, and `-o`'s list holds `jsonpath=`).
#[test]
fn bash_completes_output_with_a_trailing_space() {
    let (replies, asked) = bash_complete(&["kubectl-arc", "diff", "-o", ""], "");
    assert!(replies.len() > 1, "{replies:?}");
    assert_eq!(asked, "compopt: +o nospace");
    let (replies, asked) = bash_complete(&["kubectl-arc", "diff", "-o", "ya"], "ya");
    assert_eq!(replies, ["yaml"]);
    assert_eq!(asked, "compopt: +o nospace");
}

/// Point 6: a refused connection names the server and what to check, as kubectl's "The connection
/// to the server HOST was refused - did you specify the right host or port?".
#[test]
fn connection_errors_name_the_server() {
    let kubeconfig = data("kubeconfig-dead-server.yaml");
    // As its cluster's `server` says.
    let server = "https://127.0.0.1:1";
    let (code, out, err) = run(&[
        "diff",
        "--kubeconfig",
        &kubeconfig,
        "--request-timeout",
        "2s",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains(&format!(
            "the connection to the server {server} was refused - did you specify the right host or port?"
        )),
        "{err}"
    );
    assert!(
        err.contains("check --context, --kubeconfig and KUBECONFIG"),
        "{err}"
    );
    assert!(
        err.contains("cannot list autoscalingrunnersets in namespace ci"),
        "{err}"
    );
}
