//! Differential test of the desired-spec builder (ARC's newEphemeralRunnerSet) and ARC's verdict:
//! generated AutoscalingRunnerSet / EphemeralRunnerSet pairs, our drift against Go's.

use crate::common::oracle::Oracle;
use crate::common::specgen;
use kubectl_arc::core::drift::{DriftError, drift};
use kubectl_arc::core::layout::Layout;
use kubectl_arc::core::legacy_hash::integrity_hash;
use serde_json::{Value, json};

const CASES: usize = 2_000;
/// At most one pair in this many may skip the hash comparison.
const UNHASHED_AT_MOST: usize = 4;

/// An AutoscalingRunnerSet whose template and settings come from a runner spec.
fn ars_from(runner: &Value, annotation: Option<&str>, rng: &mut specgen::Rng) -> Value {
    let mut spec = json!({"minRunners": 1, "maxRunners": 5, "runnerScaleSetName": "arc"});
    for key in [
        "githubConfigUrl",
        "githubConfigSecret",
        "proxy",
        "githubServerTLS",
        "vaultConfig",
        "ephemeralRunnerConfigSecretMetadata",
    ] {
        if let Some(v) = runner.get(key) {
            spec[key] = v.clone();
        }
    }
    let mut template = json!({});
    for key in ["metadata", "spec"] {
        if let Some(v) = runner.get(key) {
            template[key] = v.clone();
        }
    }
    if rng.chance(90) {
        spec["template"] = template;
    }
    if rng.chance(20) {
        spec["listenerTemplate"] = json!({"spec": {"containers": [{"name": "listener"}]}});
    }
    let mut meta = json!({"name": "arc", "namespace": "arc-runners"});
    if let Some(a) = annotation {
        meta["annotations"] = json!({"runner-scale-set-id": a});
    }
    json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet", "metadata": meta, "spec": spec})
}

fn run(layout_name: &str) {
    let layout = Layout::find(layout_name).unwrap();
    let mut oracle = Oracle::spawn(layout_name);
    let seed = specgen::seed() ^ 0xdead_beef ^ layout_name.bytes().map(u64::from).sum::<u64>();
    let mut rng = specgen::Rng::new(seed);
    let base = specgen::realistic_spec();
    let mut cases = Vec::new();
    for _ in 0..CASES {
        let (a, b) = specgen::pair(&mut rng, &base);
        let runner: Value = serde_json::from_str(&a).unwrap();
        let id = runner["runnerScaleSetId"].as_i64().unwrap_or(0).to_string();
        let annotation = match rng.below(20) {
            0 => None,
            1 => Some("x7".to_string()),
            2 => Some(format!("+{id}")),
            3 => Some(format!("00{id}")),
            _ => Some(id),
        };
        let ars = ars_from(&runner, annotation.as_deref(), &mut rng);
        let mut current: Value = serde_json::from_str(&b).unwrap();
        // ARC never sets proxySecretRef on a set (only on its runners): mostly leave it out.
        if rng.chance(90) {
            current
                .as_object_mut()
                .unwrap()
                .shift_remove("proxySecretRef");
        }
        let b = current.to_string();
        let ers = json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
                         "metadata": {"name": "arc"}, "spec": {"ephemeralRunnerSpec": current}});
        cases.push((ars, annotation, ers, b));
    }
    let requests: Vec<Value> = cases
        .iter()
        .map(|(ars, _, ers, _)| json!({"op": "compareDesired", "ars": ars.to_string(), "ers": ers.to_string()}))
        .collect();
    let answers = oracle.ask_all(&requests);
    let (mut drifted, mut errors) = (0, 0);
    // Pairs whose hashes were compared with Go's, and pairs where ours cannot be reproduced (a set
    // time prints Go's local zone): only the verdicts compare there.
    let (mut hashed, mut unhashed) = (0, 0);
    for (i, ((ars, annotation, _, current), go)) in cases.iter().zip(&answers).enumerate() {
        let ctx =
            || format!("{layout_name} seed {seed} case {i}\nARS {ars}\ncurrent {current}\nGo {go}");
        let spec = ars["spec"].to_string();
        match drift(layout, &spec, annotation.as_deref(), Some(current)) {
            Err(e) => {
                assert!(
                    go.get("error").is_some(),
                    "we failed ({e}) where Go did not: {}",
                    ctx()
                );
                if matches!(e, DriftError::Desired(_)) {
                    errors += 1;
                }
            }
            Ok(d) => {
                assert!(
                    go.get("error").is_none(),
                    "Go failed where we did not: {}",
                    ctx()
                );
                let c = &d.comparison;
                assert_eq!(
                    [c.reflect_equal(), c.cmp_equal(), c.semantic_equal()],
                    [
                        go["reflect"] == true,
                        go["cmp"] == true,
                        go["semantic"] == true
                    ],
                    "{:?}\n{}",
                    c.differences,
                    ctx()
                );
                if let (Ok(hd), Ok(hc)) = (
                    integrity_hash(layout, &d.desired),
                    integrity_hash(layout, &d.current),
                ) {
                    assert_eq!(hd, go["hashDesired"].as_str().unwrap(), "{}", ctx());
                    assert_eq!(hc, go["hashCurrent"].as_str().unwrap(), "{}", ctx());
                    hashed += 1;
                } else {
                    unhashed += 1;
                }
                drifted += d.semantic_drift() as usize;
            }
        }
    }
    eprintln!(
        "{layout_name}: {CASES} ARS/ERS pairs agree with Go ({drifted} with semantic drift, {errors} unbuildable; \
         hashes compared on {hashed}, not reproducible on {unhashed})"
    );
    assert!(drifted > 0 && drifted < CASES - errors && errors > 0);
    // The hash comparison is skipped only rarely, and runs on most pairs.
    assert!(
        hashed > 0 && unhashed * UNHASHED_AT_MOST < hashed + unhashed,
        "hashes compared on {hashed} pairs, skipped on {unhashed} (at most 1 in {UNHASHED_AT_MOST})"
    );
}

#[test]
fn desired_spec_and_verdict_agree_with_go_v0_36() {
    run("v0.36");
}

#[test]
fn desired_spec_and_verdict_agree_with_go_v0_37() {
    run("v0.37");
}
