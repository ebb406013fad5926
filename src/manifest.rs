//! Manifests from files: multi-document YAML or JSON, `List` kinds flattened, every object tagged
//! with where it came from.
//!
//! Pure: takes text, returns objects. The command layer reads the files. YAML is parsed with
//! serde-saphyr, whose budgets bound alias expansion and nesting; JSON documents are YAML too.

use serde_json::Value;

use crate::core::arc;
use crate::core::goyaml;
pub use crate::core::goyaml::go_float;

/// One object read from a manifest.
#[derive(Debug, Clone)]
pub struct ManifestObject {
    /// `file.yaml#2` (index from 1 among the file's non-empty documents), with `[i]` for List items.
    pub source: String,
    /// The document (from 1) when the file holds several, else `None`.
    pub document: Option<usize>,
    /// Item indexes of the enclosing `List`s, outermost first.
    pub items: Vec<usize>,
    pub value: Value,
    /// Why the object must not be used although it parsed: a plain scalar in it that kubectl
    /// reads otherwise (see [`divergent_scalars`]). Commands report it as the object's error and
    /// go on with the other objects.
    pub problem: Option<String>,
}

impl ManifestObject {
    pub fn kind(&self) -> &str {
        self.value.get("kind").and_then(Value::as_str).unwrap_or("")
    }
    pub fn api_version(&self) -> &str {
        self.value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
    pub fn name(&self) -> Option<&str> {
        self.value.pointer("/metadata/name").and_then(Value::as_str)
    }
    pub fn namespace(&self) -> Option<&str> {
        self.value
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
    }
    /// Whether this is one of ARC's `actions.github.com/v1alpha1` objects of `kind`.
    pub fn is_arc(&self, kind: &str) -> bool {
        self.kind() == kind && self.api_version() == arc::API_VERSION
    }
}

/// Why a manifest cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// Not YAML or JSON.
    #[error("{origin}: not valid YAML or JSON: {message}")]
    Parse { origin: String, message: String },
    /// A document that is not an object.
    #[error(
        "{origin}: a Kubernetes object must be a mapping with apiVersion and kind, found {found}"
    )]
    NotAnObject { origin: String, found: &'static str },
}

/// The nesting limit for documents (Kubernetes objects are never this deep).
const MAX_DEPTH: usize = 256;

/// The largest manifest read (a `kubectl get -A -o yaml` of 10,000 scale sets is well below).
pub const MAX_BYTES: usize = 128 * 1024 * 1024;

/// Parse every document of a manifest file. Empty documents are skipped; `List` kinds
/// (`v1/List`, `*List`) are flattened into their items. Budgets bound the work a hostile file can
/// cause: its size, nesting, node count, and alias expansion (a "billion laughs" document fails).
pub fn parse(text: &str, source: &str) -> Result<Vec<ManifestObject>, ManifestError> {
    if text.len() > MAX_BYTES {
        return Err(ManifestError::Parse {
            origin: source.to_string(),
            message: format!(
                "{} MiB is larger than the {} MiB kubectl-arc reads: split the file, or let kubectl-arc read the cluster",
                text.len() >> 20,
                MAX_BYTES >> 20
            ),
        });
    }
    // kubectl reads a stream starting with '{' as JSON, with Go's rules (its YAMLOrJSONDecoder).
    if text.trim_start().starts_with('{') {
        return parse_json(text, source);
    }
    // The scalar check walks the parser's events a second time: it runs beside the main parse
    // (on a file of 4,000 scale sets it takes about a third of the parse's time).
    // (A small file is checked after the parse: a thread costs more than the check.)
    let (docs, divergences) = std::thread::scope(|scope| {
        let check = if text.len() >= 64 * 1024 {
            std::thread::Builder::new()
                .name("yaml-scalars".into())
                .spawn_scoped(scope, || scan_scalars(text))
                .ok()
        } else {
            None
        };
        let docs: Result<Vec<Option<Value>>, _> =
            serde_saphyr::from_multiple_with_options(text, options());
        let divergences = match check {
            Some(handle) => handle
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            None => scan_scalars(text),
        };
        (docs, divergences)
    });
    let (divergences, rewrites) = divergences;
    // Quoted scalars go.yaml.in/yaml/v2 reads otherwise but without error (NEL, LS and PS are its
    // line breaks, as in a `kubectl get -o yaml` of a string holding one): read again, with their
    // source rewritten to kubectl's reading (rare: only then is the text parsed twice).
    let docs = if rewrites.is_empty() {
        docs
    } else {
        serde_saphyr::from_multiple_with_options(&rewritten(text, &rewrites), options())
    };
    let docs = docs.map_err(|e| ManifestError::Parse {
        origin: source.to_string(),
        message: friendly(&e.to_string()),
    })?;
    let multi = docs.len() > 1;
    // Where the parser reads a plain scalar otherwise than kubectl does, the object holding it
    // carries the problem, so that it is reported, not compared on a value the cluster would
    // never hold; the other objects of the file are used as usual.
    let mut problems: std::collections::HashMap<usize, Vec<Divergence>> = Default::default();
    for d in divergences {
        problems.entry(d.document).or_default().push(d);
    }
    let mut out = Vec::new();
    for (i, doc) in docs.into_iter().enumerate() {
        let Some(mut doc) = doc else { continue };
        negative_zero_as_kubectl_stores(&mut doc);
        let src = if multi {
            format!("{source}#{}", i + 1)
        } else {
            source.to_string()
        };
        let found = problems.remove(&i).unwrap_or_default();
        let position = Position {
            document: multi.then_some(i + 1),
            items: Vec::new(),
        };
        push_object(doc, src, position, &found, "", &mut out)?;
    }
    Ok(out)
}

/// YAMLToJSON writes the float64 -0 as `-0`, which kubectl's decoding then reads as the integer 0:
/// a YAML -0.0 is stored as 0.
fn negative_zero_as_kubectl_stores(value: &mut Value) {
    match value {
        Value::Number(n) if n.as_f64() == Some(0.0) && !(n.is_i64() || n.is_u64()) => {
            *value = Value::from(0)
        }
        Value::Array(items) => items.iter_mut().for_each(negative_zero_as_kubectl_stores),
        Value::Object(map) => map.values_mut().for_each(negative_zero_as_kubectl_stores),
        _ => {}
    }
}

/// A JSON manifest, read as kubectl reads one (see [`crate::core::json::manifest_documents`]):
/// a value kubectl refuses (a number beyond float64) refuses its object, not the file.
fn parse_json(text: &str, source: &str) -> Result<Vec<ManifestObject>, ManifestError> {
    let docs = crate::core::json::manifest_documents(text, MAX_DEPTH).map_err(|e| {
        ManifestError::Parse {
            origin: source.to_string(),
            message: e.to_string(),
        }
    })?;
    let multi = docs.len() > 1;
    let mut out = Vec::new();
    for (i, doc) in docs.into_iter().enumerate() {
        let src = if multi {
            format!("{source}#{}", i + 1)
        } else {
            source.to_string()
        };
        let refused: Vec<Divergence> = doc
            .refused
            .into_iter()
            .map(|r| {
                let before = &text[..r.offset];
                Divergence {
                    document: i,
                    line: before.matches('\n').count() + 1,
                    column: before.len() - before.rfind('\n').map_or(0, |n| n + 1) + 1,
                    path: r.path,
                    text: r.text,
                    kubectl: r.message,
                    ours: String::new(),
                    key: false,
                    style: "JSON number",
                }
            })
            .collect();
        let position = Position {
            document: multi.then_some(i + 1),
            items: Vec::new(),
        };
        push_object(doc.value, src, position, &refused, "", &mut out)?;
    }
    Ok(out)
}

/// The JSON text of a manifest value as kubectl sends it to the API server (`sigs.k8s.io/yaml.YAMLToJSON`,
/// then its unstructured decoding and `encoding/json`), for the Go-faithful decoder: numbers as
/// Go's `encoding/json` prints them (a YAML `1e3` or `1.0` is the float64 1000 or 1 and is
/// written `1000` or `1`, not `1000.0`; an integer beyond int64 is a float64), since a
/// `resource.Quantity` keeps the literal text of a JSON number; keys sorted and strings escaped as
/// `encoding/json` writes them (`<` as `\u003c`), since a `metav1.FieldsV1` keeps the exact bytes.
pub fn go_json(value: &Value) -> String {
    let mut out = String::new();
    write_go_json(value, &mut out);
    out
}

fn write_go_json(value: &Value, out: &mut String) {
    match value {
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => out.push_str(&i.to_string()),
            // An integer beyond int64 is a float64 once kubectl has read it (sigs.k8s.io/json's
            // int-preserving decode), and is stored so: 12345678901234567890 as 12345678901234567000.
            (None, Some(f)) => out.push_str(&go_float(f)),
            (None, None) => out.push_str(&n.to_string()),
        },
        Value::String(s) => crate::core::goyaml::go_json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_go_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            // encoding/json writes a map's keys sorted (a FieldsV1 keeps these exact bytes).
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                crate::core::goyaml::go_json_string(k, out);
                out.push(':');
                write_go_json(v, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The YAML reader's options: YAML 1.1 octals as go.yaml.in/yaml/v2 reads them (a plain `0755` is
/// 493, as `strconv.ParseInt` base 0 reads it; `yes`, `on` and `y` are booleans by default), and
/// budgets that bound the work a hostile file can cause.
fn options() -> serde_saphyr::Options {
    let mut options = serde_saphyr::Options::default();
    options.legacy_octal_numbers = true;
    // Comments are read as YAML syntax and dropped, as go-yaml does: emitting them as events only
    // buffers them, and a block of more than 96 comment lines (ARC's chart values have such
    // blocks) would exhaust the parser's comment buffer.
    options.emit_comments = false;
    if let Some(budget) = options.budget.as_mut() {
        budget.max_depth = MAX_DEPTH;
        budget.max_nodes = 20_000_000;
        budget.max_events = 40_000_000;
        budget.max_documents = 1_000_000;
        budget.max_total_scalar_bytes = MAX_BYTES;
    }
    options
}

/// A plain scalar this reader and kubectl read differently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    /// Index of the document (from 0).
    pub document: usize,
    pub line: usize,
    pub column: usize,
    /// Where in the document: `spec.template.spec.containers[0].image` (the key itself for a key).
    pub path: String,
    pub text: String,
    /// How kubectl reads it (JSON), or why kubectl refuses it.
    pub kubectl: String,
    /// How this reader reads it (JSON).
    pub ours: String,
    pub key: bool,
    /// The scalar's style: "plain", "single-quoted", "double-quoted", or "JSON number" for a
    /// number of a JSON manifest that kubectl refuses (`kubectl` then says why).
    pub style: &'static str,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        write!(f, "line {} column {}: ", self.line, self.column)?;
        match self.style {
            "JSON number" => write!(
                f,
                "the number {} is refused by kubectl ({}), so this object cannot be applied: write a number within float64",
                self.text, self.kubectl
            ),
            "outside" => write!(
                f,
                "{} outside any scalar is a line break for kubectl (go.yaml.in/yaml/v2), which then reads {}; here it is {}: remove it, or write it as an escape in a double-quoted scalar",
                self.text, self.kubectl, self.ours
            ),
            style => write!(
                f,
                "the {style} {} `{}` is read by kubectl (go.yaml.in/yaml/v2) as {} but here as {}: {}",
                if self.key { "key" } else { "scalar" },
                self.text,
                self.kubectl,
                self.ours,
                if self.kubectl.contains("escape") {
                    "use only the escapes kubectl knows (no \\/; a character beyond U+FFFF as \\U0001F600, not a surrogate pair)"
                } else if style == "plain" && !self.text.contains("<U+") {
                    "quote it, or write it the way kubectl reads it"
                } else {
                    "write NEL, LS and PS as the escapes \\N, \\L and \\P in a double-quoted scalar"
                }
            ),
        }
    }
}

/// `text` with NEL, LS, PS and other invisible characters shown as `<U+2028>`.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
            out.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The plain scalars of `text` that serde-saphyr resolves otherwise than go.yaml.in/yaml/v2 (the
/// reader behind `sigs.k8s.io/yaml.YAMLToJSON`), found from the parser's events, where the style
/// of each scalar is known: a number with underscores, an upper-case radix prefix, a mixed-case
/// word, a signed integer beyond int64, a float beyond float64, a non-string key. Each distinct
/// text is resolved once.
pub fn divergent_scalars(text: &str) -> Vec<Divergence> {
    scan_scalars(text).0
}

/// A quoted scalar go.yaml.in/yaml/v2 reads otherwise, and its reading: the byte range of its
/// source (quotes included) and the text kubectl reads there.
type Rewrite = (std::ops::Range<usize>, String);

/// [`divergent_scalars`], and apart from them the quoted scalars that go.yaml.in/yaml/v2 reads
/// without error but otherwise (its line breaks NEL, LS and PS): those are read as kubectl reads
/// them by rewriting their source, not refused.
fn scan_scalars(text: &str) -> (Vec<Divergence>, Vec<Rewrite>) {
    use granit_parser::{Event, Parser, ScalarStyle};
    let mut rewrites: Vec<Rewrite> = Vec::new();
    // Per container: is a mapping, the next node is a key, the current key or item index.
    struct Level {
        map: bool,
        key_next: bool,
        key: String,
        index: usize,
    }
    let mut stack: Vec<Level> = Vec::new();
    let path = |stack: &[Level]| {
        let mut p = String::new();
        for l in stack {
            if l.map {
                if !p.is_empty() {
                    p.push('.');
                }
                p.push_str(&l.key);
            } else {
                p.push_str(&format!("[{}]", l.index));
            }
        }
        p
    };
    let mut seen: std::collections::HashMap<(String, bool), Option<(String, String)>> =
        Default::default();
    let mut out = Vec::new();
    let mut document: Option<usize> = None;
    // NEL, LS and PS outside any scalar (in a comment, between tokens) are line breaks for
    // go.yaml.in/yaml/v2 only: the document reads otherwise there.
    let bytes = text.as_bytes();
    let breaks: Vec<usize> = (0..bytes.len())
        .filter(|&i| match bytes[i] {
            0xC2 => bytes.get(i + 1) == Some(&0x85),
            0xE2 => {
                bytes.get(i + 1) == Some(&0x80) && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9))
            }
            _ => false,
        })
        .collect();
    let mut next_break = 0;
    let mut parser_options = granit_parser::Options::default();
    parser_options.set_emit_comments(false);
    for event in Parser::new_from_str_with_options(text, parser_options) {
        let Ok((event, span)) = event else { break };
        let event_start = span.start.byte_offset().unwrap_or(0);
        while let Some(&b) = breaks.get(next_break)
            && b < event_start
        {
            let before = &text[..b];
            out.push(Divergence {
                document: document.unwrap_or(0),
                line: before.matches('\n').count() + 1,
                column: before.len() - before.rfind('\n').map_or(0, |n| n + 1) + 1,
                path: path(&stack),
                text: visible(&text[b..].chars().take(1).collect::<String>()),
                kubectl: "another document, or refuses it".into(),
                ours: "an ordinary character (YAML 1.2)".into(),
                key: false,
                style: "outside",
            });
            next_break += 1;
        }
        let in_key = stack.last().is_some_and(|l| l.map && l.key_next);
        let mut node_done = false;
        match event {
            Event::DocumentStart(..) => {
                document = Some(document.map_or(0, |d| d + 1));
                stack.clear();
            }
            Event::MappingStart(..) => stack.push(Level {
                map: true,
                key_next: true,
                key: String::new(),
                index: 0,
            }),
            Event::SequenceStart(..) => stack.push(Level {
                map: false,
                key_next: false,
                key: String::new(),
                index: 0,
            }),
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
                node_done = true;
            }
            Event::Alias(_) => node_done = true,
            Event::Scalar(value, style, _, tag) => {
                node_done = true;
                if in_key && let Some(top) = stack.last_mut() {
                    top.key = value.to_string();
                }
                let (start, end) = (
                    span.start.byte_offset().unwrap_or(0),
                    span.end.byte_offset().unwrap_or(0),
                );
                let source = text.get(start..end.max(start)).unwrap_or("");
                // go.yaml.in/yaml/v2 takes NEL, LS and PS for line breaks and has its own escapes.
                while breaks.get(next_break).is_some_and(|&b| b < end) {
                    next_break += 1;
                }
                let quoted = matches!(style, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted);
                let goyaml_breaks = source.contains(['\u{85}', '\u{2028}', '\u{2029}']);
                if goyaml_breaks || (quoted && source.contains('\\')) {
                    let kubectl = if quoted {
                        match goyaml::goyaml_quoted_scalar(&text[start..]) {
                            Ok(go) if go == *value => None,
                            Ok(go) => {
                                rewrites.push((start..end, go));
                                None
                            }
                            Err(e) => Some(format!("an error (yaml: {e})")),
                        }
                    } else {
                        Some("another document, or an error (it takes NEL, LS and PS for line breaks)".into())
                    };
                    if let Some(kubectl) = kubectl {
                        out.push(Divergence {
                            document: document.unwrap_or(0),
                            line: span.start.line(),
                            column: span.start.col() + 1,
                            path: path(&stack),
                            text: visible(source),
                            kubectl,
                            ours: json_string(&value),
                            key: in_key,
                            style: match style {
                                ScalarStyle::SingleQuoted => "single-quoted",
                                ScalarStyle::DoubleQuoted => "double-quoted",
                                ScalarStyle::Plain => "plain",
                                _ => "block",
                            },
                        });
                    }
                }
                if style == ScalarStyle::Plain && tag.is_none() && !(in_key && value == "<<") {
                    let found = seen
                        .entry((value.to_string(), in_key))
                        .or_insert_with(|| diverges(&value, in_key))
                        .clone();
                    if let Some((kubectl, ours)) = found {
                        out.push(Divergence {
                            document: document.unwrap_or(0),
                            line: span.start.line(),
                            column: span.start.col() + 1,
                            path: path(&stack),
                            text: value.to_string(),
                            kubectl,
                            ours,
                            key: in_key,
                            style: "plain",
                        });
                    }
                }
            }
            _ => {}
        }
        if node_done && let Some(top) = stack.last_mut() {
            if top.map {
                top.key_next = !top.key_next;
            } else {
                top.index += 1;
            }
        }
    }
    (out, rewrites)
}

/// `text` with each rewritten scalar replaced by a double-quoted scalar holding kubectl's reading.
fn rewritten(text: &str, rewrites: &[Rewrite]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, reading) in rewrites {
        out.push_str(&text[at..range.start]);
        out.push('"');
        for c in reading.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                // What YAML does not allow raw (controls, DEL, C1, U+FFFE, U+FFFF), and the
                // characters the readers disagree on, as escapes.
                c if c.is_control()
                    || matches!(
                        c,
                        '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                    ) =>
                {
                    out.push_str(&format!("\\u{:04x}", c as u32))
                }
                c => out.push(c),
            }
        }
        out.push('"');
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// A string as JSON text, as `encoding/json` writes it.
fn json_string(s: &str) -> String {
    let mut out = String::new();
    goyaml::go_json_string(s, &mut out);
    out
}

/// Whether either reader could take `text` for anything but a string: go.yaml.in/yaml/v2 only
/// resolves texts starting with a digit, a sign, '.', '~' or one of its boolean and null words;
/// serde-saphyr the same characters and those words in any case (`tRue`, `oN`). Other texts
/// (names, images, paths) are strings for both and need no second reading.
fn may_not_be_a_string(text: &str) -> bool {
    match text.as_bytes().first() {
        None => true,
        Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'~') => true,
        Some(_) => {
            text.len() <= 5
                && matches!(
                    text.to_ascii_lowercase().as_str(),
                    "y" | "yes" | "true" | "on" | "n" | "no" | "false" | "off" | "null"
                )
        }
    }
}

/// (kubectl's reading, ours) when they differ.
fn diverges(text: &str, key: bool) -> Option<(String, String)> {
    if !may_not_be_a_string(text) {
        return None;
    }
    let go = match goyaml::resolve_plain(text) {
        // kubectl stores an integer beyond int64 as a float64, and -0.0 as the integer 0.
        goyaml::GoScalar::Uint(u) if !key => goyaml::GoScalar::Float(u as f64),
        goyaml::GoScalar::Float(f) if !key && f == 0.0 => goyaml::GoScalar::Int(0),
        go => go,
    };
    let kubectl = if key {
        goyaml::go_map_key(go, text)
    } else {
        goyaml::go_json(go, text)
    };
    let ours = if key {
        // serde-saphyr hands a mapping key to serde_json as its text.
        let mut out = String::new();
        goyaml::go_json_string(text, &mut out);
        Ok(out)
    } else {
        if text.contains('\n') {
            // A plain scalar folded over blank lines: text for both readers.
            return None;
        }
        // As the item of a block sequence, so that a plain `...` or `---` is not read as a
        // document marker.
        match serde_saphyr::from_str_with_options::<Vec<Value>>(&format!("- {text}"), options()) {
            Ok(mut v) if v.len() == 1 => {
                negative_zero_as_kubectl_stores(&mut v[0]);
                Ok(go_json(&v[0]))
            }
            Ok(_) => return None,
            Err(e) => Err(first_line(&e.to_string())),
        }
    };
    match (kubectl, ours) {
        (Ok(k), Ok(o)) if k == o => None,
        (Err(_), Err(_)) => None,
        (k, o) => Some((
            k.unwrap_or_else(|e| format!("an error ({e})")),
            o.unwrap_or_else(|e| format!("an error ({e})")),
        )),
    }
}

/// serde-saphyr's messages, said for people reading a manifest.
fn friendly(raw: &str) -> String {
    let line = first_line(raw);
    let line = line.strip_prefix("error: ").unwrap_or(&line).to_string();
    let (place, what) = match line.split_once(": ") {
        Some((p, w)) if p.starts_with("line ") => (format!("{p}: "), w.to_string()),
        _ => (String::new(), line.clone()),
    };
    let what = if let Some(key) = what.strip_prefix("duplicate mapping key: ") {
        let key = key.split(", set DuplicateKeyPolicy").next().unwrap_or(key);
        format!("duplicate key {key:?} (a key may appear once in a mapping)")
    } else if what.contains("recursion limit exceeded") || what.contains("Depth") {
        format!("nested deeper than {MAX_DEPTH} levels")
    } else if let Some(rest) = what.strip_prefix("non-finite float `") {
        let scalar = rest.split('`').next().unwrap_or(rest);
        format!(
            "the plain scalar `{scalar}` is not a finite float64: kubectl refuses .inf and .nan, and reads a number beyond float64 as a string: quote it if it is text"
        )
    } else if what.contains("budget breached") || what.contains("alias") {
        format!(
            "the document expands beyond kubectl-arc's limits ({what}): aliases that multiply (a \"billion laughs\" document?)"
        )
    } else {
        what
    };
    format!("{place}{what}")
}

/// The first divergence under `prefix` (a List item's `items[j]`, or the whole document), as the
/// object's problem, naming the object and the field.
fn problem_of(doc: &Value, divergences: &[Divergence], prefix: &str) -> Option<String> {
    let d = divergences.iter().find(|d| {
        prefix.is_empty()
            || d.path == prefix
            || d.path.starts_with(&format!("{prefix}."))
            || d.path.starts_with(&format!("{prefix}["))
    })?;
    let field = |p: &str| doc.pointer(p).and_then(Value::as_str).unwrap_or("");
    let (kind, ns, name) = (
        field("/kind"),
        field("/metadata/namespace"),
        field("/metadata/name"),
    );
    let mut d = d.clone();
    let path = d.path.strip_prefix(prefix).unwrap_or(&d.path);
    d.path = format!(
        "{kind} {}{name} {}",
        if ns.is_empty() {
            String::new()
        } else {
            format!("{ns}/")
        },
        path.strip_prefix('.').unwrap_or(path)
    );
    Some(d.to_string())
}

/// Where in a file an object is: its document and enclosing `List` items.
#[derive(Clone)]
struct Position {
    document: Option<usize>,
    items: Vec<usize>,
}

fn push_object(
    doc: Value,
    source: String,
    position: Position,
    divergences: &[Divergence],
    prefix: &str,
    out: &mut Vec<ManifestObject>,
) -> Result<(), ManifestError> {
    match doc {
        Value::Null => Ok(()),
        Value::Object(_) => {
            let is_list = doc
                .get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| k.ends_with("List"))
                && doc.get("items").is_some_and(Value::is_array);
            if is_list {
                let Value::Object(mut m) = doc else {
                    unreachable!()
                };
                let Some(Value::Array(items)) = m.remove("items") else {
                    unreachable!()
                };
                for (j, item) in items.into_iter().enumerate() {
                    let item_prefix = if prefix.is_empty() {
                        format!("items[{j}]")
                    } else {
                        format!("{prefix}.items[{j}]")
                    };
                    let mut at = position.clone();
                    at.items.push(j);
                    push_object(
                        item,
                        format!("{source}[{j}]"),
                        at,
                        divergences,
                        &item_prefix,
                        out,
                    )?;
                }
                Ok(())
            } else {
                let problem = problem_of(&doc, divergences, prefix);
                out.push(ManifestObject {
                    source,
                    document: position.document,
                    items: position.items,
                    value: doc,
                    problem,
                });
                Ok(())
            }
        }
        other => Err(ManifestError::NotAnObject {
            origin: source,
            found: match other {
                Value::Array(_) => "a sequence",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "something else",
            },
        }),
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: a block of 33 or more comment lines (ARC's chart values, GitOps manifests) made
    /// the whole file "not valid YAML or JSON: too many buffered comments".
    #[test]
    fn long_comment_blocks_are_read() {
        for lines in [33, 97, 5000] {
            let comments = "# a comment line\n".repeat(lines);
            let text = format!(
                "{comments}apiVersion: v1\nkind: ConfigMap\nmetadata:\n{comments}  name: x\ndata:\n  k:\n{comments}  - a\n{comments}  - b\n{comments}"
            );
            let objs = parse(&text, "f.yaml").unwrap_or_else(|e| panic!("{lines}: {e}"));
            assert_eq!(objs.len(), 1, "{lines}");
            assert_eq!(objs[0].value["data"]["k"], serde_json::json!(["a", "b"]));
            assert!(objs[0].problem.is_none(), "{lines}");
        }
    }

    /// Outputs of Go's `json.Marshal(float64)`, recorded by running Go 1.26.
    #[test]
    fn floats_print_as_go_encoding_json() {
        for (f, go) in [
            (1000.0, "1000"),
            (1.0, "1"),
            (-0.0, "-0"),
            (0.5, "0.5"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.25e-10, "1.25e-10"),
            (18446744073709551616.0, "18446744073709552000"),
            (0.1, "0.1"),
            // An exact tie between two shortest candidates: Go takes the even digit.
            (f64::from_bits(0x4310_0000_0000_0001), "1125899906842624.2"),
        ] {
            assert_eq!(go_float(f), go, "{f:e}");
        }
    }

    #[test]
    fn divergent_scalars_are_found_with_their_place() {
        let text = "kind: X\na:\n- x\n- 0X1F\n- '0X1F'\n- ...\n- ---x\n- a\n\n  b\nb: {1.0: y, c: [tRue]}\n---\nd: 1_000.5\n";
        let found: Vec<(usize, String, String, bool)> = divergent_scalars(text)
            .into_iter()
            .map(|d| (d.document, d.path, d.text, d.key))
            .collect();
        assert_eq!(
            found,
            [
                (0, "a[1]".to_string(), "0X1F".to_string(), false),
                (0, "b.1.0".to_string(), "1.0".to_string(), true),
                (0, "b.c[0]".to_string(), "tRue".to_string(), false),
                (1, "d".to_string(), "1_000.5".to_string(), false),
            ]
        );
    }

    #[test]
    fn yaml_scalars_resolve_as_kubectl_reads_them() {
        let objs = parse(
            "kind: X\napiVersion: v1\na: [1e3, 1.0, 0755, 0o17, 0x1F, yes, \"1e3\", 30.0]\n",
            "t",
        )
        .unwrap();
        assert_eq!(
            go_json(&objs[0].value["a"]),
            r#"[1000,1,493,15,31,true,"1e3",30]"#
        );
    }

    #[test]
    fn multi_document_yaml_json_and_lists() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: actions.github.com/v1alpha1, kind: EphemeralRunnerSet, metadata: {name: a}}\n- {apiVersion: actions.github.com/v1alpha1, kind: AutoscalingRunnerSet, metadata: {name: a}}\n---\n---\n{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"c\"}}\n";
        let objs = parse(text, "dump.yaml").unwrap();
        let names: Vec<(&str, &str)> = objs.iter().map(|o| (o.source.as_str(), o.kind())).collect();
        assert_eq!(
            names,
            [
                ("dump.yaml#1[0]", "EphemeralRunnerSet"),
                ("dump.yaml#1[1]", "AutoscalingRunnerSet"),
                ("dump.yaml#2", "ConfigMap")
            ]
        );
        assert!(objs[0].is_arc("EphemeralRunnerSet"));
    }

    #[test]
    fn errors_name_the_source() {
        let err = parse("a: [1,\n", "bad.yaml").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("bad.yaml: not valid YAML or JSON"),
            "{err}"
        );
        let err = parse("- 1\n- 2\n", "seq.yaml").unwrap_err();
        assert!(err.to_string().contains("found a sequence"), "{err}");
    }
}
