//! The Go oracle is faithful to ARC: it reproduces the legacy integrity hashes of ARC's own code
//! (recorded in ../shared/reference/verified/, which is compared where it exists).

use crate::common::oracle::Oracle;

const WORKED_EXAMPLE: &str = r#"{"githubConfigUrl":"https://github.com/my-org","githubConfigSecret":"gh-secret","runnerScaleSetId":3,
 "metadata":{"labels":{"app":"runner"}},
 "spec":{"restartPolicy":"Never","serviceAccountName":"runner-sa",
  "containers":[{"name":"runner","image":"ghcr.io/actions/actions-runner:latest",
   "command":["/home/runner/run.sh"],"env":[{"name":"RUNNER_FEATURE_FLAG_EPHEMERAL","value":"true"}],
   "resources":{"limits":{"cpu":"2","memory":"4Gi"},"requests":{"cpu":"500m"}}}]}}"#;

fn verified(name: &str) -> Option<String> {
    crate::common::shared_file(&format!("reference/verified/{name}"))
}

#[test]
fn oracle_reproduces_arcs_recorded_hashes() {
    let mut oracle = Oracle::spawn("v0.36");
    assert_eq!(oracle.hash("{}"), "9755cd855");
    assert_eq!(oracle.hash(WORKED_EXAMPLE), "667fcbb9d8");
    // The recorded values themselves, so the constants above cannot drift from the evidence.
    let Some(run) = verified("example_run.txt") else {
        return;
    };
    assert!(run.contains("hash via copy of ARC fn: 667fcbb9d8"), "{run}");
    assert!(run.contains("empty spec hash: 9755cd855"), "{run}");
}

#[test]
fn oracle_spew_matches_the_recorded_go_output_byte_for_byte() {
    let mut oracle = Oracle::spawn("v0.36");
    for (spec, file) in [
        ("{}", "empty_spew.txt"),
        (WORKED_EXAMPLE, "example_spew.txt"),
    ] {
        let answer = oracle.ask(&serde_json::json!({"op": "hash", "spec": spec, "spew": true}));
        let spew = answer["spew"].as_str().expect("spew requested");
        let Some(recorded) = verified(file) else {
            // Without the recording, the spew is still checked against our own rendering.
            let l = kubectl_arc::core::layout::Layout::arc();
            let v = kubectl_arc::core::value::decode(l, l.ephemeral_runner_spec, spec).unwrap();
            assert_eq!(
                spew,
                kubectl_arc::core::legacy_hash::spew(l, &v).unwrap(),
                "{file}"
            );
            continue;
        };
        assert_eq!(spew, recorded.trim_end_matches('\n'), "{file}");
    }
}

#[test]
fn every_layout_oracle_answers_and_layouts_differ() {
    let mut hashes = Vec::new();
    for layout in ["v0.35", "v0.36", "v0.37"] {
        let mut oracle = Oracle::spawn(layout);
        let version = oracle.ask(&serde_json::json!({"op": "version"}));
        let api = version["k8sApi"].as_str().unwrap_or_default().to_string();
        assert!(api.starts_with(layout), "{layout}: {version}");
        hashes.push(oracle.hash("{}"));
    }
    // The hash spells out every field of PodSpec, so a k8s.io/api minor with new fields changes it.
    assert_ne!(hashes[0], hashes[1], "{hashes:?}");
    assert_ne!(hashes[1], hashes[2], "{hashes:?}");
}

#[test]
fn realistic_spec_hash_matches_go_under_every_layout() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/oracle/testdata/realistic-spec.json"
    ))
    .unwrap();
    for (name, layout) in [("v0.35", "v0.35"), ("v0.36", "v0.36"), ("v0.37", "v0.37")] {
        let mut oracle = Oracle::spawn(name);
        let l = kubectl_arc::core::layout::Layout::find(layout).unwrap();
        let v = kubectl_arc::core::value::decode(l, l.ephemeral_runner_spec, &text).unwrap();
        let ours = kubectl_arc::core::legacy_hash::integrity_hash(l, &v).unwrap();
        assert_eq!(ours, oracle.hash(&text), "{name}");
        let go_spew = oracle.ask(&serde_json::json!({"op": "hash", "spec": text, "spew": true}));
        assert_eq!(
            kubectl_arc::core::legacy_hash::spew(l, &v).unwrap(),
            go_spew["spew"].as_str().unwrap(),
            "{name}"
        );
    }
}
