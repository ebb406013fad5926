//! Manifests from files: multi-document YAML or JSON, `List` kinds flattened, every object tagged
//! with where it came from.
//!
//! Pure: takes text, returns objects. The command layer reads the files. YAML is read by
//! [`yaml`], values built from granit-parser's events and resolved as go.yaml.in/yaml/v2
//! resolves them, with budgets on nesting, size and alias expansion; a file starting with `{` is
//! JSON, read with Go's `encoding/json` rules ([`crate::json::manifest_documents`]).

use serde_json::Value;

pub use crate::goyaml::go_float;
use crate::json::ReadObject;
use crate::written::Spelling;

#[cfg(test)]
pub(crate) mod parts_tests;
mod yaml;

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
    /// Why the object must not be used although it parsed: a value in it that kubectl refuses,
    /// or a place where go.yaml.in/yaml/v2 reads the text otherwise (NEL, LS and PS outside
    /// quoted scalars). Commands report it as the object's error and go on with the other
    /// objects.
    pub problem: Option<String>,
    /// Scalars kubectl stores otherwise than they are spelled (`1.0`, `0x10`, `yes`), by JSON
    /// pointer from the object's root.
    pub spellings: Vec<Spelling>,
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
    let mut out = Vec::new();
    parse_each(text, source, &mut |object| out.push(object))?;
    Ok(out)
}

/// [`parse`], handing each object to `sink` as soon as it is read, in the same order. A JSON
/// List's items are read one at a time, so only one item's value tree is alive at once (a dump
/// of 10,000 scale sets is never one tree). On an error, the objects already handed over are
/// from a file [`parse`] refuses as a whole: the caller drops them.
pub fn parse_each(
    text: &str,
    source: &str,
    sink: &mut dyn FnMut(ManifestObject),
) -> Result<(), ManifestError> {
    parse_read(text, source, false, &mut |read| match read {
        Read::Value(object) => sink(object),
        Read::Parts(_) => unreachable!("read whole: no object is read into its parts"),
    })
}

/// An object read from a manifest: its value, or (a JSON object whose parts were read straight
/// from the text, [`crate::json::ObjectParts`]) the parts kubectl-arc keeps of it.
#[derive(Debug, Clone)]
pub enum Read {
    Value(ManifestObject),
    Parts(PartsObject),
}

/// A [`ManifestObject`] read into its parts: the same fields, with its parts for its value.
#[derive(Debug, Clone)]
pub struct PartsObject {
    pub source: String,
    pub document: Option<usize>,
    pub items: Vec<usize>,
    pub parts: crate::json::ObjectParts,
    pub problem: Option<String>,
    pub spellings: Vec<Spelling>,
}

/// For the `manifest_parse` fuzz target: `text` (YAML) read as two halves at every cut the reader
/// of a large List may make, each join checked against the whole reading (a panic names the cut
/// where they differ); the number of cuts joined.
#[doc(hidden)]
pub fn check_yaml_halves(text: &str) -> usize {
    yaml::halves::check_every_cut(text, usize::MAX)
}

/// [`parse_each`], with the objects of a JSON manifest read into their parts where that is exact
/// ([`crate::json::ObjectParts`]): a dump's objects never become value trees but for their
/// `metadata`. Every other object, and every object of a YAML manifest, is read whole, as
/// [`parse_each`] reads it. What the parts hold is what [`parse_each`]'s value holds at those
/// keys, and the source, position, problem and spellings are the same.
pub fn parse_each_read(
    text: &str,
    source: &str,
    sink: &mut dyn FnMut(Read),
) -> Result<(), ManifestError> {
    parse_read(text, source, true, sink)
}

/// [`parse_each`] (`parts`: [`parse_each_read`]).
fn parse_read(
    text: &str,
    source: &str,
    parts: bool,
    sink: &mut dyn FnMut(Read),
) -> Result<(), ManifestError> {
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
        return parse_json(text, source, parts, sink);
    }
    let docs = yaml::read(text, parts).map_err(|message| ManifestError::Parse {
        origin: source.to_string(),
        message,
    })?;
    let multi = docs.len() > 1;
    for (i, doc) in docs.into_iter().enumerate() {
        let src = if multi {
            format!("{source}#{}", i + 1)
        } else {
            source.to_string()
        };
        let position = Position {
            document: multi.then_some(i + 1),
            items: Vec::new(),
        };
        let found = Found {
            divergences: &doc.refusals,
            spellings: &doc.spellings,
        };
        let (doc, read) = (doc.value, doc.items_read);
        push_object(doc, read, src, position, &found, "", None, sink)?;
    }
    Ok(())
}

/// A document's divergences and spellings by the item of its List they are under (`items[j]`,
/// `/items/j`), each item's share found once: looking for an item's among all of them, item after
/// item, is quadratic (10,000 objects with a few spellings each). What is under no item (the List's
/// own) is in no share; an item's share is all it reads ([`under`] its prefix).
struct Shares {
    divergences: Vec<Vec<Divergence>>,
    spellings: Vec<Vec<Spelling>>,
}

impl Shares {
    fn of(found: &Found<'_>, items: usize) -> Shares {
        // The item index `text` starts with, followed by `end` or nothing (`12]` of `items[12].x`).
        fn index(text: &str, end: &[char]) -> Option<usize> {
            let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let rest = &text[digits..];
            (digits > 0 && (rest.is_empty() || rest.starts_with(end)))
                .then(|| text[..digits].parse().ok())
                .flatten()
        }
        let mut shares = Shares {
            divergences: vec![Vec::new(); items],
            spellings: vec![Vec::new(); items],
        };
        for d in found.divergences {
            let at = (d.path.strip_prefix("items[")).and_then(|rest| {
                let j = index(rest, &[']'])?;
                let after = &rest[rest.find(']')? + 1..];
                (after.is_empty() || after.starts_with(['.', '['])).then_some(j)
            });
            if let Some(share) = at.and_then(|j| shares.divergences.get_mut(j)) {
                share.push(d.clone());
            }
        }
        for s in found.spellings {
            let at = (s.pointer.strip_prefix("/items/")).and_then(|rest| index(rest, &['/']));
            if let Some(share) = at.and_then(|j| shares.spellings.get_mut(j)) {
                share.push(s.clone());
            }
        }
        shares
    }

    fn of_item(&self, j: usize) -> Found<'_> {
        Found {
            divergences: &self.divergences[j],
            spellings: &self.spellings[j],
        }
    }
}

/// Whether push_object reads a mapping as a List: its kind ends in `List` and its `items` is a
/// sequence.
fn is_list(map: &serde_json::Map<String, Value>) -> bool {
    map.get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| k.ends_with("List"))
        && map.get("items").is_some_and(Value::is_array)
}

/// The parts `Object::from_manifest` keeps of an object read whole (its `metadata` taken out of
/// `map`), as [`crate::json::ObjectParts`] holds them; `None` for a List (read whole: its items
/// are objects of their own), leaving `map` as it was.
pub(crate) fn object_parts(
    map: &mut serde_json::Map<String, Value>,
) -> Option<crate::json::ObjectParts> {
    if is_list(map) {
        return None;
    }
    let string = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_string);
    let part = |key: &str| map.get(key).filter(|v| !v.is_null()).map(go_json);
    let (kind, api_version) = (string("kind"), string("apiVersion"));
    let (metadata_text, spec, status) = (part("metadata"), part("spec"), part("status"));
    Some(crate::json::ObjectParts {
        kind,
        api_version,
        metadata: map.remove("metadata"),
        metadata_text,
        spec,
        status,
    })
}

/// The object handed over for an object read into its parts at `prefix`: its problem is the
/// first divergence under `prefix` (named as [`problem_of`] names it), else `inherited`.
fn parts_object(
    parts: crate::json::ObjectParts,
    source: String,
    position: Position,
    found: &Found<'_>,
    prefix: &str,
    inherited: Option<String>,
) -> PartsObject {
    // The names only for a problem (the metadata's value, when only its text was read, made
    // from it then).
    let diverges = found.divergences.iter().any(|d| under(&d.path, prefix));
    let problem = diverges
        .then(|| {
            let metadata = parts.metadata_value();
            let field = |key: &str| metadata.as_deref()?.get(key)?.as_str();
            let names = (
                parts.kind.as_deref().unwrap_or(""),
                field("namespace").unwrap_or(""),
                field("name").unwrap_or(""),
            );
            problem_named(names, found.divergences, prefix)
        })
        .flatten()
        .or(inherited);
    PartsObject {
        source,
        document: position.document,
        items: position.items,
        parts,
        problem,
        spellings: spellings_under(found.spellings, prefix),
    }
}

/// A JSON manifest, read as kubectl reads one (see [`crate::json::manifest_documents`]):
/// a value kubectl refuses (a number beyond float64) refuses its object, not the file. Every
/// document is checked before any is read; a List document's items are then read and handed
/// over one at a time, each with what reading the List outside its items found. With `parts`,
/// an object is read into its parts where that is exact ([`crate::json::read_document_object`],
/// [`crate::json::ListItems::next_object`]), else whole.
fn parse_json(
    text: &str,
    source: &str,
    parts: bool,
    sink: &mut dyn FnMut(Read),
) -> Result<(), ManifestError> {
    let parse_error = |e: crate::value::DecodeError| ManifestError::Parse {
        origin: source.to_string(),
        message: e.to_string(),
    };
    let spans = crate::json::documents(text, MAX_DEPTH).map_err(parse_error)?;
    let multi = spans.len() > 1;
    // One count of lines for the whole text: its documents and items come in order.
    let lines = std::cell::RefCell::new(Lines::new(text));
    for (i, (span, keys)) in spans.into_iter().enumerate() {
        let src = if multi {
            format!("{source}#{}", i + 1)
        } else {
            source.to_string()
        };
        let position = Position {
            document: multi.then_some(i + 1),
            items: Vec::new(),
        };
        let Some((head, mut items)) =
            crate::json::read_list_at(text, span.clone(), &keys, MAX_DEPTH).map_err(parse_error)?
        else {
            let doc = if parts {
                crate::json::read_document_object(text, span, MAX_DEPTH)
            } else {
                crate::json::read_document(text, span, MAX_DEPTH).map(ReadObject::Whole)
            };
            let list = ListHead::none(&lines);
            list.push(doc.map_err(parse_error)?, src, position, "", sink)?;
            continue;
        };
        let list = ListHead::new(&lines, head);
        let mut j = 0;
        loop {
            let item = if parts {
                items.next_object()
            } else {
                items.next_item().map(|item| item.map(ReadObject::Whole))
            };
            let Some(item) = item.map_err(parse_error)? else {
                break;
            };
            let mut at = position.clone();
            at.items.push(j);
            list.push(
                item,
                format!("{src}[{j}]"),
                at,
                &format!("items[{j}]"),
                sink,
            )?;
            j += 1;
        }
    }
    Ok(())
}

/// What reading a JSON List outside its items found (nothing, for a document that is no List):
/// what each of its items is handed with, as push_object hands it over in the List read whole.
struct ListHead<'l, 't> {
    /// Where the refused values are (line and column), for the items too.
    lines: &'l std::cell::RefCell<Lines<'t>>,
    refused: Vec<Divergence>,
    spellings: Vec<Spelling>,
    /// The problem of the List itself (a place outside its items), every item's.
    problem: Option<String>,
}

impl<'l, 't> ListHead<'l, 't> {
    fn none(lines: &'l std::cell::RefCell<Lines<'t>>) -> Self {
        ListHead {
            lines,
            refused: Vec::new(),
            spellings: Vec::new(),
            problem: None,
        }
    }

    fn new(lines: &'l std::cell::RefCell<Lines<'t>>, head: crate::json::ManifestDocument) -> Self {
        let refused = json_divergences(&mut lines.borrow_mut(), head.refused);
        let own: Vec<Divergence> = refused
            .iter()
            .filter(|d| !d.path.starts_with("items["))
            .cloned()
            .collect();
        let problem = problem_of(&head.value, &own, "");
        ListHead {
            lines,
            refused,
            spellings: head.spellings,
            problem,
        }
    }

    /// Hand over the object at `prefix` (`items[j]`; empty for a document), with what the List
    /// outside it found under it (an earlier `items` key's) merged with its own in text order, as
    /// one reading of the whole List has them.
    fn push(
        &self,
        object: ReadObject,
        source: String,
        position: Position,
        prefix: &str,
        sink: &mut dyn FnMut(Read),
    ) -> Result<(), ManifestError> {
        let pointer = spellings_pointer(prefix);
        // The value read whole, or the parts (which found nothing of their own).
        let (body, refused, spellings) = match object {
            ReadObject::Whole(doc) => (Ok(doc.value), doc.refused, doc.spellings),
            ReadObject::Parts(parts) => (Err(parts), Vec::new(), Vec::new()),
        };
        let mut divergences: Vec<Divergence> = (self.refused.iter())
            .filter(|d| under(&d.path, prefix))
            .cloned()
            .chain(json_divergences(&mut self.lines.borrow_mut(), refused))
            .collect();
        divergences.sort_by_key(|d| (d.line, d.column));
        let spellings: Vec<Spelling> = (self.spellings.iter())
            .filter(|s| {
                (s.pointer.strip_prefix(&pointer))
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
            .cloned()
            .chain(spellings)
            .collect();
        let found = Found {
            divergences: &divergences,
            spellings: &spellings,
        };
        let inherited = self.problem.as_deref();
        let parts = match body {
            Ok(value) => {
                let read = Vec::new();
                return push_object(
                    value, read, source, position, &found, prefix, inherited, sink,
                );
            }
            Err(parts) => parts,
        };
        // What push_object does with an object that is no List.
        let inherited = inherited.map(str::to_string);
        sink(Read::Parts(parts_object(
            parts, source, position, &found, prefix, inherited,
        )));
        Ok(())
    }
}

/// The numbers kubectl refuses in a JSON document, as divergences at their line and column.
fn json_divergences(
    lines: &mut Lines<'_>,
    refused: Vec<crate::json::RefusedValue>,
) -> Vec<Divergence> {
    refused
        .into_iter()
        .map(|r| {
            let (line, column) = lines.locate(r.offset);
            Divergence {
                line,
                column,
                path: r.path,
                text: r.text,
                kubectl: r.message,
                ours: String::new(),
                key: false,
                style: "JSON number",
            }
        })
        .collect()
}

/// The line and column (from 1; the column in bytes) of byte offsets of a text, counted on from
/// the offset asked before when the next one is after it (from the start again otherwise): a
/// manifest's refused values are asked in the text's order, and counting from the start for each
/// made a List of 10,000 objects with a refused number take seconds.
pub(crate) struct Lines<'t> {
    text: &'t str,
    /// The offset counted to, and the line it is on.
    at: usize,
    line: usize,
}

impl<'t> Lines<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Lines {
            text,
            at: 0,
            line: 1,
        }
    }

    pub(crate) fn locate(&mut self, offset: usize) -> (usize, usize) {
        if offset < self.at {
            (self.at, self.line) = (0, 1);
        }
        let between = &self.text.as_bytes()[self.at..offset];
        self.line += between.iter().filter(|&&b| b == b'\n').count();
        self.at = offset;
        let before = &self.text[..offset];
        (
            self.line,
            offset - before.rfind('\n').map_or(0, |n| n + 1) + 1,
        )
    }
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
            (Some(i), _) => {
                use std::fmt::Write as _;
                let _ = write!(out, "{i}");
            }
            // An integer beyond int64 is a float64 once kubectl has read it (sigs.k8s.io/json's
            // int-preserving decode), and is stored so: 12345678901234567890 as 12345678901234567000.
            (None, Some(f)) => out.push_str(&go_float(f)),
            (None, None) => out.push_str(&n.to_string()),
        },
        Value::String(s) => crate::goyaml::go_json_string(s, out),
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
            // encoding/json writes a map's keys sorted (a FieldsV1 keeps these exact bytes); what
            // kubectl and the API server print is sorted already, and is written as it stands.
            out.push('{');
            if map.keys().is_sorted() {
                write_entries(map.iter(), out);
            } else {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                write_entries(entries.into_iter(), out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The entries of an object, in the order given, as encoding/json writes them.
fn write_entries<'a>(entries: impl Iterator<Item = (&'a String, &'a Value)>, out: &mut String) {
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            out.push(',');
        }
        crate::goyaml::go_json_string(k, out);
        out.push(':');
        write_go_json(v, out);
    }
}

/// A place kubectl reads otherwise or refuses: a value it refuses, or go.yaml.in/yaml/v2's own
/// reading of NEL, LS and PS where this reader cannot follow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    pub line: usize,
    pub column: usize,
    /// Where in the document: `spec.template.spec.containers[0].image` (the key itself for a key).
    pub path: String,
    pub text: String,
    /// How kubectl reads it (JSON), or why kubectl refuses it.
    pub kubectl: String,
    /// How this reader reads it (JSON); empty when kubectl refuses it (`kubectl` says why).
    pub ours: String,
    pub key: bool,
    /// The scalar's style: "plain", "single-quoted", "double-quoted", "block", "quoted" (a
    /// quoted scalar with a tag); "JSON number" for a number of a JSON manifest that kubectl
    /// refuses; "outside" for NEL, LS or PS outside any scalar; "node" for a collection as a
    /// key; "merge" for a merge key.
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
            "node" => write!(
                f,
                "{} as a key is refused by kubectl ({}): use a string key",
                self.text, self.kubectl
            ),
            "merge" => write!(
                f,
                "the merge key `<<` is refused by kubectl ({}): merge a mapping, an alias of one, or a list of them",
                self.kubectl
            ),
            style if self.ours.is_empty() => write!(
                f,
                "the {style} {} `{}` is refused by kubectl ({}): {}",
                if self.key { "key" } else { "scalar" },
                self.text,
                self.kubectl,
                if self.kubectl.contains("unsupported value") {
                    "kubectl refuses .inf and .nan; quote it if it is text"
                } else if self.key {
                    "quote the key"
                } else {
                    "write a value of the type its tag names, or drop the tag"
                }
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

/// The first divergence under `prefix` (a List item's `items[j]`, or the whole document), as the
/// object's problem, naming the object and the field.
fn problem_of(doc: &Value, divergences: &[Divergence], prefix: &str) -> Option<String> {
    // (Reading a pointer allocates: only when there is a problem.)
    divergences.iter().find(|d| under(&d.path, prefix))?;
    let field = |p: &str| doc.pointer(p).and_then(Value::as_str).unwrap_or("");
    let names = (
        field("/kind"),
        field("/metadata/namespace"),
        field("/metadata/name"),
    );
    problem_named(names, divergences, prefix)
}

/// [`problem_of`] of a document whose kind, namespace and name are `names`.
fn problem_named(
    (kind, ns, name): (&str, &str, &str),
    divergences: &[Divergence],
    prefix: &str,
) -> Option<String> {
    let d = divergences.iter().find(|d| under(&d.path, prefix))?;
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

/// Whether `path` is at or under `prefix` (everything is under the empty prefix).
fn under(path: &str, prefix: &str) -> bool {
    prefix.is_empty()
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// Where in a file an object is: its document and enclosing `List` items.
#[derive(Clone)]
struct Position {
    document: Option<usize>,
    items: Vec<usize>,
}

/// What reading a document found beside its value.
struct Found<'a> {
    divergences: &'a [Divergence],
    /// Pointers from the document's root.
    spellings: &'a [Spelling],
}

/// Hand over the object `doc` at `prefix`, or a List's items (flattened). `read`: the items of a
/// YAML document's root `items` already read into their parts ([`yaml::YamlDocument::items_read`],
/// null in `doc` where they were; empty elsewhere): a List hands them over in their places; a
/// document that is no List is handed over as its parts (no object reads its `items`).
#[allow(clippy::too_many_arguments)]
fn push_object(
    doc: Value,
    read: Vec<(usize, crate::json::ObjectParts)>,
    source: String,
    position: Position,
    found: &Found<'_>,
    prefix: &str,
    inherited: Option<&str>,
    sink: &mut dyn FnMut(Read),
) -> Result<(), ManifestError> {
    let divergences = found.divergences;
    let mut map = match doc {
        Value::Null => return Ok(()),
        Value::Object(map) => map,
        other => {
            return Err(ManifestError::NotAnObject {
                origin: source,
                found: match other {
                    Value::Array(_) => "a sequence",
                    Value::String(_) => "a string",
                    Value::Number(_) => "a number",
                    Value::Bool(_) => "a boolean",
                    _ => "something else",
                },
            });
        }
    };
    if !is_list(&map) {
        let inherited = inherited.map(str::to_string);
        if !read.is_empty() {
            let parts = object_parts(&mut map).expect("a document that is no List");
            sink(Read::Parts(parts_object(
                parts, source, position, found, prefix, inherited,
            )));
            return Ok(());
        }
        let doc = Value::Object(map);
        sink(Read::Value(ManifestObject {
            source,
            document: position.document,
            items: position.items,
            problem: problem_of(&doc, divergences, prefix).or(inherited),
            spellings: spellings_under(found.spellings, prefix),
            value: doc,
        }));
        return Ok(());
    }
    // A place in the List itself, outside its items, is refused for every item (kubectl refuses
    // the whole document).
    let items_at = if prefix.is_empty() {
        "items[".to_string()
    } else {
        format!("{prefix}.items[")
    };
    let own: Vec<Divergence> = divergences
        .iter()
        .filter(|d| under(&d.path, prefix) && !d.path.starts_with(&items_at))
        .cloned()
        .collect();
    let Some(Value::Array(items)) = map.remove("items") else {
        unreachable!("is_list: items is a sequence")
    };
    let list_problem =
        problem_of(&Value::Object(map), &own, prefix).or_else(|| inherited.map(str::to_string));
    // A document's List: each item's share of what was found, found once.
    let shares = prefix.is_empty().then(|| Shares::of(found, items.len()));
    let mut read = read.into_iter().peekable();
    for (j, item) in items.into_iter().enumerate() {
        let item_prefix = if prefix.is_empty() {
            format!("items[{j}]")
        } else {
            format!("{prefix}.items[{j}]")
        };
        let mut at = position.clone();
        at.items.push(j);
        let item_source = format!("{source}[{j}]");
        let share = shares.as_ref().map(|s| s.of_item(j));
        let found = share.as_ref().unwrap_or(found);
        match read.next_if(|(i, _)| *i == j) {
            Some((_, parts)) => {
                let inherited = list_problem.clone();
                let object = parts_object(parts, item_source, at, found, &item_prefix, inherited);
                sink(Read::Parts(object));
            }
            None => push_object(
                item,
                Vec::new(),
                item_source,
                at,
                found,
                &item_prefix,
                list_problem.as_deref(),
                sink,
            )?,
        }
    }
    Ok(())
}

/// The pointer of the item at `prefix` (`items[2]`, `spec.items[0]`; empty for the document) that
/// its spellings' pointers start with (`/items/2`, `/spec/items/0`).
fn spellings_pointer(prefix: &str) -> String {
    let mut at = String::new();
    for step in prefix.split('.').filter(|s| !s.is_empty()) {
        let (key, index) = step.split_once('[').unwrap_or((step, ""));
        at.push('/');
        at.push_str(key);
        if let Some(i) = index.strip_suffix(']') {
            at.push('/');
            at.push_str(i);
        }
    }
    at
}

/// The spellings of the item at `prefix` (`items[2]`, `spec.items[0]`, empty for the document), by
/// pointer from the item rather than from the document's root.
fn spellings_under(spellings: &[Spelling], prefix: &str) -> Vec<Spelling> {
    let at = spellings_pointer(prefix);
    spellings
        .iter()
        .filter_map(|s| {
            let rest = s.pointer.strip_prefix(&at)?;
            (rest.is_empty() || rest.starts_with('/')).then(|| Spelling {
                pointer: rest.to_string(),
                ..s.clone()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JSON manifest read whole, as [`parse_json`] read it before it streamed a List's items:
    /// every document's whole tree, then flattened. The streaming reader must give the same.
    fn parse_json_whole(text: &str, source: &str) -> Result<Vec<ManifestObject>, ManifestError> {
        let docs =
            crate::json::manifest_documents(text, MAX_DEPTH).map_err(|e| ManifestError::Parse {
                origin: source.to_string(),
                message: e.to_string(),
            })?;
        let multi = docs.len() > 1;
        let mut out = Vec::new();
        for (i, doc) in docs.into_iter().enumerate() {
            let src = if multi {
                format!("{source}#{}", i + 1)
            } else {
                source.to_string()
            };
            let refused = json_divergences(&mut Lines::new(text), doc.refused);
            let position = Position {
                document: multi.then_some(i + 1),
                items: Vec::new(),
            };
            let found = Found {
                divergences: &refused,
                spellings: &doc.spellings,
            };
            push_object(
                doc.value,
                Vec::new(),
                src,
                position,
                &found,
                "",
                None,
                &mut |r| {
                    if let Read::Value(o) = r {
                        out.push(o)
                    }
                },
            )?;
        }
        Ok(out)
    }

    fn same_as_whole(text: &str) {
        let streamed = format!("{:#?}", parse(text, "f.json"));
        let whole = format!("{:#?}", parse_json_whole(text, "f.json"));
        assert_eq!(streamed, whole, "{text}");
        parts_tests::same_parts_as_whole(text);
    }

    /// Lists with what makes reading their items one at a time hard: refusals and spellings in
    /// the List outside its items, in an earlier duplicate `items`, in a key after `items`
    /// spelled like an item's path; nested Lists; `kind` after `items`, escaped, not a string;
    /// `items` not an array; items that are not objects; nesting past the limit after them.
    #[test]
    fn a_list_read_item_by_item_is_the_list_read_whole() {
        let item = |name: &str, extra: &str| {
            format!(
                r#"{{"apiVersion":"actions.github.com/v1alpha1","kind":"AutoscalingRunnerSet","metadata":{{"name":"{name}","namespace":"ns"}},"spec":{{"maxRunners":1.0{extra}}}}}"#
            )
        };
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        for text in [
            format!(
                r#"{{"kind":"List","items":[{},{}]}}"#,
                item("a", ""),
                item("b", r#","x":1e400"#)
            ),
            format!(
                r#"{{"kind":"List","metadata":{{"name":"l","x":1e400}},"items":[{}]}}"#,
                item("a", "")
            ),
            format!(r#"{{"items":[{}],"kind":"List","y":1.50}}"#, item("a", "")),
            format!(
                r#"{{"kind":"List","items":[{{"a":1e400,"b":2.0}}],"items":[{},{}]}}"#,
                item("a", ""),
                item("b", "")
            ),
            format!(
                r#"{{"kind":"List","items":[{}],"items[0]":1e400,"items[0].z":1e999}}"#,
                item("a", r#","x":1e401"#)
            ),
            format!(
                r#"{{"kind":"List","items":[{{"kind":"List","z":1e400,"items":[{},{}]}},{}]}}"#,
                item("a", ""),
                item("b", r#","q":1e3"#),
                item("c", "")
            ),
            format!(r#"{{"kind":"List","items":[{}]}}"#, item("a", "")),
            format!(r#"{{"kind":"List","items":[{}],"kind":1}}"#, item("a", "")),
            format!(
                r#"{{"kind":"List","items":[{}],"items":{{}}}}"#,
                item("a", "")
            ),
            r#"{"kind":"ConfigMapList","items":[]}"#.to_string(),
            format!(r#"{{"kind":"List","items":[{},"x"]}}"#, item("a", "")),
            format!(r#"{{"kind":"List","items":[null,{}]}}"#, item("a", "")),
            format!(r#"{{"kind":"List","items":["x",{{"a":{deep}}}]}}"#),
            format!(
                r#"{{"kind":"List","items":[{}]}} {{"kind":"X","a":1e400}} {{"kind":"List","items":[{}]}}"#,
                item("a", ""),
                item("b", r#","x":-1e400"#)
            ),
            format!(
                "{{\"kind\":\"List\",\n  \"items\": [\n    {},\n    {}\n  ]\n}}",
                item("a", r#","x":1e400"#),
                item("b", r#","y":1E+2"#)
            ),
            format!(
                r#"{{"kind":"List","items":[{}]}} {{"a":{deep}}}"#,
                item("a", "")
            ),
            format!(r#"{{"kind":"List","items":[{}]}} {{"a":["#, item("a", "")),
        ] {
            same_as_whole(&text);
        }
    }

    /// The same on generated Lists (a fixed seed): items, keys and numbers drawn from a small
    /// alphabet, duplicates and refusals frequent.
    #[test]
    fn generated_lists_read_item_by_item_are_the_lists_read_whole() {
        let mut next = crate::xorshift(0x2545_f491_4f6c_dd1du64);
        const NUMBERS: [&str; 7] = [
            "1",
            "1.0",
            "1e3",
            "1e400",
            "-0",
            "12345678901234567890",
            "2",
        ];
        const KEYS: [&str; 6] = ["kind", "items", "metadata", "spec", "x", "items[0]"];
        fn value(next: &mut dyn FnMut(usize) -> usize, depth: usize) -> String {
            match next(if depth > 3 { 3 } else { 6 }) {
                0 => NUMBERS[next(NUMBERS.len())].to_string(),
                1 => ["\"List\"", "\"a\"", "null", "true"][next(4)].to_string(),
                2 => "\"ConfigMapList\"".to_string(),
                3 | 4 => object(next, depth),
                _ => {
                    let items: Vec<String> = (0..next(4)).map(|_| value(next, depth + 1)).collect();
                    format!("[{}]", items.join(", "))
                }
            }
        }
        fn object(next: &mut dyn FnMut(usize) -> usize, depth: usize) -> String {
            let keys: Vec<String> = (0..next(4))
                .map(|_| {
                    let key = KEYS[next(KEYS.len())];
                    let v = match key {
                        "kind" => ["\"List\"", "\"X\"", "1"][next(3)].to_string(),
                        "metadata" => format!(
                            r#"{{"name":"n{}","namespace":{}}}"#,
                            next(3),
                            ["\"ns\"", "1e400", "true"][next(3)]
                        ),
                        _ => value(next, depth + 1),
                    };
                    format!("\"{key}\":{v}")
                })
                .collect();
            format!("{{{}}}", keys.join(","))
        }
        let (mut lists, mut refused) = (0, 0);
        for _ in 0..3000 {
            let docs: Vec<String> = (0..1 + next(2))
                .map(|_| {
                    let items: Vec<String> = (0..next(4))
                        .map(|_| match next(6) {
                            0 => value(&mut next, 1),
                            _ => object(&mut next, 1),
                        })
                        .collect();
                    let extra = value(&mut next, 1);
                    match next(3) {
                        0 => format!(
                            r#"{{"kind":"List","items":[{}],"x":{extra}}}"#,
                            items.join(",")
                        ),
                        1 => format!(
                            r#"{{"x":{extra},"items":[{}],"kind":"List"}}"#,
                            items.join(",\n")
                        ),
                        _ => format!(
                            r#"{{"items":{extra},"kind":"List","items":[{}]}}"#,
                            items.join(",")
                        ),
                    }
                })
                .collect();
            let text = docs.join("\n");
            if let Ok(objects) = parse(&text, "f.json") {
                lists += usize::from(objects.iter().any(|o| !o.items.is_empty()));
                refused += objects.iter().filter(|o| o.problem.is_some()).count();
            }
            same_as_whole(&text);
        }
        assert!(
            lists > 1000,
            "only {lists} of the generated files read as Lists"
        );
        assert!(refused > 1000, "only {refused} items refused");
    }

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

    /// Spellings a YAML 1.2 reader resolves otherwise are read as go.yaml.in/yaml/v2 reads them
    /// (recorded with the oracle's kubectlStores: `sigs.k8s.io/yaml.YAMLToJSON` v1.6.0, then
    /// kubectl's unstructured decoding).
    #[test]
    fn scalars_read_as_go_yaml_v2_reads_them() {
        let text = "kind: X\na:\n- x\n- 0X1F\n- '0X1F'\n- ...\n- ---x\n- a\n\n  b\n- 1e400\n- +9223372036854775808\nb: {1.0: y, c: [tRue], 0x10: z, 1e-7: w}\n---\nd: 1_000.5\n";
        let objs = parse(text, "t").unwrap();
        assert!(objs.iter().all(|o| o.problem.is_none()));
        assert_eq!(
            go_json(&objs[0].value),
            r#"{"a":["x",31,"0X1F","...","---x","a\nb","1e400",9223372036854776000],"b":{"1":true,"16":"z","1e-07":"w","c":["tRue"]},"kind":"X"}"#
        );
        assert_eq!(go_json(&objs[1].value), r#"{"d":1000.5}"#);
    }

    /// go-yaml v2 merges in place, in order: a key after `<<` replaces a merged one, and a
    /// merged one replaces a key before it. Tags resolve as its `resolve` does. A block scalar
    /// ending the input has no line feed added. (The oracle's kubectlStores.)
    #[test]
    fn merge_keys_tags_and_block_scalars_as_go_yaml_v2() {
        let text = "kind: X\na: &x {p: 1, q: 2}\nb:\n  <<: *x\n  q: 3\nc:\n  q: 3\n  <<: *x\nd: !!null ~\ne: !!int \"12\"\nf: !!float 3\ng: !!binary aGVsbG8=\nh: !!merge <<\ni: 1.0\nk: {<<: [{p: 1}, {p: 2, q: 3}], q: 4}\nl: !!str 1\nm: !foo 1\nj: |\n  x";
        let objs = parse(text, "t").unwrap();
        assert!(objs[0].problem.is_none(), "{:?}", objs[0].problem);
        assert_eq!(
            go_json(&objs[0].value),
            r#"{"a":{"p":1,"q":2},"b":{"p":1,"q":3},"c":{"p":1,"q":2},"d":null,"e":12,"f":3,"g":"hello","h":"\u003c\u003c","i":1,"j":"x","k":{"p":1,"q":4},"kind":"X","l":"1","m":"1"}"#
        );
    }

    /// The fuzz seed of merges and tags (fuzz/corpus/manifest_parse/seed-merges-and-refusals.yaml):
    /// its first document as the oracle's kubectlStores reads it, its second refused as Go
    /// refuses it.
    #[test]
    fn merges_and_tags_of_the_fuzz_seed() {
        let text =
            include_str!("../../../../fuzz/corpus/manifest_parse/seed-merges-and-refusals.yaml");
        let objs = parse(text, "seed").unwrap();
        assert!(objs[0].problem.is_none(), "{:?}", objs[0].problem);
        assert_eq!(
            go_json(&objs[0].value),
            r#"{"apiVersion":"actions.github.com/v1alpha1","kind":"AutoscalingRunnerSet","metadata":{"annotations":{"runner-scale-set-id":"1"},"name":"m"},"spec":{"p":1,"q":31,"r":3,"template":{"p":1000,"q":2,"spec":{"containers":[{"image":"1e400","name":"r"}]}}},"x":{"p":1,"q":2}}"#
        );
        assert!(
            objs[1]
                .problem
                .as_deref()
                .unwrap_or("")
                .contains("map merge requires map")
        );
        let objs = parse(
            "kind: X\ne: [yes, 0o17, +9223372036854775808, 1e400, !!null \"\", !!timestamp 2001-12-14]\n",
            "t",
        )
        .unwrap();
        assert_eq!(
            go_json(&objs[0].value),
            r#"{"e":[true,15,9223372036854776000,"1e400",null,"2001-12-14"],"kind":"X"}"#
        );
    }

    /// What go.yaml.in/yaml/v2 or sigs.k8s.io/yaml refuses refuses its object, naming the place.
    #[test]
    fn values_kubectl_refuses_refuse_their_object() {
        for (doc, said) in [
            (
                "a: !!int abc\n",
                "a: line 2 column 10: the plain scalar `!!int abc` is refused by kubectl (yaml: cannot decode !!str `abc` as a !!int)",
            ),
            (
                "a: {<<: 1}\n",
                "a.<<: line 2 column 9: the merge key `<<` is refused by kubectl (yaml: map merge requires map or sequence of maps as the value)",
            ),
            (
                "? [a]\n: 1\n",
                "a sequence or mapping as a key is refused by kubectl (yaml: invalid map key)",
            ),
            (
                "a: .inf\n",
                "a: line 2 column 4: the plain scalar `.inf` is refused by kubectl (json: unsupported value: +Inf)",
            ),
            (
                "a: {~: 1}\n",
                "a.~: line 2 column 5: the plain key `~` is refused by kubectl (sigs.k8s.io/yaml: unsupported map key of type: <nil>)",
            ),
        ] {
            let objs = parse(&format!("kind: X\n{doc}"), "t").unwrap();
            let problem = objs[0].problem.as_deref().unwrap_or("");
            assert!(problem.contains(said), "{doc:?}: {problem}");
        }
        // A refusal in a List, outside its items, refuses every item.
        let objs = parse("kind: List\nx: .nan\nitems: [{kind: A}, {kind: B}]\n", "t").unwrap();
        assert!(objs.iter().all(|o| o.problem.is_some()), "{objs:?}");
    }

    /// Lines counted on from the offset asked before say what counting from the start says,
    /// whatever the order the offsets are asked in.
    #[test]
    fn lines_counted_on_are_lines_counted_from_the_start() {
        let text = "{\n \"a\": 1e400,\n\n  \"é\": [1e400, 2e400]\n}\n\u{2028}x\n";
        let naive = |offset: usize| {
            let before = &text[..offset];
            let line = before.matches('\n').count() + 1;
            (
                line,
                before.len() - before.rfind('\n').map_or(0, |n| n + 1) + 1,
            )
        };
        let offsets: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let mut lines = Lines::new(text);
        for &o in offsets
            .iter()
            .chain(offsets.iter().rev())
            .chain(&[3, 40, 0, 17, 17])
        {
            assert_eq!(lines.locate(o), naive(o), "offset {o}");
        }
    }

    /// Each item of a List gets what was found under it, and only that: `items[1]` is not
    /// `items[10]`, a key of the List spelled `items[0]` is item 0's place, as a path says, and the
    /// spellings go by pointer (`/items/1` is not `/items/10`); both readings, whole and into parts.
    #[test]
    fn each_item_gets_what_was_found_under_it() {
        let mut text = String::from("kind: List\nitems:\n");
        for j in 0..12 {
            let x = match j {
                1 | 10 => "1.0",
                3 => "!!int abc",
                _ => "1",
            };
            text.push_str(&format!(
                "- {{kind: A, metadata: {{name: n{j}}}, spec: {{x: {x}}}}}\n"
            ));
        }
        let read = |parts: bool| -> Vec<(String, Option<String>, Vec<String>)> {
            let mut out = Vec::new();
            parse_read(&text, "t", parts, &mut |r| {
                let (name, problem, spellings) = match r {
                    Read::Value(o) => (o.name().unwrap_or("").to_string(), o.problem, o.spellings),
                    Read::Parts(o) => {
                        let name = o.parts.metadata.as_ref().and_then(|m| m.get("name"));
                        let name = name.and_then(Value::as_str).unwrap_or("").to_string();
                        (name, o.problem, o.spellings)
                    }
                };
                let spelled = spellings
                    .iter()
                    .map(|s| format!("{}={}", s.pointer, s.yaml));
                out.push((name, problem, spelled.collect()));
            })
            .unwrap();
            out
        };
        for got in [read(false), read(true)] {
            assert_eq!(got.len(), 12);
            for (j, (name, problem, spellings)) in got.iter().enumerate() {
                assert_eq!(name, &format!("n{j}"));
                let want: &[&str] = match j {
                    1 | 10 => &["/spec/x=1.0"],
                    3 => &["/spec/x=abc"],
                    _ => &[],
                };
                assert_eq!(spellings, want, "item {j}");
                assert_eq!(problem.is_some(), j == 3, "item {j}: {problem:?}");
            }
            let problem = got[3].1.as_deref().unwrap();
            assert!(problem.starts_with("A n3 spec.x: line 6"), "{problem}");
        }
        // A key of the List spelled like an item's path is that item's place.
        let text = "kind: List\nitems: [{kind: A}, {kind: B}]\nitems[0]: .nan\n";
        let objs = parse(text, "t").unwrap();
        let problems: Vec<bool> = objs.iter().map(|o| o.problem.is_some()).collect();
        assert_eq!(problems, [true, false]);
    }

    #[test]
    fn budgets_and_errors_name_the_place() {
        let err = |text: &str| parse(text, "f.yaml").unwrap_err().to_string();
        assert!(err("a:\n  b: 1\n  b: 2\n").contains("line 3 column 3: duplicate key \"b\""));
        assert!(err("a: &a [*a]\n").contains("contains itself"));
        let laughs = (1..10).fold(
            "a0: &a0 [x, x, x, x, x, x, x, x, x]\n".to_string(),
            |t, i| {
                t + &format!(
                    "a{i}: &a{i} [{}]\n",
                    vec![format!("*a{}", i - 1); 9].join(", ")
                )
            },
        );
        assert!(err(&laughs).contains("billion laughs"));
        assert!(
            err(&format!("a: {}{}\n", "[".repeat(300), "]".repeat(300)))
                .contains("nested deeper than 256 levels")
        );
        assert!(err("a: [1,\n").contains("line 1 column 4: unclosed bracket"));
        // A merge may replace an explicit key, two explicit keys are a duplicate.
        assert!(err("a: {<<: {b: 1}, b: 2, b: 3}\n").contains("duplicate key \"b\""));
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

    /// A file starting with `{` is JSON, read with encoding/json's rules, never YAML's: `\/` is an
    /// escape JSON has and go-yaml refuses; a number beyond float64 refuses its object alone.
    #[test]
    fn json_is_never_read_as_yaml() {
        let objs = parse(
            " {\"kind\": \"X\", \"a\": \"x\\/y\", \"b\": 1e400, \"c\": \"\\ud800\"}",
            "f.json",
        )
        .unwrap();
        assert_eq!(objs[0].value["a"], "x/y");
        assert_eq!(objs[0].value["c"], "\u{fffd}");
        assert!(
            objs[0]
                .problem
                .as_deref()
                .unwrap()
                .contains("the number 1e400 is refused")
        );
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
