//! The import graph of the layers (issue 21): every `crate::LAYER` a layer's code names is one it
//! may use, and the pure core is a crate whose manifest names no client, runtime or CLI crate.
//!
//! The layers, lowest first, and what each may use (besides the core crate, which every layer may):
//! `shell` (the process) < `input` (one object from every source) < `cluster` (the API server) <
//! `report` (what an operation found, and its outcome) < `ops` (what each command does) <
//! `render` (how a report is written) < `cli` (the commands). `render` reads reports only; of
//! `ops` it names the push trait it implements for `--watch`/`--wait` (`ops::status::follow`, as
//! ripgrep's printer implements its searcher's `Sink`) and nothing else.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Which layers each layer may name, `core` and `manifest` (the core crate) aside.
const ALLOWED: &[(&str, &[&str])] = &[
    ("shell", &[]),
    ("input", &["shell"]),
    ("cluster", &["shell", "input"]),
    ("report", &["shell", "input", "cluster"]),
    ("ops", &["shell", "input", "cluster", "report"]),
    (
        "render",
        &["shell", "input", "cluster", "report", "ops::status::follow"],
    ),
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

/// The paths a file's code names, each whole (`crate::LAYER::MODULE::...`), with the first
/// line naming each; comments (doc links included) aside, and the unit tests at the end of a file
/// too (`#[cfg(test)] mod tests`): a test may build its inputs with anything.
fn named_layers(text: &str) -> BTreeMap<String, usize> {
    let mut named = BTreeMap::new();
    let lines: Vec<&str> = text.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let next = lines[n + 1..]
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty());
        if code.starts_with("#[cfg(test)]") && next.is_some_and(|l| l.starts_with("mod ")) {
            break;
        }
        if code.starts_with("//") {
            continue;
        }
        let code = code.split("//").next().unwrap_or_default();
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let segment = |s: &str| -> String {
                s.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect()
            };
            // The whole path (`ops::status::follow::FollowSink`): a module may be allowed where
            // its parent is not.
            let mut name = segment(after);
            let mut tail = &after[name.len()..];
            while let Some(next) = tail.strip_prefix("::").map(segment)
                && !next.is_empty()
            {
                tail = &tail["::".len() + next.len()..];
                name = format!("{name}::{next}");
            }
            // `crate::{a, b}` is not used in this code base; say so if it appears.
            assert!(
                !name.is_empty(),
                "line {}: a grouped crate:: import is not checked: {line}",
                n + 1
            );
            named.entry(name).or_insert(n + 1);
            rest = after;
        }
    }
    named
}

/// The paths of one file of `layer` that it may not name: (how many paths it names, each arrow as
/// `line: layer uses crate::path`). `may` holds layers (`report`) and modules
/// (`ops::status::follow`, which allows what is inside it too).
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
/// test-only item; comments and the unit tests at the end are not code it checks.
#[test]
fn the_check_sees_what_it_forbids() {
    let render: BTreeSet<&str> =
        ["shell", "input", "cluster", "report", "ops::status::follow"].into();
    let ok = "use crate::ops::status::follow::FollowSink;\nuse crate::report::Outcome;\n";
    assert_eq!(upward("render", &render, ok), (2, vec![]));
    let (_, up) = upward("render", &render, "use crate::ops::status::Plan;\n");
    assert_eq!(up, ["1: render uses crate::ops::status::Plan"]);
    let text = "// crate::cli::x in a comment\nlet a = crate::cli::Outcome::Clean;\n";
    let (_, up) = upward("render", &render, text);
    assert_eq!(up, ["2: render uses crate::cli::Outcome::Clean"]);
    let text = "#[cfg(test)]\nfn only_in_tests() {}\n\nuse crate::cli::run;\n#[cfg(test)]\nmod tests {\n    use crate::cli::x;\n}\n";
    let (_, up) = upward("render", &render, text);
    assert_eq!(up, ["4: render uses crate::cli::run"]);
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
