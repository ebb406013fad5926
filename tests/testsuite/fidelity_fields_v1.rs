//! Differential test of the bytes a `metav1.FieldsV1` keeps (issue 15, class 6): the legacy
//! integrity hash prints them (go-spew), and encoding/json writes them with its HTML escaping
//! (`<`, `>`, `&`, U+2028, U+2029) and sorted keys when kubectl sends a manifest. Generated
//! AutoscalingRunnerSet manifests (YAML and JSON) whose pod template carries managedFields: our
//! desired spec's hash against the hash Go computes on the object as kubectl stores it.

use crate::common::oracle::Oracle;
use crate::common::specgen::{self, Rng};
use kubectl_arc::core::desired::desired_runner_spec;
use kubectl_arc::core::layout::Layout;
use kubectl_arc::core::legacy_hash::integrity_hash;
use kubectl_arc::manifest::{go_json, parse};
use serde_json::{Value, json};

const CASES: usize = 2_000;

fn field_key(rng: &mut Rng) -> String {
    const PIECES: &[&str] = &[
        "f:app",
        "k:{\"name\":\"runner\"}",
        "<",
        ">",
        "&",
        "a&b",
        "\u{2028}",
        "\u{2029}",
        "é",
        "x",
        "\u{7f}",
        "\u{85}",
        "z",
        "A",
        ".",
    ];
    (0..rng.below(3) + 1).map(|_| *rng.pick(PIECES)).collect()
}

fn fields_v1(rng: &mut Rng, depth: usize) -> Value {
    let mut m = serde_json::Map::new();
    for _ in 0..rng.below(4) {
        let v = if depth < 2 && rng.chance(50) {
            fields_v1(rng, depth + 1)
        } else if rng.chance(20) {
            json!(field_key(rng))
        } else {
            json!({})
        };
        m.insert(field_key(rng), v);
    }
    Value::Object(m)
}

#[test]
fn fields_v1_bytes_hash_as_go() {
    let layout = Layout::arc();
    let mut oracle = Oracle::spawn("v0.36");
    let seed = specgen::seed() ^ 0x0f1e_1d51;
    let mut rng = Rng::new(seed);
    let mut docs = Vec::new();
    for i in 0..CASES {
        let ars = json!({
            "apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
            "metadata": {"name": format!("s{i}"), "annotations": {"runner-scale-set-id": "3"}},
            "spec": {"githubConfigUrl": "https://github.com/o", "githubConfigSecret": "s",
                "template": {"metadata": {"managedFields": [
                    {"manager": field_key(&mut rng), "operation": "Update", "fieldsType": "FieldsV1",
                     "fieldsV1": fields_v1(&mut rng, 0)}]},
                    "spec": {"containers": [{"name": "runner", "image": "img"}]}}}
        });
        // As YAML (serde-saphyr writes it in any order it likes) or as JSON.
        let text = if rng.chance(50) {
            serde_saphyr::to_string(&ars).unwrap()
        } else {
            ars.to_string()
        };
        let yaml = !text.starts_with('{');
        docs.push((text, yaml));
    }
    let stored = oracle.ask_all(
        &docs
            .iter()
            .map(|(t, yaml)| json!({"op": "kubectlStores", if *yaml {"yaml"} else {"json"}: t}))
            .collect::<Vec<_>>(),
    );
    let requests: Vec<Value> = stored
        .iter()
        .map(|s| json!({"op": "desired", "ars": s["json"].as_str().unwrap_or_else(|| panic!("{s}"))}))
        .collect();
    let answers = oracle.ask_all(&requests);
    let mut same = 0;
    for ((text, _), go) in docs.iter().zip(&answers) {
        let objects = parse(text, "gen").unwrap_or_else(|e| panic!("seed {seed}: {text}: {e}"));
        assert!(objects[0].problem.is_none(), "{:?}", objects[0].problem);
        let spec = go_json(&objects[0].value["spec"]);
        let desired = desired_runner_spec(layout, &spec, Some("3")).unwrap();
        let hash = integrity_hash(layout, &desired).unwrap();
        assert_eq!(
            hash,
            go["hash"].as_str().unwrap(),
            "seed {seed}: {text}\nGo {go}"
        );
        same += 1;
    }
    eprintln!(
        "FieldsV1: {CASES} generated templates with managedFields hash as Go hashes them ({same} agree)"
    );
}
