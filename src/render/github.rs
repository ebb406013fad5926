//! `kubectl arc diff -o github`: GitHub Actions workflow commands, which a workflow step turns into
//! annotations on the run and its pull request.
//!
//! Rendering layer: takes a [`DiffReport`], writes to the writer it is given. One command per scale
//! set that needs attention:
//! - `::warning` when ARC would recycle the idle and pending runners (semantic drift);
//! - `::notice` when only strict-only differences remain (ARC will not act);
//! - `::error` when the scale set could not be compared;
//!
//! and nothing for a scale set with no difference. A last plain line summarises the run. Fields
//! follow the JSON report's names. The syntax and escaping are GitHub's "workflow commands":
//! `::warning file=F,title=T::MESSAGE`, with `%`, CR and LF escaped in the message and also `:` and
//! `,` in properties.

use std::io::{self, Write};

use super::diff::{DiffReport, ScaleSetDiff};

/// Write one workflow command per scale set that needs attention, and a summary line.
pub fn write_diff(report: &DiffReport, out: &mut dyn Write) -> io::Result<()> {
    let (mut recycle, mut strict_only, mut errors) = (0, 0, 0);
    let new = report.items.iter().filter(|i| i.new).count();
    for item in &report.items {
        let Some(annotation) = annotation(item, &report.layout) else {
            continue;
        };
        match annotation.level {
            Level::Warning => recycle += 1,
            Level::Notice if !item.new => strict_only += 1,
            Level::Notice => {}
            Level::Error => errors += 1,
        }
        write_command(out, &annotation)?;
    }
    writeln!(
        out,
        "kubectl arc diff: {} scale {} checked; {recycle} would recycle runners, {strict_only} with strict-only differences, {}{errors} {}",
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
    let file = item.desired_file.clone().or_else(|| {
        source_file(&item.desired_from)
            .or_else(|| source_file(&item.current_from))
            .map(str::to_string)
    });
    let mut fields = format!("namespace: {}\nname: {}\n", item.namespace, item.name);
    if item.new {
        fields.push_str(&format!("new: true\ndesiredFrom: {}\n", item.desired_from));
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
    Some(if item.semantic_drift == Some(true) {
        Annotation {
            level: Level::Warning,
            file,
            title: format!("ARC will recycle the idle runners of scale set {id}"),
            message: format!(
                "This change makes ARC recycle the idle and pending runners of scale set {id}: the runner spec differs under Go's Semantic equality, so ARC's controller bumps spec.actionableRevision.\n{fields}"
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
    fn escaping_as_the_actions_toolkit_does() {
        assert_eq!(escape_data("50%\r\nnext"), "50%25%0D%0Anext");
        assert_eq!(escape_property("ns/a: b, c"), "ns/a%3A b%2C c");
    }
}
