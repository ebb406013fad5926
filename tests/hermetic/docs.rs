//! The README and the pages of `docs/` (issue 24): every relative link resolves to a file and, with
//! a `#fragment`, to a heading of it; the README links every page; and what the README shows of a
//! page is the page's own text.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every `docs/*.md`.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages.insert(0, root().join("README.md"));
    pages
}

/// The lines of a Markdown text outside fenced code blocks, with inline code spans emptied.
fn prose(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut kept = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                kept.push_str(part);
            }
        }
        out.push(kept);
    }
    out
}

/// GitHub's anchor of a heading: lower case, spaces as hyphens, punctuation other than `-` and `_`
/// dropped (backticks included).
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .replace(' ', "-")
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            let heading = line.trim_start_matches('#');
            if heading.starts_with(' ') {
                out.insert(anchor(heading));
            }
        }
    }
    out
}

/// The targets of the `[text](target)` links of a page's prose.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        let mut rest = line.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// The relative links of `text` (a page in `dir`) that name no file, or no heading of it.
fn broken(dir: &Path, this: &Path, text: &str) -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut broken = Vec::new();
    for target in links(text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        checked += 1;
        let (path, fragment) = match target.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() {
            this.to_path_buf()
        } else {
            dir.join(path)
        };
        if !file.exists() {
            broken.push(format!("{target}: no file {}", file.display()));
            continue;
        }
        if let Some(fragment) = fragment {
            let headings = anchors(&std::fs::read_to_string(&file).unwrap());
            if !headings.contains(fragment) {
                broken.push(format!("{target}: no heading #{fragment} in {path}"));
            }
        }
    }
    (checked, broken)
}

#[test]
fn the_link_check_sees_a_missing_file_and_a_missing_heading() {
    let docs = root().join("docs");
    let text = "[a](diff.md) [b](nope.md) [c](diff.md#the-json-report) [d](diff.md#nope) \
                [e](https://example.com) `[f](inside-code.md)`\n```\n[g](fenced.md)\n```\n";
    let (checked, broken) = broken(&docs, &docs.join("x.md"), text);
    assert_eq!(checked, 4, "{broken:?}");
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(broken[0].starts_with("nope.md"), "{broken:?}");
    assert!(broken[1].starts_with("diff.md#nope"), "{broken:?}");
    assert_eq!(
        anchor(" `-o github`: pull-request annotations"),
        "-o-github-pull-request-annotations"
    );
}

#[test]
fn every_relative_link_of_the_readme_and_docs_resolves() {
    let mut checked = 0;
    let mut all = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let (n, broken) = broken(page.parent().unwrap(), &page, &text);
        checked += n;
        all.extend(
            broken
                .into_iter()
                .map(|b| format!("{}: {b}", page.display())),
        );
    }
    assert!(checked > 20, "only {checked} relative links found");
    assert!(all.is_empty(), "broken links:\n{}", all.join("\n"));
}

/// "Where to go next": the README links every page of docs/.
#[test]
fn the_readme_links_every_docs_page() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let linked: BTreeSet<String> = links(&readme)
        .into_iter()
        .map(|l| l.split('#').next().unwrap().to_string())
        .collect();
    let pages = pages();
    assert!(pages.len() > 10, "{pages:?}");
    for page in &pages[1..] {
        let name = format!("docs/{}", page.file_name().unwrap().to_str().unwrap());
        assert!(linked.contains(&name), "the README does not link {name}");
    }
}

/// The README's pull-request step is docs/diff.md's, word for word (the testsuite runs the README's
/// `kubectl arc diff` line against a real cluster: `render_cluster.rs`).
#[test]
fn the_readmes_pull_request_step_is_the_diff_pages() {
    let block = |file: &str| -> String {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let start = text
            .find("```yaml\n# A workflow step: annotate the pull request")
            .unwrap_or_else(|| panic!("{file} has the pull-request step"));
        let block = &text[start..];
        block[..block[3..].find("```").unwrap() + 6].to_string()
    };
    let readme = block("README.md");
    assert!(
        readme.contains("kubectl arc diff -f rendered.yaml --live current.yaml -o github"),
        "{readme}"
    );
    assert_eq!(readme, block("docs/diff.md"));
}

/// docs/completion.md's example is what the completer answers (issue 30: it had gone stale): the
/// words after `kubectl_complete-arc` asked through `kubectl-arc __complete`, which kubectl's
/// completer runs.
#[test]
fn the_completion_pages_example_is_what_the_completer_answers() {
    let text = std::fs::read_to_string(root().join("docs/completion.md")).unwrap();
    let start = text
        .find("```console\n$ kubectl_complete-arc ")
        .expect("docs/completion.md has a kubectl_complete-arc example");
    let block = &text[start + "```console\n$ kubectl_complete-arc ".len()..];
    let block = &block[..block.find("```").unwrap()];
    let (command, shown) = block.split_once('\n').unwrap();
    let mut args = vec!["__complete".to_string()];
    args.extend(command.split(' ').map(|w| w.trim_matches('"').to_string()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-arc"))
        .args(&args)
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .env("HOME", "/nonexistent")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), shown, "{args:?}");
}
