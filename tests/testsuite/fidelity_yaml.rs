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
    // Refusals whose message was checked for the field and both readings: every one of them.
    let mut messages_checked = 0usize;
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
                        // Refused where Go reads it: the message names the field and both
                        // readings, kubectl's as Go makes it where it can be said.
                        assert!(
                            p.starts_with("X a") || p.starts_with("X "),
                            "{p}\n{}",
                            ctx()
                        );
                        let readings = if doc.contains("# note") {
                            // LS in a comment: a line break for go-yaml, which then reads the
                            // rest of the line as a key.
                            p.contains("is a line break for kubectl (go.yaml.in/yaml/v2), which then reads")
                                && p.contains("; here it is an ordinary character")
                        } else if s.starts_with('p') {
                            // A plain scalar go-yaml ends at NEL, LS or PS.
                            p.contains(" a: ")
                                && p.contains("is read by kubectl (go.yaml.in/yaml/v2) as another document, or an error")
                                && p.contains(&format!("but here as {}", go_json(&ours[0].value["a"])))
                        } else {
                            // A quoted scalar: Go's reading, exactly.
                            go_a.as_ref().is_some_and(|go_a| {
                                p.contains(&format!(
                                    "is read by kubectl (go.yaml.in/yaml/v2) as {go_a} but here as"
                                ))
                            })
                        };
                        assert!(readings, "both readings: {p}\n{}", ctx());
                        messages_checked += 1;
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
    assert_eq!(
        messages_checked, counts[1],
        "every refusal's message is checked"
    );
    assert!(messages_checked > 0);
}

/// A scalar with a tag go-yaml resolves (or a custom one), over texts of every kind.
fn tagged_scalar(rng: &mut Rng) -> String {
    const TEXTS: &[&str] = &[
        "1",
        "0X1F",
        "1_000",
        "1.5",
        "-0.0",
        "yes",
        "abc",
        "~",
        "1e400",
        ".inf",
        "2001-12-14",
        "aGk=",
        "+9223372036854775808",
        "0b101",
        "Null",
        "'12'",
        "\"0x10\"",
    ];
    const TAGS: &[&str] = &[
        "",
        "",
        "",
        "!!int ",
        "!!float ",
        "!!str ",
        "!!bool ",
        "!!null ",
        "!!binary ",
        "!!timestamp ",
        "!foo ",
    ];
    let tag = if rng.chance(20) { rng.pick(TAGS) } else { "" };
    format!("{tag}{}", rng.pick(TEXTS))
}

/// go-yaml's merge keys, aliases, tags and YAML 1.1 keys (issue 15): each generated document is
/// read as kubectl stores it, byte for byte, or, where Go refuses it, refused. Keys are distinct
/// in each mapping as written (two keys kubectl reads as one are a duplicate here, a random pick
/// for kubectl).
#[test]
fn merge_keys_tags_and_keys_read_as_kubectl() {
    let mut oracle = Oracle::spawn("v0.36");
    let seed = specgen::seed() ^ 0x3e46_e7a6;
    let mut rng = Rng::new(seed);
    const SPELLED_KEYS: &[&str] = &[
        "1.0",
        "y",
        "0x10",
        "~",
        "1e-7",
        "!!str 1",
        "+9223372036854775808",
        "'k9'",
        "!!int 3",
    ];
    let mut docs = Vec::new();
    for _ in 0..2_000 {
        let mut keys: Vec<usize> = (1..=6).collect();
        let mut entries = Vec::new();
        for _ in 0..rng.below(5) + 1 {
            let entry = match rng.below(10) {
                0 => "<<: *b".to_string(),
                1 => "<<: [*b, *o]".to_string(),
                2 => format!("<<: {{k1: {}}}", tagged_scalar(&mut rng)),
                3 => "<<: *s".to_string(),
                4 if rng.chance(30) => format!("<<: [*o, {}]", tagged_scalar(&mut rng)),
                5 if !keys.is_empty() => {
                    let k = keys.remove(rng.below(keys.len()));
                    format!("k{k}: {}", rng.pick(&["*s", "*b", "*o"]))
                }
                6 => format!("{}: {}", rng.pick(SPELLED_KEYS), tagged_scalar(&mut rng)),
                _ if !keys.is_empty() => {
                    let k = keys.remove(rng.below(keys.len()));
                    format!("k{k}: {}", tagged_scalar(&mut rng))
                }
                _ => continue,
            };
            if entries
                .iter()
                .any(|e: &String| e.starts_with("<<") && entry.starts_with("<<"))
                || (entry.starts_with(|c: char| !c.is_ascii_lowercase() || c == 'y')
                    && !entry.starts_with("<<")
                    && entries.iter().any(|e: &String| {
                        !e.starts_with("<<") && !e.starts_with('k') && !entry.starts_with('k')
                    }))
            {
                continue; // one merge key and one spelled key per mapping
            }
            entries.push(entry);
        }
        docs.push(format!(
            "apiVersion: actions.github.com/v1alpha1\nkind: X\nbase: &b {{k1: {}, k2: {}}}\nother: &o {{k2: {}, k3: {}}}\ns: &s {}\na: {{{}}}\n",
            tagged_scalar(&mut rng),
            tagged_scalar(&mut rng),
            tagged_scalar(&mut rng),
            tagged_scalar(&mut rng),
            tagged_scalar(&mut rng),
            entries.join(", ")
        ));
    }
    let answers = oracle.ask_all(
        &docs
            .iter()
            .map(|d| json!({"op": "kubectlStores", "yaml": d}))
            .collect::<Vec<_>>(),
    );
    // (read byte for byte as kubectl stores it, refused by both)
    let mut counts = [0usize; 2];
    for (doc, go) in docs.iter().zip(&answers) {
        let ctx = || format!("seed {seed}: {doc:?}\nGo {go}");
        match (
            go.get("json").and_then(Value::as_str),
            parse(doc, "gen.yaml"),
        ) {
            (Some(stored), Ok(ours)) => {
                assert!(
                    ours[0].problem.is_none(),
                    "Go reads it, we refuse it: {:?}\n{}",
                    ours[0].problem,
                    ctx()
                );
                assert_eq!(go_json(&ours[0].value), stored, "{}", ctx());
                counts[0] += 1;
            }
            (Some(_), Err(e)) => panic!("we refuse the file ({e}) where Go reads it: {}", ctx()),
            (None, Ok(ours)) => {
                assert!(
                    ours.iter().all(|o| o.problem.is_some()),
                    "Go refuses, we read {}: {}",
                    go_json(&ours[0].value),
                    ctx()
                );
                counts[1] += 1;
            }
            (None, Err(_)) => counts[1] += 1,
        }
    }
    eprintln!(
        "YAML merge keys, aliases, tags and spelled keys: {} generated documents: {} read byte for byte as kubectl stores them, {} refused by both",
        docs.len(),
        counts[0],
        counts[1]
    );
    assert!(counts.iter().all(|&c| c > 100), "{counts:?}");
}
