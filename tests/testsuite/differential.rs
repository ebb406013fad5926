//! Differential tests: our decoding, equalities and legacy hash against the real Go code (the
//! oracle), on generated spec pairs, for every supported k8s.io/api layout.

use crate::common::oracle::Oracle;
use crate::common::specgen;
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

/// One generated plain YAML scalar: numbers in every spelling go.yaml.in/yaml/v2 and YAML 1.2
/// disagree on (octal, underscores, signs, exponents, big values), YAML 1.1 booleans and nulls,
/// and strings that look almost like numbers.
fn yaml_scalar(rng: &mut specgen::Rng) -> String {
    let digits = |rng: &mut specgen::Rng, n: usize, alphabet: &[u8], underscores: bool| {
        let mut s = String::new();
        for i in 0..n {
            if underscores && i > 0 && rng.chance(15) {
                s.push('_');
            }
            s.push(*rng.pick(alphabet) as char);
        }
        s
    };
    const DEC: &[u8] = b"0123456789";
    let sign = rng.pick(&["", "", "", "+", "-"]).to_string();
    let underscores = rng.chance(10);
    let long = rng.chance(10);
    let n = 1 + rng.below(if long { 25 } else { 6 });
    match rng.below(10) {
        0 | 1 => format!("{sign}{}", digits(rng, n, DEC, underscores)),
        2 => format!("{sign}0{}", digits(rng, n, b"01234567", underscores)),
        3 => {
            let prefix = rng.pick(&["0x", "0X", "0o", "0b", "0B"]).to_string();
            let alphabet: &[u8] = match prefix.as_str() {
                "0x" | "0X" => b"0123456789abcdefABCDEF",
                "0o" => b"01234567",
                _ => b"01",
            };
            format!("{sign}{prefix}{}", digits(rng, n, alphabet, underscores))
        }
        4..=6 => {
            let int = if rng.chance(15) {
                String::new()
            } else {
                digits(rng, n, DEC, underscores)
            };
            let frac = if rng.chance(20) {
                String::new()
            } else {
                let k = 1 + rng.below(8);
                digits(rng, k, DEC, false)
            };
            let dot = if rng.chance(85) { "." } else { "" };
            let exp = if rng.chance(50) {
                let big = rng.chance(20);
                format!(
                    "{}{}{}",
                    rng.pick(&["e", "E"]),
                    rng.pick(&["", "+", "-"]),
                    1 + rng.below(if big { 330 } else { 25 })
                )
            } else {
                String::new()
            };
            format!("{sign}{int}{dot}{frac}{exp}")
        }
        7 => rng
            .pick(&[
                "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "y",
                "Y", "n", "N", "true", "True", "TRUE", "false", "False", "FALSE", "tRue", "~",
                "null", "Null", "NULL", "nUll",
            ])
            .to_string(),
        8 => rng
            .pick(&[
                "1:20",
                "2006-01-02",
                "0x",
                "1e",
                "e3",
                "0b2",
                "1__0",
                "_1",
                "1_",
                "0.5.5",
                "+",
                "-",
                ".",
                "0o8",
                "09",
                "0_9",
                "-0",
                "+0",
                "0.0",
                "-0.0",
                "1e+",
                "1e-",
                "1.5Gi",
                "500m",
                "1k",
                "1M",
                "0x_1",
                "0b_1",
                "+.5",
                "-.5e3",
                "1.e3",
                "nan",
                ".inf",
                "-.Inf",
                "+.INF",
                ".nan",
                ".NaN",
                "nULL",
                "Infinity",
                "NaN",
                "None",
                "oN",
                "yES",
                "Off",
                "x1",
                "inf",
            ])
            .to_string(),
        _ => format!("{sign}{}e{}", digits(rng, n, DEC, false), rng.below(400)),
    }
}

/// Manifests read like kubectl and Helm read them: every generated plain scalar in an ARC object,
/// decoded by our reader and written as JSON, is exactly what `sigs.k8s.io/yaml.YAMLToJSON`
/// (go.yaml.in/yaml/v2 and encoding/json) writes, byte for byte: the reader resolves scalars as
/// go-yaml does, so none is refused where Go reads it. Where Go refuses a document (a non-finite
/// float, a null key), its object carries a problem naming the scalar. No scalar is silently read
/// otherwise.
#[test]
fn yaml_scalars_read_like_kubectl() {
    use kubectl_arc::manifest::{go_json, parse};
    use serde_json::value::RawValue;
    let mut oracle = Oracle::spawn("v0.36");
    let mut rng = specgen::Rng::new(specgen::seed() ^ 0x59a3);
    // [value, key] x (read the same, refused naming the scalar, refused by both)
    let mut counts = [[0usize; 3]; 2];
    for _batch in 0..100 {
        let scalars: Vec<String> = (0..200).map(|_| yaml_scalar(&mut rng)).collect();
        for (k, place) in ["a:\n- {}\n", "a:\n  {}: 1\n"].iter().enumerate() {
            let docs: Vec<String> = scalars
                .iter()
                .map(|s| {
                    format!(
                        "apiVersion: actions.github.com/v1alpha1\nkind: X\n{}",
                        place.replace("{}", s)
                    )
                })
                .collect();
            let answers = oracle.ask_all(
                &docs
                    .iter()
                    .map(|d| json!({"op": "kubectlStores", "yaml": d}))
                    .collect::<Vec<_>>(),
            );
            for ((scalar, doc), answer) in scalars.iter().zip(&docs).zip(&answers) {
                match (
                    answer.get("json").and_then(Value::as_str),
                    parse(doc, "gen.yaml"),
                ) {
                    (Some(go), Ok(ours)) if ours[0].problem.is_some() => {
                        let p = ours[0].problem.as_deref().unwrap();
                        assert!(
                            p.contains(&format!("the plain {} `{scalar}` is read by kubectl (go.yaml.in/yaml/v2) as", ["scalar", "key"][k])),
                            "{scalar:?}: Go reads {go}, we flag something else: {p}"
                        );
                        counts[k][1] += 1;
                    }
                    (Some(go), Ok(ours)) => {
                        #[derive(serde::Deserialize)]
                        struct Doc<'a> {
                            #[serde(borrow)]
                            a: &'a RawValue,
                        }
                        let go: Doc = serde_json::from_str(go).unwrap();
                        assert_eq!(
                            go_json(&ours[0].value["a"]),
                            go.a.get(),
                            "the plain scalar {scalar:?} in {doc:?}"
                        );
                        counts[k][0] += 1;
                    }
                    (Some(go), Err(e)) => {
                        let e = e.to_string();
                        assert!(
                            e.contains(&format!(
                                "the plain scalar `{scalar}` is not a finite float64"
                            )),
                            "{scalar:?}: Go reads {go}, we refuse the file for another reason: {e}"
                        );
                        counts[k][1] += 1;
                    }
                    (None, Err(_)) => counts[k][2] += 1,
                    (None, Ok(o)) if o[0].problem.is_some() => counts[k][2] += 1,
                    (None, Ok(o)) => panic!(
                        "{scalar:?}: Go refuses {doc:?} ({}), we read {}",
                        answer,
                        go_json(&o[0].value)
                    ),
                }
            }
        }
    }
    eprintln!(
        "YAML plain scalars, 20000 as values: {} read byte for byte as Go reads them, {} refused naming the scalar, {} refused by both; \
         as keys: {} / {} / {}",
        counts[0][0], counts[0][1], counts[0][2], counts[1][0], counts[1][1], counts[1][2]
    );
    assert!(counts[0][0] >= 17_000, "{counts:?}");
    assert_eq!(
        (counts[0][1], counts[1][1]),
        (0, 0),
        "scalars Go reads and we refuse: {counts:?}"
    );
}
