//! Differential tests: our decoding, equalities and legacy hash against the real Go code (the
//! oracle), on generated spec pairs, for every supported k8s.io/api layout.

mod common;

use common::oracle::Oracle;
use common::specgen;
use kubectl_arc::core::equality::compare;
use kubectl_arc::core::layout::Layout;
use kubectl_arc::core::legacy_hash::integrity_hash;
use kubectl_arc::core::value::decode;
use serde_json::{Value, json};

const PAIRS_PER_LAYOUT: usize = 10_000;

fn has_set_timestamp(doc: &str) -> bool {
    let v: Value = serde_json::from_str(doc).unwrap();
    v.pointer("/metadata/creationTimestamp")
        .is_some_and(|t| !t.is_null())
}

fn run(layout_name: &str) {
    let layout = Layout::find(layout_name).unwrap_or_else(|| panic!("layout {layout_name}"));
    let mut oracle = Oracle::spawn(layout_name);
    let seed = specgen::seed()
        ^ layout_name
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
    let mut rng = specgen::Rng::new(seed);
    let base = specgen::realistic_spec();
    let pairs: Vec<(String, String)> = (0..PAIRS_PER_LAYOUT)
        .map(|_| specgen::pair(&mut rng, &base))
        .collect();
    let requests: Vec<Value> = pairs
        .iter()
        .map(|(a, b)| json!({"op": "equal", "a": a, "b": b}))
        .collect();
    let answers = oracle.ask_all(&requests);

    let (mut counts, mut unverifiable, mut errors) = ([0usize; 3], 0usize, 0usize);
    let ty = layout.ephemeral_runner_spec;
    for (i, ((a, b), go)) in pairs.iter().zip(&answers).enumerate() {
        let ctx =
            || format!("layout {layout_name}, seed {seed}, pair {i}:\nA = {a}\nB = {b}\nGo: {go}");
        let (va, vb) = match (decode(layout, ty, a), decode(layout, ty, b)) {
            (Ok(va), Ok(vb)) => (va, vb),
            (ra, rb) => {
                assert!(
                    go.get("error").is_some(),
                    "we failed to decode ({ra:?} / {rb:?}) where Go did not: {}",
                    ctx()
                );
                errors += 1;
                continue;
            }
        };
        assert!(
            go.get("error").is_none(),
            "Go failed where we decoded: {}",
            ctx()
        );
        let c = compare(layout, ty, &va, &vb);
        let ours = [c.reflect_equal(), c.cmp_equal(), c.semantic_equal()];
        let theirs = [
            go["reflect"].as_bool().expect("reflect"),
            go["cmp"].as_bool().expect("cmp (no panic)"),
            go["semantic"].as_bool().expect("semantic (no panic)"),
        ];
        assert_eq!(
            ours,
            theirs,
            "[reflect, cmp, semantic] differ: {:?}\n{}",
            c.differences,
            ctx()
        );
        for (n, eq) in counts.iter_mut().zip(ours) {
            *n += eq as usize;
        }
        for (doc, v, key) in [(a, &va, "hashA"), (b, &vb, "hashB")] {
            match integrity_hash(layout, v) {
                Ok(h) => assert_eq!(h, go[key].as_str().unwrap(), "{key}: {}", ctx()),
                Err(_) => {
                    assert!(
                        has_set_timestamp(doc),
                        "unverifiable without a timestamp: {}",
                        ctx()
                    );
                    unverifiable += 1;
                }
            }
        }
    }
    eprintln!(
        "{layout_name}: {PAIRS_PER_LAYOUT} pairs agree with Go (reflect-equal {}, cmp-equal {}, semantic-equal {}; \
         {errors} decode errors; {unverifiable} hashes over set timestamps not comparable)",
        counts[0], counts[1], counts[2]
    );
    // The generator must exercise every verdict, or the test proves little.
    assert!(
        counts[2] > counts[1] && counts[1] > counts[0] && counts[0] > 0,
        "{counts:?}"
    );
    assert!(
        counts[2] < PAIRS_PER_LAYOUT - errors,
        "no semantic drift generated"
    );
}

#[test]
fn agrees_with_go_on_k8s_api_v0_36() {
    run("v0.36");
}

#[test]
fn agrees_with_go_on_k8s_api_v0_35() {
    run("v0.35");
}

#[test]
fn agrees_with_go_on_k8s_api_v0_37() {
    run("v0.37");
}
