//! The `diff` report and its renderers: text (verdict lines and a coloured unified YAML diff),
//! JSON and YAML.
//!
//! Rendering layer: takes a report, writes to the writer it is given.

use std::collections::HashMap;
use std::io::{self, Write};

use owo_colors::OwoColorize;
use serde::Serialize;
use similar::{ChangeTag, TextDiff};

use crate::core::drift::{Drift, DriftError};
use crate::core::equality::{Difference, Reason};
use crate::core::layout::Layout;
use crate::render::display::{self, Line};

/// The whole report of one `diff` run. Its JSON and YAML shape is documented in the README.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffReport {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// The k8s.io/api layout the comparison used.
    pub layout: String,
    pub items: Vec<ScaleSetDiff>,
}

/// The drift of one scale set.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSetDiff {
    pub namespace: String,
    pub name: String,
    /// A scale set without an EphemeralRunnerSet: ARC will create one, so nothing is recycled.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub new: bool,
    /// Whether ARC will bump `spec.actionableRevision` and recycle idle and pending runners.
    /// Absent when the comparison could not be made (see `error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic_drift: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reflect_equal: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cmp_equal: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic_equal: Option<bool>,
    /// How many differences only a strict comparison sees.
    pub strict_only_differences: usize,
    pub differences: Vec<DifferenceReport>,
    /// What went wrong, naming the object and field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where the desired spec came from (`AutoscalingRunnerSet ns/name` or a file).
    pub desired_from: String,
    /// Where the current spec came from.
    pub current_from: String,
    /// Where the runner scale set id came from when the desired object lacks the annotation
    /// (`ephemeralRunnerSet`, `liveAutoscalingRunnerSet`), or `autoscalingRunnerSet`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_set_id_from: Option<&'static str>,
    /// How the EphemeralRunnerSet was found when not by name (`ownerUid`, `ownerName`, `labels`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired_by: Option<crate::core::pairing::PairedBy>,
    /// Other EphemeralRunnerSets of the same scale set, which ARC is replacing (ARC up to 0.14).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replaced: Vec<String>,
    /// What else a reader should know (what ARC waits for, an ambiguous pairing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The file the desired object came from, for annotations.
    #[serde(skip)]
    pub desired_file: Option<String>,
    /// The rendered specs, for the text diff.
    #[serde(skip)]
    pub desired_lines: Vec<Line>,
    #[serde(skip)]
    pub current_lines: Vec<Line>,
}

impl ScaleSetDiff {
    /// A scale set whose comparison could not be made, and why.
    pub fn failed(
        namespace: String,
        name: String,
        desired_from: String,
        current_from: String,
        error: String,
    ) -> ScaleSetDiff {
        ScaleSetDiff {
            namespace,
            name,
            new: false,
            semantic_drift: None,
            reflect_equal: None,
            cmp_equal: None,
            semantic_equal: None,
            strict_only_differences: 0,
            differences: Vec::new(),
            error: Some(error),
            desired_from,
            current_from,
            scale_set_id_from: None,
            paired_by: None,
            replaced: Vec::new(),
            note: None,
            desired_file: None,
            desired_lines: Vec::new(),
            current_lines: Vec::new(),
        }
    }

    /// A scale set that has no EphemeralRunnerSet yet: ARC will create one from the desired spec,
    /// so no runner is recycled. `waiting` says what ARC waits for, for a live scale set.
    pub fn new_scale_set(
        namespace: String,
        name: String,
        desired_from: String,
        waiting: Option<String>,
        desired_file: Option<&str>,
    ) -> ScaleSetDiff {
        ScaleSetDiff {
            new: true,
            semantic_drift: Some(false),
            error: None,
            note: waiting,
            desired_file: desired_file.map(str::to_string),
            ..ScaleSetDiff::failed(namespace, name, desired_from, String::new(), String::new())
        }
    }

    /// The report of one scale set from its drift, or from why the drift could not be computed
    /// (the error names the side it came from).
    pub fn from_drift(
        layout: &Layout,
        namespace: String,
        name: String,
        desired_from: String,
        current_from: String,
        drift: Result<Drift, DriftError>,
    ) -> ScaleSetDiff {
        let d = match drift {
            Ok(d) => d,
            Err(e) => {
                let side = match e {
                    DriftError::Desired(_) => &desired_from,
                    DriftError::Current(_) => &current_from,
                };
                let error = format!("{side}: {e}");
                return ScaleSetDiff::failed(namespace, name, desired_from, current_from, error);
            }
        };
        let c = &d.comparison;
        let ty = layout.ephemeral_runner_spec;
        let lines = |v| {
            display::tree(layout, ty, v, "")
                .map(|n| display::lines(&n))
                .unwrap_or_default()
        };
        ScaleSetDiff {
            namespace,
            name,
            new: false,
            semantic_drift: Some(d.semantic_drift()),
            reflect_equal: Some(c.reflect_equal()),
            cmp_equal: Some(c.cmp_equal()),
            semantic_equal: Some(c.semantic_equal()),
            strict_only_differences: c.strict_only().count(),
            differences: c.differences.iter().map(DifferenceReport::from).collect(),
            error: None,
            desired_from,
            current_from,
            scale_set_id_from: None,
            paired_by: None,
            replaced: Vec::new(),
            note: None,
            desired_file: None,
            desired_lines: lines(&d.desired),
            current_lines: lines(&d.current),
        }
    }
}

/// One difference in the report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DifferenceReport {
    pub path: String,
    pub reason: Reason,
    /// Whether ARC (Semantic equality) acts on this difference.
    pub semantic: bool,
}

impl From<&Difference> for DifferenceReport {
    fn from(d: &Difference) -> Self {
        DifferenceReport {
            path: d.path.clone(),
            reason: d.reason,
            semantic: !d.reason.semantic_equal(),
        }
    }
}

/// Options of the text renderer.
#[derive(Debug, Clone, Copy)]
pub struct TextOptions {
    /// Lines of context around each change.
    pub context: usize,
    pub color: bool,
}

/// Write the text report.
pub fn write_text(report: &DiffReport, opts: TextOptions, out: &mut dyn Write) -> io::Result<()> {
    for (i, item) in report.items.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_item(item, opts, out)?;
    }
    Ok(())
}

fn write_item(item: &ScaleSetDiff, opts: TextOptions, out: &mut dyn Write) -> io::Result<()> {
    let id = format!("{}/{}", item.namespace, item.name);
    let paint =
        |s: &str, style: fn(&str) -> String| if opts.color { style(s) } else { s.to_string() };
    if let Some(err) = &item.error {
        return writeln!(
            out,
            "{}: {}",
            paint(&id, |s| s.bold().to_string()),
            paint(&format!("error: {err}"), |s| s.red().to_string())
        );
    }
    if item.new {
        writeln!(
            out,
            "{}: {}",
            paint(&id, |s| s.bold().to_string()),
            paint(
                "new scale set: ARC will create its EphemeralRunnerSet; no runner is recycled",
                |s| s.green().to_string()
            )
        )?;
        if let Some(note) = &item.note {
            writeln!(out, "  {note}")?;
        }
        return Ok(());
    }
    let semantic = item.differences.iter().filter(|d| d.semantic).count();
    let strict = item.strict_only_differences;
    let verdict = if item.semantic_drift == Some(true) {
        paint(
            &format!(
                "semantic drift: ARC will bump spec.actionableRevision and recycle idle and pending runners ({semantic} semantic {}, {strict} strict-only)",
                plural(semantic, "difference", "differences")
            ),
            |s| s.yellow().bold().to_string(),
        )
    } else if strict > 0 {
        paint(
            &format!(
                "no semantic drift; {strict} strict-only {} (ARC will not act)",
                plural(strict, "difference", "differences")
            ),
            |s| s.green().to_string(),
        )
    } else {
        paint("no drift", |s| s.green().to_string())
    };
    writeln!(out, "{}: {verdict}", paint(&id, |s| s.bold().to_string()))?;
    if !item.replaced.is_empty() {
        writeln!(
            out,
            "  compared with the EphemeralRunnerSet ARC uses, {}; ARC is replacing {}",
            item.current_from,
            item.replaced.join(", ")
        )?;
    }
    if let Some(note) = &item.note {
        writeln!(out, "  {note}")?;
    }
    if item.differences.is_empty() {
        return Ok(());
    }
    let reasons: HashMap<&str, Reason> = item
        .differences
        .iter()
        .filter(|d| !d.semantic)
        .map(|d| (d.path.as_str(), d.reason))
        .collect();
    let old: Vec<&str> = item.current_lines.iter().map(|l| l.text.as_str()).collect();
    let new: Vec<&str> = item.desired_lines.iter().map(|l| l.text.as_str()).collect();
    let diff = TextDiff::configure().diff_slices(&old, &new);
    writeln!(
        out,
        "{}",
        paint(&format!("--- current: {}", item.current_from), |s| s
            .red()
            .to_string())
    )?;
    writeln!(
        out,
        "{}",
        paint(&format!("+++ desired: {}", item.desired_from), |s| s
            .green()
            .to_string())
    )?;
    // Strict-only differences are not line changes when the two sides print alike (a quantity in
    // another notation), so hunks include every line that carries a strict-only mark.
    let marked_old: Vec<usize> = (0..old.len())
        .filter(|&i| reasons.contains_key(item.current_lines[i].path.as_str()))
        .collect();
    for group in diff.grouped_ops(opts.context) {
        let first = group.first().expect("non-empty group");
        let last = group.last().expect("non-empty group");
        let (os, oe) = (first.old_range().start, last.old_range().end);
        let (ns, ne) = (first.new_range().start, last.new_range().end);
        writeln!(
            out,
            "{}",
            paint(
                &format!("@@ -{},{} +{},{} @@", os + 1, oe - os, ns + 1, ne - ns),
                |s| s.cyan().to_string()
            )
        )?;
        for op in &group {
            for change in diff.iter_changes(op) {
                let (sign, line) = match change.tag() {
                    ChangeTag::Delete => ("-", &item.current_lines[change.old_index().unwrap()]),
                    ChangeTag::Insert => ("+", &item.desired_lines[change.new_index().unwrap()]),
                    ChangeTag::Equal => (" ", &item.desired_lines[change.new_index().unwrap()]),
                };
                let mark = reasons
                    .get(line.path.as_str())
                    .map(|r| format!("  # strict-only: {}", r.explain()));
                let text = format!("{sign}{}", line.text);
                let text = match change.tag() {
                    ChangeTag::Delete => paint(&text, |s| s.red().to_string()),
                    ChangeTag::Insert => paint(&text, |s| s.green().to_string()),
                    ChangeTag::Equal => text,
                };
                match mark {
                    Some(m) => writeln!(out, "{text}{}", paint(&m, |s| s.dimmed().to_string()))?,
                    None => writeln!(out, "{text}")?,
                }
            }
        }
    }
    // Strict-only differences on lines that read the same on both sides (no hunk shows them).
    let shown_in_hunks = |i: usize| {
        diff.grouped_ops(opts.context)
            .iter()
            .any(|g| g.iter().any(|op| op.old_range().contains(&i)))
    };
    for i in marked_old {
        if !shown_in_hunks(i) {
            let line = &item.current_lines[i];
            let r = reasons[line.path.as_str()];
            writeln!(
                out,
                "{}",
                paint(
                    &format!(
                        "  {}: {}  # strict-only: {}",
                        line.path,
                        line.text.trim(),
                        r.explain()
                    ),
                    |s| s.dimmed().to_string()
                )
            )?;
        }
    }
    Ok(())
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}
