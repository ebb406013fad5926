//! No function over 100 lines, and none over 150 in the Go mirrors (issue 31; docs/conventions.md).
//!
//! Every `fn` item of the library code (`src/` and `crates/kubectl-arc-core/src/`: free functions,
//! methods and nested functions alike) is measured from its `fn` line to its closing brace. The
//! braces are matched on the code alone: comments and string, byte-string, raw-string and char
//! literals are blanked first, so a `"{"` or a `'}'` moves nothing. Unit tests (a
//! `#[cfg(test)] mod` block, or a file named `tests.rs` or `*_tests.rs`) are not measured.

use std::path::{Path, PathBuf};

/// The longest a function may be, in lines.
const LIMIT: usize = 100;

/// The longest a function of a Go mirror may be: code that follows a Go function step for step is
/// easier to check against it whole.
const MIRROR_LIMIT: usize = 150;

/// The folder of the core crate that mirrors Go's own library code (`src/go/`), each module doc
/// naming what it mirrors: Go values and encoding/json, go-yaml v2's resolver and the manifest
/// reader built on it, apimachinery's quantities, names and selectors, go-spew with FNV
/// (`legacy_hash`), net/url, time, the three equalities, the type layout (encoding/json's
/// `typeFields`), the API server's structural defaulting and kubectl's dry run. Every file under it
/// is a mirror; ARC's own rules (`src/arc/`: its spec hashes among them) are not.
const MIRROR: &str = "go";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
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

/// The text with every comment and literal replaced by spaces, line breaks kept, so that what is
/// left is code whose braces balance and whose lines are the text's lines.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    // Blank `chars[from..to]`, keeping line breaks.
    let blank = |out: &mut String, from: usize, to: usize| {
        for &c in &chars[from..to.min(chars.len())] {
            out.push(if c == '\n' { '\n' } else { ' ' });
        }
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let after_ident = i > 0 && ident(chars[i - 1]);
        if c == '/' && next == Some('/') {
            let end = chars[i..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(chars.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if c == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let (mut j, mut depth) = (i + 2, 1);
            while j < chars.len() && depth > 0 {
                if chars[j] == '/' && chars.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if chars[j] == '*' && chars.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if !after_ident && let Some(end) = raw_string_end(&chars, i) {
            blank(&mut out, i, end);
            i = end;
        } else if c == '"' || (c == 'b' && next == Some('"') && !after_ident) {
            let mut j = if c == 'b' { i + 2 } else { i + 1 };
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if c == '\'' || (c == 'b' && next == Some('\'') && !after_ident) {
            let open = if c == 'b' { i + 1 } else { i };
            match char_literal_end(&chars, open) {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                // A lifetime or a label: code.
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Where a raw string starting at `i` (`r"…"`, `r#"…"#`, `br##"…"##`) ends, if one starts there.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"'
            && chars[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(chars.len())
}

/// Where a char literal whose quote is at `open` ends (`'a'`, `'\n'`, `'\u{7f}'`, `'{'`), or
/// `None` for a lifetime or a label (`'a`, `'static`, `'outer:`).
fn char_literal_end(chars: &[char], open: usize) -> Option<usize> {
    match chars.get(open + 1)? {
        '\\' => {
            let close = chars.get(open + 3..)?.iter().position(|&c| c == '\'')?;
            Some(open + 3 + close + 1)
        }
        _ => (chars.get(open + 2) == Some(&'\'')).then_some(open + 3),
    }
}

/// One measured function: its name, its first line (1-based) and its length in lines.
#[derive(Debug, PartialEq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// Every `fn` item of `text` with a body, unit-test modules (`#[cfg(test)] mod NAME { … }`) aside.
fn functions(text: &str) -> Vec<Function> {
    let code: Vec<char> = code_only(text).chars().collect();
    let line_at = {
        let mut starts = vec![0];
        starts.extend(
            code.iter()
                .enumerate()
                .filter(|(_, c)| **c == '\n')
                .map(|(i, _)| i + 1),
        );
        move |i: usize| starts.partition_point(|&s| s <= i)
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let word_at = |i: usize, w: &str| {
        let w: Vec<char> = w.chars().collect();
        code.get(i..i + w.len()) == Some(&w[..])
            && (i == 0 || !ident(code[i - 1]))
            && code.get(i + w.len()).is_none_or(|&c| !ident(c))
    };
    let skip_space = |mut i: usize| {
        while code.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        i
    };
    let mut found = Vec::new();
    let mut i = 0;
    while i < code.len() {
        if word_at(i, "#[cfg(test)]") {
            let j = skip_space(i + "#[cfg(test)]".len());
            if word_at(j, "mod")
                && let Some(open) = body_open(&code, j)
            {
                i = matching_close(&code, open) + 1;
                continue;
            }
        }
        if word_at(i, "fn") {
            let j = skip_space(i + 2);
            let name: String = code[j..].iter().take_while(|&&c| ident(c)).collect();
            if !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && let Some(open) = body_open(&code, j)
            {
                let close = matching_close(&code, open);
                let line = line_at(i);
                found.push(Function {
                    name,
                    line,
                    lines: line_at(close) - line + 1,
                });
            }
            i = j;
            continue;
        }
        i += 1;
    }
    found
}

/// The `{` opening the body of the item whose signature starts at `from`, or `None` when a `;`
/// ends the signature first (a trait method without a default, a `mod NAME;`).
fn body_open(code: &[char], from: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, &c) in code.iter().enumerate().skip(from) {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '{' if depth == 0 => return Some(k),
            ';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The `}` matching the `{` at `open` (the end of the text if it is unbalanced).
fn matching_close(code: &[char], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, &c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    code.len().saturating_sub(1)
}

/// Whether a file holds unit tests only.
fn is_test_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    name == "tests.rs" || name.ends_with("_tests.rs")
}

/// The functions of `text` over `limit`, each as `LINE: NAME is N lines (limit L)`.
fn too_long(text: &str, limit: usize) -> Vec<String> {
    functions(text)
        .into_iter()
        .filter(|f| f.lines > limit)
        .map(|f| {
            format!(
                "{}: {} is {} lines (limit {limit})",
                f.line, f.name, f.lines
            )
        })
        .collect()
}

/// The check sees a function one line over its limit, measures braces of code only (not those in
/// strings, raw strings, chars or comments), counts nested functions and methods, and leaves the
/// unit tests alone.
#[test]
fn the_check_sees_what_it_forbids() {
    let body = |n: usize| "    let x = 1;\n".repeat(n);
    // 2 lines of `fn` and `}` around the body.
    let text = format!(
        "fn short() {{\n{}}}\n\nfn long() {{\n{}}}\n",
        body(98),
        body(99)
    );
    assert_eq!(too_long(&text, 100), ["102: long is 101 lines (limit 100)"]);
    assert!(too_long(&text, 101).is_empty());

    let tricky = concat!(
        "fn a() {\n",
        "    let s = \"}}}\"; // }\n",
        "    let r = r#\"\"}\"#;\n",
        "    let c = '}'; let d = '\\''; let e = b'{';\n",
        "    /* } /* nested } */ } */\n",
        "    fn inner<'a>(x: &'a str) -> &'a str { x }\n",
        "}\n",
        "impl X {\n",
        "    pub(crate) fn method(&self) -> Vec<u8> {\n",
        "        vec![]\n",
        "    }\n",
        "    fn declared(&self);\n",
        "}\n",
        "#[cfg(test)]\n",
        "mod tests {\n",
        "    fn test_helper() {}\n",
        "}\n",
    );
    let found: Vec<(String, usize, usize)> = functions(tricky)
        .into_iter()
        .map(|f| (f.name, f.line, f.lines))
        .collect();
    assert_eq!(
        found,
        [
            ("a".to_string(), 1, 7),
            ("inner".to_string(), 6, 1),
            ("method".to_string(), 9, 3),
        ]
    );
}

#[test]
fn no_function_is_over_its_limit() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let core = root().join("crates/kubectl-arc-core/src");
    rust_files(&core, &mut files);
    files.sort();
    assert!(
        core.join(MIRROR).join("json.rs").is_file(),
        "{MIRROR}/: the Go mirror this test names is not in the core crate"
    );
    let mut measured = 0;
    let mut over = Vec::new();
    for file in files.iter().filter(|f| !is_test_file(f)) {
        let mirror = file.starts_with(core.join(MIRROR));
        let limit = if mirror { MIRROR_LIMIT } else { LIMIT };
        let text = std::fs::read_to_string(file).unwrap();
        measured += functions(&text).len();
        let rel = file.strip_prefix(root()).unwrap_or(file).display();
        over.extend(
            too_long(&text, limit)
                .into_iter()
                .map(|f| format!("{rel}:{f}")),
        );
    }
    assert!(
        measured > 1000,
        "only {measured} functions found: is the source tree there?"
    );
    assert!(
        over.is_empty(),
        "functions over their limit (split them along their own steps):\n{}",
        over.join("\n")
    );
}
