//! `kubectl arc diff -o github`: GitHub Actions workflow commands, which a workflow step turns into
//! annotations on the run and its pull request.
//!
//! Rendering layer: takes a [`DiffReport`], writes to the writer it is given. One command per scale
//! set that needs attention:
//! - `::warning` when ARC would recycle the idle and pending runners (semantic drift);
//! - `::notice` when only strict-only differences remain (ARC will not act), with `--show-strict`
//!   only (by default they are counted in the summary line);
//! - `::error` when the scale set could not be compared;
//!
//! and nothing for a scale set with no difference. A scale set whose template loops on an
//! integrity-hash-era ARC (`legacyRecycleLoop`) gets a second `::warning` naming each field and
//! its fix. A last plain line summarises the run. Fields
//! follow the JSON report's names. The syntax and escaping are GitHub's "workflow commands":
//! `::warning file=F,title=T::MESSAGE`, with `%`, CR and LF escaped in the message and also `:` and
//! `,` in properties.

use std::io::{self, Write};

use crate::core::release::Mechanism;
use crate::report::diff::{DiffReport, ScaleSetDiff};

/// How `-o github` annotates.
#[derive(Debug, Clone, Default)]
pub(crate) struct GithubOptions {
    /// `--show-strict`: a `::notice` for each scale set with strict-only differences too (by
    /// default they are only counted in the summary: a chart that writes `4096Mi` would otherwise
    /// annotate every pull request).
    pub(crate) show_strict: bool,
    /// `--annotate-file FILE`: attach the annotations to this file (the values file the pull
    /// request changes) instead of the render's path.
    pub(crate) file: Option<String>,
}

/// An input that could not be read (a file, standard input, the whole run), for `-o github`: an
/// `::error` of its own, counted in the summary, so a pull request shows why the check failed.
#[derive(Debug, Clone)]
pub(crate) struct InputError {
    /// The file the message is about, when it names one of the inputs.
    pub(crate) file: Option<String>,
    pub(crate) message: String,
}

impl InputError {
    /// `message`, attached to the first of `inputs` it starts with (`FILE: ...`).
    pub(crate) fn of(message: &str, inputs: &[String]) -> InputError {
        let file = inputs
            .iter()
            .filter(|f| f.as_str() != "-")
            .find(|f| message.starts_with(&format!("{f}:")) || message.contains(&format!(" {f}")))
            .cloned();
        InputError {
            file,
            message: message.to_string(),
        }
    }
}

/// Write one `::error` per input that could not be read, one workflow command per scale set that
/// needs attention, and a summary line.
pub(crate) fn write_diff(
    report: &DiffReport,
    input_errors: &[InputError],
    opts: &GithubOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (mut recycle, mut strict_only, mut kept, mut loops, mut errors) = (0, 0, 0, 0, 0);
    for e in input_errors {
        errors += 1;
        write_command(
            out,
            &Annotation {
                level: Level::Error,
                file: e.file.clone(),
                title: "kubectl arc diff: cannot read the input".to_string(),
                message: e.message.clone(),
            },
        )?;
    }
    let new = report.items.iter().filter(|i| i.new).count();
    for item in &report.items {
        if let Some(mut annotation) = annotation(item, &report.layout) {
            // A notice with an impact (a listener made again: job pickup pauses) is always said.
            let strict = annotation.level == Level::Notice && !item.new && item.impact.is_none();
            let hash_era = matches!(
                item.mechanism,
                Some(Mechanism::RunnerSpecHash | Mechanism::IntegrityHash)
            );
            match annotation.level {
                Level::Warning => recycle += 1,
                Level::Notice if !item.new && hash_era => kept += 1,
                Level::Notice if !item.new => strict_only += 1,
                Level::Notice => {}
                Level::Error => errors += 1,
            }
            if opts.file.is_some() {
                annotation.file.clone_from(&opts.file);
            }
            if !strict || opts.show_strict {
                write_command(out, &annotation)?;
            }
        }
        if let Some(mut annotation) = unhashed_annotation(item) {
            if opts.file.is_some() {
                annotation.file.clone_from(&opts.file);
            }
            write_command(out, &annotation)?;
        }
        if let Some(mut annotation) = recycle_loop_annotation(item, &report.layout) {
            loops += 1;
            if opts.file.is_some() {
                annotation.file.clone_from(&opts.file);
            }
            write_command(out, &annotation)?;
        }
    }
    let not_in_change = if report.not_in_change > 0 {
        format!(", {} not in the change", report.not_in_change)
    } else {
        String::new()
    };
    let kept = if kept > 0 {
        format!(", {kept} kept by their release (its hash unchanged)")
    } else {
        String::new()
    };
    let impact = match &report.impact {
        Some(t) => format!("; {}", super::impact::totals_line(t)),
        None => String::new(),
    };
    writeln!(
        out,
        "kubectl arc diff: {} scale {} checked{not_in_change}; {recycle} would recycle runners, {strict_only} with strict-only differences{kept}, {loops} with a legacy recycle loop, {}{errors} {}{impact}",
        report.items.len(),
        if report.items.len() == 1 {
            "set"
        } else {
            "sets"
        },
        if new > 0 {
            format!("{new} new, ")
        } else {
            String::new()
        },
        if errors == 1 { "error" } else { "errors" },
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Warning,
    Notice,
    Error,
}

impl Level {
    fn command(self) -> &'static str {
        match self {
            Level::Warning => "warning",
            Level::Notice => "notice",
            Level::Error => "error",
        }
    }
}

struct Annotation {
    level: Level,
    file: Option<String>,
    title: String,
    message: String,
}

fn annotation(item: &ScaleSetDiff, layout: &str) -> Option<Annotation> {
    let id = format!("{}/{}", item.namespace, item.name);
    // The file of the change; the live side's only where there is no desired side (a broken live
    // set): a change read from stdin annotates no file, never the `--live` dump beside it.
    let file = item.desired_file.clone().or_else(|| {
        if item.desired_from.is_empty() {
            source_file(&item.current_from).map(str::to_string)
        } else {
            source_file(&item.desired_from).map(str::to_string)
        }
    });
    let mut fields = format!("namespace: {}\nname: {}\n", item.namespace, item.name);
    if item.new {
        fields.push_str(&format!("new: true\ndesiredFrom: {}\n", item.desired_from));
        if let (Some(r), Some(h)) = (&item.release, &item.runner_spec_hash) {
            fields.push_str(&format!("release: {r}\nrunnerSpecHash: {}\n", h.desired));
        }
        if let Some(note) = &item.note {
            fields.push_str(&format!("note: {note}\n"));
        }
        return Some(Annotation {
            level: Level::Notice,
            file,
            title: format!("New scale set {id}: no runner recycling"),
            message: format!(
                "Scale set {id} has no EphemeralRunnerSet yet: ARC will create one from this spec, so no runner is recycled.\n{fields}"
            ),
        });
    }
    if let Some(error) = &item.error {
        fields.push_str(&format!("error: {error}\n"));
        return Some(Annotation {
            level: Level::Error,
            file,
            title: format!("kubectl arc diff: cannot compare scale set {id}"),
            message: format!(
                "Cannot tell whether this change recycles runners of scale set {id}.\n{fields}"
            ),
        });
    }
    let semantic: Vec<_> = item.differences.iter().filter(|d| d.semantic).collect();
    let strict: Vec<_> = item.differences.iter().filter(|d| !d.semantic).collect();
    if let Some(words) = super::diff::release_words(item) {
        return release_annotation(item, words, file, fields, layout);
    }
    if semantic.is_empty() && strict.is_empty() {
        return None;
    }
    fields.push_str(&format!(
        "semanticDrift: {}\nsemanticDifferences: {}\n",
        item.semantic_drift == Some(true),
        semantic.len()
    ));
    for d in &semantic {
        fields.push_str(&format!("  - {} ({})\n", d.path, d.reason.explain()));
    }
    fields.push_str(&format!(
        "strictOnlyDifferences: {}\n",
        item.strict_only_differences
    ));
    for d in &strict {
        fields.push_str(&format!("  - {} ({})\n", d.path, d.reason.explain()));
    }
    fields.push_str(&format!(
        "desiredFrom: {}\ncurrentFrom: {}\nlayout: {layout}\n",
        item.desired_from, item.current_from
    ));
    let impact = match &item.impact {
        Some(i) => {
            fields.push_str(&impact_fields(i));
            format!("{}.\n", impact_first(i))
        }
        None => String::new(),
    };
    Some(if item.semantic_drift == Some(true) {
        Annotation {
            level: Level::Warning,
            file,
            title: format!("ARC will recycle the idle runners of scale set {id}"),
            message: format!(
                "{impact}This change makes ARC recycle the idle and pending runners of scale set {id}: the runner spec differs under Go's Semantic equality, so ARC's controller bumps spec.actionableRevision.\n{fields}"
            ),
        }
    } else {
        Annotation {
            level: Level::Notice,
            file,
            title: format!("No runner recycling for scale set {id}"),
            message: format!(
                "This change does not make ARC recycle runners of scale set {id}: its differences are strict-only, which ARC's Semantic equality ignores.\n{fields}"
            ),
        }
    })
}

/// The impact, first in an annotation's message.
fn impact_first(i: &crate::core::impact::Impact) -> String {
    let clause = super::impact::clause(i);
    format!("Impact: {}{}", clause[..1].to_uppercase(), &clause[1..])
}

/// The impact's fields, for the annotation's list.
fn impact_fields(i: &crate::core::impact::Impact) -> String {
    let mut f = format!(
        "impact: runnersKnown: {}, deleted: {}, idle: {}, pending: {}, busy: {}, listenerRecreated: {}, jobPickupPauses: {}, waitsForJobs: {}\n",
        i.runners_known,
        i.deleted,
        i.idle,
        i.pending,
        i.busy.len(),
        i.listener_recreated,
        i.job_pickup_pauses,
        i.waits_for_jobs
    );
    if let Some(s) = &i.update_strategy {
        f.push_str(&format!(
            "updateStrategy: {} ({})\n",
            s.value.as_str(),
            s.from
        ));
    }
    f
}

/// The annotation of a release that decides by a hash: a `::warning` where it recycles, a
/// `::notice` (shown with `--show-strict`) where only the listener or strict-only differences
/// change, nothing where nothing changes.
fn release_annotation(
    item: &ScaleSetDiff,
    words: super::diff::ReleaseWords,
    file: Option<String>,
    mut fields: String,
    layout: &str,
) -> Option<Annotation> {
    let recycle = item.recycle == Some(true);
    if !recycle && item.differences.is_empty() && item.listener_restart != Some(true) {
        return None;
    }
    if let Some(m) = item.mechanism {
        fields.push_str(&format!("mechanism: {m:?}\n"));
    }
    if let Some(r) = &item.release {
        fields.push_str(&format!("release: {r}\n"));
    }
    fields.push_str(&format!("recycle: {recycle}\n"));
    hash_fields(item, &mut fields);
    if !item.scale_set_differences.is_empty() {
        fields.push_str(&format!(
            "scaleSetDifferences (live -> desired AutoscalingRunnerSet, hashed fields): {}\n",
            item.scale_set_differences.len()
        ));
        for d in &item.scale_set_differences {
            fields.push_str(&format!("  - {} ({})\n", d.path, d.reason.explain()));
        }
    }
    if let Some(l) = item.listener_restart {
        fields.push_str(&format!("listenerRestart: {l}\n"));
    }
    if let Some(u) = item.upgrade_replaces {
        fields.push_str(&format!("upgradeReplaces: {u}\n"));
    }
    let semantic: Vec<_> = item.differences.iter().filter(|d| d.semantic).collect();
    fields.push_str(&format!(
        "revision era (Semantic equality): semanticDrift: {}, {} semantic and {} strict-only differences\n",
        item.semantic_drift == Some(true),
        semantic.len(),
        item.strict_only_differences
    ));
    for d in &item.differences {
        fields.push_str(&format!("  - {} ({})\n", d.path, d.reason.explain()));
    }
    fields.push_str(&format!(
        "desiredFrom: {}\ncurrentFrom: {}\nlayout: {layout}\n",
        item.desired_from, item.current_from
    ));
    let mut message = format!(
        "{}{}.",
        words.verdict[..1].to_uppercase(),
        &words.verdict[1..]
    );
    if let Some(i) = &item.impact {
        message = format!("{}.\n{message}", impact_first(i));
        fields.push_str(&impact_fields(i));
    }
    for d in &words.details {
        message.push_str(&format!(" {}{}.", d[..1].to_uppercase(), &d[1..]));
    }
    Some(Annotation {
        level: if recycle {
            Level::Warning
        } else {
            Level::Notice
        },
        file,
        title: words.title,
        message: format!("{}{}\n{fields}", message[..1].to_uppercase(), &message[1..]),
    })
}

/// The hash fields of a release annotation: the hash that decides (a pending cleanup's stored
/// hash too), the live set's runner-spec-hash, and the other release's verdict.
fn hash_fields(item: &ScaleSetDiff, fields: &mut String) {
    let hashes = item
        .runner_spec_hash
        .as_ref()
        .map(|h| ("runnerSpecHash", h))
        .or(item.integrity_hash.as_ref().map(|h| ("integrityHash", h)));
    if let Some((name, h)) = hashes {
        fields.push_str(&format!(
            "{name}: {} -> {}\n",
            h.current.as_deref().unwrap_or("none"),
            h.desired
        ));
        if let Some(stored) = h
            .stored
            .as_deref()
            .filter(|s| Some(*s) != h.current.as_deref())
        {
            fields.push_str(&format!("{name}.stored: {stored} (a cleanup is pending)\n"));
        }
    }
    if let Some(h) = &item.live_runner_spec_hash {
        fields.push_str(&format!(
            "liveRunnerSpecHash: {h} (the set was not made from the live AutoscalingRunnerSet)\n"
        ));
    }
    if let Some(alt) = &item.alternative {
        fields.push_str(&format!(
            "alternative: ARC {} ({}): recycle: {}, runnerSpecHash: {} -> {}\n",
            alt.release,
            alt.release_from,
            alt.recycle,
            alt.runner_spec_hash.current.as_deref().unwrap_or("none"),
            alt.runner_spec_hash.desired
        ));
    }
}

/// ARC up to 0.14, a set kept: a change of fields that are not hashed reaches runners only at
/// the next replacement; always said (a `::notice`), with the bump that replaces the set now.
fn unhashed_annotation(item: &ScaleSetDiff) -> Option<Annotation> {
    if item.unhashed_changes.is_empty() || item.recycle == Some(true) {
        return None;
    }
    let id = format!("{}/{}", item.namespace, item.name);
    let file = item
        .desired_file
        .clone()
        .or_else(|| source_file(&item.desired_from).map(str::to_string));
    let words = super::diff::unhashed_words(item);
    Some(Annotation {
        level: Level::Notice,
        file,
        title: format!(
            "Scale set {id}: this change reaches runners only when the set is next replaced"
        ),
        message: format!(
            "A{}.\nrelease: {}\nunhashedChanges: {}\n",
            &words[1..],
            item.release.as_deref().unwrap_or("up to 0.14"),
            item.unhashed_changes.join(", ")
        ),
    })
}

/// The warning for a template that makes an integrity-hash-era ARC recycle runners forever.
fn recycle_loop_annotation(item: &ScaleSetDiff, layout: &str) -> Option<Annotation> {
    if item.legacy_recycle_loop != Some(true) {
        return None;
    }
    let id = format!("{}/{}", item.namespace, item.name);
    let file = source_file(&item.desired_from).map(str::to_string);
    let mut fields = format!(
        "namespace: {}\nname: {}\nlegacyRecycleLoop: true\nlegacyRecycleLoopPaths: {}\n",
        item.namespace,
        item.name,
        item.legacy_recycle_loop_fixes.len()
    );
    for f in &item.legacy_recycle_loop_fixes {
        fields.push_str(&format!("  - {}: {}\n", f.path, f.fix));
    }
    fields.push_str(&format!(
        "desiredFrom: {}\nlayout: {layout}\n",
        item.desired_from
    ));
    Some(Annotation {
        level: Level::Warning,
        file,
        title: format!(
            "Integrity-hash-era ARC would recycle the runners of scale set {id} forever"
        ),
        message: format!(
            "On an integrity-hash-era ARC this template does not survive Go's JSON round trip: the hash ARC builds in memory never matches the one it reads back, so its two controllers recycle the idle and pending runners of scale set {id} forever. Write each field as Go does. A revision-era ARC (spec.actionableRevision) does not loop.\n{fields}"
        ),
    })
}

fn write_command(out: &mut dyn Write, a: &Annotation) -> io::Result<()> {
    let mut properties = Vec::new();
    if let Some(file) = &a.file {
        properties.push(format!("file={}", escape_property(file)));
    }
    properties.push(format!("title={}", escape_property(&a.title)));
    writeln!(
        out,
        "::{} {}::{}",
        a.level.command(),
        properties.join(","),
        escape_data(a.message.trim_end())
    )
}

/// The manifest file an object was read from, from a report's `desiredFrom`/`currentFrom`
/// (`AutoscalingRunnerSet ns/name (dir/file.yaml#2[0])`): the path without the document and item
/// indexes. `None` for objects from the cluster or standard input.
fn source_file(from: &str) -> Option<&str> {
    let inner = from.strip_suffix(')')?;
    // Kinds, namespaces and names hold no spaces: the first " (" opens the source.
    let source = &inner[inner.find(" (")? + 2..];
    let mut path = source;
    if let Some(stripped) = path.strip_suffix(']') {
        let open = stripped.rfind('[')?;
        if !stripped[open + 1..].bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        path = &stripped[..open];
    }
    if let Some(hash) = path.rfind('#')
        && hash + 1 < path.len()
        && path[hash + 1..].bytes().all(|b| b.is_ascii_digit())
    {
        path = &path[..hash];
    }
    (!path.is_empty() && path != "<stdin>").then_some(path)
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_files_without_document_and_item_indexes() {
        assert_eq!(
            source_file("AutoscalingRunnerSet a/b (deploy/arc.yaml#2[0])"),
            Some("deploy/arc.yaml")
        );
        assert_eq!(
            source_file("AutoscalingRunnerSet a/b (x.yaml[3])"),
            Some("x.yaml")
        );
        assert_eq!(
            source_file("AutoscalingRunnerSet a/b (x.yaml#1)"),
            Some("x.yaml")
        );
        assert_eq!(
            source_file("AutoscalingRunnerSet a/b (my (1).yaml)"),
            Some("my (1).yaml")
        );
        assert_eq!(source_file("AutoscalingRunnerSet a/b (<stdin>#2)"), None);
        assert_eq!(source_file("AutoscalingRunnerSet a/b"), None);
        assert_eq!(source_file(""), None);
    }

    #[test]
    fn a_recycle_loop_is_its_own_warning_attached_to_the_template() {
        use crate::core::layout::Layout;
        use crate::core::recycle_loop::round_trip_of_autoscaling_runner_set;
        let l = Layout::arc();
        let check = |spec: &str| Some(round_trip_of_autoscaling_runner_set(l, spec, None));
        let item = |name: &str, spec: &str| {
            ScaleSetDiff::failed(
                "ns".into(),
                name.into(),
                format!("AutoscalingRunnerSet ns/{name} (render.yaml#{name})"),
                String::new(),
                "annotation runner-scale-set-id is missing".into(),
            )
            .with_legacy_recycle_loop(check(spec))
        };
        let report = DiffReport {
            api_version: "kubectl-arc/v1alpha1",
            kind: "DiffReport",
            layout: "v0.36.2".into(),
            arc_version: None,
            arc_version_from: None,
            defaults_from: None,
            not_in_change: 0,
            items: vec![
                item("1", r#"{"template":{"spec":{"tolerations":[]}}}"#),
                item("2", r#"{"template":{"spec":{"tolerations":null}}}"#),
            ],
            impact: None,
            runners_outside: Vec::new(),
        };
        let mut out = Vec::new();
        write_diff(
            &report,
            &[],
            &GithubOptions {
                show_strict: true,
                file: None,
            },
            &mut out,
        )
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert!(lines[0].starts_with("::error file=render.yaml,"), "{out}");
        assert!(
            lines[1].starts_with("::warning file=render.yaml,title=Integrity-hash-era ARC"),
            "{out}"
        );
        assert!(
            lines[1].contains("%0A  - spec.tolerations: drop `tolerations: []`"),
            "{out}"
        );
        assert!(lines[2].starts_with("::error "), "{out}");
        assert_eq!(
            lines[3],
            "kubectl arc diff: 2 scale sets checked; 0 would recycle runners, 0 with strict-only differences, 1 with a legacy recycle loop, 2 errors"
        );
    }

    #[test]
    fn escaping_as_the_actions_toolkit_does() {
        assert_eq!(escape_data("50%\r\nnext"), "50%25%0D%0Anext");
        assert_eq!(escape_property("ns/a: b, c"), "ns/a%3A b%2C c");
    }
}
