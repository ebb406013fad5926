//! Differential tests of record for every released ARC's two hashes (issue 19):
//! `RunnerSetSpecHash()` and `ListenerSpecHash()` of generated AutoscalingRunnerSet specs, ours
//! against Go code built on each release's own k8s.io/api, apimachinery and go-spew
//! (`tests/oracle/go.v0.*.mod`) with the release's ARC types declared as the tag has them
//! (`tests/oracle/arc/releases`). At least 10,000 specs per distinct release layout, spread over
//! the tags that share it; hand-written cases for the changes that matter to operators.

use std::collections::BTreeMap;

use crate::common::oracle::Oracle;
use crate::common::specgen::{self, Rng};
use kubectl_arc::core::release::{ArcRelease, release, releases};
use kubectl_arc::core::spec_hash::{
    SpecHashError, listener_spec_hash, listener_spec_spew, runner_set_spec_hash,
    runner_set_spec_spew,
};
use serde_json::{Map, Value, json};

/// Specs per group of releases with one layout and one set of pins (six groups).
const SPECS_PER_LAYOUT: usize = 10_000;

/// The releases grouped by the oracle they share (the same layout and the same pins), in order:
/// 0.13.0 and 0.13.1 share a layout but not their k8s.io/api, so each has its group.
fn oracle_groups() -> Vec<Vec<&'static ArcRelease>> {
    let mut groups: Vec<Vec<&'static ArcRelease>> = Vec::new();
    for r in releases() {
        match groups.last_mut() {
            Some(g) if std::ptr::eq(g[0].layout(), r.layout()) && g[0].k8s_api == r.k8s_api => {
                g.push(r)
            }
            _ => groups.push(vec![r]),
        }
    }
    groups
}

/// The oracle binary built on this release's pins (`oracle-v0.28.4`, ...).
fn oracle_for(r: &ArcRelease) -> Oracle {
    Oracle::spawn(r.k8s_api)
}

/// What a release's types hold beyond 0.9's.
struct Has {
    metrics: bool,
    vault: bool,
    v014: bool,
}

fn has(r: &ArcRelease) -> Has {
    let l = r.layout();
    Has {
        metrics: l.has_type("v1alpha1.MetricsConfig"),
        vault: l.has_type("v1alpha1.VaultConfig"),
        v014: l.has_type("v1alpha1.ResourceMeta"),
    }
}

fn proxy(rng: &mut Rng, classes: &mut Vec<&'static str>) -> Value {
    classes.push("proxy");
    let server = |rng: &mut Rng| match rng.below(4) {
        0 => Value::Null,
        1 => json!({}),
        2 => json!({"url": "http://proxy.example:3128"}),
        _ => json!({"url": "http://p:8080", "credentialSecretRef": "proxy-creds"}),
    };
    let mut p = Map::new();
    if rng.chance(60) {
        p.insert("http".into(), server(rng));
    }
    if rng.chance(50) {
        p.insert("https".into(), server(rng));
    }
    if rng.chance(50) {
        p.insert(
            "noProxy".into(),
            match rng.below(3) {
                0 => json!([]),
                1 => Value::Null,
                _ => json!(["localhost", "10.0.0.0/8"]),
            },
        );
    }
    Value::Object(p)
}

fn tls(rng: &mut Rng, classes: &mut Vec<&'static str>) -> Value {
    classes.push("tls");
    match rng.below(4) {
        0 => json!({}),
        1 => json!({"certificateFrom": {}}),
        2 => json!({"certificateFrom": {"configMapKeyRef": {"name": "ca", "key": "ca.crt"}}}),
        _ => {
            json!({"certificateFrom": {"configMapKeyRef": {"name": "ca", "key": "ca.crt", "optional": rng.chance(50)}}})
        }
    }
}

fn float_literal(rng: &mut Rng) -> String {
    (*rng.pick(&[
        "0.005",
        "0.01",
        "0.1",
        "1",
        "1.0",
        "2.5",
        "5",
        "10",
        "1e2",
        "1E-7",
        "0.30000000000000004",
        "-0",
        "-0.0",
        "123456789",
        "1e21",
        "1e20",
        "0.000001",
        "0.0000001",
        "1125899906842624.25",
        "300",
    ]))
    .to_string()
}

/// Marks a JSON string to be written as the bare number literal it holds.
const NUMBER_MARK: &str = "#number#";

fn metrics(rng: &mut Rng, classes: &mut Vec<&'static str>) -> Value {
    classes.push("listenerMetrics");
    let labels = |rng: &mut Rng| match rng.below(3) {
        0 => Value::Null,
        1 => json!([]),
        _ => json!(["repository", "job_name"]),
    };
    let mut m = Map::new();
    if rng.chance(60) {
        m.insert(
            "counters".into(),
            json!({"gha_started_jobs_total": {"labels": labels(rng)}, "z": null}),
        );
    }
    if rng.chance(50) {
        m.insert(
            "gauges".into(),
            match rng.below(2) {
                0 => json!({}),
                _ => json!({"gha_busy_runners": {"labels": labels(rng)}}),
            },
        );
    }
    if rng.chance(70) {
        classes.push("histogramBuckets");
        let buckets: Vec<Value> = (0..rng.below(6))
            .map(|_| json!(format!("{NUMBER_MARK}{}", float_literal(rng))))
            .collect();
        let b = if rng.chance(10) {
            Value::Null
        } else {
            Value::Array(buckets)
        };
        m.insert(
            "histograms".into(),
            json!({"gha_job_execution_duration_seconds": {"labels": labels(rng), "buckets": b}}),
        );
    }
    Value::Object(m)
}

fn vault(rng: &mut Rng, classes: &mut Vec<&'static str>) -> Value {
    classes.push("vaultConfig");
    let mut v = Map::new();
    if rng.chance(70) {
        v.insert("type".into(), json!("azure_key_vault"));
    }
    if rng.chance(70) {
        v.insert(
            "azureKeyVault".into(),
            json!({"url": "https://kv.vault.azure.net", "tenantId": "t", "clientId": "c", "certificatePath": "/etc/cert.pem"}),
        );
    }
    if rng.chance(40) {
        v.insert("proxy".into(), proxy(rng, &mut Vec::new()));
    }
    Value::Object(v)
}

fn resource_meta(rng: &mut Rng) -> Value {
    match rng.below(5) {
        0 => json!({}),
        1 => json!({"labels": {}}),
        2 => json!({"annotations": {"a": "b"}}),
        3 => json!({"labels": {"team": "ci"}, "annotations": {}}),
        _ => Value::Null,
    }
}

/// A `managedFields` entry whose `fieldsV1` keys are in no particular order, with spaces: Go
/// keeps these bytes as written.
fn managed_fields(rng: &mut Rng, classes: &mut Vec<&'static str>) -> Value {
    classes.push("managedFields");
    let keys = [
        "f:spec",
        "f:metadata",
        "f:a",
        "k:{\"name\":\"runner\"}",
        "f:<x>",
        "f:Z",
    ];
    let mut text = String::from("{");
    for (i, _) in (0..1 + rng.below(4)).enumerate() {
        if i > 0 {
            text.push_str(if rng.chance(30) { ", " } else { "," });
        }
        let k = *rng.pick(&keys);
        text.push_str(&serde_json::to_string(k).unwrap());
        text.push(':');
        text.push_str(if rng.chance(30) {
            "{\"f:x\":{},\".\":{}}"
        } else {
            "{}"
        });
    }
    text.push('}');
    json!([{"manager": "helm", "operation": "Update", "apiVersion": "v1",
            "fieldsType": "FieldsV1", "fieldsV1": format!("{NUMBER_MARK}{text}")}])
}

/// One generated AutoscalingRunnerSet spec for release `r`, and the classes of what it holds.
fn generate(rng: &mut Rng, r: &ArcRelease, base: &Value) -> (String, Vec<&'static str>) {
    let h = has(r);
    let mut classes = Vec::new();
    let mut template = json!({"metadata": base["metadata"].clone(), "spec": base["spec"].clone()});
    for _ in 0..rng.below(4) {
        specgen::mutate(rng, &mut template);
    }
    if rng.chance(15) {
        let q = specgen::quantity(rng);
        template["spec"]["containers"][0]["resources"] = json!({"requests": {"cpu": q}});
        classes.push("quantity");
    }
    if rng.chance(10) {
        template["metadata"]["managedFields"] = managed_fields(rng, &mut classes);
    }
    let mut s = Map::new();
    if rng.chance(90) {
        s.insert(
            "githubConfigUrl".into(),
            json!(*rng.pick(&["https://github.com/my-org", "https://github.com/o/r", ""])),
        );
    }
    if rng.chance(85) {
        s.insert("githubConfigSecret".into(), json!("gh-secret"));
    }
    if rng.chance(30) {
        classes.push("runnerGroup");
        s.insert(
            "runnerGroup".into(),
            json!(*rng.pick(&["default", "Default", "", "large"])),
        );
    }
    if rng.chance(30) {
        s.insert(
            "runnerScaleSetName".into(),
            json!(*rng.pick(&["arc-runners", "x", ""])),
        );
    }
    if rng.chance(15) {
        s.insert("proxy".into(), proxy(rng, &mut classes));
    }
    if rng.chance(15) {
        s.insert("githubServerTLS".into(), tls(rng, &mut classes));
    }
    if rng.chance(3) {
        // null and a pointer to an empty struct are different values.
        s.insert(
            (*rng.pick(&[
                "proxy",
                "githubServerTLS",
                "listenerTemplate",
                "vaultConfig",
            ]))
            .into(),
            Value::Null,
        );
    }
    s.insert("template".into(), template);
    if rng.chance(20) {
        classes.push("listenerTemplate");
        let lt = match rng.below(3) {
            0 => json!({}),
            1 => json!({"spec": {"containers": [{"name": "listener", "image": "l:1"}]}}),
            _ => json!({"metadata": {"labels": {}}, "spec": {"nodeSelector": {}, "containers": [
                {"name": "listener", "resources": {"limits": {"memory": specgen::quantity(rng)}}}]}}),
        };
        s.insert("listenerTemplate".into(), lt);
    }
    if rng.chance(40) {
        classes.push("minMaxRunners");
        for key in ["minRunners", "maxRunners"] {
            if rng.chance(60) {
                s.insert(
                    key.into(),
                    match rng.below(5) {
                        0 => Value::Null,
                        1 => json!(0),
                        _ => json!(rng.below(100)),
                    },
                );
            }
        }
    }
    // Fields some releases know and others drop, and fields no release knows.
    if rng.chance(15) {
        s.insert("listenerMetrics".into(), metrics(rng, &mut classes));
        if !h.metrics {
            classes.push("unknownField");
        }
    }
    if rng.chance(12) {
        s.insert("vaultConfig".into(), vault(rng, &mut classes));
        if !h.vault {
            classes.push("unknownField");
        }
    }
    if rng.chance(12) {
        classes.push("v014Fields");
        if !h.v014 {
            classes.push("unknownField");
        }
        s.insert(
            "runnerScaleSetLabels".into(),
            match rng.below(3) {
                0 => json!([]),
                1 => Value::Null,
                _ => json!(["linux", "x64"]),
            },
        );
        for key in [
            "autoscalingListener",
            "listenerServiceAccountMetadata",
            "listenerRoleMetadata",
            "listenerRoleBindingMetadata",
            "listenerConfigSecretMetadata",
            "ephemeralRunnerSetMetadata",
            "ephemeralRunnerMetadata",
            "ephemeralRunnerConfigSecretMetadata",
        ] {
            if rng.chance(30) {
                s.insert(key.into(), resource_meta(rng));
            }
        }
    }
    if rng.chance(10) {
        classes.push("unknownField");
        let key = *rng.pick(&[
            "bogus",
            "GitHubConfigUrl",
            "RunnerGroup",
            "actionableRevision",
        ]);
        s.insert(key.into(), json!({"deep": [1, "x"]}));
    }
    if rng.chance(2) {
        classes.push("decodeError");
        let wrong = [
            ("maxRunners", json!("5")),
            ("minRunners", json!(1.5)),
            ("runnerGroup", json!(7)),
            ("proxy", json!([])),
        ];
        let (key, v) = rng.pick(&wrong);
        s.insert((*key).into(), v.clone());
    }
    let text = if rng.chance(20) {
        serde_json::to_string_pretty(&Value::Object(s)).unwrap()
    } else {
        serde_json::to_string(&Value::Object(s)).unwrap()
    };
    (unmark(&text), classes)
}

/// Replace each marked string by the bare literal it holds (a JSON number or object as written).
fn unmark(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let open = format!("\"{NUMBER_MARK}");
    while let Some(i) = rest.find(&open) {
        out.push_str(&rest[..i]);
        let after = &rest[i + open.len()..];
        // The marked string ends at the next unescaped quote.
        let mut end = 0;
        let b = after.as_bytes();
        while b[end] != b'"' {
            end += if b[end] == b'\\' { 2 } else { 1 };
        }
        let literal: String = serde_json::from_str(&format!("\"{}\"", &after[..end])).unwrap();
        out.push_str(&literal);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Compare one spec's two hashes with Go's; returns whether Go's decode failed (as ours must).
fn check(
    r: &ArcRelease,
    oracle: &mut Oracle,
    spec: &str,
    go: [&Value; 2],
    ctx: &dyn Fn() -> String,
) -> Outcome {
    let ours = [runner_set_spec_hash(r, spec), listener_spec_hash(r, spec)];
    let mut outcome = Outcome::Compared;
    for (i, (ours, go)) in ours.iter().zip(go).enumerate() {
        let op = ["runnerSetSpecHash", "listenerSpecHash"][i];
        match ours {
            Ok(h) => {
                let want = go["hash"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{op}: Go gave no hash: {go}\n{}", ctx()));
                if h != want {
                    let theirs = oracle
                        .ask(&json!({"op": op, "release": r.version, "spec": spec, "spew": true}));
                    let mine = if i == 0 {
                        runner_set_spec_spew(r, spec)
                    } else {
                        listener_spec_spew(r, spec)
                    }
                    .unwrap();
                    let theirs = theirs["spew"].as_str().unwrap_or_default();
                    let at = mine
                        .bytes()
                        .zip(theirs.bytes())
                        .position(|(a, b)| a != b)
                        .unwrap_or(mine.len().min(theirs.len()));
                    panic!(
                        "{op}: ours {h}, Go {want}; the spews part at byte {at}:\n ours …{}\n Go   …{}\n{}",
                        &mine[at.saturating_sub(80)..(at + 80).min(mine.len())],
                        &theirs[at.saturating_sub(80)..(at + 80).min(theirs.len())],
                        ctx()
                    );
                }
            }
            Err(SpecHashError::Decode { .. }) => {
                assert!(
                    go.get("decodeError").is_some(),
                    "{op}: we refused ({ours:?}) what Go decoded: {go}\n{}",
                    ctx()
                );
                outcome = Outcome::DecodeError;
            }
            Err(SpecHashError::Unverifiable(_)) => outcome = Outcome::Unverifiable,
        }
        if go.get("decodeError").is_some() {
            assert!(
                matches!(ours, Err(SpecHashError::Decode { .. })),
                "{op}: Go refused ({go}) what we hashed: {ours:?}\n{}",
                ctx()
            );
        }
    }
    outcome
}

#[derive(PartialEq)]
enum Outcome {
    Compared,
    DecodeError,
    Unverifiable,
}

#[test]
fn every_release_layout_hashes_generated_specs_as_go_does() {
    let base = specgen::realistic_spec();
    for group in oracle_groups() {
        let first = group[0];
        let mut oracle = oracle_for(first);
        let seed = specgen::seed()
            ^ first
                .version
                .bytes()
                .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
        let mut rng = Rng::new(seed);
        let cases: Vec<(&ArcRelease, String, Vec<&str>)> = (0..SPECS_PER_LAYOUT)
            .map(|i| {
                let r = group[i % group.len()];
                let (spec, classes) = generate(&mut rng, r, &base);
                (r, spec, classes)
            })
            .collect();
        let requests: Vec<Value> = cases
            .iter()
            .flat_map(|(r, spec, _)| {
                ["runnerSetSpecHash", "listenerSpecHash"]
                    .map(|op| json!({"op": op, "release": r.version, "spec": spec}))
            })
            .collect();
        let answers = oracle.ask_all(&requests);
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        let (mut compared, mut refused, mut unverifiable) = (0, 0, 0);
        let mut runner_hashes = std::collections::HashSet::new();
        let mut listener_only = 0;
        let mut last: Option<(String, String)> = None;
        for (i, ((r, spec, classes), go)) in cases.iter().zip(answers.chunks(2)).enumerate() {
            let ctx = || format!("ARC {}, seed {seed}, case {i}:\n{spec}", r.version);
            match check(r, &mut oracle, spec, [&go[0], &go[1]], &ctx) {
                Outcome::Compared => {
                    compared += 1;
                    for c in classes {
                        *counts.entry(c).or_default() += 1;
                    }
                    let (rh, lh) = (go[0]["hash"].to_string(), go[1]["hash"].to_string());
                    if let Some((prev_r, prev_l)) = &last
                        && *prev_r == rh
                        && *prev_l != lh
                    {
                        listener_only += 1;
                    }
                    runner_hashes.insert(rh.clone());
                    last = Some((rh, lh));
                }
                Outcome::DecodeError => refused += 1,
                Outcome::Unverifiable => unverifiable += 1,
            }
        }
        let versions: Vec<&str> = group.iter().map(|r| r.version).collect();
        eprintln!(
            "ARC {versions:?} (k8s.io/api {}), seed {seed}: {SPECS_PER_LAYOUT} specs, both hashes: \
             {compared} equal to Go's ({} distinct runner hashes), {refused} refused by both, \
             {unverifiable} unverifiable (a set timestamp); by class {counts:?}",
            first.k8s_api,
            runner_hashes.len()
        );
        let _ = listener_only;
        assert!(compared >= SPECS_PER_LAYOUT * 9 / 10, "{compared}");
        assert!(refused > 0, "no decode error was generated");
        assert!(runner_hashes.len() > SPECS_PER_LAYOUT / 2);
        let h = has(first);
        let mut wanted = vec![
            "proxy",
            "tls",
            "runnerGroup",
            "listenerTemplate",
            "minMaxRunners",
            "quantity",
            "managedFields",
            "unknownField",
            "listenerMetrics",
            "vaultConfig",
            "v014Fields",
        ];
        if h.metrics {
            wanted.push("histogramBuckets");
        }
        for class in wanted {
            assert!(
                counts.get(class).copied().unwrap_or(0) > 0,
                "no {class} case"
            );
        }
    }
}

/// Ask Go for one release's two hashes of one spec, and check ours against them.
fn both(oracle: &mut Oracle, r: &ArcRelease, spec: &str) -> (String, String) {
    let go: Vec<Value> = ["runnerSetSpecHash", "listenerSpecHash"]
        .iter()
        .map(|op| oracle.ask(&json!({"op": op, "release": r.version, "spec": spec})))
        .collect();
    let ctx = || format!("ARC {}: {spec}", r.version);
    assert!(
        check(r, oracle, spec, [&go[0], &go[1]], &ctx) == Outcome::Compared,
        "{}",
        ctx()
    );
    (
        runner_set_spec_hash(r, spec).unwrap(),
        listener_spec_hash(r, spec).unwrap(),
    )
}

/// The AutoscalingRunnerSet spec of `examples/scale-set-dump.yaml` as it was at commit 6f0c960
/// (kept in `tests/oracle/testdata/`), as kubectl stores it.
fn dump_ars_spec() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/oracle/testdata/scale-set-dump-6f0c960.yaml"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut oracle = Oracle::spawn("v0.36");
    let docs: Vec<&str> = text.split("\n---").collect();
    for doc in docs {
        let answer = oracle.ask(&json!({"op": "yaml2json", "yaml": doc}));
        let Some(json) = answer["json"].as_str() else {
            continue;
        };
        let v: Value = serde_json::from_str(json).unwrap();
        let items = match v["kind"].as_str() {
            Some("List") => v["items"].as_array().cloned().unwrap_or_default(),
            _ => vec![v],
        };
        for item in items {
            if item["kind"] == "AutoscalingRunnerSet" {
                return kubectl_arc::manifest::go_json(&item["spec"]);
            }
        }
    }
    panic!("no AutoscalingRunnerSet in {path}");
}

#[test]
fn the_worked_example_and_the_changes_that_matter() {
    let r = release("0.14.2").unwrap();
    let mut oracle = oracle_for(r);
    let spec = dump_ars_spec();
    let (runner, listener) = both(&mut oracle, r, &spec);
    // /work/shared/arc/README.md: 0.14.2's own method on this AutoscalingRunnerSet.
    assert_eq!(runner, "595bdbd674");

    let mut base: Value = serde_json::from_str(&spec).unwrap();
    base["template"]["spec"]["containers"][0]["resources"] =
        json!({"requests": {"cpu": "500m", "memory": "2Gi"}});
    let base_text = base.to_string();
    let (base_runner, base_listener) = both(&mut oracle, r, &base_text);
    assert_ne!((&base_runner, &base_listener), (&runner, &listener));

    let changed = |f: &dyn Fn(&mut Value)| {
        let mut v = base.clone();
        f(&mut v);
        v.to_string()
    };
    let container = "/template/spec/containers/0/resources/requests";
    for (what, doc, runner_changes) in [
        (
            "500m -> 0.5",
            changed(&|v| v.pointer_mut(container).unwrap()["cpu"] = json!("0.5")),
            true,
        ),
        (
            "2Gi -> 2048Mi",
            changed(&|v| v.pointer_mut(container).unwrap()["memory"] = json!("2048Mi")),
            true,
        ),
        (
            "nodeSelector: {}",
            changed(&|v| v["template"]["spec"]["nodeSelector"] = json!({})),
            true,
        ),
        (
            "tolerations: []",
            changed(&|v| v["template"]["spec"]["tolerations"] = json!([])),
            true,
        ),
        (
            "a runnerGroup",
            changed(&|v| v["runnerGroup"] = json!("large")),
            true,
        ),
        (
            "maxRunners",
            changed(&|v| v["maxRunners"] = json!(42)),
            false,
        ),
        (
            "an unknown field",
            changed(&|v| v["notAField"] = json!(true)),
            false,
        ),
    ] {
        let (rh, lh) = both(&mut oracle, r, &doc);
        assert_eq!(rh != base_runner, runner_changes, "{what}: runner hash");
        // Everything here but the unknown field is in the spec, so the listener hash moves.
        assert_eq!(
            lh != base_listener,
            what != "an unknown field",
            "{what}: listener hash"
        );
    }
    // The same value under another release is another hash (the types and k8s.io/api differ).
    let old = release("0.10.1").unwrap();
    let mut old_oracle = oracle_for(old);
    let (old_runner, _) = both(&mut old_oracle, old, &base_text);
    assert_ne!(old_runner, base_runner);
}

#[test]
fn fields_v1_bytes_are_hashed_as_written() {
    // Go's FieldsV1 keeps the raw bytes of the value (keys in the order written, spaces too).
    for r in [release("0.9.0").unwrap(), release("0.14.2").unwrap()] {
        let mut oracle = oracle_for(r);
        let doc = |fields: &str| {
            format!(
                r#"{{"template":{{"metadata":{{"managedFields":[{{"manager":"m","fieldsType":"FieldsV1","fieldsV1":{fields}}}]}},"spec":{{"containers":[{{"name":"runner"}}]}}}}}}"#
            )
        };
        let sorted = both(&mut oracle, r, &doc(r#"{"f:a":{},"f:b":{}}"#));
        let written = both(&mut oracle, r, &doc(r#"{"f:b":{},"f:a":{}}"#));
        let spaced = both(&mut oracle, r, &doc(r#"{"f:b": {}, "f:a":{}}"#));
        assert_ne!(sorted.0, written.0, "ARC {}", r.version);
        assert_ne!(written.0, spaced.0, "ARC {}", r.version);
        assert_ne!(sorted.1, written.1, "ARC {}", r.version);
    }
}
