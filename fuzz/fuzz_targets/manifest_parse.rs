//! The manifest reader (`kubectl arc diff -f`, `migrate -f`): multi-document YAML or JSON, then,
//! for the ARC objects found, the same path to the drift and the rendered diff as `diff -f`.
#![no_main]

use libfuzzer_sys::fuzz_target;

use kubectl_arc_core::arc;
use kubectl_arc_core::layout::Layout;
use kubectl_arc_core::manifest;

mod common;

fuzz_target!(|data: &[u8]| {
    // The command layer rejects non-UTF-8 files before parsing (src/cli/diff.rs `read_text`).
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    same_read_into_parts(text);
    // A large List is read as two halves where that reads what the whole reading does: every
    // cut of this text that joins is checked against the whole.
    if !text.trim_start().starts_with('{') {
        manifest::check_yaml_halves(text);
    }
    let objects = match manifest::parse(text, "fuzz.yaml") {
        Ok(objects) => objects,
        Err(e) => {
            assert!(e.to_string().starts_with("fuzz.yaml"), "{e}");
            return;
        }
    };
    let layout = Layout::arc();
    let mut ars = None;
    let mut ers = None;
    for o in &objects {
        assert!(o.source.starts_with("fuzz.yaml"));
        assert!(o.value.is_object());
        let _ = (o.kind(), o.api_version(), o.name(), o.namespace());
        // As src/cli/diff.rs `plan_from_files` takes the two sides.
        if o.is_arc("AutoscalingRunnerSet") {
            let spec = o.value.get("spec").map(|s| s.to_string());
            let id = o
                .value
                .pointer("/metadata/annotations")
                .and_then(|a| a.get(arc::ANNOTATION_RUNNER_SCALE_SET_ID))
                .and_then(|v| v.as_str())
                .map(str::to_string);
            ars = Some((spec, id));
        } else if o.is_arc("EphemeralRunnerSet") {
            ers = Some(
                o.value
                    .pointer("/spec/ephemeralRunnerSpec")
                    .map(|s| s.to_string()),
            );
        }
    }
    if let (Some((spec, id)), Some(ers)) = (ars, ers) {
        let spec = spec.unwrap_or_else(|| "{}".into());
        common::diff_pair(layout, &spec, id.as_deref(), ers.as_deref(), 3);
    }
});

/// The objects read into their parts (`parse_each_read`, what `-f` reads) are the objects read
/// whole (`parse_each`), at those parts: the same result, objects, sources, problems, spellings.
fn same_read_into_parts(text: &str) {
    use serde_json::Value;
    let mut whole = Vec::new();
    let whole_result = manifest::parse_each(text, "fuzz.yaml", &mut |o| whole.push(o));
    let mut read = Vec::new();
    let read_result = manifest::parse_each_read(text, "fuzz.yaml", &mut |o| read.push(o));
    assert_eq!(read_result, whole_result);
    assert_eq!(read.len(), whole.len());
    for (read, whole) in read.into_iter().zip(whole) {
        let o = match read {
            manifest::Read::Value(o) => {
                assert_eq!(format!("{o:?}"), format!("{whole:?}"));
                continue;
            }
            manifest::Read::Parts(o) => o,
        };
        let value = &whole.value;
        let string = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
        let part = |key: &str| {
            value
                .get(key)
                .filter(|v| !v.is_null())
                .map(manifest::go_json)
        };
        let p = &o.parts;
        assert_eq!(p.kind, string("kind"));
        assert_eq!(p.api_version, string("apiVersion"));
        // The metadata's value: kept (YAML), else read from its text (JSON), which says the
        // same (`None` for a null one).
        let metadata = value.get("metadata").filter(|m| p.metadata.is_some() || !m.is_null());
        assert_eq!(
            format!("{:?}", p.metadata_value().as_deref()),
            format!("{metadata:?}")
        );
        assert_eq!(p.metadata_text, part("metadata"));
        assert_eq!(p.spec, part("spec"));
        assert_eq!(p.status, part("status"));
        assert_eq!(
            (o.source, o.document, o.items, o.problem, o.spellings),
            (
                whole.source,
                whole.document,
                whole.items,
                whole.problem,
                whole.spellings
            )
        );
    }
}
