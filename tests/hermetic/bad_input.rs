//! The bad-input corpus: every case gets a clear message naming what is wrong, the documented exit
//! code, and nothing written, each case its own test. Files live in tests/badinput/; the very large
//! and very deep ones are generated here. (Cases that need the API server, such as an unknown
//! namespace or a cluster without ARC's CRDs, are in tests/testsuite/diff_cluster.rs.)

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

/// (arguments, exit code, a fragment of stdout+stderr). An argument `@FILE` is the corpus file
/// tests/badinput/FILE.
fn check(args: &[&str], code: i32, fragment: &str) {
    let args: Vec<String> = args
        .iter()
        .map(|a| match a.strip_prefix('@') {
            Some(file) => corpus(file),
            None => a.to_string(),
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (got, out, err) = run(&args);
    let all = format!("{out}{err}");
    assert_eq!(got, code, "{args:?}\n{all}");
    assert!(
        all.contains(fragment),
        "{args:?}: expected {fragment:?} in\n{all}"
    );
}

/// One test per case: `case!(name: [arguments] => exit code, "fragment of the output")`.
macro_rules! case {
    ($name:ident: [$($arg:expr),* $(,)?] => $code:expr, $fragment:expr) => {
        #[test]
        fn $name() {
            check(&[$($arg),*], $code, $fragment);
        }
    };
}

// Files.
case!(malformed_yaml: ["diff", "-f", "@malformed.yaml"] => 2,
    "malformed.yaml: not valid YAML or JSON: line 3 column 8: unclosed bracket");
case!(malformed_json: ["diff", "-f", "@malformed.json"] => 2, "malformed.json: not valid YAML or JSON");
case!(empty_file: ["diff", "-f", "@empty.yaml"] => 2, "no AutoscalingRunnerSet or EphemeralRunnerSet");
case!(duplicate_keys: ["diff", "-f", "@duplicate-keys.yaml"] => 2, "duplicate key \"name\"");
case!(billion_laughs: ["diff", "-f", "@billion-laughs.yaml"] => 2, "billion laughs");
case!(wrong_api_version: ["diff", "-f", "@wrong-apiversion.yaml"] => 2,
    "apiVersion \"actions.github.com/v1beta1\" is not served by ARC");
case!(wrong_kind: ["diff", "-f", "@wrong-kind.yaml"] => 2, "unknown kind \"RunnerDeployment\"");
// A List and plain documents mix: both scale sets are reported (their sets lack the template's
// container: drift, exit 1).
case!(list_and_documents_first: ["diff", "-f", "@list-and-documents.yaml"] => 1, "ci/arc: semantic drift");
case!(list_and_documents_second: ["diff", "-f", "@list-and-documents.yaml"] => 1, "ci/arc2: semantic drift");

// Objects.
case!(ars_without_scale_set_id: ["diff", "-f", "@ars-without-annotation.yaml"] => 2,
    "annotation runner-scale-set-id is missing, and neither its EphemeralRunnerSet nor a live AutoscalingRunnerSet carries the scale set's id");
case!(scale_set_id_beyond_int64: ["diff", "-f", "@scale-set-id-beyond-int64.yaml"] => 2,
    "runner-scale-set-id=\"99999999999999999999\" is not an integer");
case!(template_is_a_string: ["diff", "-f", "@template-is-a-string.yaml"] => 2,
    "template: cannot decode JSON string into Go type v1.PodTemplateSpec");
case!(runner_spec_is_a_string: ["diff", "-f", "@runner-spec-is-a-string.yaml"] => 2,
    "EphemeralRunnerSet spec.ephemeralRunnerSpec does not decode");
case!(revision_is_a_string: ["migrate", "--dry-run=client", "-f", "@revision-is-a-string.yaml"] => 2,
    "spec.actionableRevision is \"five\", not an integer");
case!(revision_is_negative: ["migrate", "--dry-run=client", "-f", "@revision-is-negative.yaml"] => 2,
    "revisions are never negative");
case!(a_write_from_a_dump_is_refused: ["migrate", "-f", "@revision-is-negative.yaml"] => 2,
    "add --dry-run=client");
// YAML 1.1 spellings are read as kubectl reads them: 0X1E is 30, 30.0 is 30 (issue 15).
case!(scalar_read_as_kubectl_reads_it: ["diff", "-f", "@scalar-yaml-1-1.yaml"] => 0,
    "ci/arc: no drift");
case!(scalar_kubectl_refuses: ["diff", "-f", "@scalar-kubectl-refuses.yaml"] => 2,
    "ci/arc: error: ");
case!(scalar_kubectl_refuses_names_object_and_field: ["diff", "-f", "@scalar-kubectl-refuses.yaml"] => 2,
    "scalar-kubectl-refuses.yaml#1: AutoscalingRunnerSet ci/arc spec.template.spec.terminationGracePeriodSeconds: line 12 column 44: the plain scalar `!!int thirty` is refused by kubectl (yaml: cannot decode !!str `thirty` as a !!int)");
// The other objects of the file are still compared.
case!(scalar_kubectl_refuses_others_processed: ["diff", "-f", "@scalar-kubectl-refuses.yaml"] => 2,
    "ci/arc2: no drift");
// ARC itself gives up on these sets: its reason, not a verdict.
case!(github_config_url_arc_cannot_parse: ["diff", "-f", "@github-config-url-without-owner.yaml"] => 2,
    "spec.githubConfigUrl: ARC will not update this set: its controller fails to build the EphemeralRunnerSet and logs: failed to apply GitHub URL labels: failed to parse github config from url: \"https://github.com\": invalid config URL, should point to an enterprise, org, or repository");
case!(set_metadata_without_annotations_panics_arc: ["diff", "-f", "@set-metadata-without-annotations.yaml"] => 2,
    "ARC's controller panics on every reconcile of this set");
case!(set_metadata_without_annotations_says_the_fix: ["diff", "-f", "@set-metadata-without-annotations.yaml"] => 2,
    "give it an annotation, even an empty map (ephemeralRunnerSetMetadata.annotations: {})");
// Read as kubectl reads them (issue 15): JSON strings Go accepts, a number kubectl refuses
// refusing its object alone, go-yaml's line breaks and escapes, integers beyond int64.
case!(json_strings_go_accepts_are_read: ["diff", "-f", "@json-strings-go-accepts.json"] => 2,
    "ci/arc: no drift");
case!(json_number_beyond_float64_refuses_its_object: ["diff", "-f", "@json-strings-go-accepts.json"] => 2,
    "AutoscalingRunnerSet ci/arc2 spec.template.spec.terminationGracePeriodSeconds: line 15 column 59: the number 1e400 is refused by kubectl (json: cannot unmarshal number 1e400 into Go value of type float64)");
case!(yaml_line_separator_read_as_kubectl_reads_it: ["diff", "-f", "@yaml-line-separator.yaml"] => 0,
    "ci/arc: no drift");
case!(yaml_line_separator_outside_a_scalar: ["diff", "-f", "@yaml-line-separator-in-comment.yaml"] => 2,
    "line 12 column 25: <U+2028> outside any scalar is a line break for kubectl (go.yaml.in/yaml/v2)");
case!(yaml_escape_kubectl_rejects: ["diff", "-f", "@yaml-escape-kubectl-rejects.yaml"] => 2,
    "the double-quoted scalar `\"ghcr.io\\/actions/runner\"` is read by kubectl (go.yaml.in/yaml/v2) as an error (yaml: found unknown escape character)");
case!(quantity_beyond_int64_is_refused_as_the_api_server_refuses_it: ["diff", "-f", "@quantity-beyond-int64.yaml"] => 2,
    "spec.template.spec.containers[0].resources.limits.memory: 12345678901234567890 is a number, and the API server refuses it there (the CRD types it integer or string: \"must be of type integer,string\"): quote it (\"12345678901234567890\")");
case!(migrate_without_spec: ["migrate", "--dry-run=client", "-f", "@spec-missing.yaml"] => 2,
    "EphemeralRunnerSet ci/arc2: spec is missing");
case!(migrate_without_spec_processes_the_others: ["migrate", "--dry-run=client", "-f", "@spec-missing.yaml"] => 2,
    "3 EphemeralRunnerSets: 0 pending, 0 in sync, 0 unverifiable, 2 without the legacy annotation; 0 would be written, 1 failed");

// Helm renders and dumps as users have them (issue 12).
// A render carries no runner-scale-set-id: it is taken from the set, which ARC 0.14 named
// arc-runner-set-x7k2p and owns through its controller reference. The image moved: drift.
case!(render_takes_the_id_from_its_set: ["diff", "-f", "@render.yaml", "-f", "@ers-dump.yaml", "-o", "json"] => 1,
    "\"scaleSetIdFrom\": \"EphemeralRunnerSet\"");
case!(render_pairs_a_generated_name_by_owner: ["diff", "-f", "@render.yaml", "-f", "@ers-dump.yaml", "-o", "json"] => 1,
    "\"pairedBy\": \"OwnerName\"");
case!(render_and_set_drift: ["diff", "-f", "@render.yaml", "-f", "@ers-dump.yaml"] => 1,
    "arc-runners/arc-runner-set: replaced: ARC 0.14.1 will replace");
// A render plus a full dump (which also holds the old scale set) is never a silent "no drift".
case!(render_plus_full_dump_is_refused: ["diff", "-f", "@render.yaml", "-f", "@full-dump.yaml"] => 2,
    "AutoscalingRunnerSet arc-runners/arc-runner-set is given twice");
// The dump given as the live side: the render is desired, the dump's scale set is live.
case!(render_against_a_live_dump: ["diff", "-f", "@render.yaml", "--live", "@full-dump.yaml"] => 1,
    "arc-runners/arc-runner-set: semantic drift");
// A new scale set (a pull request that adds one): nothing is recycled.
case!(new_scale_set_offline: ["diff", "--local", "-f", "@render.yaml"] => 0,
    "arc-runners/arc-runner-set: new scale set: ARC will create its EphemeralRunnerSet; no runner is recycled");
case!(new_scale_set_github_notice: ["diff", "--local", "-f", "@render.yaml", "-o", "github"] => 0,
    "::notice file=");
case!(long_comment_blocks: ["diff", "-f", "@long-comments.yaml"] => 1, "ci/arc: semantic drift");
case!(namespace_that_is_a_boolean: ["diff", "-f", "@namespace-boolean.yaml"] => 2,
    "metadata.namespace: true is a bool where Kubernetes wants a string");
case!(namespace_flag_contradicts_the_file: ["diff", "-n", "other", "-f", "@list-and-documents.yaml"] => 2,
    "the namespace from the provided object \"ci\" does not match the namespace \"other\"");
case!(status_namespace_flag_contradicts_the_file: ["status", "-n", "other", "-f", "@dump-dir"] => 2,
    "does not match the namespace \"other\"");
case!(migrate_reads_a_directory: ["migrate", "--dry-run=client", "-f", "@dump-dir"] => 0,
    "1 EphemeralRunnerSets: 0 pending, 0 in sync, 0 unverifiable, 1 without the legacy annotation");

// A set the integrity hash still decides, whose template loops: status says so, and --wait would
// fail at once (not shown: it needs a cluster).
case!(status_shows_a_recycle_loop: ["status", "-o", "wide", "-f", "@recycle-loop-legacy.yaml"] => 0,
    "RecycleLoop");
case!(status_names_the_loop_fields: ["status", "-o", "wide", "-f", "@recycle-loop-legacy.yaml"] => 0,
    "spec.containers[0].resources.limits.cpu");

// Arguments and environment.
case!(bad_name: ["diff", "Bad_Name", "--kubeconfig", "/nonexistent"] => 2,
    "AutoscalingRunnerSet name \"Bad_Name\" is not valid");
case!(bad_namespace: ["diff", "-n", "Not A Namespace"] => 2, "namespace \"Not A Namespace\" is not valid");
case!(status_bad_namespace: ["status", "-n", "Not A Namespace"] => 2,
    "namespace \"Not A Namespace\" is not valid");
case!(bump_bad_name: ["bump", "Bad_Name"] => 2,
    "EphemeralRunnerSet name \"Bad_Name\" is not valid");
// kubectl's --dry-run rule in every command: bare means client, a value needs `=`, so the next
// word is a name (here an invalid one, to show where it went).
case!(bump_dry_run_does_not_swallow_a_name: ["bump", "--dry-run", "Bad_Name"] => 2,
    "EphemeralRunnerSet name \"Bad_Name\" is not valid");
case!(migrate_dry_run_does_not_swallow_a_name: ["migrate", "--dry-run", "Bad_Name"] => 2,
    "EphemeralRunnerSet name \"Bad_Name\" is not valid");
case!(conflicting_flags: ["diff", "-A", "-n", "ci"] => 2, "cannot be used together");
case!(unknown_output_format: ["diff", "-o", "xml"] => 2, "invalid value 'xml'");
case!(bad_request_id: ["bump", "x", "--request-id", "a=b"] => 2, "is not a request id");
case!(missing_kubeconfig: ["diff", "--kubeconfig", "/nonexistent/config"] => 2,
    "--kubeconfig /nonexistent/config: cannot read it");
case!(malformed_kubeconfig: ["diff", "--kubeconfig", "@kubeconfig-malformed.yaml"] => 2,
    "kubeconfig-malformed.yaml");
case!(unknown_context: ["diff", "--kubeconfig", "@kubeconfig-dead-server.yaml", "--context", "elsewhere"] => 2,
    "elsewhere");
case!(dead_server: ["diff", "--kubeconfig", "@kubeconfig-dead-server.yaml", "--request-timeout", "2s"] => 2,
    "cannot list autoscalingrunnersets in namespace ci");
case!(bad_request_timeout: ["diff", "--request-timeout", "soon"] => 2, "not a duration");
// Issue 14: these panicked in Duration::from_secs_f64 with a backtrace.
case!(request_timeout_beyond_go_duration: ["diff", "--request-timeout", "99999999999999999999s"] => 2,
    "invalid value '99999999999999999999s' for '--request-timeout <DURATION>': too long: at most 2562047h");
case!(request_timeout_negative: ["diff", "--request-timeout=-1s"] => 2, "a duration cannot be negative");
case!(request_timeout_empty: ["diff", "--request-timeout="] => 2, "empty: not a duration");
case!(status_timeout_beyond_go_duration: ["status", "--wait", "--timeout", "99999999999999999999s"] => 2,
    "too long: at most 2562047h");
case!(bump_timeout_beyond_go_duration: ["bump", "x", "--wait", "--timeout", "9999999999h"] => 2,
    "too long: at most 2562047h");
case!(bump_qps_negative: ["bump", "x", "--qps=-1"] => 2, "requests per second must be a finite number >= 0");
case!(migrate_qps_nan: ["migrate", "--qps", "NaN"] => 2, "requests per second must be a finite number >= 0");

// Generated files: binary, deep and huge.
fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kubectl-arc-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn binary_file() {
    let f = scratch(
        "binary.yaml",
        &[0x7f, b'E', b'L', b'F', 0xff, 0xfe, 0x00, 0x01],
    );
    check(&["diff", "-f", f.to_str().unwrap()], 2, "not UTF-8 text");
    std::fs::remove_file(f).unwrap();
}

#[test]
fn yaml_nested_5000_deep() {
    let text = format!("a: {}{}\n", "[".repeat(5000), "]".repeat(5000));
    let f = scratch("deep.yaml", text.as_bytes());
    check(
        &["diff", "-f", f.to_str().unwrap()],
        2,
        "nested deeper than 256 levels",
    );
    std::fs::remove_file(f).unwrap();
}

#[test]
fn json_nested_20000_deep() {
    let text = format!("{}1{}", "{\"a\":".repeat(20000), "}".repeat(20000));
    let f = scratch("deep.json", text.as_bytes());
    check(&["diff", "-f", f.to_str().unwrap()], 2, "nested deeper");
    std::fs::remove_file(f).unwrap();
}

/// 200 MiB: refused by size before it is parsed.
#[test]
fn file_of_200_mib() {
    let huge = scratch("huge.yaml", b"");
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
    std::fs::remove_file(huge).unwrap();
}

#[test]
fn diff_and_status_without_spec() {
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

    // migrate: the cases migrate_without_spec*.
}

// Issue 30: an object kubectl refuses is never dropped, on either side and whatever its kind: the
// run says which input, object and field, and exits 2 (no all-clear from an unreadable input).
case!(diff_refuses_an_unreadable_set_alone: ["diff", "-f", "@issue30/ers-namespace-boolean.yaml"] => 2,
    "metadata.namespace: true is a bool where Kubernetes wants a string");
case!(diff_refuses_an_unreadable_live_side: ["diff", "-f", "@render.yaml", "--live", "@issue30/ers-namespace-boolean.yaml"] => 2,
    "ers-namespace-boolean.yaml");
case!(diff_refuses_an_unreadable_runner: ["diff", "--local", "-f", "@issue30/runner-namespace-boolean.yaml"] => 2,
    "EphemeralRunner default/arc-x7k2p-abcde (");
case!(diff_refuses_an_unreadable_chart_object: ["diff", "--local", "-f", "@issue30/secret-namespace-boolean.yaml"] => 2,
    "metadata.namespace: false is a bool where Kubernetes wants a string");
case!(status_refuses_an_unreadable_chart_object: ["status", "-f", "@issue30/secret-namespace-boolean.yaml"] => 2,
    "Secret");

/// Issue 30: a change read from stdin (`helm template ... | kubectl arc diff -f - --live dump -o
/// github`) annotates no file: never the `--live` dump, which is not the change.
#[test]
fn github_annotations_of_stdin_name_no_live_dump() {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args([
            "diff",
            "-f",
            "-",
            "--live",
            &corpus("full-dump.yaml"),
            "-o",
            "github",
        ])
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .env("HOME", "/nonexistent")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let render = std::fs::read(corpus("render.yaml")).unwrap();
    child.stdin.take().unwrap().write_all(&render).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let annotations: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert!(!annotations.is_empty(), "{stdout}");
    for a in annotations {
        let properties = a.split("::").nth(1).unwrap_or_default();
        assert!(
            !properties.contains("file="),
            "a change from stdin annotates no file (here the live dump): {a}"
        );
    }
}

// Issue 30: a scale set's name stands for its sets offline as against the cluster (`status NAME`
// with ARC up to 0.14's `<scale set>-xxxxx` sets).
case!(status_takes_a_scale_set_name_offline: ["status", "-f", "examples/scale-set-dump.yaml", "-n", "arc-runners", "arc-runner-set"] => 0,
    "arc-runner-set-x7k2p");
