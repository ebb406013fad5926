//! The layout files shipped in crates/kubectl-arc-core/src/layouts/ are exactly what the Go oracle's reflection walk
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
            "{}/crates/kubectl-arc-core/src/layouts/k8s-api-{version}.json",
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

/// The release layouts (`crates/kubectl-arc-core/src/layouts/arc-*.json`) are what the oracle built on each
/// release's pins reflects of that release's types, and every release's oracle links exactly the
/// k8s.io/api, k8s.io/apimachinery and go-spew versions of the release's go.mod.
#[test]
fn release_layouts_are_what_go_reflection_says_on_each_releases_pins() {
    use kubectl_arc::core::release::releases;
    let mut checked: Vec<*const kubectl_arc::core::layout::Layout> = Vec::new();
    let mut dumps: Vec<(String, serde_json::Value)> = Vec::new();
    for r in releases() {
        let mut oracle = Oracle::spawn(r.k8s_api);
        let v = oracle.ask(&serde_json::json!({"op": "version"}));
        assert_eq!(v["k8sApi"], r.k8s_api, "ARC {}", r.version);
        assert_eq!(v["apimachinery"], r.k8s_api, "ARC {}", r.version);
        assert_eq!(v["spew"], r.go_spew, "ARC {}", r.version);
        let fresh =
            oracle.ask(&serde_json::json!({"op": "layout", "release": r.version}))["layout"]
                .clone();
        assert!(fresh.is_object(), "ARC {}: {fresh}", r.version);
        let layout = r.layout();
        if checked.contains(&(layout as *const _)) {
            // A release sharing an earlier release's layout (0.13.1 on v0.34.3 shares 0.13.0's
            // on v0.34.1): its own dump must be that layout, type for type.
            let (name, shared) = dumps.last().unwrap();
            assert!(
                fresh["types"] == shared["types"],
                "ARC {} on {} does not have the types of {name}: give it a layout of its own",
                r.version,
                r.k8s_api
            );
            eprintln!(
                "ARC {} ({}): the same types as {name}",
                r.version, r.k8s_api
            );
            continue;
        }
        assert_eq!(layout.k8s_api, r.k8s_api);
        checked.push(layout);
        let name = format!("arc-{}-k8s-{}", r.version, r.k8s_api);
        let path = format!(
            "{}/crates/kubectl-arc-core/src/layouts/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let shipped: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(
            fresh == shipped,
            "{path} is stale: regenerate it with `.cache/oracle/bin/oracle-{} layout {} > {path}`",
            r.k8s_api,
            r.version
        );
        dumps.push((name, fresh));
    }
    assert_eq!(checked.len(), 5);
    // Where two releases' Go types are the same but k8s.io/api differs, say whether the layouts
    // differ too (they get a layout each either way).
    for pair in dumps.windows(2) {
        let same = pair[0].1["types"] == pair[1].1["types"];
        eprintln!(
            "{} and {}: types {}",
            pair[0].0,
            pair[1].0,
            if same { "identical" } else { "differ" }
        );
    }
}
