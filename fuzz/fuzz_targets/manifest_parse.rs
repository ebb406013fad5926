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
