//! Differential tests of YAML scalars that go.yaml.in/yaml/v2 reads in its own way (issue 15,
//! classes 3 and 7): NEL (U+0085), LS (U+2028) and PS (U+2029) are line breaks for it, inside
//! quoted scalars (folded, or kept with the blanks around them dropped) and outside them; and
//! its double-quoted escapes are its own (no `\/`, no `\u` surrogates). Each generated document
//! is read as kubectl stores it (the oracle's kubectlStores) or its object is refused naming the
//! field and both readings, where kubectl's reading named is the one Go makes.

use crate::common::oracle::Oracle;
use crate::common::specgen::{self, Rng};
use kubectl_arc::manifest::{go_json, parse};
use serde_json::value::RawValue;
use serde_json::{Value, json};

const CASES: usize = 5_000;

fn scalar(rng: &mut Rng) -> String {
    const COMMON: &[&str] = &[
        "a",
        "b",
        " ",
        "\u{85}",
        "\u{2028}",
        "\u{2029}",
        "\n  ",
        "\n\n  ",
        "  ",
        "\t",
        "é",
        "x y",
        "\u{2028}  ",
        "  \u{2029}",
    ];
    const DOUBLE: &[&str] = &[
        "\\/",
        "\\ud800",
        "\\ud83d\\ude00",
        "\\U0001F600",
        "\\x41",
        "\\N",
        "\\L",
        "\\P",
        "\\_",
        "\\e",
        "\\0",
        "\\t",
        "\\\n  ",
        "\\\"",
        "\\\\",
        "\\u00e9",
        "\\uDFFF",
        "\\U00110000",
        "\\q",
        "\\x8",
        "\\ ",
        "\\\t",
    ];
    let style = rng.below(10);
    let mut body = String::new();
    for _ in 0..rng.below(5) + 1 {
        let piece = if style < 5 && rng.chance(40) {
            *rng.pick(DOUBLE)
        } else if (5..8).contains(&style) && rng.chance(15) {
            "''"
        } else {
            *rng.pick(COMMON)
        };
        body.push_str(piece);
    }
    match style {
        0..=4 => format!("\"{body}\""),
        5..=7 => format!("'{body}'"),
        // Plain: letters around the line-break characters only.
        _ => {
            let plain: String = body
                .chars()
                .filter(|c| c.is_alphanumeric() || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}'))
                .collect();
            format!("p{plain}q")
        }
    }
}

#[test]
fn yaml_scalars_with_goyaml_breaks_and_escapes_read_as_kubectl() {
    let mut oracle = Oracle::spawn("v0.36");
    let seed = specgen::seed() ^ 0x0f1d_0037;
    let mut rng = Rng::new(seed);
    let mut docs = Vec::new();
    for _ in 0..CASES {
        let s = scalar(&mut rng);
        let comment = if rng.chance(5) {
            "# note\u{2028}x: 1\n"
        } else {
            ""
        };
        docs.push((
            s.clone(),
            format!("apiVersion: actions.github.com/v1alpha1\nkind: X\n{comment}a: {s}\n"),
        ));
    }
    let answers = oracle.ask_all(
        &docs
            .iter()
            .map(|(_, d)| json!({"op": "kubectlStores", "yaml": d}))
            .collect::<Vec<_>>(),
    );
    // (read byte for byte as kubectl stores it, refused naming the field, refused by both)
    let mut counts = [0usize; 3];
    for ((s, doc), go) in docs.iter().zip(&answers) {
        let ctx = || format!("seed {seed}: {doc:?}\nGo {go}");
        let ours = parse(doc, "gen.yaml");
        match (go.get("json").and_then(Value::as_str), ours) {
            (Some(stored), Ok(ours)) => {
                #[derive(serde::Deserialize)]
                struct Doc<'a> {
                    #[serde(borrow)]
                    a: Option<&'a RawValue>,
                }
                let go_a = serde_json::from_str::<Doc>(stored)
                    .unwrap()
                    .a
                    .map(|a| a.get().to_string());
                match &ours[0].problem {
                    None => {
                        assert_eq!(Some(go_json(&ours[0].value["a"])), go_a, "{}", ctx());
                        counts[0] += 1;
                    }
                    Some(p) => {
                        // A quoted scalar's message names Go's reading exactly.
                        if !s.starts_with('p')
                            && !doc.contains("# note")
                            && let Some(go_a) = &go_a
                        {
                            assert!(
                                p.contains(&format!(
                                    "is read by kubectl (go.yaml.in/yaml/v2) as {go_a} but here as"
                                )),
                                "{p}\n{}",
                                ctx()
                            );
                        }
                        counts[1] += 1;
                    }
                }
            }
            (None, Ok(ours)) => {
                assert!(
                    ours[0].problem.is_some(),
                    "Go refuses, we read {}: {}",
                    go_json(&ours[0].value),
                    ctx()
                );
                counts[2] += 1;
            }
            (None, Err(_)) => counts[2] += 1,
            (Some(_), Err(e)) => panic!("we refuse the file ({e}) where Go reads it: {}", ctx()),
        }
    }
    eprintln!(
        "YAML scalars with NEL/LS/PS and escapes: {CASES} generated documents: {} read byte for byte as kubectl stores them, {} refused naming the field and both readings, {} refused by both",
        counts[0], counts[1], counts[2]
    );
    assert!(counts.iter().all(|&c| c > 0), "{counts:?}");
}
