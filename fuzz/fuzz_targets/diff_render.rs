//! The diff renderer: `drift` of a fuzzed AutoscalingRunnerSet spec against a fuzzed
//! EphemeralRunnerSet runner spec, the display trees and YAML lines of both values, and the text
//! (plain and coloured) and JSON reports of `kubectl arc diff`.
//!
//! Input: `ARS spec JSON` NUL `ERS spec.ephemeralRunnerSpec JSON` NUL `runner-scale-set-id`.
//! Without a second part the ERS has no runner spec (Go's zero value); without a third part the
//! annotation is "7", and an empty third part is a missing annotation.
#![no_main]

use libfuzzer_sys::fuzz_target;

use kubectl_arc_core::layout::Layout;
use kubectl_arc_core::value::decode;
use kubectl_arc::report::display;

mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(3, '\0');
    let ars = parts.next().unwrap_or_default();
    let ers = parts.next();
    let id = match parts.next() {
        None => Some("7"),
        Some("") => None,
        Some(id) => Some(id),
    };
    let layout = Layout::arc();
    let out = common::diff_pair(layout, ars, id, ers, data.len() % 4);
    assert!(out.starts_with("arc-runners/fuzz: "), "{out}");
    // Every displayed line of a decoded value carries a path (the diff marks lines by path).
    if let Some(ers) = ers
        && let Ok(v) = decode(layout, layout.ephemeral_runner_spec, ers)
        && let Some(node) = display::tree(layout, layout.ephemeral_runner_spec, &v, "")
    {
        for line in display::lines(&node) {
            assert!(!line.text.contains('\n'), "{line:?}");
        }
    }
});
