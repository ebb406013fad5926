//! The objects of a JSON manifest read into their parts ([`parse_each_read`]) against the same
//! objects read whole ([`parse_each`], the reference): the parts are what the value holds at
//! those keys, and everything else handed over is the same. The cases are hand-written edge
//! cases, generated manifests (a fixed seed) and a dump shaped as `kubectl get -o json` prints
//! one; [`crate::object`]'s tests compare the objects made of both readings.

use serde_json::Value;

use super::{ManifestError, ManifestObject, Read, go_json, parse_each, parse_each_read};
use crate::json::ObjectParts;

/// What [`parse_each_read`] hands over beside what [`parse_each`] hands over for `text`, and the
/// two results.
#[allow(clippy::type_complexity)]
pub(crate) fn both_readings(
    text: &str,
) -> (
    (Vec<ManifestObject>, Result<(), ManifestError>),
    (Vec<Read>, Result<(), ManifestError>),
) {
    let mut whole = Vec::new();
    let whole_result = parse_each(text, "f.json", &mut |o| whole.push(o));
    let mut read = Vec::new();
    let read_result = parse_each_read(text, "f.json", &mut |o| read.push(o));
    ((whole, whole_result), (read, read_result))
}

/// The parts of a value read whole, as `Object::from_manifest` takes them from it.
fn parts_of(value: &Value) -> ObjectParts {
    let string = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    let part = |key: &str| value.get(key).filter(|v| !v.is_null()).map(go_json);
    ObjectParts {
        kind: string("kind"),
        api_version: string("apiVersion"),
        metadata: value.get("metadata").cloned(),
        metadata_text: part("metadata"),
        spec: part("spec"),
        status: part("status"),
    }
}

/// Both readings of `text` agree; returns how many objects were read into their parts, and how
/// many whole.
pub(crate) fn same_parts_as_whole(text: &str) -> (usize, usize) {
    let ((whole, whole_result), (read, read_result)) = both_readings(text);
    assert_eq!(read_result, whole_result, "{text}");
    assert_eq!(read.len(), whole.len(), "{text}");
    let mut counts = (0, 0);
    for (read, whole) in read.into_iter().zip(whole) {
        match read {
            Read::Value(o) => {
                counts.1 += 1;
                assert_eq!(format!("{o:#?}"), format!("{whole:#?}"), "{text}");
            }
            Read::Parts(o) => {
                counts.0 += 1;
                // Debug, not ==: a map's entries in the same order too.
                let mut want = parts_of(&whole.value);
                if o.parts.metadata.is_none() {
                    // Read from its text only (JSON): the text says all the value does.
                    let value = o.parts.metadata_value().map(|m| m.into_owned());
                    assert_eq!(
                        format!("{value:#?}"),
                        format!("{:#?}", want.metadata.take().filter(|m| !m.is_null())),
                        "{text}"
                    );
                }
                assert_eq!(format!("{:#?}", o.parts), format!("{want:#?}"), "{text}");
                assert_eq!(o.source, whole.source, "{text}");
                assert_eq!(o.document, whole.document, "{text}");
                assert_eq!(o.items, whole.items, "{text}");
                assert_eq!(o.problem, whole.problem, "{text}");
                assert_eq!(o.spellings, whole.spellings, "{text}");
            }
        }
    }
    counts
}

/// [`same_parts_as_whole`] of each text: how many objects were read into their parts, and how
/// many whole, in all.
fn all_same_parts_as_whole(texts: impl IntoIterator<Item = String>) -> (usize, usize) {
    texts.into_iter().fold((0, 0), |(parts, whole), text| {
        let (p, w) = same_parts_as_whole(&text);
        (parts + p, whole + w)
    })
}

/// An ARC object as `kubectl get -o json` prints one (keys sorted), with `extra` added to its spec
/// as its last keys (after `template`).
fn item(name: &str, extra: &str) -> String {
    format!(
        r#"{{"apiVersion":"actions.github.com/v1alpha1","kind":"AutoscalingRunnerSet","metadata":{{"name":"{name}","namespace":"ns"}},"spec":{{"maxRunners":1,"template":{{"spec":{{}}}}{extra}}}}}"#
    )
}

/// Hand-written manifests with what the reading into parts must refuse, or write exactly: keys
/// not sorted or repeated (at the object's top, in its spec, deep, one spelled with an escape),
/// escapes (`<>&`, U+2028 raw and escaped, lone surrogates, `\/`), other Unicode, floats, `-0`,
/// integers at and beyond int64, `1e3`, nulls, empty objects and arrays, nested Lists, `kind` and
/// `metadata` of other types, nesting at the limit, refusals and spellings in the List outside
/// the item.
pub(crate) fn edge_cases() -> Vec<String> {
    let specs = [
        r#","x":{"b":1,"a":2}"#,
        r#","x":{"a":1,"a":2}"#,
        r#","x":[{"a":{"c":1,"b":2}}]"#,
        r#","x":{"a":1,"\u0061":2}"#,
        r#","x":{"\u0062":1,"c":2}"#,
        r#","x":{"\u0062":1,"a":2}"#,
        r#","x":"a<b>&c \u003c\u2028 \u2029 é \ud800 \ud83d\ude00 \/ \" \\ \b\f\n\r\t \u0001 \u007f""#,
        r#","x":["<>&","é","😀","\u0000"]"#,
        r#","x":1.5"#,
        r#","x":-0"#,
        r#","x":0"#,
        r#","x":-1"#,
        r#","x":1e3"#,
        r#","x":1E+2"#,
        r#","x":1.0"#,
        r#","x":-9223372036854775808"#,
        r#","x":9223372036854775807"#,
        r#","x":9223372036854775808"#,
        r#","x":-9223372036854775809"#,
        r#","x":12345678901234567890"#,
        r#","x":1e400"#,
        r#","x":null"#,
        r#","x":{},"y":[],"z":[{},[],null,true,false]"#,
        r#","x":{"kind":"List","items":[]}"#,
        r#" , "x" : [ 1 , { "a" : true } ] , "y" : "" "#,
    ];
    let mut cases: Vec<String> = specs
        .iter()
        .map(|extra| {
            format!(
                r#"{{"apiVersion":"v1","items":[{}],"kind":"List"}}"#,
                item("a", extra)
            )
        })
        .collect();
    let whole_items = [
        // Keys not sorted, or repeated, at the object's top.
        r#"{"kind":"AutoscalingRunnerSet","apiVersion":"v1","spec":{}}"#,
        r#"{"apiVersion":"v1","kind":"A","kind":"B","spec":{}}"#,
        r#"{"apiVersion":"v1","kind":"A","spec":{"a":1},"spec":{"b":2}}"#,
        r#"{"apiVersion":"v1","kind":"A","metadata":{"name":"a"},"metadata":{"name":"b"}}"#,
        // Parts of other types.
        r#"{"apiVersion":1,"kind":true,"metadata":"x","spec":[1,"2"],"status":7}"#,
        r#"{"apiVersion":null,"kind":null,"metadata":null,"spec":null,"status":null}"#,
        r#"{"kind":"A","metadata":{"name":3,"namespace":"n"}}"#,
        r#"{"kind":"A","metadata":{"namespace":true,"name":"n"}}"#,
        r#"{"kind":"A","metadata":{"labels":{"a":1},"name":"n"}}"#,
        r#"{"kind":"A","metadata":{"annotations":{"a":null},"generation":1.0,"name":"n"}}"#,
        r#"{"kind":"A","metadata":{"generation":1e400,"name":"n"}}"#,
        r#"{"kind":"A","metadata":{"name":"\u003cn\u003e","namespace":"\u2028"}}"#,
        r#"{"kind":"A","metadata":{"ownerReferences":[{"apiVersion":"actions.github.com/v1alpha1","controller":true,"kind":"AutoscalingRunnerSet","name":"o","uid":"u"}]}}"#,
        r#"{}"#,
        r#"{"a":{}}"#,
        r#"null"#,
        // Lists and kinds ending in List.
        r#"{"items":[{"kind":"A","spec":{"x":1}}],"kind":"List"}"#,
        r#"{"items":{},"kind":"XList","spec":{"x":1}}"#,
        r#"{"kind":"XList","spec":{"x":1}}"#,
        r#"{"kind":"\u004cist","items":[{"kind":"A"}]}"#,
        r#"{"\u006bind":"A","spec":{"x":1}}"#,
        r#"{"apiVersion":"v1","kind":"A","status":{"a":[1,2,{"b":-0}]}}"#,
        r#"{"apiVersion":"v1","kind":"A","status":{"a":1e3},"zzz":1e400}"#,
        r#"{"apiVersion":"v1","kind":"A","aaa":2.50,"spec":{"a":1}}"#,
    ];
    cases.push(format!(
        r#"{{"apiVersion":"v1","items":[{}],"kind":"List"}}"#,
        whole_items.join(",\n")
    ));
    // Refusals and spellings of the List outside the items: in an earlier `items`, at the List's
    // own keys, in a key spelled like an item's path.
    cases.extend([
        format!(
            r#"{{"items":[{{"a":1e400,"b":2.0}},{{"c":1.0}}],"items":[{},{}],"kind":"List"}}"#,
            item("a", ""),
            item("b", "")
        ),
        format!(
            r#"{{"items":[{}],"kind":"List","metadata":{{"x":1e400,"y":1.0}}}}"#,
            item("a", "")
        ),
        format!(
            r#"{{"items":[{}],"items[0]":1e400,"kind":"List"}}"#,
            item("a", "")
        ),
        format!(
            r#"{{"items":[{{"items":[{},{}],"kind":"List"}},{}],"kind":"List"}}"#,
            item("a", ""),
            item("b", ""),
            item("c", "")
        ),
    ]);
    // Plain documents, one and several.
    cases.push(item("a", r#","x":"<&>""#));
    cases.push(whole_items.join("\n"));
    cases.push(format!(
        "{}\n{}\n{}",
        item("a", ""),
        item("b", ",\"x\":1.0"),
        item("c", "")
    ));
    // Nesting at the limit (256: the item is at depth 2, its spec at 3) and past it.
    for depth in [250, 252, 253, 254, 300] {
        let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        cases.push(format!(
            r#"{{"apiVersion":"v1","items":[{}],"kind":"List"}}"#,
            item("a", &format!(r#","x":{deep}"#))
        ));
        cases.push(item("a", &format!(r#","x":{deep}"#)));
    }
    cases
}

/// Manifests generated from a fixed seed for the reading into parts: objects with sorted keys most
/// of the time, and values drawn from an alphabet of what it must write exactly or refuse.
pub(crate) fn generated(count: usize) -> Vec<String> {
    let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15u64);
    (0..count)
        .map(|_| {
            let items: Vec<String> = (0..next(5)).map(|_| generated_object(&mut next)).collect();
            match next(6) {
                0 => items.join("\n"),
                1 => format!(
                    r#"{{"apiVersion":"v1","items":[{{"a":1.0}}],"items":[{}],"kind":"List"}}"#,
                    items.join(",")
                ),
                _ => format!(
                    "{{\"apiVersion\": \"v1\",\n \"items\": [\n  {}\n ],\n \"kind\": \"List\"}}",
                    items.join(",\n  ")
                ),
            }
        })
        .filter(|text| !text.is_empty())
        .collect()
}

/// Keys as written, with what they decode to (the order kubectl's writer sorts them in).
const KEYS: [(&str, &str); 9] = [
    ("a", "a"),
    ("\\u0061", "a"),
    ("b", "b"),
    ("\\u003c", "<"),
    ("A", "A"),
    ("é", "é"),
    ("z\\n", "z\n"),
    ("kind", "kind"),
    ("items", "items"),
];

const SCALARS: [&str; 24] = [
    "0",
    "1",
    "-1",
    "42",
    "-0",
    "1.0",
    "1e3",
    "0.5",
    "-9223372036854775808",
    "9223372036854775807",
    "9223372036854775808",
    "1e400",
    "null",
    "true",
    "false",
    r#""""#,
    r#""a<b>&c""#,
    r#""\u003c\u2028""#,
    "\"\u{2028}\u{2029}\"",
    r#""é😀""#,
    r#""\ud800x""#,
    r#""\"\\\/""#,
    r#""List""#,
    "\"\u{7f}\"",
];

/// An object of keys from [`KEYS`], sorted and distinct most of the time.
fn generated_map(next: &mut dyn FnMut(usize) -> usize, depth: usize) -> String {
    let mut keys: Vec<(&str, &str)> = (0..next(4)).map(|_| KEYS[next(KEYS.len())]).collect();
    if next(6) != 0 {
        keys.sort_by_key(|k| k.1);
        keys.dedup_by_key(|k| k.1);
    }
    let entries: Vec<String> = keys
        .iter()
        .map(|(raw, _)| format!("\"{raw}\":{}", generated_value(next, depth + 1)))
        .collect();
    format!("{{{}}}", entries.join(","))
}

fn generated_value(next: &mut dyn FnMut(usize) -> usize, depth: usize) -> String {
    match next(if depth > 4 { 3 } else { 5 }) {
        0..=2 => SCALARS[next(SCALARS.len())].to_string(),
        3 => generated_map(next, depth),
        _ => {
            let items: Vec<String> = (0..next(3))
                .map(|_| generated_value(next, depth + 1))
                .collect();
            format!("[{}]", items.join(","))
        }
    }
}

/// An object of a manifest: its top keys mostly sorted and distinct, its parts of the usual types
/// mostly.
fn generated_object(next: &mut dyn FnMut(usize) -> usize) -> String {
    let kinds = [
        r#""AutoscalingRunnerSet""#,
        r#""XList""#,
        "1",
        r#""A\u003c""#,
    ];
    let metadata = [
        r#"{"name":"n","namespace":"ns"}"#,
        r#"{"labels":{"a":"1","b":null},"name":"n"}"#,
        r#"{"name":true}"#,
        r#"{"generation":2.0,"name":"n"}"#,
        r#"{"annotations":{"\u003c":"\u2028"},"name":"n"}"#,
        r#"{"name":"n","name":"m"}"#,
        "null",
        r#""x""#,
    ];
    let mut keys: Vec<(&str, String)> = vec![
        ("apiVersion", r#""actions.github.com/v1alpha1""#.to_string()),
        ("kind", kinds[next(kinds.len())].to_string()),
        ("metadata", metadata[next(metadata.len())].to_string()),
        ("spec", generated_map(next, 3)),
        ("status", generated_value(next, 3)),
        ("x", generated_value(next, 3)),
    ];
    keys.retain(|_| next(5) != 0);
    match next(8) {
        0 => keys.reverse(),
        1 if !keys.is_empty() => keys.push(keys[0].clone()),
        _ => {}
    }
    let entries: Vec<String> = keys.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", entries.join(","))
}

/// A dump of `sets` scale sets and their EphemeralRunnerSets as `kubectl get -o json` prints it
/// (keys sorted, indented), each pair in its own namespace: the shape of the benchmark's file.
pub(crate) fn dump_json(sets: usize) -> String {
    let dump = super::parse(
        include_str!("../../../../../tests/oracle/testdata/realistic-dump.yaml"),
        "dump",
    )
    .expect("the dump parses");
    let mut items = Vec::new();
    for i in 0..sets {
        for object in &dump {
            let mut item = object.value.clone();
            item["metadata"]["namespace"] = format!("arc-runners-{i}").into();
            // Sorted as encoding/json writes a map.
            items.push(serde_json::from_str::<Value>(&go_json(&item)).expect("JSON"));
        }
    }
    let list = serde_json::json!({"apiVersion": "v1", "items": items, "kind": "List"});
    serde_json::to_string_pretty(&list).expect("JSON")
}

#[test]
fn edge_cases_read_into_parts_are_the_objects_read_whole() {
    let (parts, whole) = all_same_parts_as_whole(edge_cases());
    // Both readings are exercised: what must be refused is, and what may be read so is.
    assert!(parts >= 40, "only {parts} objects read into parts");
    assert!(whole >= 40, "only {whole} objects read whole");
}

#[test]
fn edge_cases_read_as_expected() {
    let route = |text: &str| -> Vec<bool> {
        let (_, (read, result)) = both_readings(text);
        result.expect("reads");
        read.iter().map(|r| matches!(r, Read::Parts(_))).collect()
    };
    let list = |item: &str| format!(r#"{{"apiVersion":"v1","items":[{item}],"kind":"List"}}"#);
    // Sorted, int64 in Go's spelling, escapes written as encoding/json writes them.
    assert_eq!(route(&list(&item("a", r#","x":"<\u2028\/""#))), [true]);
    let (_, (read, _)) = both_readings(&list(&item("a", r#","x":"<\u2028\/""#)));
    let Read::Parts(o) = &read[0] else {
        unreachable!()
    };
    assert_eq!(
        o.parts.spec.as_deref(),
        Some(r#"{"maxRunners":1,"template":{"spec":{}},"x":"\u003c\u2028/"}"#)
    );
    for refused in [
        r#","x":{"b":1,"a":2}"#,
        r#","x":{"a":1,"a":2}"#,
        r#","x":{"a":1,"\u0061":2}"#,
        r#","x":1.0"#,
        r#","x":-0"#,
        r#","x":1e3"#,
        r#","x":9223372036854775808"#,
        r#","x":1e400"#,
    ] {
        assert_eq!(route(&list(&item("a", refused))), [false], "{refused}");
    }
    for kept in [r#","x":-9223372036854775808"#, r#","x":{"\u0061":1,"b":2}"#] {
        assert_eq!(route(&list(&item("a", kept))), [true], "{kept}");
    }
}

#[test]
fn generated_manifests_read_into_parts_are_the_objects_read_whole() {
    let (parts, whole) = all_same_parts_as_whole(generated(3000));
    assert!(parts > 1000, "only {parts} objects read into parts");
    assert!(whole > 1000, "only {whole} objects read whole");
}

#[test]
fn a_dump_as_kubectl_prints_it_is_read_into_parts() {
    let text = dump_json(3);
    assert_eq!(same_parts_as_whole(&text), (6, 0));
}

/// The JSON files of the repository (the transcripts' inputs, the bad inputs, the fuzz seeds):
/// both readings agree on each.
#[test]
fn the_repository_json_files_read_into_parts_are_the_objects_read_whole() {
    let mut parts = 0;
    for text in [
        include_str!("../../../../../tests/oracle/testdata/realistic-spec.json"),
        include_str!("../../../../../tests/cmd/data/as-written-live.json"),
        include_str!("../../../../../tests/badinput/json-strings-go-accepts.json"),
        include_str!("../../../../../tests/badinput/malformed.json"),
        include_str!("../../../../../fuzz/corpus/json_check_valid/seed-badinput-malformed.json"),
        include_str!("../../../../../fuzz/corpus/json_check_valid/seed-deep.json"),
        include_str!("../../../../../fuzz/corpus/json_check_valid/seed-nested.json"),
        include_str!("../../../../../fuzz/corpus/json_check_valid/seed-realistic-spec.json"),
        include_str!("../../../../../fuzz/corpus/json_check_valid/seed-scalars.json"),
        include_str!("../../../../../fuzz/corpus/json_check_valid/seed-scale-set-dump.json"),
        include_str!("../../../../../fuzz/corpus/json_check_valid/seed-surrogates.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-dump-ars-spec.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-dump-ers-runner-spec.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-00.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-01.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-02.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-03.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-04.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-05.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-06.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-07.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-08.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-09.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-10.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-11.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-12.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-quirk-13.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-realistic-ars-spec.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-realistic-spec.json"),
        include_str!("../../../../../fuzz/corpus/legacy_hash/seed-worked-ars-spec.json"),
        include_str!("../../../../../fuzz/corpus/manifest_parse/seed-badinput-malformed.json"),
        include_str!("../../../../../fuzz/corpus/manifest_parse/seed-scale-set-dump.json"),
    ] {
        parts += same_parts_as_whole(text).0;
    }
    assert!(parts > 0, "no object read into parts");
}

/// YAML whose root's `items` the reading into parts reads as they end, not knowing yet whether
/// the document is a List: kubectl's order (`items` before `kind`), Lists and documents that are
/// none, merge keys at the root before and after `items` (bringing one or not), anchored and
/// aliased items and sequences, refusals deferred to the document's end (`.inf`) before, inside
/// and after an item, refusals and spellings inside the items and outside them, null, scalar and
/// nested-List items, `items` deeper than the root, several documents.
pub(crate) fn yaml_edge_cases() -> Vec<String> {
    let item = |name: &str| {
        format!(
            "- apiVersion: actions.github.com/v1alpha1\n  kind: AutoscalingRunnerSet\n  metadata:\n    name: {name}\n    namespace: ns\n  spec:\n    maxRunners: 1\n    template: {{spec: {{}}}}\n"
        )
    };
    let (a, b, c) = (item("a"), item("b"), item("c"));
    let mut cases = vec![
        format!("apiVersion: v1\nitems:\n{a}{b}kind: List\nmetadata:\n  resourceVersion: \"\"\n"),
        format!("apiVersion: v1\nkind: List\nitems:\n{a}{b}"),
        format!("kind: XList\nitems:\n{a}"),
        format!("kind: Lists\nitems:\n{a}"),
        format!("apiVersion: v1\nitems:\n{a}kind: Foo\nspec: {{x: 1.0}}\nmetadata: {{name: f}}\n"),
        format!("items:\n{a}"),
        format!("items:\n{a}kind: 3\n"),
        format!(
            "base: &base\n  items:\n  - {{kind: B, spec: {{y: 2}}}}\nitems:\n{a}<<: *base\nkind: List\n"
        ),
        format!(
            "base: &base\n  items:\n  - {{kind: B, spec: {{y: 2}}}}\n<<: *base\nitems:\n{a}kind: List\n"
        ),
        format!("base: &base\n  other: 1\nitems:\n{a}<<: *base\nkind: List\n"),
        format!(
            "b1: &b1 {{x: 1}}\nb2: &b2 {{items: [{{kind: C}}]}}\nitems:\n{a}<<: [*b1, *b2]\nkind: List\n"
        ),
        format!("b1: &b1 {{x: 1}}\nitems:\n{a}<<: [*b1, 3]\nkind: List\n"),
        format!("items:\n{a}<<: 3\nkind: List\n"),
        format!("items: &seq\n{a}kind: List\nspec: *seq\n"),
        format!("items: &seq\n{a}kind: Foo\nspec: *seq\n"),
        format!("items:\n- &one\n  kind: A\n  spec: {{x: 1}}\n- *one\n{b}kind: List\nspec: *one\n"),
        format!("items:\n{a}- kind: A\n  spec: {{x: .inf}}\n{b}kind: List\n"),
        format!("items:\n{a}- kind: A\n  spec: {{x: .inf, <<: {{x: 1}}}}\n{b}kind: List\n"),
        format!("kind: List\nbad: .nan\nitems:\n{a}{b}"),
        format!("kind: List\nitems:\n{a}{b}late: -.inf\n"),
        format!(
            "kind: List\nitems:\n{a}- kind: A\n  metadata: {{name: n, namespace: s}}\n  spec: {{x: !!int abc, y: 1.0, z: yes, w: 0x10}}\n{b}metadata: {{bad: !!int q, n: 1.0}}\n"
        ),
        format!("kind: List\nitems:\n{a}- kind: A\n  metadata: {{name: 3}}\n{b}"),
        format!("kind: List\nitems:\n{a}- ~\n- null\n{b}"),
        format!("kind: List\nitems:\n{a}- 3\n{b}"),
        format!("kind: List\nitems:\n{a}- [1, 2]\n{b}"),
        format!(
            "kind: List\nitems:\n{a}- kind: List\n  items:\n  - {{kind: A, spec: {{x: 1}}}}\n  - {{kind: B}}\n{b}"
        ),
        format!("kind: List\nitems:\n{a}- kind: XList\n  items: 3\n  spec: {{x: 1}}\n{b}"),
        format!("kind: List\nitems:\n- kind: A\n  <<: {{spec: {{m: 1}}, kind: B}}\n{a}"),
        format!("kind: List\nspec:\n  items:\n  - {{kind: A, spec: {{x: 1}}}}\nitems:\n{a}"),
        format!("kind: List\n\"items\":\n{a}{b}"),
        format!("kind: List\n!!str items:\n{a}{b}"),
        format!("kind: List\nitems:\n{a}items:\n{b}"),
        format!(
            "kind: List\nitems:\n{a}- kind: A\n  spec: {{text: \"x\u{2028}y\"}}\n  odd: a\u{85}b\n{b}"
        ),
        format!(
            "kind: List\nitems:\n{a}{b}---\nkind: List\nitems:\n{c}---\n{}",
            &c[2..].replace("\n  ", "\n")
        ),
        format!(
            "kind: List\nitems:\n{a}- kind: A\n  spec: {{x: .inf}}\n---\nkind: List\nitems:\n{b}"
        ),
        format!(
            "kind: List\nitems: [{{kind: A, spec: {{a: 1}}}}, {{kind: B, status: {{b: 2}}}}]\n"
        ),
        "kind: List\nitems: []\n".to_string(),
        "kind: List\nitems:\n".to_string(),
        format!("kind: List\nitems:\n{a}- kind: A\n  spec: {{a: 1, a: 2}}\n"),
        format!("kind: List\nitems:\n{a}- kind: A\n  spec: {{a: [\n"),
    ];
    // The JSON cases, as YAML (a comment first: a text starting with `{` is read as JSON).
    cases.extend(edge_cases().iter().map(|json| format!("# YAML\n{json}")));
    cases
}

#[test]
fn yaml_items_read_as_they_end_are_the_objects_read_whole() {
    let (parts, whole) = all_same_parts_as_whole(yaml_edge_cases());
    // Both ways are taken: items read into parts, and items and documents read whole.
    assert!(parts >= 60, "only {parts} objects read into parts");
    assert!(whole >= 20, "only {whole} objects read whole");
}

#[test]
fn yaml_items_read_as_they_end_as_expected() {
    let route = |text: &str| -> Vec<bool> {
        let (_, (read, result)) = both_readings(text);
        result.expect("reads");
        read.iter().map(|r| matches!(r, Read::Parts(_))).collect()
    };
    let item = "- {kind: A, metadata: {name: a}, spec: {x: 1}}\n";
    // kubectl's order: items before kind, read into parts as they end.
    assert_eq!(
        route(&format!("items:\n{item}{item}kind: List\n")),
        [true, true]
    );
    // A document that is no List is handed over as its parts.
    assert_eq!(route(&format!("items:\n{item}kind: Foo\n")), [true]);
    // A merge key that brings `items` replaces the items read: read whole.
    let base = "base: &b {items: [{kind: B}]}\n";
    assert_eq!(
        route(&format!("{base}items:\n{item}<<: *b\nkind: List\n")),
        [false]
    );
    // A refusal pending to the document's end: the items after it are read whole.
    let deferred = "- {kind: A, spec: {x: .inf}}\n";
    assert_eq!(
        route(&format!("items:\n{item}{deferred}{item}kind: List\n")),
        [true, false, false]
    );
    // An anchored sequence is read whole.
    assert_eq!(route(&format!("items: &s\n{item}kind: List\n")), [false]);
    // The parts written as kubectl stores them.
    let (_, (read, _)) =
        both_readings("items:\n- {kind: A, spec: {b: 0x10, a: yes}}\nkind: List\n");
    let Read::Parts(o) = &read[0] else {
        unreachable!()
    };
    assert_eq!(o.parts.spec.as_deref(), Some(r#"{"a":true,"b":16}"#));
    assert_eq!(o.spellings.len(), 2);
}

#[test]
fn generated_yaml_manifests_read_into_parts_are_the_objects_read_whole() {
    // Flow YAML, and a multi-line one: the same objects as YAML reads them.
    let yaml = generated(1500).into_iter().flat_map(|text| {
        [
            format!("# YAML\n{text}"),
            format!("---\n{}", text.replace(",", ",\n ")),
        ]
    });
    let (parts, whole) = all_same_parts_as_whole(yaml);
    assert!(parts > 800, "only {parts} objects read into parts");
    assert!(whole > 40, "only {whole} objects read whole");
}

/// Every YAML file of the repository (examples, the test bed's manifests, the transcripts'
/// inputs, the bad inputs, the fuzz seeds): both readings agree on each.
#[test]
fn the_repository_yaml_files_read_into_parts_are_the_objects_read_whole() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    let mut dirs: Vec<_> = ["examples", "tests", "deploy", "testbed", "fuzz/corpus"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(path);
            }
        }
    }
    let mut parts = 0;
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        parts += same_parts_as_whole(&text).0;
    }
    assert!(files.len() > 50, "only {} YAML files found", files.len());
    assert!(parts > 50, "only {parts} objects read into parts");
}
