//! The layout files shipped in src/core/layouts/ are exactly what the Go oracle's reflection walk
//! gives for each k8s.io/api version (regenerate with `oracle layout > ...` when this fails).

use crate::common::oracle::Oracle;

#[test]
fn shipped_layouts_are_what_go_reflection_says() {
    for (oracle_name, version) in [
        ("v0.35", "v0.35.10"),
        ("v0.36", "v0.36.2"),
        ("v0.37", "v0.37.2"),
    ] {
        let mut oracle = Oracle::spawn(oracle_name);
        let fresh = oracle.ask(&serde_json::json!({"op": "layout"}))["layout"].clone();
        let path = format!(
            "{}/src/core/layouts/k8s-api-{version}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let shipped: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(
            fresh == shipped,
            "{path} is stale: regenerate it with the oracle built against k8s.io/api {version} \
             (`.cache/oracle/bin/oracle{} layout > {path}`)",
            if oracle_name == "v0.36" {
                String::new()
            } else {
                format!("-{oracle_name}")
            }
        );
        assert_eq!(fresh["k8sApi"], version);
    }
}
