//! The Go value decoder (`sigs.k8s.io/json.UnmarshalCaseSensitivePreserveInts` into ARC's types):
//! the input as an EphemeralRunnerSpec under every shipped layout, and as an
//! AutoscalingRunnerSetSpec under ARC's pin. A decoded value must equal itself under the three
//! Go equalities (a difference would be reported as drift of an unchanged spec).
#![no_main]

use libfuzzer_sys::fuzz_target;

use kubectl_arc_core::equality::compare;
use kubectl_arc_core::layout::{Layout, TypeId};
use kubectl_arc_core::value::decode;

fn check(layout: &Layout, ty: TypeId, text: &str) {
    match decode(layout, ty, text) {
        Ok(v) => {
            assert_eq!(v, v.clone());
            let c = compare(layout, ty, &v, &v);
            assert!(c.reflect_equal(), "{:?}", c.differences);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    // Documents reach the decoder as UTF-8 text (from serde_json or a manifest).
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let arc = Layout::arc();
    check(arc, arc.autoscaling_runner_set_spec, text);
    for layout in Layout::shipped() {
        check(layout, layout.ephemeral_runner_spec, text);
    }
});
