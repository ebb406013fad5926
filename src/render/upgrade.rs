//! `upgrade-plan`'s text: the release and the order, the numbered steps with their commands, one
//! line per scale set with what the new controller does to it (and what another order would
//! do), the CRDs, the totals and the assumptions.

use std::io::{self, Write};

use crate::core::release::VersionCheck;
use crate::core::upgrade::{Order, SetAction};
use crate::report::upgrade::{SetPlan, UpgradePlanList, UpgradePlanReport};

/// The plan as text.
pub(crate) fn write_text(r: &UpgradePlanReport, out: &mut dyn Write) -> io::Result<()> {
    let from = r
        .from
        .release
        .as_deref()
        .map_or("an unknown release".to_string(), |v| format!("ARC {v}"));
    writeln!(out, "Upgrade from {from} to ARC {}", r.to)?;
    writeln!(out, "  {from}: {}", r.from.from)?;
    let order = match r.order.order {
        Order::ControllerFirst => "the controller first, then the scale-set charts",
        Order::ChartsFirst => "the scale-set charts first, then the controller",
        Order::ControllerStopped => {
            "the controller stopped while the scale-set charts are upgraded"
        }
    };
    writeln!(out, "  order: {order}: {}", r.order.why)?;
    writeln!(out)?;
    writeln!(out, "Steps:")?;
    for (n, step) in r.steps.iter().enumerate() {
        writeln!(out, "{}. {}", n + 1, step.title)?;
        for c in &step.commands {
            writeln!(out, "     {c}")?;
        }
        writeln!(out, "   {}", step.why)?;
    }
    writeln!(out)?;
    writeln!(out, "Scale sets:")?;
    if r.sets.is_empty() {
        writeln!(out, "  none in view")?;
    }
    for s in &r.sets {
        write_set(s, out)?;
    }
    writeln!(out)?;
    write_crds(r, out)?;
    if let Some(t) = &r.impact {
        writeln!(out, "{}", crate::render::impact::totals_line(t))?;
    }
    for a in &r.assumptions {
        writeln!(out, "assumed: {a}")?;
    }
    Ok(())
}

fn write_set(s: &SetPlan, out: &mut dyn Write) -> io::Result<()> {
    let label = s.label.as_deref().unwrap_or("no label");
    let action = match s.action {
        SetAction::Kept => "kept",
        SetAction::Replaced => "replaced",
        SetAction::ListenerRecreated => "listener made again",
        SetAction::DeletedByVersionCheck => "deleted by the version check",
        SetAction::Failed => "error",
        SetAction::LeftBehind => "its set left behind",
    };
    let mut line = format!("{}/{} ({label}): {action}", s.namespace, s.name);
    if let Some(i) = s
        .impact
        .as_ref()
        .filter(|i| crate::render::impact::touches(i))
    {
        line.push_str(": ");
        line.push_str(&crate::render::impact::clause(i));
    }
    writeln!(out, "  {line}")?;
    writeln!(out, "    {}", s.reason)?;
    if let Some(c) = &s.wrong_order.controller_first {
        writeln!(out, "    the controller first: {}", deleted_by(c))?;
    }
    if let Some(c) = &s.wrong_order.charts_first {
        writeln!(out, "    the charts first: {}", deleted_by(c))?;
    }
    Ok(())
}

fn deleted_by(c: &VersionCheck) -> String {
    format!(
        "ARC {} deletes it, its sets, runners and scale-set registration (label {}: {})",
        c.release,
        c.label.as_deref().unwrap_or("none"),
        c.rule
    )
}

fn write_crds(r: &UpgradePlanReport, out: &mut dyn Write) -> io::Result<()> {
    let c = &r.crds;
    if let Some(why) = &c.unread {
        writeln!(out, "CRDs: not read ({why}); apply ARC {}'s (step 1)", r.to)?;
    } else {
        let installed: Vec<String> = (c.installed.iter())
            .map(|i| format!("{} of {}", i.name, i.release))
            .collect();
        writeln!(out, "CRDs installed: {}", installed.join(", "))?;
    }
    if !c.missing.is_empty() {
        let fields: Vec<String> = (c.missing.iter())
            .map(|m| format!("{} {} (since {})", m.crd, m.field, m.since))
            .collect();
        writeln!(
            out,
            "  ARC {} writes fields they lack, which the API server prunes until step 1: {}",
            r.to,
            fields.join(", ")
        )?;
    }
    Ok(())
}

/// `--contexts`: one table of every context's scale sets (a failed context is a row of its
/// own), then each context's order and steps in one line.
pub(crate) fn write_fleet_text(
    list: &UpgradePlanList,
    color: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut table = crate::render::table::kubectl_table(color);
    table.set_header(["CONTEXT", "FROM", "NAMESPACE", "NAME", "LABEL", "ACTION"]);
    for c in &list.contexts {
        let Some(plan) = &c.plan else {
            let e = c
                .error
                .as_ref()
                .map_or(String::new(), |e| e.message.clone());
            table.add_row([
                c.name.clone(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                format!("error: {e}"),
            ]);
            continue;
        };
        let from = plan.from.release.clone().unwrap_or_else(|| "?".to_string());
        for s in &plan.sets {
            table.add_row([
                c.name.clone(),
                from.clone(),
                s.namespace.clone(),
                s.name.clone(),
                s.label.clone().unwrap_or_default(),
                format!("{:?}", s.action),
            ]);
        }
    }
    crate::render::table::write_kubectl_table(table, out)?;
    writeln!(out)?;
    for c in &list.contexts {
        let Some(plan) = &c.plan else { continue };
        let steps: Vec<String> = plan.steps.iter().map(|s| format!("{:?}", s.step)).collect();
        writeln!(
            out,
            "{}: {:?}: {} (the commands: kubectl arc upgrade-plan --context {} --to {})",
            c.name,
            plan.order.order,
            steps.join(", "),
            c.name,
            list.to
        )?;
    }
    Ok(())
}
