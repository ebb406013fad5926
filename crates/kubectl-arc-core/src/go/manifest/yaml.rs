//! The YAML half of the manifest reader: each document built straight from granit-parser's
//! events, every scalar resolved as go.yaml.in/yaml/v2 resolves it, the way
//! `sigs.k8s.io/yaml.YAMLToJSON` (kubectl's and Helm's reader) turns it into JSON and kubectl's
//! unstructured decoding stores it.
//!
//! Mirrors go.yaml.in/yaml/v2's `decoder` (decode.go: `scalar`, `mapping` with its merge keys,
//! `alias` and its aliasing budget) and sigs.k8s.io/yaml's `convertToJSONableObject` (keys). So
//! the reading is exact by construction; what it cannot read as kubectl does is refused, naming
//! the place: a scalar or a document go-yaml refuses, and NEL, LS and PS, which go-yaml takes for
//! line breaks, outside quoted scalars (inside them, go-yaml's own reading is used).

use std::borrow::Cow;
use std::collections::HashSet;

use granit_parser::{ErrorKind, Event, Parser, ScalarStyle, ScanError, Span, StructureStyle};
use serde_json::{Map, Value};

use super::{Divergence, MAX_DEPTH, visible};
use crate::goyaml::{self, GoScalar, GoTagged};
use crate::json::ObjectParts;
use crate::written::{Spelling, pointer_step};

pub(super) mod halves;

/// The most values a file may hold, aliases expanded.
const MAX_NODES: usize = 20_000_000;

/// One document of a YAML stream, and what in it kubectl reads otherwise or refuses.
#[derive(Debug, PartialEq)]
pub(super) struct YamlDocument {
    pub value: Value,
    pub refusals: Vec<Divergence>,
    /// The scalars kubectl stores otherwise than they are spelled (`1.0`, `0x10`, `yes`, `~`).
    pub spellings: Vec<Spelling>,
    /// In a reading into parts ([`read`]'s `parts`): the items of the root's `items` read into
    /// their parts as each ended, by index, each left in `value` as null. Empty unless that
    /// sequence is still the root's `items` at the document's end (a merge key may replace it).
    pub items_read: Vec<(usize, ObjectParts)>,
}

/// Every document of `text`, null documents (empty ones, `~`) left out. `Err` is a message
/// naming the line and column: a syntax error, a duplicate key, nesting beyond [`MAX_DEPTH`],
/// aliases that expand beyond go-yaml's budget.
///
/// With `parts`, an object among the root's `items` that may be a List's item is read into its
/// parts as soon as it ends ([`YamlDocument::items_read`]): the tree of a `kubectl get -o yaml`
/// dump's object is written and dropped while the text after it is still being scanned, not
/// after the whole file.
///
/// A large file is scanned on a second core beside the building ([`read_beside`]); a large
/// List, as two halves at once ([`halves`]), where that reads exactly what the whole reading does.
pub(super) fn read(text: &str, parts: bool) -> Result<Vec<YamlDocument>, String> {
    // Cores are asked only of a file large enough to use them: the question costs system calls
    // (the CPU affinity, the cgroup quota).
    let beside = text.len() >= BESIDE_FROM
        && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
    if beside
        && text.len() >= halves::FROM
        && let Some(documents) = halves::read(text, text.len() / 2, BESIDE_FROM, parts)
    {
        return Ok(documents);
    }
    read_with(text, if beside { BESIDE_FROM } else { usize::MAX }, parts)
}

/// From this many bytes on, the text is scanned on a thread of its own while the documents are
/// built on the caller's: scanning is over half of the reading, and a small file is not worth a
/// thread.
const BESIDE_FROM: usize = 256 * 1024;

/// Events handed from the scanning thread to the building one at a time: a channel message each
/// would cost more than the event.
const BATCH: usize = 1024;

type Scanned<'t> = Result<(Event<'t>, Span), ScanError>;

/// [`read`], scanning beside the building when `text` holds at least `beside_from` bytes (on any
/// number of cores: the tests take both ways on every machine). The two ways read the same events
/// in the same order and stop at the same first error (`read_ways_agree` in the tests).
fn read_with(text: &str, beside_from: usize, parts: bool) -> Result<Vec<YamlDocument>, String> {
    Ok(read_reader(text, beside_from, parts)?.documents)
}

/// [`read_with`], the reader kept for what it saw besides the documents ([`halves`]).
fn read_reader(text: &str, beside_from: usize, parts: bool) -> Result<Reader<'_>, String> {
    let mut reader = Reader::new(text, parts);
    if text.len() >= beside_from
        && let Some(done) = read_beside(text, &mut reader)
    {
        done?;
        return Ok(reader);
    }
    for event in Parser::new_from_str_with_options(text, parser_options()) {
        let (event, span) = event.map_err(|e| scan_error(&e))?;
        reader.event(event, span)?;
    }
    Ok(reader)
}

/// Scans on a scoped thread, batches of events over a bounded channel, and builds here; the
/// emptied batches go back to the scanner to be filled again (a new vector per batch allocated
/// the file's events over again: 120 MB for 1,000 scale sets). `None` when the thread could
/// not be started (the caller reads sequentially; nothing was read). A building error drops the
/// receiver, which stops the scanner at its next send.
fn read_beside<'t>(text: &'t str, reader: &mut Reader<'t>) -> Option<Result<(), String>> {
    use std::sync::mpsc::sync_channel;
    std::thread::scope(|scope| {
        let (send, receive) = sync_channel::<Vec<Scanned<'t>>>(4);
        let (give_back, given_back) = sync_channel::<Vec<Scanned<'t>>>(8);
        let empty = move || {
            given_back
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(BATCH))
        };
        let scanner = std::thread::Builder::new()
            .name("yaml-scanner".into())
            .spawn_scoped(scope, move || {
                let mut batch = empty();
                for event in Parser::new_from_str_with_options(text, parser_options()) {
                    let failed = event.is_err();
                    batch.push(event);
                    if failed {
                        break;
                    }
                    if batch.len() == BATCH {
                        let full = std::mem::replace(&mut batch, empty());
                        if send.send(full).is_err() {
                            return;
                        }
                    }
                }
                let _ = send.send(batch);
            })
            .ok()?;
        let built = (|| {
            for mut batch in receive.iter() {
                for event in batch.drain(..) {
                    let (event, span) = event.map_err(|e| scan_error(&e))?;
                    reader.event(event, span)?;
                }
                let _ = give_back.try_send(batch);
            }
            Ok(())
        })();
        drop(receive);
        // The scanner ends once its last send returns: it holds no lock and panics only as
        // the sequential reading would.
        if let Err(panic) = scanner.join() {
            std::panic::resume_unwind(panic);
        }
        Some(built)
    })
}

fn parser_options() -> granit_parser::Options {
    let mut options = granit_parser::Options::default();
    // Comments are syntax to check and drop, as go-yaml does: emitting them only buffers them (a
    // block of more than 96 comment lines would exhaust the parser's buffer).
    options.set_emit_comments(false);
    options.flow_nesting_limit = MAX_DEPTH;
    options.block_nesting_limit = MAX_DEPTH;
    // libyaml and its Go port add no line feed to a block scalar ending the input without one.
    options.block_scalar_eof_without_line_feed = true;
    options
}

fn scan_error(e: &ScanError) -> String {
    let place = format!("line {} column {}", e.marker().line(), e.marker().col() + 1);
    match e.kind() {
        ErrorKind::RecursionLimitExceeded => {
            format!("{place}: nested deeper than {MAX_DEPTH} levels")
        }
        _ => format!("{place}: {}", e.info()),
    }
}

fn at(span: &Span) -> String {
    format!("line {} column {}", span.start.line(), span.start.col() + 1)
}

/// A mapping key as kubectl makes it a JSON object key.
enum Key {
    Name(String),
    /// `<<`: the value is merged into the mapping.
    Merge,
    /// A key kubectl refuses (already recorded): its value is read and dropped.
    Refused,
}

// A mapping frame is larger than a sequence's; frames live on a stack at most 256 deep, and boxing
// would cost an allocation per mapping.
#[allow(clippy::large_enum_variant)]
enum Frame {
    Sequence {
        items: Vec<Value>,
        anchor: usize,
        /// The document's node count when the sequence started (an alias of it costs the
        /// difference, as go-yaml decodes it again).
        nodes_before: usize,
    },
    Mapping {
        map: Map<String, Value>,
        key: Option<(Key, Span)>,
        anchor: usize,
        nodes_before: usize,
        /// The keys written explicitly, kept once a merge key has also written some: go-yaml
        /// lets a later key replace a merged one, while two explicit keys are a duplicate.
        explicit: Option<HashSet<String>>,
    },
}

/// An anchored node, for its aliases.
enum Anchored {
    /// A scalar: its resolution depends on whether an alias of it is a key or a value.
    Scalar {
        text: String,
        tag: Option<String>,
        plain: bool,
        value: Value,
    },
    Node {
        value: Value,
        nodes: usize,
    },
}

struct Reader<'t> {
    text: &'t str,
    /// Whether the root's `items` are read into their parts ([`read`]).
    parts: bool,
    /// Those of the document being read, by index ([`YamlDocument::items_read`]).
    items_read: Vec<(usize, ObjectParts)>,
    documents: Vec<YamlDocument>,
    stack: Vec<Frame>,
    root: Option<Value>,
    refusals: Vec<Divergence>,
    spellings: Vec<Spelling>,
    /// What kubectl refuses only if it is still in the document once go-yaml has decoded all of
    /// it (sigs.k8s.io/yaml converts the keys of the whole value and `encoding/json` marshals it
    /// after the merges: a `.inf` or a null key that a merge key replaced is never seen). Each
    /// stands in the tree as [`sentinel`] of its index until the document ends.
    deferred: Vec<Divergence>,
    /// By anchor id; `None` while the anchored node is being read (an alias of it inside it is
    /// go-yaml's "anchor value contains itself").
    anchors: Vec<Option<Anchored>>,
    /// go-yaml's `decodeCount` and `aliasCount` for the document: nodes decoded, and of those,
    /// decoded through an alias.
    nodes: usize,
    alias_nodes: usize,
    file_nodes: usize,
    /// Of the document being read (or the last one read): how the root's `items` sequence
    /// started (its style, whether its first `-` is in column 0, its anchor), and whether a
    /// merge key wrote into the root.
    root_items: Option<(StructureStyle, bool, usize)>,
    root_merged: bool,
    /// Byte offsets of NEL, LS and PS in the text (nearly always none), and the next one not yet
    /// passed.
    breaks: Vec<usize>,
    next_break: usize,
    /// Their lines and columns, counted on from one to the next.
    lines: super::Lines<'t>,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str, parts: bool) -> Self {
        let bytes = text.as_bytes();
        let mut breaks = Vec::new();
        // NEL is C2 85, LS and PS E2 80 A8 and E2 80 A9 in UTF-8.
        let mut i = 0;
        while let Some(n) = bytes[i..].iter().position(|&b| b == 0xC2 || b == 0xE2) {
            let b = i + n;
            let is_break = match bytes[b] {
                0xC2 => bytes.get(b + 1) == Some(&0x85),
                _ => {
                    bytes.get(b + 1) == Some(&0x80) && matches!(bytes.get(b + 2), Some(0xA8 | 0xA9))
                }
            };
            if is_break {
                breaks.push(b);
            }
            i = b + 1;
        }
        Reader {
            text,
            parts,
            items_read: Vec::new(),
            documents: Vec::new(),
            stack: Vec::new(),
            root: None,
            refusals: Vec::new(),
            spellings: Vec::new(),
            deferred: Vec::new(),
            anchors: Vec::new(),
            nodes: 0,
            alias_nodes: 0,
            file_nodes: 0,
            root_items: None,
            root_merged: false,
            breaks,
            next_break: 0,
            lines: super::Lines::new(text),
        }
    }

    fn event(&mut self, event: Event<'t>, span: Span) -> Result<(), String> {
        if self.next_break < self.breaks.len() {
            self.breaks_before(&span);
        }
        match event {
            Event::DocumentStart(..) => {
                self.stack.clear();
                self.root = None;
                self.anchors.clear();
                self.spellings.clear();
                self.nodes = 0;
                self.alias_nodes = 0;
                self.root_items = None;
                self.root_merged = false;
            }
            Event::DocumentEnd => self.document_end(),
            Event::Scalar(value, style, anchor, tag) => {
                self.count(1, false, &span)?;
                let plain = style == ScalarStyle::Plain;
                let tag = tag.map(|t| match t.suffix_in_namespace("tag:yaml.org,2002:") {
                    Some(name) => name.into_owned(),
                    None => format!("{}{}", t.handle(), t.suffix()),
                });
                let text = self.go_text(value, style, &span);
                if anchor != 0 {
                    let value =
                        self.scalar_value(text.clone(), tag.as_deref(), plain, &span, false);
                    self.anchor(
                        anchor,
                        Anchored::Scalar {
                            text: text.to_string(),
                            tag: tag.clone(),
                            plain,
                            value,
                        },
                    );
                }
                if self.key_next() {
                    let key = self.key(text, tag.as_deref(), plain, &span);
                    self.set_key(key, span);
                } else {
                    let value = self.scalar_value(text, tag.as_deref(), plain, &span, true);
                    if !value.is_string() {
                        self.spell(&value, &span);
                    }
                    self.value(value, &span)?;
                }
            }
            Event::SequenceStart(style, anchor, _) => {
                self.count(1, false, &span)?;
                self.deeper(&span)?;
                if let [
                    Frame::Mapping {
                        key: Some((Key::Name(key), _)),
                        ..
                    },
                ] = &self.stack[..]
                    && key == "items"
                {
                    self.root_items = Some((style, self.entry_in_column_0(&span), anchor));
                }
                if anchor != 0 {
                    self.reserve(anchor);
                }
                self.stack.push(Frame::Sequence {
                    items: Vec::new(),
                    anchor,
                    nodes_before: self.nodes - 1,
                });
            }
            Event::MappingStart(_, anchor, _) => {
                self.count(1, false, &span)?;
                self.deeper(&span)?;
                if anchor != 0 {
                    self.reserve(anchor);
                }
                self.stack.push(Frame::Mapping {
                    map: Map::new(),
                    key: None,
                    anchor,
                    nodes_before: self.nodes - 1,
                    explicit: None,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => self.collection_end(&span)?,
            Event::Alias(id) => self.alias(id, &span)?,
            _ => {}
        }
        Ok(())
    }

    /// The end of a document (go-yaml's `parser.parse` of a document node, then `YAMLToJSON`):
    /// its deferred refusals taken out of the value, and the document kept unless it is empty.
    fn document_end(&mut self) {
        let mut value = self.root.take().unwrap_or(Value::Null);
        if !self.deferred.is_empty() {
            let deferred = std::mem::take(&mut self.deferred);
            let mut path = String::new();
            take_sentinels(&mut value, &mut path, &deferred, &mut self.refusals);
        }
        let refusals = std::mem::take(&mut self.refusals);
        let spellings = std::mem::take(&mut self.spellings);
        let items_read = std::mem::take(&mut self.items_read);
        if !value.is_null() || !refusals.is_empty() {
            self.documents.push(YamlDocument {
                value,
                refusals,
                spellings,
                items_read,
            });
        }
    }

    /// The end of a sequence or mapping: the node built, recorded under its anchor with the
    /// nodes it took (go-yaml's aliasing budget counts them again at each alias).
    fn collection_end(&mut self, span: &Span) -> Result<(), String> {
        let (value, anchor, nodes_before) = match self.stack.pop() {
            Some(Frame::Sequence {
                items,
                anchor,
                nodes_before,
            }) => (Value::Array(items), anchor, nodes_before),
            Some(Frame::Mapping {
                mut map,
                anchor,
                nodes_before,
                ..
            }) => {
                if anchor == 0
                    && self.parts
                    && self.at_root_item()
                    && let Some(parts) = super::object_parts(&mut map)
                {
                    let index = match self.stack.last() {
                        Some(Frame::Sequence { items, .. }) => items.len(),
                        _ => unreachable!("at_root_item: in a sequence"),
                    };
                    self.items_read.push((index, parts));
                    // Its tree is dropped here, while the scanner reads on.
                    drop(map);
                    return self.node(Value::Null, span);
                }
                (Value::Object(map), anchor, nodes_before)
            }
            None => return Ok(()),
        };
        if anchor != 0 {
            self.anchor(
                anchor,
                Anchored::Node {
                    value: value.clone(),
                    nodes: self.nodes - nodes_before,
                },
            );
        }
        self.node(value, span)
    }

    /// An alias (go-yaml's `decoder.alias`): the alias node and the anchored node counted again,
    /// then the anchored value used as a key or a value.
    fn alias(&mut self, id: usize, span: &Span) -> Result<(), String> {
        let anchored = self.anchors.get(id).and_then(Option::as_ref);
        let Some(anchored) = anchored else {
            return Err(format!(
                "{}: an alias inside the node it names (go-yaml: anchor value contains itself)",
                at(span)
            ));
        };
        let nodes = match anchored {
            Anchored::Scalar { .. } => 1,
            Anchored::Node { nodes, .. } => *nodes,
        };
        // go-yaml decodes the alias node, then the anchored node again.
        self.count(1, false, span)?;
        self.count(nodes, true, span)?;
        if self.key_next() {
            let key = match self.anchors[id].as_ref() {
                Some(Anchored::Scalar {
                    text, tag, plain, ..
                }) => {
                    let (text, tag, plain) = (text.clone(), tag.clone(), *plain);
                    self.key(Cow::Owned(text), tag.as_deref(), plain, span)
                }
                _ => self.invalid_key(span),
            };
            self.set_key(key, *span);
        } else {
            let value = match self.anchors[id].as_ref() {
                Some(Anchored::Scalar { value, .. } | Anchored::Node { value, .. }) => {
                    value.clone()
                }
                None => Value::Null,
            };
            self.value(value, span)?;
        }
        Ok(())
    }

    /// NEL, LS and PS before this event and not inside a scalar: line breaks for go-yaml only.
    fn breaks_before(&mut self, span: &Span) {
        let start = span.start.byte_offset().unwrap_or(0);
        while let Some(&b) = self.breaks.get(self.next_break)
            && b < start
        {
            let (line, column) = self.lines.locate(b);
            let divergence = Divergence {
                line,
                column,
                path: self.path(None),
                text: visible(&self.text[b..].chars().take(1).collect::<String>()),
                kubectl: "another document, or refuses it".into(),
                ours: "an ordinary character (YAML 1.2)".into(),
                key: false,
                style: "outside",
            };
            self.refusals.push(divergence);
            self.next_break += 1;
        }
    }

    /// The scalar's text as go-yaml reads it. A quoted scalar holding an escape or NEL, LS or
    /// PS is read again with go-yaml's rules (its line breaks, its escapes); any other scalar
    /// holding NEL, LS or PS is refused (go-yaml ends it there).
    fn go_text(&mut self, value: Cow<'t, str>, style: ScalarStyle, span: &Span) -> Cow<'t, str> {
        let (start, end) = (
            span.start.byte_offset().unwrap_or(0),
            span.end.byte_offset().unwrap_or(0),
        );
        let mut has_break = false;
        while self.breaks.get(self.next_break).is_some_and(|&b| b < end) {
            has_break = true;
            self.next_break += 1;
        }
        let source = self.text.get(start..end.max(start)).unwrap_or("");
        // Only go-yaml's line breaks and double-quoted escapes read otherwise.
        if !(has_break || (style == ScalarStyle::DoubleQuoted && source.contains('\\'))) {
            return value;
        }
        let quoted = matches!(style, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted);
        let kubectl = if quoted {
            match goyaml::goyaml_quoted_scalar(&self.text[start..]) {
                Ok(go) => return Cow::Owned(go),
                Err(e) => format!("an error (yaml: {e})"),
            }
        } else {
            "another document, or an error (it takes NEL, LS and PS for line breaks)".into()
        };
        let key = self.key_next();
        let divergence = Divergence {
            line: span.start.line(),
            column: span.start.col() + 1,
            path: self.path(key.then_some(&*value)),
            text: visible(source),
            kubectl,
            ours: json_string(&value),
            key,
            style: match style {
                ScalarStyle::SingleQuoted => "single-quoted",
                ScalarStyle::DoubleQuoted => "double-quoted",
                ScalarStyle::Plain => "plain",
                _ => "block",
            },
        };
        self.refusals.push(divergence);
        value
    }

    /// The value kubectl stores for a scalar in a value's place. `record` is false for an
    /// anchored scalar's reading kept for its aliases (the scalar itself is read right after).
    fn scalar_value(
        &mut self,
        text: Cow<'_, str>,
        tag: Option<&str>,
        plain: bool,
        span: &Span,
        record: bool,
    ) -> Value {
        // Nearly every plain scalar is a name, an image, a path: a string however it is read.
        if tag.is_none() && (!plain || is_text(&text)) {
            return Value::String(text.into_owned());
        }
        let refused = match goyaml::resolve_tagged(tag, &text, plain) {
            Ok(GoTagged::Binary(s)) => return Value::String(s),
            Ok(GoTagged::Scalar(go)) => match go {
                GoScalar::Str => return Value::String(text.into_owned()),
                GoScalar::Null => return Value::Null,
                GoScalar::Bool(b) => return Value::Bool(b),
                GoScalar::Int(i) => return Value::from(i),
                // kubectl stores an integer beyond int64 as a float64.
                GoScalar::Uint(u) => return kubectl_number(u as f64),
                GoScalar::Float(f) if f.is_finite() => return kubectl_number(f),
                GoScalar::Float(f) => {
                    // encoding/json refuses it when it marshals the whole document.
                    let why = format!(
                        "json: unsupported value: {}",
                        if f.is_nan() {
                            "NaN"
                        } else if f > 0.0 {
                            "+Inf"
                        } else {
                            "-Inf"
                        }
                    );
                    let divergence = self.scalar_refusal(&text, tag, plain, span, why, false);
                    return Value::String(self.defer(divergence));
                }
            },
            Err(e) => format!("yaml: {e}"),
        };
        if record {
            let divergence = self.scalar_refusal(&text, tag, plain, span, refused, false);
            self.refusals.push(divergence);
        }
        Value::Null
    }

    /// Stand-in for a refusal that only counts if it is still in the document at its end.
    fn defer(&mut self, divergence: Divergence) -> String {
        self.deferred.push(divergence);
        sentinel(self.deferred.len() - 1)
    }

    /// The JSON object key kubectl makes of a scalar key, or its refusal.
    fn key(&mut self, text: Cow<'_, str>, tag: Option<&str>, plain: bool, span: &Span) -> Key {
        if text == "<<" && ((plain && tag.is_none()) || tag == Some("merge")) {
            return Key::Merge;
        }
        if tag.is_none() && (!plain || is_text(&text)) {
            return Key::Name(text.into_owned());
        }
        let refused = match goyaml::resolve_tagged(tag, &text, plain) {
            Ok(GoTagged::Binary(s)) => return Key::Name(s),
            Ok(GoTagged::Scalar(go)) => match goyaml::go_map_key_text(go, &text) {
                Ok(key) => return Key::Name(key),
                Err(e) => {
                    // sigs.k8s.io/yaml refuses it when it converts the whole document.
                    let why = format!("sigs.k8s.io/yaml: {e}");
                    let divergence = self.scalar_refusal(&text, tag, plain, span, why, true);
                    return Key::Name(self.defer(divergence));
                }
            },
            Err(e) => format!("yaml: {e}"),
        };
        let divergence = self.scalar_refusal(&text, tag, plain, span, refused, true);
        self.refusals.push(divergence);
        Key::Refused
    }

    fn scalar_refusal(
        &self,
        text: &str,
        tag: Option<&str>,
        plain: bool,
        span: &Span,
        kubectl: String,
        key: bool,
    ) -> Divergence {
        let shown = match tag {
            Some(t) if t.contains(['!', ':']) => format!("{t} {text}"),
            Some(t) => format!("!!{t} {text}"),
            None => text.to_string(),
        };
        Divergence {
            line: span.start.line(),
            column: span.start.col() + 1,
            path: self.path(key.then_some(text)),
            text: visible(&shown),
            kubectl,
            ours: String::new(),
            key,
            style: if plain { "plain" } else { "quoted" },
        }
    }

    fn invalid_key(&mut self, span: &Span) -> Key {
        let divergence = Divergence {
            line: span.start.line(),
            column: span.start.col() + 1,
            path: self.path(None),
            text: "a sequence or mapping".into(),
            kubectl: "yaml: invalid map key".into(),
            ours: String::new(),
            key: true,
            style: "node",
        };
        self.refusals.push(divergence);
        Key::Refused
    }

    /// Count decoded nodes as go-yaml does, with its aliasing budget (`allowedAliasRatio` in
    /// decode.go): a document may not be mostly alias expansions.
    fn count(&mut self, nodes: usize, alias: bool, span: &Span) -> Result<(), String> {
        self.nodes += nodes;
        self.file_nodes += nodes;
        if alias {
            self.alias_nodes += nodes;
        }
        if self.alias_nodes > 100
            && self.nodes > 1000
            && self.alias_nodes as f64 / self.nodes as f64 > allowed_alias_ratio(self.nodes)
        {
            return Err(format!(
                "{}: the document expands beyond kubectl's limits (go-yaml: document contains excessive aliasing): aliases that multiply (a \"billion laughs\" document?)",
                at(span)
            ));
        }
        if self.file_nodes > MAX_NODES {
            return Err(format!(
                "{}: more than {MAX_NODES} values, aliases expanded: split the file (a \"billion laughs\" document?)",
                at(span)
            ));
        }
        Ok(())
    }

    fn deeper(&self, span: &Span) -> Result<(), String> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(format!(
                "{}: nested deeper than {MAX_DEPTH} levels",
                at(span)
            ));
        }
        Ok(())
    }

    fn reserve(&mut self, anchor: usize) {
        if self.anchors.len() <= anchor {
            self.anchors.resize_with(anchor + 1, || None);
        }
        self.anchors[anchor] = None;
    }

    fn anchor(&mut self, anchor: usize, node: Anchored) {
        self.reserve(anchor);
        self.anchors[anchor] = Some(node);
    }

    /// Whether the mapping that just ended is an item of the root's `items`, which the document
    /// may hand over as a List's item: the sequence is not anchored (no alias copies it
    /// elsewhere), and no refusal is pending (a deferred one stands in the tree until the
    /// document ends, so no such item is read into parts).
    fn at_root_item(&self) -> bool {
        matches!(
            self.stack.as_slice(),
            [
                Frame::Mapping {
                    key: Some((Key::Name(key), _)),
                    ..
                },
                Frame::Sequence { anchor: 0, .. },
            ] if key == "items"
        ) && self.deferred.is_empty()
    }

    /// Whether the block sequence starting at `span` has its first `-` in column 0. granit
    /// starts an indented sequence at its `-` and one in a mapping's column (`key:\n- a`) at the
    /// entry's node; `false` where it is neither.
    fn entry_in_column_0(&self, span: &Span) -> bool {
        let Some(start) = span.start.byte_offset() else {
            return false;
        };
        let before = self.text[..start].trim_end_matches(' ');
        let dash = if before.ends_with('-') {
            before.len() - 1
        } else if self.text[start..].starts_with('-') {
            start
        } else {
            return false;
        };
        dash == 0 || self.text.as_bytes()[dash - 1] == b'\n'
    }

    fn key_next(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Mapping { key: None, .. }))
    }

    fn set_key(&mut self, key: Key, span: Span) {
        if let Some(Frame::Mapping { key: slot, .. }) = self.stack.last_mut() {
            *slot = Some((key, span));
        }
    }

    /// A finished node: a key (a collection as a key is refused) or a value.
    fn node(&mut self, value: Value, span: &Span) -> Result<(), String> {
        if self.key_next() {
            let key = self.invalid_key(span);
            self.set_key(key, *span);
            return Ok(());
        }
        self.value(value, span)
    }

    /// A value in its place: the document's root, a sequence's item, or a mapping's value.
    fn value(&mut self, value: Value, span: &Span) -> Result<(), String> {
        let Some(top) = self.stack.last_mut() else {
            self.root = Some(value);
            return Ok(());
        };
        let (map, key, explicit) = match top {
            Frame::Sequence { items, .. } => {
                items.push(value);
                return Ok(());
            }
            Frame::Mapping {
                map, key, explicit, ..
            } => (map, key, explicit),
        };
        match key.take() {
            Some((Key::Name(name), key_span)) => {
                let duplicate = match explicit {
                    None => match map.entry(name) {
                        serde_json::map::Entry::Vacant(slot) => {
                            slot.insert(value);
                            return Ok(());
                        }
                        serde_json::map::Entry::Occupied(slot) => slot.key().clone(),
                    },
                    Some(explicit) => {
                        if explicit.insert(name.clone()) {
                            map.insert(name, value);
                            return Ok(());
                        }
                        name
                    }
                };
                Err(format!(
                    "{}: duplicate key {duplicate:?} (a key may appear once in a mapping)",
                    at(&key_span)
                ))
            }
            Some((Key::Merge, _)) => {
                if explicit.is_none() {
                    *explicit = Some(map.keys().cloned().collect());
                }
                // go-yaml merges a mapping, or a sequence of mappings from the last to the first
                // (earlier ones win), writing into the mapping in place: a key after the merge
                // replaces a merged one, and a merged one replaces a key before it.
                // A merge into the root that brings `items` replaces the one read into parts.
                let root = self.stack.len() == 1;
                self.root_merged |= root;
                let brings_items = match &value {
                    Value::Object(merged) => merged.contains_key("items"),
                    Value::Array(list) => {
                        list.iter().all(Value::is_object)
                            && list.iter().any(|m| m.get("items").is_some())
                    }
                    _ => false,
                };
                if root && brings_items {
                    self.items_read.clear();
                }
                let Some(Frame::Mapping { map, .. }) = self.stack.last_mut() else {
                    unreachable!("a merge key is read in a mapping")
                };
                match value {
                    Value::Object(merged) => map.extend(merged),
                    Value::Array(list) if list.iter().all(Value::is_object) => {
                        for merged in list.into_iter().rev() {
                            if let Value::Object(merged) = merged {
                                map.extend(merged);
                            }
                        }
                    }
                    _ => {
                        let divergence = Divergence {
                            line: span.start.line(),
                            column: span.start.col() + 1,
                            path: self.path(Some("<<")),
                            text: "<<".into(),
                            kubectl:
                                "yaml: map merge requires map or sequence of maps as the value"
                                    .into(),
                            ours: String::new(),
                            key: true,
                            style: "merge",
                        };
                        self.refusals.push(divergence);
                    }
                }
                Ok(())
            }
            Some((Key::Refused, _)) | None => Ok(()),
        }
    }

    /// Record how a scalar kubectl stores as a number, a boolean or null was spelled, when Go
    /// writes it back otherwise (`1.0` is `1`, `yes` is `true`), for showing it as written.
    fn spell(&mut self, value: &Value, span: &Span) {
        let (start, end) = (
            span.start.byte_offset().unwrap_or(0),
            span.end.byte_offset().unwrap_or(0),
        );
        let source = self.text.get(start..end.max(start)).unwrap_or("");
        let json = super::go_json(value);
        if source == json {
            return;
        }
        if let Some(pointer) = self.pointer() {
            self.spellings.push(Spelling {
                pointer,
                yaml: source.to_string(),
                json,
            });
        }
    }

    /// The JSON pointer of the value being read (`/spec/template/containers/0`); `None` under a
    /// merge key or a refused key.
    fn pointer(&self) -> Option<String> {
        let mut p = String::new();
        for frame in &self.stack {
            match frame {
                Frame::Mapping {
                    key: Some((Key::Name(name), _)),
                    ..
                } => pointer_step(&mut p, name),
                Frame::Mapping { key: Some(_), .. } => return None,
                Frame::Mapping { key: None, .. } => {}
                Frame::Sequence { items, .. } => p.push_str(&format!("/{}", items.len())),
            }
        }
        Some(p)
    }

    /// Where in the document the reader is (`spec.template.containers[0]`), with `key` when a
    /// key is being read.
    fn path(&self, key: Option<&str>) -> String {
        let mut p = String::new();
        for frame in &self.stack {
            match frame {
                Frame::Mapping {
                    key: Some((k, _)), ..
                } => {
                    if !p.is_empty() {
                        p.push('.');
                    }
                    match k {
                        Key::Name(name) => p.push_str(name),
                        Key::Merge => p.push_str("<<"),
                        Key::Refused => p.push('?'),
                    }
                }
                Frame::Mapping { key: None, .. } => {}
                Frame::Sequence { items, .. } => p.push_str(&format!("[{}]", items.len())),
            }
        }
        if let Some(key) = key {
            if !p.is_empty() {
                p.push('.');
            }
            p.push_str(key);
        }
        p
    }
}

/// The stand-in for the deferred refusal `n`: a string no YAML document holds but by design.
fn sentinel(n: usize) -> String {
    format!("\u{FFFF}kubectl-arc: refused {n}\u{FFFF}")
}

fn sentinel_index(s: &str) -> Option<usize> {
    s.strip_prefix("\u{FFFF}kubectl-arc: refused ")?
        .strip_suffix('\u{FFFF}')?
        .parse()
        .ok()
}

/// The deferred refusals still in the finished document, where they are now (a merge or an
/// alias may have moved or copied them): recorded, and their stand-ins removed.
fn take_sentinels(
    value: &mut Value,
    path: &mut String,
    deferred: &[Divergence],
    out: &mut Vec<Divergence>,
) {
    let found = |n: usize, path: &str, out: &mut Vec<Divergence>| {
        if let Some(d) = deferred.get(n) {
            out.push(Divergence {
                path: path.to_string(),
                ..d.clone()
            });
        }
    };
    match value {
        Value::String(s) => {
            if let Some(n) = sentinel_index(s) {
                found(n, path, out);
                *value = Value::Null;
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                take_sentinels(item, path, deferred, out);
                path.truncate(len);
            }
        }
        Value::Object(map) => {
            let refused_keys: Vec<String> = map
                .keys()
                .filter(|k| sentinel_index(k).is_some())
                .cloned()
                .collect();
            for key in refused_keys {
                let n = sentinel_index(&key).unwrap_or(usize::MAX);
                let text = deferred.get(n).map_or("", |d| d.text.as_str());
                let at = if path.is_empty() {
                    text.to_string()
                } else {
                    format!("{path}.{text}")
                };
                found(n, &at, out);
                map.remove(&key);
            }
            for (key, item) in map.iter_mut() {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                take_sentinels(item, path, deferred, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// go-yaml's `allowedAliasRatio`: 99% of a small document may come from aliases, 10% of a very
/// large one.
fn allowed_alias_ratio(decoded: usize) -> f64 {
    const LOW: usize = 400_000;
    const HIGH: usize = 4_000_000;
    if decoded <= LOW {
        0.99
    } else if decoded >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * ((decoded - LOW) as f64 / (HIGH - LOW) as f64)
    }
}

/// Whether go-yaml reads this plain scalar as a string without trying anything else: it resolves
/// only texts starting with a digit, a sign, '.', '~', or the first letter of one of its words
/// (`y`, `n`, `t`, `f`, `o`, `N` of null and `~`), and the empty text.
fn is_text(text: &str) -> bool {
    match text.as_bytes().first() {
        None => false,
        Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'~') => false,
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O') => text.len() > 5,
        Some(_) => true,
    }
}

/// The number kubectl stores for a float64 (an integer when encoding/json writes it as one, as
/// its int-preserving decoding reads it back; -0 is 0).
fn kubectl_number(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
        return Value::from(f as i64);
    }
    let text = goyaml::go_float(f);
    match text.parse::<i64>() {
        Ok(i) => Value::from(i),
        Err(_) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::new();
    goyaml::go_json_string(s, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(read: Result<Vec<YamlDocument>, String>) -> String {
        match read {
            Ok(docs) => docs
                .iter()
                .map(|d| format!("{}\n{:?}\n{:?}\n", d.value, d.refusals, d.spellings))
                .collect(),
            Err(message) => format!("error: {message}"),
        }
    }

    /// Scanning beside the building reads what scanning in line reads: the same documents,
    /// refusals and spellings, or the same first error, wherever in the stream it comes (the
    /// scanner's own errors and the builder's, before, inside and after a batch boundary).
    #[test]
    fn read_ways_agree() {
        let document = |i: usize| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m{i}\n  labels: {{a: yes, b: 0x1{i}}}\ndata:\n  k: &a{i} [1.0, ~, \"x\\u0085y\"]\n  j: *a{i}\n  l: |\n    text {i}\n"
            )
        };
        let stream = |n: usize| (0..n).map(document).collect::<Vec<_>>().join("---\n");
        let mut cases = vec![String::new(), "~".to_string(), stream(1), stream(120)];
        for bad in [
            "a: [1, 2\n",                     // the scanner's error
            "a: 1\na: 2\n",                   // the builder's: a duplicate key
            "a: *nowhere\n",                  // an unknown anchor
            "a: b\n  c: d\n",                 // mapping values not allowed here
            "a: .inf\n",                      // a deferred refusal, no error
            "x: \"\u{2028}\"\ny: a\u{85}b\n", // go-yaml's line breaks
        ] {
            for at in [0, 7, 40, 119] {
                let mut text = stream(at);
                if at > 0 {
                    text.push_str("---\n");
                }
                text.push_str(bad);
                text.push_str("---\n");
                text.push_str(&stream(5));
                cases.push(text);
            }
        }
        let mut read = Vec::new();
        for text in &cases {
            let beside = shown(read_with(text, 0, false));
            assert_eq!(beside, shown(read_with(text, usize::MAX, false)), "{text}");
            let beside = shown(read_with(text, 0, true));
            assert_eq!(beside, shown(read_with(text, usize::MAX, true)), "{text}");
            read.push(beside);
        }
        // The cases reach past a batch and hold errors of both kinds.
        assert_eq!(read[3].matches("ConfigMap").count(), 120);
        assert!(read.iter().any(|r| r.contains("duplicate key")));
        assert_eq!(read.iter().filter(|r| r.starts_with("error")).count(), 16);
    }
}
