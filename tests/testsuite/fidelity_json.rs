//! Differential tests of JSON manifests read as kubectl reads them (issue 15, classes 4 and 8):
//! strings decoded as Go's encoding/json decodes them (a lone surrogate escape is U+FFFD; raw DEL,
//! C1 controls, U+FFFE and U+FFFF are characters), numbers as kubectl stores them (an integer
//! beyond int64 is a float64), and a value kubectl refuses (a number beyond float64) refusing its
//! object alone. Against the oracle's `jsonString` and `kubectlStores` ops.

use crate::common::oracle::Oracle;
use crate::common::specgen::{self, Rng};
use kubectl_arc::core::json::manifest_documents;
use kubectl_arc::manifest::{go_json, parse};
use serde_json::{Value, json};

const CASES: usize = 5_000;

/// A JSON string literal mixing the escapes and characters Go decodes in its own way.
pub fn json_string_literal(rng: &mut Rng) -> String {
    const PIECES: &[&str] = &[
        "a",
        "runner",
        " ",
        "\\ud800",
        "\\udc00",
        "\\ud83d\\ude00",
        "\\ude00\\ud83d",
        "\\uD800x",
        "\\ud800\\u0041",
        "\\u0000",
        "\\u001f",
        "\u{7f}",
        "\u{80}",
        "\u{85}",
        "\u{9f}",
        "\u{fffe}",
        "\u{ffff}",
        "\u{2028}",
        "\u{2029}",
        "\\u2028",
        "\\/",
        "\\\\",
        "\\\"",
        "\\b\\f\\n\\r\\t",
        "<",
        ">",
        "&",
        "\\u003c",
        "é",
        "😀",
        "\u{feff}",
        "\\uFFFD",
        "\\udbff\\udfff",
        "\\ud800\\ud800\\udc00",
    ];
    let mut s = String::from("\"");
    for _ in 0..rng.below(6) + 1 {
        s.push_str(pick_str(rng, PIECES));
    }
    s.push('"');
    s
}

/// A JSON number in the spellings whose stored form differs from the text.
pub fn json_number(rng: &mut Rng) -> String {
    const NUMBERS: &[&str] = &[
        "0",
        "-0",
        "1",
        "-1",
        "1.0",
        "-0.0",
        "1e3",
        "1E+3",
        "0.5",
        "1e-7",
        "1e21",
        "1e400",
        "-1e400",
        "1e-400",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "12345678901234567890",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999",
        "1125899906842624.25",
        "0.1000000000000000055511151231257827",
        "123456789012345678",
        "2.5e-324",
        "1.7976931348623157e308",
        "1.7976931348623159e308",
        "100000000000000000000",
    ];
    let base = *rng.pick(NUMBERS);
    if rng.chance(30) {
        // A random integer around and beyond int64.
        let n = (rng.next() as u128) << rng.below(8);
        return if rng.chance(30) {
            format!("-{n}")
        } else {
            n.to_string()
        };
    }
    base.to_string()
}

#[test]
fn json_strings_decode_as_go() {
    let mut oracle = Oracle::spawn("v0.36");
    let seed = specgen::seed() ^ 0x0150_0004;
    let mut rng = Rng::new(seed);
    let literals: Vec<String> = (0..CASES).map(|_| json_string_literal(&mut rng)).collect();
    let answers = oracle.ask_all(
        &literals
            .iter()
            .map(|l| json!({"op": "jsonString", "json": l}))
            .collect::<Vec<_>>(),
    );
    for (literal, go) in literals.iter().zip(&answers) {
        let go = go["string"]
            .as_str()
            .unwrap_or_else(|| panic!("{literal}: {go}"));
        let doc = format!("{{\"s\":{literal}}}");
        let ours = manifest_documents(&doc, 256).unwrap_or_else(|e| panic!("{literal}: {e}"));
        assert_eq!(ours[0].value["s"], go, "seed {seed} literal {literal}");
    }
    eprintln!("JSON strings: {CASES} generated literals decode as Go decodes them ({CASES} agree)");
}

/// Whole JSON manifests: what we hand the Go-faithful decoder (go_json of each object) is, byte for
/// byte, what kubectl sends to the API server, or the object is refused where kubectl refuses it;
/// the file's other objects are still read.
#[test]
fn json_manifests_read_as_kubectl_stores_them() {
    let mut oracle = Oracle::spawn("v0.36");
    let seed = specgen::seed() ^ 0x0150_0008;
    let mut rng = Rng::new(seed);
    let mut docs = Vec::new();
    for i in 0..CASES {
        let mut fields = vec![
            r#""apiVersion":"actions.github.com/v1alpha1""#.to_string(),
            r#""kind":"AutoscalingRunnerSet""#.to_string(),
            format!(r#""metadata":{{"name":"s{i}"}}"#),
        ];
        for _ in 0..rng.below(4) + 1 {
            let key = json_string_literal(&mut rng);
            let value = match rng.below(4) {
                0 => json_string_literal(&mut rng),
                1 => json_number(&mut rng),
                2 => format!(
                    "[{},{}]",
                    json_number(&mut rng),
                    json_string_literal(&mut rng)
                ),
                _ => format!(
                    "{{{}:{}}}",
                    json_string_literal(&mut rng),
                    json_number(&mut rng)
                ),
            };
            fields.push(format!("{key}:{value}"));
        }
        docs.push(format!("{{{}}}", fields.join(",")));
    }
    let answers = oracle.ask_all(
        &docs
            .iter()
            .map(|d| json!({"op": "kubectlStores", "json": d}))
            .collect::<Vec<_>>(),
    );
    let (mut same, mut refused) = (0, 0);
    for (doc, go) in docs.iter().zip(&answers) {
        let ours = parse(doc, "gen.json").unwrap_or_else(|e| panic!("seed {seed}: {doc}: {e}"));
        match go.get("json").and_then(Value::as_str) {
            Some(stored) => {
                assert!(
                    ours[0].problem.is_none(),
                    "seed {seed}: {doc}: {:?}",
                    ours[0].problem
                );
                assert_eq!(go_json(&ours[0].value), stored, "seed {seed}: {doc}");
                same += 1;
            }
            None => {
                let problem = ours[0]
                    .problem
                    .as_deref()
                    .unwrap_or_else(|| panic!("seed {seed}: Go refuses {doc} ({go}), we read it"));
                assert!(
                    problem.contains("is refused by kubectl (json: cannot unmarshal number"),
                    "{problem}"
                );
                refused += 1;
            }
        }
    }
    eprintln!(
        "JSON manifests: {CASES} generated objects agree with kubectl's stored form ({same} byte for byte, {refused} refused by both)"
    );
    assert!(same > 0 && refused > 0);
    // One file of all of them: each refused object alone, the others read.
    let list = format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
        docs.join(",")
    );
    let objects = parse(&list, "list.json").unwrap();
    assert_eq!(objects.len(), CASES);
    assert_eq!(
        objects.iter().filter(|o| o.problem.is_some()).count(),
        refused
    );
}

/// One of `items`, as a `&str`.
fn pick_str<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len())]
}
