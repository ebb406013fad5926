//! The renderers of the `diff` report: text (verdict lines and a coloured unified YAML diff),
//! JSON and YAML.
//!
//! Rendering layer: takes a report, writes to the writer it is given.

use std::collections::HashMap;
use std::io::{self, Write};

use owo_colors::OwoColorize;
use similar::{ChangeTag, TextDiff};

use crate::core::equality::Reason;
use crate::core::release::Mechanism;
use crate::report::diff::{DiffReport, ScaleSetDiff};
use crate::report::display::Line;

/// Options of the text renderer.
#[derive(Debug, Clone, Copy)]
pub struct TextOptions {
    /// Lines of context around each change.
    pub context: usize,
    pub color: bool,
    /// The `--- current`/`+++ desired` lines before each unified diff (`--no-headers`: none).
    pub headers: bool,
}

/// Write the text report.
/// The first line is the first scale set's verdict (`| head -1`); the ARC release closes the
/// output, after a blank line, as a summary.
pub fn write_text(report: &DiffReport, opts: TextOptions, out: &mut dyn Write) -> io::Result<()> {
    let release = report
        .arc_version
        .as_deref()
        .zip(report.arc_version_from.as_deref());
    write_items(report.items.iter(), release, opts, out)?;
    if !report.runners_outside.is_empty() {
        let n = report.runners_outside.len();
        writeln!(
            out,
            "{n} {} of those namespaces no set in view controls (not counted): {}",
            if n == 1 { "runner" } else { "runners" },
            report.runners_outside.join(", ")
        )?;
    }
    Ok(())
}

/// The text report of `items`, closed by the ARC release (`ARC VERSION (FROM)`) when known: one
/// context's part of a fleet diff too.
pub(crate) fn write_items<'a>(
    items: impl Iterator<Item = &'a ScaleSetDiff>,
    release: Option<(&str, &str)>,
    opts: TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut any = false;
    let mut impacts = Vec::new();
    for (i, item) in items.enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        any = true;
        write_item(item, opts, out)?;
        impacts.extend(item.impact.as_ref());
    }
    if let Some((v, from)) = release {
        if any {
            writeln!(out)?;
        }
        writeln!(out, "ARC {v} ({from})")?;
    }
    if !impacts.is_empty() {
        let totals = crate::core::impact::ImpactTotals::of(impacts);
        writeln!(out, "{}", super::impact::totals_line(&totals))?;
    }
    Ok(())
}

/// `s` in `style` when colour is on.
fn paint(opts: TextOptions, s: &str, style: fn(&str) -> String) -> String {
    if opts.color { style(s) } else { s.to_string() }
}

/// One scale set: its verdict line, what follows it, its diff and the recycle-loop warning.
fn write_item(item: &ScaleSetDiff, opts: TextOptions, out: &mut dyn Write) -> io::Result<()> {
    let id = paint(opts, &format!("{}/{}", item.namespace, item.name), |s| {
        s.bold().to_string()
    });
    if let Some(err) = &item.error {
        let error = paint(opts, &format!("error: {err}"), |s| s.red().to_string());
        writeln!(out, "{id}: {error}")?;
    } else if item.new {
        let verdict = paint(
            opts,
            "new scale set: ARC will create its EphemeralRunnerSet; no runner is recycled",
            |s| s.green().to_string(),
        );
        writeln!(out, "{id}: {verdict}")?;
        if let (Some(r), Some(h)) = (&item.release, &item.runner_spec_hash) {
            let from = item.release_from.as_deref().unwrap_or("");
            writeln!(
                out,
                "  ARC {r} ({from}) will create it with runner-spec-hash {}",
                h.desired
            )?;
        }
        write_note(item, out)?;
    } else if let Some(words) = release_words(item) {
        write_release_verdict(item, &id, &words, opts, out)?;
        if item.scale_set_specs.is_some() {
            write_scale_set_changes(item, opts, out)?;
        } else {
            write_changes(item, opts, out)?;
        }
    } else {
        write_revision_verdict(item, &id, opts, out)?;
        write_changes(item, opts, out)?;
    }
    write_recycle_loop(item, opts, out)
}

fn write_note(item: &ScaleSetDiff, out: &mut dyn Write) -> io::Result<()> {
    match &item.note {
        Some(note) => writeln!(out, "  {note}"),
        None => Ok(()),
    }
}

/// `semantic` and `strict-only`: the counts of a verdict.
fn counts(item: &ScaleSetDiff) -> (usize, usize) {
    let semantic = item.differences.iter().filter(|d| d.semantic).count();
    (semantic, item.strict_only_differences)
}

/// A hash era's verdict in its release's words, and what a revision-era ARC would judge.
fn write_release_verdict(
    item: &ScaleSetDiff,
    id: &str,
    words: &ReleaseWords,
    opts: TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (semantic, strict) = counts(item);
    let style: fn(&str) -> String = if item.recycle == Some(true) {
        |s| s.yellow().bold().to_string()
    } else {
        |s| s.green().to_string()
    };
    writeln!(
        out,
        "{id}: {}",
        paint(opts, &with_impact(&words.verdict, item), style)
    )?;
    for line in &words.details {
        writeln!(out, "  {line}")?;
    }
    // Not for the revision era itself (its version check deleting the scale set).
    if !item.differences.is_empty() && item.mechanism != Some(Mechanism::ActionableRevision) {
        writeln!(
            out,
            "  a revision-era ARC would judge it by Go's Semantic equality: {}",
            if item.semantic_drift == Some(true) {
                format!(
                    "semantic drift, it would bump spec.actionableRevision ({semantic} semantic {}, {strict} strict-only)",
                    plural(semantic, "difference", "differences")
                )
            } else {
                format!(
                    "no semantic drift, it would not act ({strict} strict-only {})",
                    plural(strict, "difference", "differences")
                )
            }
        )?;
    }
    write_note(item, out)
}

/// The revision era's verdict (Go's Semantic equality), and the sets ARC is replacing.
fn write_revision_verdict(
    item: &ScaleSetDiff,
    id: &str,
    opts: TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (semantic, strict) = counts(item);
    let verdict = if item.semantic_drift == Some(true) {
        paint(
            opts,
            &format!(
                "semantic drift: ARC will bump spec.actionableRevision and recycle idle and pending runners ({semantic} semantic {}, {strict} strict-only)",
                plural(semantic, "difference", "differences")
            ),
            |s| s.yellow().bold().to_string(),
        )
    } else if strict > 0 {
        paint(
            opts,
            &format!(
                "no semantic drift; {strict} strict-only {} (ARC will not act)",
                plural(strict, "difference", "differences")
            ),
            |s| s.green().to_string(),
        )
    } else {
        paint(opts, "no drift", |s| s.green().to_string())
    };
    match &item.impact {
        Some(i) => writeln!(out, "{id}: {verdict}: {}", super::impact::clause(i))?,
        None => writeln!(out, "{id}: {verdict}")?,
    }
    if !item.replaced.is_empty() {
        writeln!(
            out,
            "  compared with the EphemeralRunnerSet ARC uses, {}; ARC is replacing {}",
            item.current_from,
            item.replaced.join(", ")
        )?;
    }
    write_next(item, out)?;
    write_note(item, out)
}

/// Judged by the next release: where that was stated (or why the controller was recognised as
/// running it), and its Outdated lifecycle: whether the change leaves it (ARC #4660).
fn write_next(item: &ScaleSetDiff, out: &mut dyn Write) -> io::Result<()> {
    if let (Some("next"), Some(from)) = (item.release.as_deref(), &item.release_from) {
        writeln!(
            out,
            "  judged by the next release (ARC's master after 0.14.2): {from}"
        )?;
    }
    match &item.outdated {
        Some(o) if o.leaves => writeln!(
            out,
            "  switched off (Outdated): this change leaves Outdated: the runner spec or its metadata changes (outdatedRunnerSpecCorrected, ARC #4660), so ARC starts the scale set again"
        ),
        Some(_) => writeln!(
            out,
            "  switched off (Outdated): this change does not leave Outdated: only a change of the runner spec or its metadata does (outdatedRunnerSpecCorrected, ARC #4660); minRunners and maxRunners only reach the stopped listener"
        ),
        None => Ok(()),
    }
}

/// A verdict line with the impact's clause, when the item has one.
pub(crate) fn with_impact(verdict: &str, item: &ScaleSetDiff) -> String {
    match &item.impact {
        Some(i) => format!("{verdict}: {}", super::impact::clause(i)),
        None => verdict.to_string(),
    }
}

/// The words of a scale set the judging release's version check deletes, whatever its
/// mechanism: `details` so far, then the rule.
fn deleted_words(
    item: &ScaleSetDiff,
    check: &crate::core::release::VersionCheck,
    id: &str,
    mut details: Vec<String>,
) -> ReleaseWords {
    let release = item.release.as_deref().unwrap_or(check.release);
    details.push(check.rule.to_string());
    let label = crate::core::release::LABEL_VERSION;
    let why = match &check.label {
        Some(l) => format!("its {label} label {l} is not allowed"),
        None => format!("it has no {label} label"),
    };
    ReleaseWords {
        verdict: format!(
            "deleted: ARC {release} deletes AutoscalingRunnerSet {id}: {why}; its sets, runners, listener and scale-set registration go with it"
        ),
        details,
        title: format!("ARC {release} deletes scale set {id}"),
    }
}

/// A verdict in the words of a release whose mechanism is a hash: the first line, and what
/// follows it.
pub(crate) struct ReleaseWords {
    pub(crate) verdict: String,
    pub(crate) details: Vec<String>,
    /// For a pull-request annotation: its title.
    pub(crate) title: String,
}

/// What ARC does in the words of the release that judged the item (`None`: the revision era,
/// whose words are Semantic drift's, or an item without a verdict).
pub(crate) fn release_words(item: &ScaleSetDiff) -> Option<ReleaseWords> {
    let id = format!("{}/{}", item.namespace, item.name);
    let recycle = item.recycle?;
    if let (Some(check), Some(Mechanism::ActionableRevision)) =
        (&item.deleted_by_version_check, item.mechanism)
    {
        // The next release's version check (the hash era's is said below, with its hashes).
        let mut details = Vec::new();
        if let Some(from) = &item.release_from {
            details.push(format!("ARC {}: {from}", check.release));
        }
        return Some(deleted_words(item, check, &id, details));
    }
    match item.mechanism? {
        Mechanism::RunnerSpecHash => {
            let hashes = item.runner_spec_hash.as_ref()?;
            let release = item.release.as_deref().unwrap_or("up to 0.14");
            let current = hashes.current.as_deref().unwrap_or("none");
            let mut details = Vec::new();
            if let Some(from) = &item.release_from {
                details.push(format!("ARC {release}: {from}"));
            }
            if let Some(line) = item.impact.as_ref().and_then(super::impact::strategy_line) {
                details.push(line);
            }
            if let Some(check) = &item.deleted_by_version_check {
                return Some(deleted_words(item, check, &id, details));
            }
            let title;
            let verdict = if recycle {
                title = format!("ARC {release} will replace the runners of scale set {id}");
                format!(
                    "replaced: ARC {release} will replace {} with a new EphemeralRunnerSet (runner-spec-hash {current} -> {})",
                    item.current_from, hashes.desired
                )
            } else {
                title = format!("ARC {release} will not replace the runners of scale set {id}");
                if item.listener_restart == Some(true) {
                    details.push("the listener is recreated (the rest of the AutoscalingRunnerSet's spec or its values-hash changes); no runner is recycled".to_string());
                }
                format!(
                    "not replaced: ARC {release}'s runner-spec-hash is unchanged ({current}); no runner is recycled"
                )
            };
            if !item.unhashed_changes.is_empty() {
                details.push(unhashed_words(item));
            }
            if let Some(alt) = &item.alternative {
                let current = alt.runner_spec_hash.current.as_deref().unwrap_or("none");
                details.push(if alt.recycle {
                    format!(
                        "if the controller still runs ARC {} ({}): replaced (runner-spec-hash {current} -> {})",
                        alt.release, alt.release_from, alt.runner_spec_hash.desired
                    )
                } else {
                    format!(
                        "if the controller still runs ARC {} ({}): not replaced (runner-spec-hash {current} unchanged)",
                        alt.release, alt.release_from
                    )
                });
            }
            if let (Some(true), Some(matches)) = (item.upgrade_replaces, &item.hash_matches) {
                details.push(format!(
                    "the upgrade to ARC {release} replaces this set by itself: ARC {} made it (its hash of the unchanged AutoscalingRunnerSet is {current}), ARC {release} hashes the same object otherwise",
                    crate::core::replacement::versions_text(matches)
                ));
            }
            Some(ReleaseWords {
                verdict,
                details,
                title,
            })
        }
        Mechanism::IntegrityHash => integrity_hash_words(item, recycle, &id),
        Mechanism::ActionableRevision => None,
    }
}

/// [`release_words`] for a set of the integrity-hash era: a cleanup pending, coming, or none.
fn integrity_hash_words(item: &ScaleSetDiff, recycle: bool, id: &str) -> Option<ReleaseWords> {
    let hashes = item.integrity_hash.as_ref()?;
    let current = hashes.current.as_deref().unwrap_or("none");
    let pending = hashes
        .stored
        .as_deref()
        .filter(|s| hashes.current.as_deref() == Some(hashes.desired.as_str()) && *s != current);
    Some(if let (true, Some(stored)) = (recycle, pending) {
        ReleaseWords {
            verdict: format!(
                "cleanup pending: ARC has patched {} (its integrity-hash {current} is the hash of the desired runner spec) but its spec as stored hashes to {stored}, so ARC's EphemeralRunnerSet controller deletes its idle and pending runners next and writes {stored}; busy ones finish their job first",
                item.current_from
            ),
            details: Vec::new(),
            title: format!("ARC will recycle the idle runners of scale set {id}"),
        }
    } else if recycle {
        ReleaseWords {
            verdict: format!(
                "cleanup: an integrity-hash-era ARC will patch {} and delete its idle and pending runners (integrity-hash {current} -> {}); busy ones finish their job first",
                item.current_from, hashes.desired
            ),
            details: Vec::new(),
            title: format!("ARC will recycle the idle runners of scale set {id}"),
        }
    } else {
        ReleaseWords {
            verdict: format!(
                "no cleanup: the integrity hash is unchanged ({current}); no runner is recycled"
            ),
            details: Vec::new(),
            title: format!("No runner recycling for scale set {id}"),
        }
    })
}

/// ARC up to 0.14, a set kept: changed fields that reach runners only at the next replacement,
/// and the bump that replaces the set now.
pub(crate) fn unhashed_words(item: &ScaleSetDiff) -> String {
    format!(
        "a change of {} (not hashed by RunnerSetSpecHash()) reaches runners only when ARC next replaces the set; `kubectl arc bump -n {} {}` replaces it now",
        item.unhashed_changes.join(", "),
        item.namespace,
        item.name
    )
}

/// The integrity-hash recycle loop warning: each field with its fix.
fn write_recycle_loop(
    item: &ScaleSetDiff,
    opts: TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    if item.legacy_recycle_loop != Some(true) {
        return Ok(());
    }
    let paint =
        |s: &str, style: fn(&str) -> String| if opts.color { style(s) } else { s.to_string() };
    let n = item.legacy_recycle_loop_fixes.len();
    writeln!(
        out,
        "{}",
        paint(
            &format!(
                "warning: legacy recycle loop: on an integrity-hash-era ARC this template does not survive Go's JSON round trip ({n} {} {}), so the hash ARC builds in memory never matches the one it reads back and the two controllers recycle idle and pending runners forever. Write it as Go does:",
                plural(n, "field", "fields"),
                plural(n, "changes", "change")
            ),
            |s| s.yellow().bold().to_string()
        )
    )?;
    for f in &item.legacy_recycle_loop_fixes {
        writeln!(out, "  {}: {}", f.path, f.fix)?;
    }
    writeln!(
        out,
        "  A revision-era ARC (spec.actionableRevision) compares with Go's Semantic equality and does not loop."
    )
}

/// The unified diff of one scale set, with its strict-only marks.
fn write_changes(item: &ScaleSetDiff, opts: TextOptions, out: &mut dyn Write) -> io::Result<()> {
    if item.differences.is_empty() {
        return Ok(());
    }
    let reasons: HashMap<&str, Reason> = item
        .differences
        .iter()
        .filter(|d| !d.semantic)
        .map(|d| (d.path.as_str(), d.reason))
        .collect();
    let (current, desired) = item.specs.as_ref().map(|s| s.lines()).unwrap_or_default();
    // Lines are compared by identity (the value Go compares, not its spelling): a quantity
    // written `1` on one side and `"1"` on the other is one line, `1` and `1000m` are two.
    let old: Vec<&str> = current.iter().map(|l| l.identity.as_str()).collect();
    let new: Vec<&str> = desired.iter().map(|l| l.identity.as_str()).collect();
    let diff = TextDiff::configure().diff_slices(&old, &new);
    if opts.headers {
        let from = |sign: &str, side: &str, origin: &str, style: fn(&str) -> String| {
            paint(opts, &format!("{sign} {side}: {origin}"), style)
        };
        writeln!(
            out,
            "{}",
            from("---", "current", &item.current_from, |s| s
                .red()
                .to_string())
        )?;
        writeln!(
            out,
            "{}",
            from("+++", "desired", &item.desired_from, |s| s
                .green()
                .to_string())
        )?;
    }
    let groups = diff.grouped_ops(opts.context);
    let lines = Sides {
        current: &current,
        desired: &desired,
    };
    for group in &groups {
        write_hunk(&diff, group, &lines, &reasons, opts, out)?;
    }
    // A strict-only difference is a line change (identities differ exactly when Go's strict
    // comparison does); the lines it marks that no hunk shows are listed after the hunks.
    let shown_in_hunks = |i: usize| {
        groups
            .iter()
            .any(|g| g.iter().any(|op| op.old_range().contains(&i)))
    };
    for line in current.iter().enumerate().filter_map(|(i, line)| {
        (reasons.contains_key(line.path.as_str()) && !shown_in_hunks(i)).then_some(line)
    }) {
        let r = reasons[line.path.as_str()];
        let mark = format!(
            "  {}: {}  # strict-only: {}",
            line.path,
            line.text.get(line.value_start..).unwrap_or("").trim(),
            r.explain()
        );
        writeln!(out, "{}", paint(opts, &mark, |s| s.dimmed().to_string()))?;
    }
    Ok(())
}

/// ARC up to 0.14: the unified diff of the live and the desired AutoscalingRunnerSet over the
/// fields `RunnerSetSpecHash()` hashes (every line that differs replaces the set).
fn write_scale_set_changes(
    item: &ScaleSetDiff,
    opts: TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let Some(specs) = item.scale_set_specs.as_deref() else {
        return Ok(());
    };
    let (current, desired) = specs.lines();
    let old: Vec<&str> = current.iter().map(|l| l.identity.as_str()).collect();
    let new: Vec<&str> = desired.iter().map(|l| l.identity.as_str()).collect();
    let diff = TextDiff::configure().diff_slices(&old, &new);
    if opts.headers {
        writeln!(
            out,
            "{}",
            paint(
                opts,
                "--- live: the AutoscalingRunnerSet's spec (the fields RunnerSetSpecHash() hashes)",
                |s| s.red().to_string()
            )
        )?;
        writeln!(
            out,
            "{}",
            paint(opts, &format!("+++ desired: {}", item.desired_from), |s| s
                .green()
                .to_string())
        )?;
    }
    let lines = Sides {
        current: &current,
        desired: &desired,
    };
    for group in &diff.grouped_ops(opts.context) {
        write_hunk(&diff, group, &lines, &HashMap::new(), opts, out)?;
    }
    Ok(())
}

/// The lines of both specs.
struct Sides<'a> {
    current: &'a [Line],
    desired: &'a [Line],
}

/// One hunk: its `@@` line and its lines, each strict-only difference marked.
fn write_hunk(
    diff: &TextDiff<'_, '_, str>,
    group: &[similar::DiffOp],
    lines: &Sides<'_>,
    reasons: &HashMap<&str, Reason>,
    opts: TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let first = group.first().expect("non-empty group");
    let last = group.last().expect("non-empty group");
    let (os, oe) = (first.old_range().start, last.old_range().end);
    let (ns, ne) = (first.new_range().start, last.new_range().end);
    let at = format!("@@ -{},{} +{},{} @@", os + 1, oe - os, ns + 1, ne - ns);
    writeln!(out, "{}", paint(opts, &at, |s| s.cyan().to_string()))?;
    for op in group {
        for change in diff.iter_changes(op) {
            let (sign, line) = match change.tag() {
                ChangeTag::Delete => ("-", &lines.current[change.old_index().unwrap()]),
                ChangeTag::Insert => ("+", &lines.desired[change.new_index().unwrap()]),
                ChangeTag::Equal => (" ", &lines.desired[change.new_index().unwrap()]),
            };
            let mark = reasons
                .get(line.path.as_str())
                .map(|r| format!("  # strict-only: {}", r.explain()));
            let text = format!("{sign}{}", line.text);
            let text = match change.tag() {
                ChangeTag::Delete => paint(opts, &text, |s| s.red().to_string()),
                ChangeTag::Insert => paint(opts, &text, |s| s.green().to_string()),
                ChangeTag::Equal => text,
            };
            match mark {
                Some(m) => writeln!(out, "{text}{}", paint(opts, &m, |s| s.dimmed().to_string()))?,
                None => writeln!(out, "{text}")?,
            }
        }
    }
    Ok(())
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::layout::Layout;
    use crate::core::recycle_loop::round_trip_of_autoscaling_runner_set;
    use crate::core::written::{Written, pointer_step};
    use crate::report::diff::last_key;

    fn fixes(template_spec: &str) -> Vec<(String, String)> {
        let l = Layout::arc();
        let ars = format!(r#"{{"template":{{"spec":{template_spec}}}}}"#);
        let check = round_trip_of_autoscaling_runner_set(l, &ars, Some("1"));
        let item = ScaleSetDiff::failed(
            "ns".into(),
            "set".into(),
            String::new(),
            String::new(),
            "no EphemeralRunnerSet".into(),
        )
        .with_legacy_recycle_loop(Some(check));
        assert_eq!(
            item.legacy_recycle_loop_paths.as_ref().map(Vec::len),
            Some(item.legacy_recycle_loop_fixes.len())
        );
        item.legacy_recycle_loop_fixes
            .into_iter()
            .map(|f| (f.path, f.fix))
            .collect()
    }

    #[test]
    fn each_field_of_a_loop_comes_with_its_fix() {
        let got = fixes(
            r#"{"nodeSelector":{},"containers":[{"name":"r","env":[],
                "resources":{"limits":{"cpu":"1000m","nvidia.com/gpu":"1.0"},"requests":{"memory":"1.5Gi"}}}]}"#,
        );
        let want = [
            (
                "spec.containers[0].env",
                "drop `env: []` (Go leaves an empty list out)",
            ),
            (
                "spec.containers[0].resources.limits.cpu",
                "write `1`, not `1000m`",
            ),
            (
                "spec.containers[0].resources.limits[\"nvidia.com/gpu\"]",
                "write `1`, not `1.0`",
            ),
            (
                "spec.containers[0].resources.requests.memory",
                "write `1536Mi`, not `1.5Gi`",
            ),
            (
                "spec.nodeSelector",
                "drop `nodeSelector: {}` (Go leaves an empty map out)",
            ),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(p, f)| (p.to_string(), f.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    /// A fix quotes the value as the file wrote it (`cpu: 1e3`, a number to YAML), not as Go holds
    /// it (`1000`).
    #[test]
    fn a_fix_quotes_the_value_as_written() {
        let l = Layout::arc();
        let spec = r#"{"template":{"spec":{"containers":[{"name":"r","resources":{"limits":{"cpu":1000,"memory":"1.5Gi"}}}]}}}"#;
        let check = round_trip_of_autoscaling_runner_set(l, spec, None);
        let mut written = Written::from_json(spec);
        written.spell(
            "",
            &[crate::core::written::Spelling {
                pointer: "/template/spec/containers/0/resources/limits/cpu".into(),
                yaml: "1e3".into(),
                json: "1000".into(),
            }],
        );
        let item = ScaleSetDiff::failed(
            "ns".into(),
            "set".into(),
            String::new(),
            String::new(),
            "x".into(),
        )
        .with_legacy_recycle_loop_as_written(Some(check), |_| {
            crate::core::desired::written_runner_spec(l, written)
        });
        let fixes: Vec<&str> = item
            .legacy_recycle_loop_fixes
            .iter()
            .map(|f| f.fix.as_str())
            .collect();
        assert_eq!(
            fixes,
            ["write `1k`, not `1e3`", "write `1536Mi`, not `1.5Gi`"]
        );
    }

    #[test]
    fn a_template_that_survives_has_no_fixes_and_says_so() {
        assert!(fixes(r#"{"securityContext":{},"containers":[{"name":"r","resources":{"limits":{"memory":"8192Mi"}}}]}"#).is_empty());
        let l = Layout::arc();
        let ok = round_trip_of_autoscaling_runner_set(l, r#"{"template":{}}"#, None);
        let item = ScaleSetDiff::failed(
            "ns".into(),
            "set".into(),
            String::new(),
            String::new(),
            "x".into(),
        )
        .with_legacy_recycle_loop(Some(ok));
        assert_eq!(item.legacy_recycle_loop, Some(false));
        assert_eq!(item.legacy_recycle_loop_paths, Some(Vec::new()));
        // No template (or one that does not decode): the fields are left out.
        let bad = round_trip_of_autoscaling_runner_set(l, r#"{"template":1}"#, None);
        let item = ScaleSetDiff::failed(
            "ns".into(),
            "set".into(),
            String::new(),
            String::new(),
            "x".into(),
        )
        .with_legacy_recycle_loop(Some(bad));
        assert_eq!(item.legacy_recycle_loop, None);
        let json = serde_json::to_value(&item).unwrap();
        assert!(json.get("legacyRecycleLoop").is_none());
    }

    #[test]
    fn last_keys() {
        assert_eq!(last_key("spec.containers[0].env"), "env");
        assert_eq!(last_key("metadata.labels[\"a.b\"]"), "[\"a.b\"]");
        assert_eq!(last_key("spec"), "spec");
    }

    /// The text diff of an AutoscalingRunnerSet's template spec against an EphemeralRunnerSet's
    /// pod spec, each written as a YAML (or JSON) file writes it, as `diff` renders it.
    fn text_diff(template_spec: &str, set_spec: &str) -> (String, ScaleSetDiff) {
        let l = Layout::arc();
        let indent = |s: &str, n: usize| {
            s.lines()
                .map(|line| format!("{}{line}\n", " ".repeat(n)))
                .collect::<String>()
        };
        let ars = format!(
            "kind: AutoscalingRunnerSet\nspec:\n  githubConfigUrl: https://github.com/o\n  template:\n    spec:\n{}",
            indent(template_spec, 6)
        );
        let ers = format!(
            "kind: EphemeralRunnerSet\nspec:\n  ephemeralRunnerSpec:\n    githubConfigUrl: https://github.com/o\n    runnerScaleSetId: 7\n    spec:\n{}",
            indent(set_spec, 6)
        );
        // Each object's spec (or a field of it) as the core reads a file: the JSON the API server
        // would store, and what the file wrote, its YAML spellings laid on it.
        let spec = |text: &str, field: Option<&str>| {
            let o = crate::manifest::parse(text, "t.yaml").unwrap().remove(0);
            let mut value = &o.value["spec"];
            let mut pointer = "/spec".to_string();
            if let Some(field) = field {
                value = &value[field];
                pointer_step(&mut pointer, field);
            }
            let json = crate::manifest::go_json(value);
            let mut written = Written::from_json(&json);
            written.spell(&pointer, &o.spellings);
            (json, written)
        };
        let (ars, ars_written) = spec(&ars, None);
        let (runner_spec, ers_written) = spec(&ers, Some("ephemeralRunnerSpec"));
        let result = crate::core::drift::drift(l, &ars, Some("7"), Some(&runner_spec));
        let item = ScaleSetDiff::from_drift_as_written(
            l,
            "ns".into(),
            "s".into(),
            ("desired".into(), "current".into()),
            result,
            true,
            |_| {
                let desired = crate::core::desired::written_runner_spec(l, ars_written);
                (desired, ers_written)
            },
        );
        let report = DiffReport {
            api_version: "kubectl-arc/v1alpha1",
            kind: "DiffReport",
            layout: l.k8s_api.clone(),
            arc_version: None,
            arc_version_from: None,
            defaults_from: None,
            not_in_change: 0,
            impact: None,
            runners_outside: Vec::new(),
            items: vec![item.clone()],
        };
        let mut out = Vec::new();
        let opts = TextOptions {
            context: 0,
            color: false,
            headers: true,
        };
        write_text(&report, opts, &mut out).unwrap();
        (String::from_utf8(out).unwrap(), item)
    }

    /// The changed lines of a text diff (`-` and `+`), trimmed after the sign.
    fn changes(text: &str) -> Vec<String> {
        text.lines()
            .filter(|l| {
                (l.starts_with('-') || l.starts_with('+'))
                    && !l.starts_with("---")
                    && !l.starts_with("+++")
            })
            .map(|l| format!("{}{}", &l[..1], l[1..].trim()))
            .collect()
    }

    const MARK: &str = "  # strict-only: same quantity in another notation";

    #[test]
    fn each_notation_difference_is_a_pair_of_lines_as_written() {
        let (text, item) = text_diff(
            "containers:\n- name: r\n  resources:\n    limits: {cpu: 1000m, memory: 4096Mi, x: 1e3, z: .5}\n    requests: {cpu: 1, memory: 1.5Gi}",
            "containers:\n- name: r\n  resources:\n    limits: {cpu: \"1\", memory: 4Gi, x: \"1e3\", z: 500m}\n    requests: {cpu: \"1\", memory: 1536Mi}",
        );
        let want: Vec<String> = [
            "-cpu: \"1\"",
            "-memory: 4Gi",
            "-x: \"1e3\"",
            "-z: 500m",
            "+cpu: 1000m",
            "+memory: 4096Mi",
            "+x: 1e3",
            "+z: .5",
            "-memory: 1536Mi",
            "+memory: 1.5Gi",
        ]
        .iter()
        .map(|l| format!("{l}{MARK}"))
        .collect();
        assert_eq!(changes(&text), want, "{text}");
        // `cpu: 1` and `cpu: "1"` are one value: no line. No line outside a hunk, none doubled.
        assert!(!text.contains("memory: memory"), "{text}");
        assert!(!text.contains("resources.requests"), "{text}");
        assert_eq!(item.strict_only_differences, 5);
        // The report gives each side as written.
        let from_to: Vec<(&str, Option<&str>, Option<&str>)> = item
            .differences
            .iter()
            .map(|d| (d.path.as_str(), d.from.as_deref(), d.to.as_deref()))
            .collect();
        let limits = "spec.containers[0].resources.limits";
        assert!(from_to.contains(&(&format!("{limits}.memory"), Some("4Gi"), Some("4096Mi"))));
        // A string and a number that read alike keep their quotes.
        assert!(from_to.contains(&(&format!("{limits}.x"), Some("\"1e3\""), Some("1e3"))));
        assert!(from_to.contains(&(&format!("{limits}.cpu"), Some("1"), Some("1000m"))));
    }

    #[test]
    fn numbers_and_booleans_show_as_written_and_differ_only_by_value() {
        let (text, _) = text_diff(
            "terminationGracePeriodSeconds: 30.0\nactiveDeadlineSeconds: 1e3\nhostNetwork: yes\npriority: 0x10\ncontainers:\n- name: r\n  livenessProbe: {tcpSocket: {port: 8080}}\n  readinessProbe: {httpGet: {port: http}}",
            "terminationGracePeriodSeconds: 30\nactiveDeadlineSeconds: 1001\nhostNetwork: true\npriority: 16\ncontainers:\n- name: r\n  livenessProbe: {tcpSocket: {port: \"8080\"}}\n  readinessProbe: {httpGet: {port: 8080}}",
        );
        assert_eq!(
            changes(&text),
            [
                "-port: \"8080\"",
                "+port: 8080",
                "-port: 8080",
                "+port: http",
                "-activeDeadlineSeconds: 1001",
                "+activeDeadlineSeconds: 1e3",
            ],
            "{text}"
        );
    }

    #[test]
    fn one_sided_values_lists_and_nil_vs_empty() {
        let (text, item) = text_diff(
            "nodeSelector: {}\ntolerations: []\ncontainers:\n- name: r\n  args:\n  - a\n  - \"1\"\n  - |\n    x\n    y\n  env: []\n  workingDir: /w",
            "containers:\n- name: r\n  args: [a, \"1\", \"x\\nz\\n\", b]",
        );
        let nil_vs_empty =
            "  # strict-only: nil vs empty: equal for ARC (Semantic), different strictly";
        assert_eq!(
            changes(&text),
            [
                "-z".to_string(),
                "-- b".to_string(),
                "+y".to_string(),
                "+workingDir: /w".to_string(),
                format!("+env: []{nil_vs_empty}"),
                format!("+nodeSelector: {{}}{nil_vs_empty}"),
                format!("+tolerations: []{nil_vs_empty}"),
            ],
            "{text}"
        );
        assert_eq!(item.strict_only_differences, 3);
    }
}
