//! Shared by the targets that render (feature `cli`): the `diff` pipeline as `kubectl arc diff` runs it
//! (`drift`, then `ScaleSetDiff::from_drift`, as src/cli/diff.rs `compare_pair` does).
#![allow(dead_code)]

use kubectl_arc_core::drift::drift;
use kubectl_arc_core::layout::Layout;
use kubectl_arc_core::recycle_loop::round_trip_of_autoscaling_runner_set;
use kubectl_arc::render::diff::{TextOptions, write_text};
use kubectl_arc::report::diff::{DiffReport, ScaleSetDiff};

/// Compute the drift of one ARS/ERS pair and render it as `diff` does: the text report (with and
/// without colour) and the JSON report. Returns the text, for the caller to check.
pub fn diff_pair(
    layout: &'static Layout,
    ars_spec_json: &str,
    scale_set_id: Option<&str>,
    ers_runner_spec_json: Option<&str>,
    context: usize,
) -> String {
    let result = drift(layout, ars_spec_json, scale_set_id, ers_runner_spec_json);
    if let Ok(d) = &result {
        let c = &d.comparison;
        // The three equalities are nested: reflect ⊆ cmp ⊆ semantic.
        assert!(!c.reflect_equal() || c.cmp_equal());
        assert!(!c.cmp_equal() || c.semantic_equal());
        assert_eq!(d.semantic_drift(), !c.semantic_equal());
    }
    // Messages are built from hostile text: formatting them must not fail either.
    let item = ScaleSetDiff::from_drift(
        layout,
        "arc-runners".into(),
        "fuzz".into(),
        "AutoscalingRunnerSet arc-runners/fuzz".into(),
        "EphemeralRunnerSet arc-runners/fuzz".into(),
        result,
    )
    .with_legacy_recycle_loop(Some(round_trip_of_autoscaling_runner_set(
        layout,
        ars_spec_json,
        scale_set_id,
    )));
    let report = DiffReport {
        api_version: "kubectl-arc/v1alpha1",
        kind: "DiffReport",
        layout: layout.k8s_api.clone(),
        arc_version: None,
        arc_version_from: None,
        defaults_from: None,
        not_in_change: 0,
        items: vec![item],
        impact: None,
        runners_outside: Vec::new(),
    };
    let mut colored = Vec::new();
    let color = TextOptions {
        context,
        color: true,
        headers: true,
    };
    write_text(&report, color, &mut colored).expect("write to a Vec");
    let mut plain = Vec::new();
    let no_color = TextOptions {
        context,
        color: false,
        headers: true,
    };
    write_text(&report, no_color, &mut plain).expect("write to a Vec");
    serde_json::to_string(&report).expect("the report serializes");
    String::from_utf8(plain).expect("the text report is UTF-8")
}
