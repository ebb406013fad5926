//! The import graph of the layers (issue 21): every `crate::LAYER` a layer's code names is one it
//! may use, and the pure core is a crate whose manifest names no client, runtime or CLI crate.
//!
//! The layers, lowest first, and what each may use (besides the core crate, which every layer may):
//! `shell` (the process) < `input` (one object from every source) < `cluster` (the API server) <
//! `report` (what an operation found, and its outcome) < `ops` (what each command does) <
//! `render` (how a report is written) < `cli` (the commands). `report` names only `shell`: a
//! report carries the core's types (the dry run is `core::go::params::DryRun`), never a cluster
//! or input type. `render` reads reports only; of `ops` it names the push trait it implements for
//! `--watch`/`--wait` (`ops::status::follow`, as
//! ripgrep's printer implements its searcher's `Sink`) and nothing else.
//!
//! Of the cluster layer, `ops` reads objects only through its API (`cluster::api::ArcApi`, issue
//! 31): that rule needs no check here, because the free read functions behind the API server's
//! implementation (`get_resource`, `list_query_each`, `list_runners`, `check_namespace`,
//! `object_of`) are private to the cluster layer, so the compiler refuses an operation that names
//! them.
//!
//! Inside the core crate (issue 31), two halves: the Go mirror (`src/go/`) names nothing of ARC's
//! rules (`src/arc/`); the rules import the mirror.
//!
//! And no circle inside a layer (issue 31): within each layer of `src/`, the modules directly under
//! it (`ops::status`, `cluster::api`; a folder module's children count as their parent, the
//! layer's own `mod.rs` as the layer) and within the core the modules directly under each half
//! (`go::json`, `arc::status`) import each other through no circle, read from `crate::` and
//! `super::` paths. [`KNOWN_CIRCLES`] lists the circles other changes are removing; it only
//! shrinks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Which layers each layer may name, `core` and `manifest` (the core crate) aside.
const ALLOWED: &[(&str, &[&str])] = &[
    ("shell", &[]),
    ("input", &["shell"]),
    ("cluster", &["shell", "input"]),
    ("report", &["shell"]),
    ("ops", &["shell", "input", "cluster", "report"]),
    ("render", &["shell", "report", "ops::status::follow"]),
    (
        "cli",
        &["shell", "input", "cluster", "report", "ops", "render"],
    ),
];

/// The crates the core may depend on: data in, data out.
const CORE_DEPENDENCIES: &[&str] = &[
    "granit-parser",
    "num-bigint",
    "num-integer",
    "num-traits",
    "serde",
    "serde_json",
    "thiserror",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The layer a source file belongs to: `src/LAYER.rs` or `src/LAYER/...`.
fn layer_of(path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root().join("src")).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    Some(first.trim_end_matches(".rs").to_string())
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file, line for line: comments (doc links included) blanked, a trailing `//`
/// comment cut off, and nothing from the unit tests at the end of the file on
/// (`#[cfg(test)] mod tests`): a test may build its inputs with anything.
fn code_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = String::new();
    for (n, line) in lines.iter().enumerate() {
        let line = line.trim_start();
        let next = lines[n + 1..]
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty());
        if line.starts_with("#[cfg(test)]") && next.is_some_and(|l| l.starts_with("mod ")) {
            break;
        }
        if !line.starts_with("//") {
            code.push_str(line.split("//").next().unwrap_or_default());
        }
        code.push('\n');
    }
    code
}

/// The line (from 1) of a byte offset in a text.
fn line_at(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// The paths a file's code names as `crate::LAYER::MODULE::...` (or `crate::LAYER`), each with
/// the first line naming it, read from its [`code_of`].
fn named_layers(text: &str) -> BTreeMap<String, usize> {
    let code = code_of(text);
    let mut named = BTreeMap::new();
    for (at, path) in paths_in(&code) {
        if path[0] == "crate" && path.len() > 1 {
            named
                .entry(path[1..].join("::"))
                .or_insert_with(|| line_at(&code, at));
        }
    }
    named
}

/// Every path in code that starts at `crate::`, `super::` or `self::`, as its segments
/// (`["super", "follow", "FollowSink"]`), with the byte offset where it starts. A group is one
/// path per item (`crate::cluster::{self, write::DryRun}` is `crate::cluster` and
/// `crate::cluster::write::DryRun`), over several lines too; a glob ends at its module.
fn paths_in(code: &str) -> Vec<(usize, Vec<String>)> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut found = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (i, _) in code.match_indices(start) {
            // A word of its own: not `$crate::`, `my_crate::` or `a::self::`.
            if code[..i]
                .chars()
                .next_back()
                .is_some_and(|c| ident(c) || c == '$' || c == ':')
            {
                continue;
            }
            for path in expand(&code[i..]) {
                found.push((i, path));
            }
        }
    }
    found.sort();
    found
}

/// The paths a use-tree at the start of `text` names (`a::b::{c, d::e}` is `a::b::c` and
/// `a::b::d::e`; `self` in a group is the group's own module).
fn expand(text: &str) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        let segment: String = rest.chars().take_while(|&c| ident(c)).collect();
        if segment.is_empty() {
            break;
        }
        rest = &rest[segment.len()..];
        segments.push(segment);
        match rest.strip_prefix("::") {
            Some(after) => rest = after.trim_start(),
            None => return vec![segments],
        }
    }
    let Some(group) = rest.strip_prefix('{') else {
        // A glob, or `::` before something else (`::<T>`): the path so far.
        return vec![segments];
    };
    let (mut depth, mut item, mut items) = (0, String::new(), Vec::new());
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    let mut paths = Vec::new();
    for item in items.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
        for tail in expand(item) {
            let mut path = segments.clone();
            path.extend(tail.into_iter().filter(|s| s != "self"));
            paths.push(path);
        }
    }
    paths
}

/// The paths of one file of `layer` that it may not name: (how many paths it names, each arrow as
/// `line: layer uses crate::path`). `may` holds layers (`report`) and modules (`ops::follow`, which
/// allows what is inside it too).
fn upward(layer: &str, may: &BTreeSet<&str>, text: &str) -> (usize, Vec<String>) {
    let named = named_layers(text);
    let mut arrows = Vec::new();
    for (path, line) in &named {
        let top = path.split("::").next().unwrap_or_default();
        if top == layer || top == "core" || top == "manifest" {
            continue;
        }
        let allowed = may
            .iter()
            .any(|m| path == m || path.starts_with(&format!("{m}::")));
        if !allowed {
            arrows.push(format!("{line}: {layer} uses crate::{path}"));
        }
    }
    (named.len(), arrows)
}

/// The check itself sees an arrow up, a read of `ops` beyond the push trait, and code after a
/// test-only item; comments and the unit tests at the end are not code it checks; `report` may
/// name no cluster or input type, and `render` no input type.
#[test]
fn the_check_sees_what_it_forbids() {
    let render: BTreeSet<&str> = ["shell", "report", "ops::status::follow"].into();
    let ok = "use crate::ops::status::follow::FollowSink;\nuse crate::report::Outcome;\n";
    assert_eq!(upward("render", &render, ok), (2, vec![]));
    let ok = "use crate::ops::status::follow::{Ending, FollowSink};\n";
    assert_eq!(upward("render", &render, ok), (2, vec![]));
    // A group is read item by item, over several lines too.
    let text = "use crate::{\n    report::Outcome,\n    input::{self, Object},\n};\n";
    let (_, up) = upward("render", &render, text);
    assert_eq!(
        up,
        [
            "1: render uses crate::input",
            "1: render uses crate::input::Object"
        ]
    );
    let (_, up) = upward("render", &render, "use crate::ops::status::Plan;\n");
    assert_eq!(up, ["1: render uses crate::ops::status::Plan"]);
    let text = "// crate::cli::x in a comment\nlet a = crate::cli::Outcome::Clean;\n";
    let (_, up) = upward("render", &render, text);
    assert_eq!(up, ["2: render uses crate::cli::Outcome::Clean"]);
    let text = "#[cfg(test)]\nfn only_in_tests() {}\n\nuse crate::cli::run;\n#[cfg(test)]\nmod tests {\n    use crate::cli::x;\n}\n";
    let (_, up) = upward("render", &render, text);
    assert_eq!(up, ["4: render uses crate::cli::run"]);
    let text =
        "let o = crate::input::Object::from_manifest(&v, crate::input::Origin::Cluster, None);\n";
    let (_, up) = upward("render", &render, text);
    assert_eq!(
        up,
        [
            "1: render uses crate::input::Object::from_manifest",
            "1: render uses crate::input::Origin::Cluster"
        ]
    );
    let report: BTreeSet<&str> = ["shell"].into();
    let text = "use crate::core::go::params::DryRun;\nuse crate::cluster::write::DryRun;\n";
    let (named, up) = upward("report", &report, text);
    assert_eq!(
        (named, up),
        (
            2,
            vec!["2: report uses crate::cluster::write::DryRun".to_string()]
        )
    );
    // `$crate::` and `my_crate::` are not this crate's paths.
    assert_eq!(
        upward("report", &report, "$crate::cli::x; my_crate::cli::y;\n"),
        (0, vec![])
    );
}

#[test]
fn no_layer_names_a_layer_above_it() {
    let allowed: BTreeMap<&str, BTreeSet<&str>> = ALLOWED
        .iter()
        .map(|(l, a)| (*l, a.iter().copied().collect()))
        .collect();
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    files.sort();
    let mut checked = 0;
    let mut arrows = Vec::new();
    for file in &files {
        let Some(layer) = layer_of(file) else {
            continue;
        };
        let Some(may) = allowed.get(layer.as_str()) else {
            // lib.rs, main.rs and the binaries sit above every layer.
            assert!(
                matches!(layer.as_str(), "lib" | "main" | "bin"),
                "{}: a layer this test does not know ({layer}): add it to ALLOWED",
                file.display()
            );
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        let (named, up) = upward(&layer, may, &text);
        checked += named;
        arrows.extend(up.into_iter().map(|u| format!("{}:{u}", file.display())));
    }
    assert!(
        checked > 100,
        "only {checked} crate:: paths found: is the source tree there?"
    );
    assert!(
        arrows.is_empty(),
        "arrows the layering does not allow:\n{}",
        arrows.join("\n")
    );
}

/// The core crate's own manifest: its dependencies are data crates only, so no kube, k8s-openapi,
/// tokio or clap can reach it, and its code names no crate but those.
#[test]
fn the_core_crate_depends_on_no_client_runtime_or_cli_crate() {
    let manifest =
        std::fs::read_to_string(root().join("crates/kubectl-arc-core/Cargo.toml")).unwrap();
    let mut in_deps = false;
    let mut deps = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps && !line.is_empty() && !line.starts_with('#') {
            deps.push(line.split([' ', '=']).next().unwrap().to_string());
        }
    }
    assert!(
        !deps.is_empty(),
        "no [dependencies] read from the core's manifest"
    );
    for dep in &deps {
        assert!(
            CORE_DEPENDENCIES.contains(&dep.as_str()),
            "the core crate depends on {dep}: the core takes data and returns data"
        );
    }
    // And its code names no other crate (a path dependency or a re-export could sneak one in).
    let mut files = Vec::new();
    rust_files(&root().join("crates/kubectl-arc-core/src"), &mut files);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for forbidden in [
            "kube::",
            "k8s_openapi::",
            "tokio::",
            "clap::",
            "kubectl_arc::",
        ] {
            assert!(
                !text
                    .lines()
                    .any(|l| !l.trim_start().starts_with("//") && l.contains(forbidden)),
                "{} names {forbidden}",
                file.display()
            );
        }
    }
}

/// `cargo tree` of the core crate, as the issue asks it to be shown: nothing of kube, k8s-openapi,
/// tokio or clap in its whole dependency graph (the manifest check above is the direct edges).
#[test]
fn cargo_tree_of_the_core_crate_has_no_client_runtime_or_cli_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = std::process::Command::new(cargo)
        .current_dir(root())
        .args([
            "tree",
            "--offline",
            "--locked",
            "-p",
            "kubectl-arc-core",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).unwrap();
    let crates: BTreeSet<&str> = tree.lines().filter_map(|l| l.split(' ').next()).collect();
    assert!(
        crates.contains("kubectl-arc-core") && crates.contains("serde_json"),
        "{tree}"
    );
    for forbidden in [
        "kube",
        "kube-client",
        "k8s-openapi",
        "tokio",
        "clap",
        "hyper",
        "rustls",
    ] {
        assert!(
            !crates.contains(forbidden),
            "the core crate's tree holds {forbidden}:\n{tree}"
        );
    }
}

/// The circles inside a layer known today, each being removed by a change of its own (issue 31):
/// the list only shrinks. A circle not listed fails [`no_circle_forms_inside_a_layer`], and so
/// does a listed one that no longer exists.
const KNOWN_CIRCLES: &[&str] = &[];

/// What the paths of one crate resolve in: the modules directly under each layer (or half), and
/// the names its root re-exports from a half (the core's `pub use go::{json, ...}`).
#[derive(Default)]
struct Tree {
    children: BTreeMap<String, BTreeSet<String>>,
    reexported: BTreeMap<String, String>,
}

impl Tree {
    /// The tree of the folder `dir` (`src/` or the core's `src/`) for the layers or halves `tops`.
    fn of(dir: &Path, tops: &[&str], reexported: bool) -> Tree {
        let mut tree = Tree::default();
        for top in tops {
            let mut children = BTreeSet::new();
            if let Ok(entries) = std::fs::read_dir(dir.join(top)) {
                for entry in entries {
                    let path = entry.unwrap().path();
                    let name = path.file_stem().unwrap().to_str().unwrap().to_string();
                    if (path.is_dir() || path.extension().is_some_and(|e| e == "rs"))
                        && name != "mod"
                    {
                        children.insert(name);
                    }
                }
            }
            if reexported {
                for child in &children {
                    tree.reexported.insert(child.clone(), top.to_string());
                }
            }
            tree.children.insert(top.to_string(), children);
        }
        tree
    }

    /// The node a path from the crate's root names: `LAYER::MODULE` for a module directly under
    /// a layer (`ops::status`, whatever it names inside it), `LAYER` for the layer's own items,
    /// `None` for what is in no layer (the crate's root, another crate).
    fn node(&self, path: &[String]) -> Option<String> {
        let first = path.first()?;
        let (top, rest) = if self.children.contains_key(first) {
            (first, &path[1..])
        } else {
            (self.reexported.get(first)?, path)
        };
        match rest.first() {
            Some(module) if self.children[top].contains(module) => Some(format!("{top}::{module}")),
            _ => Some(top.clone()),
        }
    }
}

/// One source file: its module path from its crate's root (`["ops", "status"]` for
/// `src/ops/status.rs`, `["ops"]` for `src/ops/mod.rs`, none for `lib.rs`) and its text.
struct Source {
    file: String,
    module: Vec<String>,
    text: String,
}

impl Source {
    fn read(root: &Path, file: &Path) -> Source {
        let rel = file.strip_prefix(root).unwrap();
        let mut module: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_str().unwrap().to_string())
            .collect();
        if matches!(
            module.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            module.pop();
        }
        Source {
            file: rel.display().to_string(),
            module,
            text: std::fs::read_to_string(file).unwrap(),
        }
    }

    /// A file of unit tests only (`tests.rs`, `*_tests.rs`): compiled for the tests, where a test
    /// may build its inputs with anything.
    fn is_test(&self) -> bool {
        self.module
            .last()
            .is_some_and(|m| m == "tests" || m.ends_with("_tests"))
    }

    /// Every path the file's code names, resolved from the crate's root (`super::follow::X` in
    /// `ops/status.rs` is `ops::follow::X`), with its line.
    fn paths(&self) -> Vec<(usize, Vec<String>)> {
        let code = code_of(&self.text);
        let mut out = Vec::new();
        for (offset, path) in paths_in(&code) {
            let mut at: Vec<String> = Vec::new();
            let mut rest = &path[..];
            if path[0] == "crate" {
                rest = &path[1..];
            } else {
                at = self.module.clone();
                while let Some(step) = rest.first() {
                    match step.as_str() {
                        "super" => {
                            at.pop();
                        }
                        "self" => {}
                        _ => break,
                    }
                    rest = &rest[1..];
                }
            }
            at.extend(rest.iter().cloned());
            out.push((line_at(&code, offset), at));
        }
        out
    }
}

/// The arrows between the nodes of one layer (or of the core): (from, to) with the first
/// `file:line` that draws each.
fn arrows(tree: &Tree, sources: &[Source]) -> BTreeMap<(String, String), String> {
    let mut arrows = BTreeMap::new();
    for source in sources.iter().filter(|s| !s.is_test()) {
        let Some(from) = tree.node(&source.module) else {
            continue;
        };
        let layer = |node: &str| node.split("::").next().unwrap_or_default().to_string();
        for (line, path) in source.paths() {
            let Some(to) = tree.node(&path) else {
                continue;
            };
            if to != from && layer(&to) == layer(&from) {
                arrows
                    .entry((from.clone(), to))
                    .or_insert_with(|| format!("{}:{line}", source.file));
            }
        }
    }
    arrows
}

/// The circles of the graph: each strongly connected component of more than one node, its nodes
/// sorted and joined by ` <-> `, with the arrows that close it.
fn circles(arrows: &BTreeMap<(String, String), String>) -> BTreeMap<String, Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in arrows.keys() {
        next.entry(from).or_default().push(to);
        next.entry(to).or_default();
    }
    let reach = |start: &str| {
        let mut seen = BTreeSet::from([start.to_string()]);
        let mut todo = vec![start.to_string()];
        while let Some(node) = todo.pop() {
            for n in &next[node.as_str()] {
                if seen.insert(n.to_string()) {
                    todo.push(n.to_string());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&str, BTreeSet<String>> = next.keys().map(|&n| (n, reach(n))).collect();
    let mut found = BTreeMap::new();
    for &node in next.keys() {
        let component: BTreeSet<&str> = next
            .keys()
            .copied()
            .filter(|&other| reached[node].contains(other) && reached[other].contains(node))
            .collect();
        if component.len() > 1 {
            let drawn = arrows
                .iter()
                .filter(|((f, t), _)| {
                    component.contains(f.as_str()) && component.contains(t.as_str())
                })
                .map(|((f, t), at)| format!("{f} -> {t} ({at})"))
                .collect();
            let name = component.into_iter().collect::<Vec<_>>().join(" <-> ");
            found.insert(name, drawn);
        }
    }
    found
}

/// What [`no_circle_forms_inside_a_layer`] says of the circles found against the known ones: the
/// circles not known (with their arrows), then the known ones gone.
fn circles_against(found: &BTreeMap<String, Vec<String>>, known: &[&str]) -> Vec<String> {
    let mut said: Vec<String> = found
        .iter()
        .filter(|(name, _)| !known.contains(&name.as_str()))
        .map(|(name, drawn)| format!("a circle: {name}: {}", drawn.join(", ")))
        .collect();
    said.extend(
        known
            .iter()
            .filter(|k| !found.contains_key(**k))
            .map(|k| format!("{k} is no circle any more: take it out of KNOWN_CIRCLES")),
    );
    said
}

/// The mirror's paths to the rules: each as `file:line names crate::PATH`.
fn mirror_names_rules(tree: &Tree, sources: &[Source]) -> Vec<String> {
    let mut named = Vec::new();
    for source in sources
        .iter()
        .filter(|s| s.module.first().is_some_and(|m| m == "go"))
    {
        for (line, path) in source.paths() {
            if tree
                .node(&path)
                .is_some_and(|n| n == "arc" || n.starts_with("arc::"))
            {
                named.push(format!(
                    "{}:{line} names crate::{}",
                    source.file,
                    path.join("::")
                ));
            }
        }
    }
    named
}

fn sources_of(dir: &Path) -> Vec<Source> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files.sort();
    files.iter().map(|f| Source::read(dir, f)).collect()
}

fn layers_tree() -> Tree {
    let layers: Vec<&str> = ALLOWED.iter().map(|(l, _)| *l).collect();
    Tree::of(&root().join("src"), &layers, false)
}

fn core_tree() -> Tree {
    Tree::of(
        &root().join("crates/kubectl-arc-core/src"),
        &["go", "arc"],
        true,
    )
}

/// The graph checks see what they forbid: a circle (through `super::` and `crate::` paths, a
/// folder's files counting as the folder), a known circle gone, the mirror naming the rules
/// directly or through the core's root; test files and comments are not read.
#[test]
fn the_graph_checks_see_what_they_forbid() {
    let source = |file: &str, module: &[&str], text: &str| Source {
        file: file.into(),
        module: module.iter().map(|m| m.to_string()).collect(),
        text: text.into(),
    };
    let mut tree = Tree::default();
    tree.children.insert(
        "ops".into(),
        ["status", "follow", "diff"].map(String::from).into(),
    );
    let sources = [
        source(
            "ops/status/gather.rs",
            &["ops", "status", "gather"],
            "use super::super::follow::Sink;\n",
        ),
        source(
            "ops/follow.rs",
            &["ops", "follow"],
            "use crate::ops::diff::Plan;\n// crate::ops::status\n",
        ),
        source(
            "ops/diff.rs",
            &["ops", "diff"],
            "let s = super::status::row();\n",
        ),
        source("ops/mod.rs", &["ops"], "pub(crate) fn runtime() {}\n"),
        source(
            "ops/status/tests.rs",
            &["ops", "status", "tests"],
            "use crate::ops::diff::x;\n",
        ),
    ];
    let drawn = arrows(&tree, &sources);
    assert_eq!(
        drawn
            .keys()
            .map(|(f, t)| format!("{f} -> {t}"))
            .collect::<Vec<_>>(),
        [
            "ops::diff -> ops::status",
            "ops::follow -> ops::diff",
            "ops::status -> ops::follow"
        ]
    );
    let found = circles(&drawn);
    let name = "ops::diff <-> ops::follow <-> ops::status";
    assert_eq!(found.keys().collect::<Vec<_>>(), [name]);
    assert_eq!(
        found[name][2],
        "ops::status -> ops::follow (ops/status/gather.rs:1)"
    );
    assert!(circles_against(&found, &[name]).is_empty());
    assert_eq!(
        circles_against(&found, &[]),
        [format!("a circle: {name}: {}", found[name].join(", "))]
    );
    assert_eq!(
        circles_against(&BTreeMap::new(), &[name]),
        [format!(
            "{name} is no circle any more: take it out of KNOWN_CIRCLES"
        )]
    );
    // No circle without the arrow back.
    assert!(circles(&arrows(&tree, &sources[..2])).is_empty());

    let mut core = Tree::default();
    core.children
        .insert("go".into(), ["json", "value"].map(String::from).into());
    core.children
        .insert("arc".into(), ["release", "status"].map(String::from).into());
    for (name, half) in [
        ("json", "go"),
        ("value", "go"),
        ("release", "arc"),
        ("status", "arc"),
    ] {
        core.reexported.insert(name.into(), half.into());
    }
    let mirror = [
        source(
            "go/value.rs",
            &["go", "value"],
            "use crate::json::Reader;\nuse crate::release::ArcRelease;\n",
        ),
        source(
            "go/json.rs",
            &["go", "json"],
            "// [`crate::arc::status`]\nlet k = crate::arc::KIND;\n",
        ),
        source(
            "arc/status/mod.rs",
            &["arc", "status"],
            "use crate::go::value::Value;\n",
        ),
    ];
    assert_eq!(
        mirror_names_rules(&core, &mirror),
        [
            "go/value.rs:2 names crate::release::ArcRelease",
            "go/json.rs:2 names crate::arc::KIND"
        ]
    );
}

/// The Go mirror of the core names nothing of ARC's rules: the rules are built on it.
#[test]
fn the_mirror_names_no_rule() {
    let sources = sources_of(&root().join("crates/kubectl-arc-core/src"));
    let tree = core_tree();
    assert!(
        tree.children["go"].contains("json") && tree.children["arc"].contains("status"),
        "the core's two halves are not where this test looks"
    );
    // Every file of the core is in one half (lib.rs aside).
    let outside: Vec<&str> = sources
        .iter()
        .filter(|s| !s.module.is_empty() && tree.node(&s.module[..1]).is_none())
        .map(|s| s.file.as_str())
        .collect();
    assert!(
        outside.is_empty(),
        "core files in neither half (src/go/: the Go mirror, src/arc/: ARC's rules): {outside:?}"
    );
    let named = mirror_names_rules(&tree, &sources);
    assert!(
        named.is_empty(),
        "the Go mirror names ARC's rules:\n{}",
        named.join("\n")
    );
}

/// No circle of imports inside a layer of `src/`, nor inside the core, but those being removed.
#[test]
fn no_circle_forms_inside_a_layer() {
    let main = arrows(&layers_tree(), &sources_of(&root().join("src")));
    let core = arrows(
        &core_tree(),
        &sources_of(&root().join("crates/kubectl-arc-core/src")),
    );
    assert!(
        main.len() > 50 && core.len() > 50,
        "only {} and {} arrows found: is the source tree there?",
        main.len(),
        core.len()
    );
    let mut found = circles(&main);
    found.extend(circles(&core));
    let said = circles_against(&found, KNOWN_CIRCLES);
    assert!(said.is_empty(), "{}", said.join("\n"));
}
