//! Renderers for `status`: kubectl-style tables (comfy-table), the reasons of a set,
//! and the JSON/YAML report shapes.
//!
//! Reports in, text out, through the writer handed in. Colour only when asked (the command decides
//! from `--color` and NO_COLOR).

use std::io::{self, Write};

use comfy_table::{Cell, Color, ColumnConstraint, ContentArrangement, Table, Width};

use crate::core::status::{ListenerView, PodView, SetStatus, State, human_duration};
use crate::report::status::Chain;
pub(crate) use crate::report::status::StatusReport;

/// How a status table looks.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TableOptions {
    /// `-o wide`: the set's phase and the reasons.
    pub(crate) wide: bool,
    /// A NAMESPACE column (with `-A`, or rows from files).
    pub(crate) namespace_column: bool,
    pub(crate) color: bool,
    /// `--no-headers`: no header line.
    pub(crate) no_headers: bool,
}

/// The content width of each column printed so far, so that rows printed later (`--watch`) line
/// up with the table above them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Widths(Vec<usize>);

pub(super) fn state_color(state: State) -> Color {
    match state {
        State::Synced => Color::Green,
        State::Pending
        | State::Stale
        | State::Propagating
        | State::Registering
        | State::Creating
        | State::Replacing
        | State::Draining
        | State::ListenerDown
        | State::RunnersNotRunning => Color::Yellow,
        State::Legacy => Color::Blue,
        State::Invalid
        | State::Outdated
        | State::RecycleLoop
        | State::ListenerFailing
        | State::RunnersFailed
        | State::VersionRejected => Color::Red,
        State::Deleting | State::SpecHash | State::Deleted => Color::DarkGrey,
    }
}

pub(super) fn header(opts: TableOptions) -> Vec<&'static str> {
    let mut h = Vec::new();
    if opts.namespace_column {
        h.push("NAMESPACE");
    }
    h.extend([
        "NAME", "SPEC", "APPLIED", "STATE", "IDLE", "BUSY", "PENDING", "FAILED", "STALE", "AGE",
    ]);
    if opts.wide {
        h.extend(["PHASE", "REASONS"]);
    }
    h
}

pub(super) fn revision(r: Option<i64>) -> String {
    r.map(|v| v.to_string()).unwrap_or_else(|| "?".into())
}

pub(super) fn cells(row: &SetStatus, opts: TableOptions) -> Vec<(String, Option<Color>)> {
    let mut c: Vec<(String, Option<Color>)> = Vec::new();
    if opts.namespace_column {
        c.push((row.namespace.clone(), None));
    }
    let n = &row.runners;
    c.push((row.name.clone(), None));
    c.push((revision(row.spec_revision), None));
    c.push((revision(row.applied_revision), None));
    c.push((row.state.to_string(), Some(state_color(row.state))));
    for v in [n.idle, n.busy, n.pending, n.failed, n.stale] {
        c.push((v.to_string(), None));
    }
    c.push((
        row.age_seconds
            .map(human_duration)
            .unwrap_or_else(|| "<unknown>".into()),
        None,
    ));
    if opts.wide {
        c.push((row.phase.clone().unwrap_or_else(|| "<none>".into()), None));
        c.push((
            if row.reasons.is_empty() {
                "<none>".into()
            } else {
                row.reasons
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            },
            None,
        ));
    }
    c
}

/// What a row shows in the table, AGE aside: `--watch` prints a row again only when this changes
/// (a change of a field the table does not show would print the same line twice).
pub(crate) fn visible(row: &SetStatus, opts: TableOptions) -> Vec<String> {
    let age = header(opts).iter().position(|h| *h == "AGE");
    cells(
        row,
        TableOptions {
            color: false,
            ..opts
        },
    )
    .into_iter()
    .enumerate()
    .filter(|(i, _)| Some(*i) != age)
    .map(|(_, (text, _))| text)
    .collect()
}

pub(super) fn write_lines(text: &str, out: &mut dyn Write) -> io::Result<()> {
    for line in text.lines() {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// Build and write a table of `rows`, with the header unless `with_header` is false; widths grow
/// to fit and never shrink.
fn write_table_inner(
    rows: &[SetStatus],
    opts: TableOptions,
    with_header: bool,
    widths: &mut Widths,
    context: Option<&str>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut head = header(opts);
    let mut body: Vec<Vec<(String, Option<Color>)>> = rows.iter().map(|r| cells(r, opts)).collect();
    if let Some(c) = context {
        head.insert(0, "CONTEXT");
        for row in &mut body {
            row.insert(0, (c.to_string(), None));
        }
    }
    if widths.0.len() != head.len() {
        widths.0 = head.iter().map(|h| h.len()).collect();
    }
    for row in &body {
        for (i, (text, _)) in row.iter().enumerate() {
            widths.0[i] = widths.0[i].max(text.chars().count());
        }
    }
    let mut table = Table::new();
    table
        .load_style(comfy_table::presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled);
    if opts.color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    if with_header && !opts.no_headers {
        table.set_header(head.iter().map(Cell::new));
    }
    for row in body {
        table.add_row(row.into_iter().map(|(text, color)| match color {
            Some(c) if opts.color => Cell::new(text).fg(c),
            _ => Cell::new(text),
        }));
    }
    let last = head.len() - 1;
    for (i, column) in table.column_iter_mut().enumerate() {
        let pad = if i == last { 0 } else { 3 };
        column.set_padding((0, pad));
        column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(
            (widths.0[i] + pad as usize) as u16,
        )));
    }
    write_lines(&table.to_string(), out)
}

/// `status` as a table, kubectl style. Returns the column widths, for rows printed later.
pub(crate) fn write_table(
    rows: &[SetStatus],
    opts: TableOptions,
    out: &mut dyn Write,
) -> io::Result<Widths> {
    let mut widths = Widths::default();
    write_table_inner(rows, opts, true, &mut widths, None, out)?;
    Ok(widths)
}

/// Rows printed under an earlier table (`--watch`), without a header.
pub(crate) fn write_rows(
    rows: &[SetStatus],
    opts: TableOptions,
    widths: &mut Widths,
    out: &mut dyn Write,
) -> io::Result<()> {
    write_rows_in(rows, None, opts, widths, out)
}

/// [`write_rows`], with a CONTEXT column first when `context` is given (`status --contexts
/// --watch`: the rows of every context in one table, `widths` shared by them).
pub(crate) fn write_rows_in(
    rows: &[SetStatus],
    context: Option<&str>,
    opts: TableOptions,
    widths: &mut Widths,
    out: &mut dyn Write,
) -> io::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    // A cell wider than its column (a longer name arrived) widens the columns; the header is
    // printed again above the new layout, so the columns stay readable.
    let before = widths.0.clone();
    let lead = context.map(|c| (c.to_string(), None));
    let grows = rows.iter().any(|r| {
        (lead.iter().cloned().chain(cells(r, opts)))
            .zip(&before)
            .any(|((text, _), w)| text.chars().count() > *w)
    });
    write_table_inner(rows, opts, before.is_empty() || grows, widths, context, out)
}

/// `status NAME`: each row's state and reasons under the table; a row with a [`Chain`] shows what
/// surrounds its set first, as `kubectl describe` does (`Key:  value`, the reasons last).
pub(crate) fn write_reasons(
    rows: &[SetStatus],
    chains: &[Chain],
    color: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    write_reasons_in(rows, chains, None, color, out)
}

/// [`write_reasons`], each set named with its kubeconfig context when one is given (a fleet run).
pub(crate) fn write_reasons_in(
    rows: &[SetStatus],
    chains: &[Chain],
    context: Option<&str>,
    color: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let context = context
        .map(|c| format!(" in context {c}"))
        .unwrap_or_default();
    for row in rows {
        writeln!(out)?;
        // A set of ARC up to 0.14 has no revisions: none is said.
        let revisions = match (row.spec_revision, row.applied_revision) {
            (None, None) => String::new(),
            (spec, applied) => format!(
                " (spec revision {}, applied {})",
                revision(spec),
                revision(applied)
            ),
        };
        writeln!(
            out,
            "{} {}/{}{context}: {}{revisions}",
            row.ids.kind,
            row.namespace,
            row.name,
            colored_state(row.state, color),
        )?;
        let chain = chains
            .iter()
            .find(|c| c.set.0 == row.namespace && c.set.1 == row.name);
        if let Some(chain) = chain {
            write_chain(row, chain, rows, out)?;
        } else if row.reasons.is_empty() {
            writeln!(out, "  nothing to wait for")?;
        }
        for r in &row.reasons {
            writeln!(out, "  - {r}")?;
        }
    }
    Ok(())
}

fn colored_state(state: State, color: bool) -> String {
    use owo_colors::OwoColorize as _;
    if !color {
        return state.to_string();
    }
    match state {
        State::Synced => state.green().to_string(),
        State::Pending
        | State::Stale
        | State::Propagating
        | State::Registering
        | State::Creating
        | State::Replacing
        | State::Draining
        | State::ListenerDown
        | State::RunnersNotRunning => state.yellow().to_string(),
        State::Legacy => state.blue().to_string(),
        State::Invalid
        | State::Outdated
        | State::RecycleLoop
        | State::ListenerFailing
        | State::RunnersFailed
        | State::VersionRejected => state.red().to_string(),
        State::Deleting | State::SpecHash | State::Deleted => state.dimmed().to_string(),
    }
}

/// The `Key:  value` lines of a chain, the keys padded to one column.
fn write_chain(
    row: &SetStatus,
    chain: &Chain,
    rows: &[SetStatus],
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut lines: Vec<(&str, String)> = Vec::new();
    lines.push(("Scale set", scale_set_line(chain)));
    if chain.scale_set.is_some() {
        lines.push(("Older sets", older_sets_line(chain, rows)));
    }
    let (listener, pod) = listener_lines(&chain.listener);
    lines.push(("Listener", listener));
    if let Some(pod) = pod {
        lines.push(("Listener Pod", pod));
    }
    lines.push(("Runners", runners_line(row)));
    lines.push(("Controller", controller_line(chain)));
    if !chain.crds.is_empty() {
        let first = chain.crds[0].release;
        lines.push((
            "CRDs",
            if chain.crds.iter().all(|c| c.release == first) {
                format!("of ARC {first} or later ({} read)", chain.crds.len())
            } else {
                chain
                    .crds
                    .iter()
                    .map(|c| format!("{} of ARC {}", c.name, c.release))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        ));
    }
    lines.push((
        "Reasons",
        if row.reasons.is_empty() {
            "<none>".to_string()
        } else {
            String::new()
        },
    ));
    let width = lines.iter().map(|(k, _)| k.len()).max().unwrap_or(0) + 1;
    for (key, value) in lines {
        let line = format!("  {:<width$} {value}", format!("{key}:"));
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// The chain's scale set: its name, runner-scale-set-id and phase.
fn scale_set_line(chain: &Chain) -> String {
    match &chain.scale_set {
        None => "<none in view>".to_string(),
        Some(a) => {
            let mut s = format!(
                "AutoscalingRunnerSet {} (runner-scale-set-id {}, phase {})",
                a.name,
                a.id.as_deref().unwrap_or("<none>"),
                a.phase.as_deref().unwrap_or("<none>")
            );
            if a.deleting {
                s.push_str(", being deleted");
            }
            s
        }
    }
}

/// The older sets of the chain's scale set, each with its state when it has a row.
fn older_sets_line(chain: &Chain, rows: &[SetStatus]) -> String {
    if chain.older.is_empty() {
        "<none>".to_string()
    } else {
        chain
            .older
            .iter()
            .map(|name| {
                match rows
                    .iter()
                    .find(|r| r.namespace == chain.set.0 && &r.name == name)
                {
                    Some(r) => format!("{name} ({})", r.state),
                    None => name.clone(),
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The set's runners, by phase: idle, busy, pending and failed always, the others when any.
fn runners_line(row: &SetStatus) -> String {
    let n = &row.runners;
    let mut runners = format!(
        "{} idle, {} busy, {} pending, {} failed",
        n.idle, n.busy, n.pending, n.failed
    );
    for (count, what) in [
        (n.finished, "finished"),
        (n.outdated, "outdated"),
        (n.deleting, "deleting"),
        (n.stale, "on an older spec"),
    ] {
        if count > 0 {
            runners.push_str(&format!(", {count} {what}"));
        }
    }
    runners
}

/// The controller Deployments found, with the ARC release each runs.
fn controller_line(chain: &Chain) -> String {
    match &chain.controllers {
        None => "<unknown>".to_string(),
        Some(c) if c.is_empty() => "<none found>".to_string(),
        Some(c) => c
            .iter()
            .map(|c| match &c.version {
                Some(v) => format!("Deployment {} (ARC {v})", c.name),
                None => format!("Deployment {} (version unknown)", c.name),
            })
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The listener and its Pod, as read.
fn listener_lines(view: &ListenerView) -> (String, Option<String>) {
    match view {
        ListenerView::Unknown => ("<unknown>".to_string(), None),
        ListenerView::Absent => ("<none>".to_string(), None),
        ListenerView::Found { listener, pod } => {
            let mut l = format!(
                "AutoscalingListener {}/{}, for {}",
                listener.namespace, listener.name, listener.ephemeral_runner_set
            );
            if listener.deletion.is_some() {
                l.push_str(", being deleted");
            }
            if let Some(image) = &listener.image {
                l.push_str(&format!(", image {image}"));
            }
            let pod = match pod {
                PodView::Unknown => "<unknown>".to_string(),
                PodView::Absent => "<none>".to_string(),
                PodView::Found(p) => {
                    let mut s = format!(
                        "{}/{}: {}",
                        p.namespace,
                        p.name,
                        p.phase.as_deref().unwrap_or("<no phase>")
                    );
                    if let Some((reason, _)) = &p.waiting {
                        s.push_str(&format!(", waiting ({reason})"));
                    }
                    s.push_str(&format!(
                        ", {} {}",
                        p.restarts,
                        if p.restarts == 1 {
                            "restart"
                        } else {
                            "restarts"
                        }
                    ));
                    s
                }
            };
            (l, Some(pod))
        }
    }
}

/// One row as a JSON line (`--watch -o json`).
pub(crate) fn write_json_line(row: &SetStatus, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer(&mut *out, row)?;
    writeln!(out)
}

/// One row as a YAML document (`--watch -o yaml`).
pub(crate) fn write_yaml_document(row: &SetStatus, out: &mut dyn Write) -> io::Result<()> {
    let text = crate::render::emit::to_yaml(row).map_err(io::Error::other)?;
    write!(out, "---\n{text}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::runners::RunnerCounts;
    use crate::core::status::StatusReason;

    fn row(name: &str, state: State) -> SetStatus {
        SetStatus {
            namespace: "arc".into(),
            name: name.into(),
            spec_revision: Some(3),
            applied_revision: Some(2),
            state,
            runners: RunnerCounts {
                idle: 1,
                ..Default::default()
            },
            reasons: vec![StatusReason::RevisionNotAcknowledged {
                spec: 3,
                applied: 2,
            }],
            phase: None,
            spec_revision_written_by: None,
            creation_timestamp: None,
            age_seconds: Some(125),
            ids: Default::default(),
        }
    }

    #[test]
    fn tables_line_up_like_kubectl() {
        let mut out = Vec::new();
        let opts = TableOptions {
            wide: true,
            ..Default::default()
        };
        let mut widths = write_table(&[row("runners", State::Pending)], opts, &mut out).unwrap();
        write_rows(&[row("r", State::Synced)], opts, &mut widths, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(
            lines[0].starts_with("NAME      SPEC   APPLIED   STATE "),
            "{text}"
        );
        assert!(
            lines[1].starts_with("runners   3      2         Pending "),
            "{text}"
        );
        assert!(
            lines[2].starts_with("r         3      2         Synced "),
            "{text}"
        );
        assert!(
            lines[1].ends_with(
                "2m5s   <none>   revision 3 is requested and not acknowledged yet (applied 2)"
            ),
            "{text}"
        );
        assert!(!text.contains('\u{1b}'), "no colour unless asked");
    }

    #[test]
    fn status_name_shows_the_chain_as_describe_does_with_the_reasons_last() {
        use crate::core::status::install::ControllerFacts;
        use crate::core::status::{ListenerFacts, PodFacts};
        use crate::report::status::ScaleSetLine;
        let mut newest = row("new", State::Pending);
        newest.runners.stale = 2;
        let old = row("old", State::Draining);
        let listener = ListenerFacts {
            namespace: "arc-systems".into(),
            name: "set-754b578d-listener".into(),
            scale_set: ("arc".into(), "set".into()),
            ephemeral_runner_set: "new".into(),
            image: None,
            chart_version: None,
            deletion: None,
            spec_hash: None,
            values_hash: None,
            phase: None,
        };
        let pod = PodFacts {
            namespace: "arc-systems".into(),
            name: "set-754b578d-listener".into(),
            phase: Some("Running".into()),
            reason: None,
            message: None,
            waiting: None,
            terminated: None,
            running: true,
            restarts: 1,
            unschedulable: None,
            deletion: None,
        };
        let chain = Chain {
            set: ("arc".into(), "new".into()),
            scale_set: Some(ScaleSetLine {
                name: "arc/set".into(),
                id: Some("3".into()),
                phase: Some("Running".into()),
                deleting: false,
            }),
            older: vec!["old".into()],
            listener: ListenerView::Found {
                listener: Box::new(listener),
                pod: PodView::Found(Box::new(pod)),
            },
            controllers: Some(vec![ControllerFacts {
                name: "arc-systems/arc-gha-rs-controller".into(),
                version: Some("0.14.2".into()),
                watch_namespace: None,
                listener_image: None,
                image_tag: None,
            }]),
            crds: Vec::new(),
        };
        let mut out = Vec::new();
        write_reasons(&[newest, old], &[chain], false, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "
EphemeralRunnerSet arc/new: Pending (spec revision 3, applied 2)
  Scale set:    AutoscalingRunnerSet arc/set (runner-scale-set-id 3, phase Running)
  Older sets:   old (Draining)
  Listener:     AutoscalingListener arc-systems/set-754b578d-listener, for new
  Listener Pod: arc-systems/set-754b578d-listener: Running, 1 restart
  Runners:      1 idle, 0 busy, 0 pending, 0 failed, 2 on an older spec
  Controller:   Deployment arc-systems/arc-gha-rs-controller (ARC 0.14.2)
  Reasons:
  - revision 3 is requested and not acknowledged yet (applied 2)

EphemeralRunnerSet arc/old: Draining (spec revision 3, applied 2)
  - revision 3 is requested and not acknowledged yet (applied 2)
"
        );
    }
}
