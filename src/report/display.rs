//! A Go value as people read it: YAML lines, each tagged with its JSON path.
//!
//! Rendering layer (pure). The tree follows Go's `encoding/json` output of the value (struct field
//! order, JSON names, inline structs promoted, `omitempty` scalars dropped) with one deliberate
//! change: empty but non-nil slices and maps are shown (`env: []`) and nil ones are not, because
//! that is the difference a strict comparison sees and Go's own output would hide. All-zero
//! non-pointer structs are left out as noise; a non-nil pointer to an empty struct shows as `{}`.
//! Paths use the same spelling as [`crate::core::equality`], so lines can carry their verdicts.

use std::fmt::Write as _;

use num_bigint::BigUint;
use num_traits::Zero as _;

use crate::core::equality::push_key;
use crate::core::goyaml::{GoScalar, resolve_plain};
use crate::core::layout::{Kind, Layout, TypeId};
use crate::core::quantity::{Format, Quantity};
use crate::core::value::Value;
use crate::core::written::Written;

/// A display tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A scalar, spelled as YAML.
    Scalar(Scalar),
    /// A mapping in order: key, node, path.
    Map(Vec<(String, Node, String)>),
    /// A sequence: node, path.
    Seq(Vec<(Node, String)>),
}

/// A scalar as shown, and what the comparison sees of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scalar {
    /// The YAML text shown: as the input wrote it when that is known and decodes to the value
    /// compared (`4096Mi`, `1.0`, `0x10`, a number unquoted), else as Go writes the value; a
    /// string is always spelled as go-yaml writes it (kubectl's `-o yaml`), so that quoting
    /// never reads as a change. For a block scalar, its header (`|`, `|-`).
    pub(crate) text: String,
    /// A block scalar's content lines, unindented.
    pub(crate) block: Vec<String>,
    /// Equal for two scalars exactly when Go's `reflect.DeepEqual` finds them equal, whatever
    /// their spelling: `1` and `"1"` as a quantity are one value, `1` and `1000m` are two.
    pub(crate) identity: String,
}

impl Scalar {
    fn plain(text: String) -> Scalar {
        Scalar {
            identity: text.clone(),
            text,
            block: Vec::new(),
        }
    }

    /// The scalar as one line of text (a block scalar's lines joined with line feeds).
    pub(crate) fn one_line(&self) -> String {
        if self.block.is_empty() {
            self.text.clone()
        } else {
            self.block.join("\n")
        }
    }
}

/// One rendered line, the path of the value it belongs to, and its identity (equal for two lines
/// exactly when they show the same key and a value Go finds equal, however it is spelled).
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub text: String,
    pub(crate) path: String,
    pub(crate) identity: String,
    /// Where the value starts in `text` (after `key: ` or `- `).
    pub(crate) value_start: usize,
}

/// Build the display tree of a value (`None` when nothing would be shown), as Go writes it.
pub fn tree(layout: &Layout, ty: TypeId, v: &Value, path: &str) -> Option<Node> {
    tree_written(layout, ty, v, path, &Written::Unknown)
}

/// Build the display tree of a value beside what its input wrote ([`Written`], walked along):
/// each scalar is shown as written when the written text decodes to the value itself.
pub(crate) fn tree_written(
    layout: &Layout,
    ty: TypeId,
    v: &Value,
    path: &str,
    written: &Written,
) -> Option<Node> {
    let t = layout.ty(ty);
    match v {
        Value::Ptr(None) | Value::Slice(None) | Value::Map(None) => None,
        Value::Ptr(Some(inner)) => {
            let Kind::Ptr(e) = t.kind else { unreachable!() };
            Some(tree_written(layout, e, inner, path, written).unwrap_or(Node::Map(Vec::new())))
        }
        Value::Slice(Some(items)) => {
            let elem = match t.kind {
                Kind::Slice(e) | Kind::Array(e, _) => e,
                _ => unreachable!(),
            };
            Some(Node::Seq(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        let p = format!("{path}[{i}]");
                        let node = tree_written(layout, elem, item, &p, written.item(i))
                            .unwrap_or(Node::Map(Vec::new()));
                        (node, p)
                    })
                    .collect(),
            ))
        }
        Value::Map(Some(entries)) => {
            let Kind::Map(_, elem) = t.kind else {
                unreachable!()
            };
            Some(Node::Map(
                entries
                    .iter()
                    .map(|(k, item)| {
                        let mut p = path.to_string();
                        push_key(&mut p, k);
                        let node = tree_written(layout, elem, item, &p, written.get(k))
                            .unwrap_or(Node::Scalar(Scalar::plain("null".into())));
                        (yaml_key(k), node, p)
                    })
                    .collect(),
            ))
        }
        Value::Struct(values) => {
            let Kind::Struct(fields) = &t.kind else {
                unreachable!()
            };
            let mut out = Vec::new();
            for (f, fv) in fields.iter().zip(values.iter()) {
                if !f.exported || f.json == "-" {
                    continue;
                }
                if f.inline {
                    if let Some(Node::Map(inner)) = tree_written(layout, f.ty, fv, path, written) {
                        out.extend(inner);
                    }
                    continue;
                }
                let mut p = path.to_string();
                if !p.is_empty() {
                    p.push('.');
                }
                p.push_str(&f.json);
                if f.omitempty && is_zero_scalar(fv) || unwritten_zero(written, &f.json, fv) {
                    continue;
                }
                if let Some(node) = tree_written(layout, f.ty, fv, &p, written.get(&f.json)) {
                    if matches!(fv, Value::Struct(_)) && node == Node::Map(Vec::new()) {
                        continue;
                    }
                    out.push((yaml_key(&f.json), node, p));
                }
            }
            Some(Node::Map(out))
        }
        Value::Time(t) if !t.local && t.secs == 0 && t.nanos == 0 => None,
        scalar => {
            let mut shown = as_go_writes(scalar)?;
            if let Written::Scalar { json, yaml } = written
                && let Some((text, block)) = as_written(scalar, json, yaml.as_deref())
            {
                shown.text = text;
                shown.block = block;
            }
            Some(Node::Scalar(shown))
        }
    }
}

/// The value at `target` as a report gives it (`from`/`to` of a difference): a string itself, any
/// other scalar as written (unquoted, unless `quoted`: `"1"` for a quantity written as a string),
/// `{}` or `[]` for an empty map or list, a larger one as its YAML lines; `None` when nothing is
/// there.
pub(crate) fn report_text(
    layout: &Layout,
    ty: TypeId,
    v: &Value,
    written: &Written,
    target: &str,
    quoted: bool,
) -> Option<String> {
    let (ty, v, written) = find(layout, ty, v, written, &mut String::new(), target)?;
    if let Value::String(s) = v {
        return Some(s.to_string());
    }
    Some(match tree_written(layout, ty, v, target, written)? {
        Node::Scalar(s) if quoted => s.one_line(),
        Node::Scalar(s) => unquote_yaml(&s.one_line()),
        Node::Map(entries) if entries.is_empty() => "{}".into(),
        Node::Seq(items) if items.is_empty() => "[]".into(),
        node => lines(&node)
            .iter()
            .map(|l| l.text.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    })
}

/// The string a one-line quoted YAML scalar stands for; any other text as it is.
fn unquote_yaml(text: &str) -> String {
    if let Some(inner) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    if text.starts_with('"') {
        return serde_json::from_str::<String>(text).unwrap_or_else(|_| text.to_string());
    }
    text.to_string()
}

fn find<'v>(
    layout: &Layout,
    ty: TypeId,
    v: &'v Value,
    written: &'v Written,
    here: &mut String,
    target: &str,
) -> Option<(TypeId, &'v Value, &'v Written)> {
    if here == target {
        return Some((ty, v, written));
    }
    let leads_to_target = here.is_empty()
        || (target.starts_with(here.as_str())
            && matches!(target.as_bytes().get(here.len()), Some(b'.' | b'[')));
    if !leads_to_target {
        return None;
    }
    let len = here.len();
    let found = match (v, &layout.ty(ty).kind) {
        (Value::Ptr(Some(inner)), Kind::Ptr(e)) => find(layout, *e, inner, written, here, target),
        (Value::Struct(values), Kind::Struct(fields)) => {
            fields.iter().zip(values.iter()).find_map(|(f, fv)| {
                if !f.inline && unwritten_zero(written, &f.json, fv) {
                    return None;
                }
                let w = if f.inline {
                    written
                } else {
                    if !here.is_empty() {
                        here.push('.');
                    }
                    here.push_str(&f.json);
                    written.get(&f.json)
                };
                let found = find(layout, f.ty, fv, w, here, target);
                here.truncate(len);
                found
            })
        }
        (Value::Slice(Some(items)), Kind::Slice(e) | Kind::Array(e, _)) => {
            items.iter().enumerate().find_map(|(i, item)| {
                let _ = write!(here, "[{i}]");
                let found = find(layout, *e, item, written.item(i), here, target);
                here.truncate(len);
                found
            })
        }
        (Value::Map(Some(entries)), Kind::Map(_, e)) => entries.iter().find_map(|(k, item)| {
            push_key(here, k);
            let found = find(layout, *e, item, written.get(k), here, target);
            here.truncate(len);
            found
        }),
        _ => None,
    };
    here.truncate(len);
    found
}

/// A zero quantity (Format unset: what no input writes but absence or null) that its input left
/// out of an object it wrote (`divisor`): shown absent, as written, not as the `"0"` Go writes.
fn unwritten_zero(parent: &Written, key: &str, v: &Value) -> bool {
    matches!(v, Value::Quantity(q) if **q == Quantity::default())
        && matches!(parent, Written::Object(_))
        && *parent.get(key) == Written::Unknown
}

/// A scalar as Go writes it (the text), with its identity.
fn as_go_writes(v: &Value) -> Option<Scalar> {
    Some(match v {
        Value::Bool(b) => Scalar::plain(b.to_string()),
        Value::Int(n) => Scalar::plain(n.to_string()),
        Value::Uint(n) => Scalar::plain(n.to_string()),
        // -0 and 0 are one value to Go's ==.
        Value::Float(f) => Scalar::plain((f + 0.0).to_string()),
        Value::String(s) => {
            let (text, block) = yaml_block(s);
            Scalar {
                identity: text.clone(),
                text,
                block,
            }
        }
        Value::Quantity(q) => Scalar {
            text: yaml_string(&quantity_as_written(q)),
            block: Vec::new(),
            identity: format!("\0{}", q.spew()),
        },
        Value::IntOrString(x) => Scalar {
            text: if x.kind == 1 {
                yaml_string(&x.str_val)
            } else {
                x.int_val.to_string()
            },
            block: Vec::new(),
            identity: format!("\0{x:?}"),
        },
        Value::Time(t) => Scalar {
            text: yaml_string(&crate::core::gotime::format_rfc3339_utc(t.secs, t.nanos)),
            block: Vec::new(),
            identity: format!("\0{t:?}"),
        },
        Value::FieldsV1(raw) => Scalar::plain(yaml_string(&String::from_utf8_lossy(raw.as_ref()?))),
        Value::Ptr(_) | Value::Slice(_) | Value::Map(_) | Value::Struct(_) => return None,
    })
}

/// The scalar as its input wrote it, when the written JSON (and its YAML spelling) decodes to
/// `v` itself: a number keeps its spelling and is not quoted, a quantity or an int-or-string
/// written as a string is that string. A plain string is spelled as go-yaml writes it.
fn as_written(v: &Value, json: &str, yaml: Option<&str>) -> Option<(String, Vec<String>)> {
    let spelled = || (yaml.unwrap_or(json).to_string(), Vec::new());
    if json == "null" {
        // Go leaves a scalar as it was for null: the zero value of a fresh one.
        let zero = match v {
            Value::Bool(b) => !b,
            Value::Int(n) => *n == 0,
            Value::Uint(n) => *n == 0,
            Value::Float(f) => *f == 0.0,
            Value::String(s) => s.is_empty(),
            Value::Quantity(q) => **q == Quantity::default(),
            Value::IntOrString(x) => **x == Default::default(),
            _ => false,
        };
        return zero.then(spelled);
    }
    let string = || {
        json.starts_with('"')
            .then(|| crate::core::json::unquote(json))
    };
    let ok = match v {
        Value::Bool(b) => json == if *b { "true" } else { "false" },
        Value::Int(n) => json.parse::<i64>().ok() == Some(*n),
        Value::Uint(n) => json.parse::<u64>().ok() == Some(*n),
        Value::Float(f) => json.parse::<f64>().ok() == Some(*f),
        // A string is spelled as go-yaml writes it, whoever quoted it.
        Value::String(_) => false,
        Value::Quantity(q) => {
            if Quantity::from_json(json).ok().as_ref() != Some(&**q) {
                return None;
            }
            return Some(match string() {
                Some(s) => (yaml_string(&s), Vec::new()),
                None => spelled(),
            });
        }
        Value::IntOrString(x) => {
            return match string() {
                Some(s) if x.kind == 1 && s == x.str_val => Some(yaml_block(&s)),
                None if x.kind == 0 && json.parse::<i32>().ok() == Some(x.int_val) => {
                    Some(spelled())
                }
                _ => None,
            };
        }
        Value::Time(t) => {
            let s = string()?;
            let same = t.local && crate::core::gotime::parse_rfc3339(&s) == Ok((t.secs, t.nanos));
            return same.then(|| (yaml_string(&s), Vec::new()));
        }
        _ => false,
    };
    ok.then(spelled)
}

/// A quantity as it was most likely written: Go's cached string when it kept one, else the int64
/// amount with the suffix its scale implies (`1000m`, `1.0`), else the canonical form. Display only:
/// it lets `1` and `1000m` read differently in a diff, as they differ to a strict comparison.
pub(crate) fn quantity_as_written(q: &Quantity) -> String {
    if !q.s.is_empty() {
        return q.s.to_string();
    }
    if q.format == Format::BinarySI
        && let Some(text) = binary_fraction_as_written(q)
    {
        return text;
    }
    if q.d.is_some() || q.format == Format::BinarySI {
        return q.canonical_string();
    }
    let (value, scale) = (q.i.value, q.i.scale);
    if q.format == Format::DecimalExponent {
        return format!("{value}e{scale}");
    }
    let suffix = match scale {
        -9 => "n",
        -6 => "u",
        -3 => "m",
        0 => "",
        3 => "k",
        6 => "M",
        9 => "G",
        12 => "T",
        15 => "P",
        18 => "E",
        _ if scale < 0 => {
            let digits = value.unsigned_abs().to_string();
            let places = (-scale) as usize;
            let padded = format!("{digits:0>width$}", width = places + 1);
            let (int, frac) = padded.split_at(padded.len() - places);
            let sign = if value < 0 { "-" } else { "" };
            return format!("{sign}{int}.{frac}");
        }
        _ => return q.canonical_string(),
    };
    format!("{value}{suffix}")
}

/// A BinarySI quantity that Go keeps as an `inf.Dec` because it was written with a fraction
/// (`1.5Gi`): the largest binary suffix of which it is a whole number of thousandths, at least one.
fn binary_fraction_as_written(q: &Quantity) -> Option<String> {
    let d = q.d.as_ref()?;
    let mag = d.abs.as_ref()?;
    if !(0..=40).contains(&d.scale) {
        return None;
    }
    let thousandths: BigUint = mag * 1000u32;
    let ten_scale = BigUint::from(10u32).pow(d.scale as u32);
    for (k, suffix) in [
        (6, "Ei"),
        (5, "Pi"),
        (4, "Ti"),
        (3, "Gi"),
        (2, "Mi"),
        (1, "Ki"),
    ] {
        let unit: BigUint = &ten_scale << (10 * k);
        let rest: BigUint = &thousandths % &unit;
        if !rest.is_zero() {
            continue;
        }
        let n: BigUint = &thousandths / &unit;
        if n < BigUint::from(1000u32) {
            continue;
        }
        let whole = &n / 1000u32;
        let frac = format!("{:03}", &n % 1000u32);
        let frac = frac.trim_end_matches('0');
        let sign = if d.neg { "-" } else { "" };
        return Some(if frac.is_empty() {
            format!("{sign}{whole}{suffix}")
        } else {
            format!("{sign}{whole}.{frac}{suffix}")
        });
    }
    None
}

fn is_zero_scalar(v: &Value) -> bool {
    match v {
        Value::Bool(b) => !b,
        Value::Int(n) => *n == 0,
        Value::Uint(n) => *n == 0,
        Value::Float(f) => *f == 0.0,
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

/// Render a tree as block YAML lines.
pub fn lines(node: &Node) -> Vec<Line> {
    let mut out = Vec::new();
    emit(node, 0, "", &mut out);
    out
}

/// One line whose identity is its text.
fn line(text: String, path: &str, value_start: usize) -> Line {
    Line {
        identity: text.clone(),
        text,
        path: path.to_string(),
        value_start,
    }
}

/// The lines of a scalar after `lead` (`  key: `, or the indentation alone), its block content
/// indented by `block_pad`.
fn emit_scalar(s: &Scalar, lead: &str, block_pad: &str, path: &str, out: &mut Vec<Line>) {
    let mut text = format!("{lead}{}", s.text);
    // A null written as nothing at all (`cpu:`) leaves no space behind its key.
    if s.text.is_empty() {
        text.truncate(text.trim_end().len());
    }
    out.push(Line {
        identity: format!("{lead}{}", s.identity),
        text,
        path: path.to_string(),
        value_start: lead.len(),
    });
    for l in &s.block {
        let text = if l.is_empty() {
            String::new()
        } else {
            format!("{block_pad}{l}")
        };
        out.push(line(text, path, block_pad.len()));
    }
}

fn emit(node: &Node, indent: usize, path: &str, out: &mut Vec<Line>) {
    let pad = " ".repeat(indent);
    let inner = " ".repeat(indent + 2);
    match node {
        // A sequence item: its block content sits at the item's own indentation.
        Node::Scalar(s) => emit_scalar(s, &pad, &pad, path, out),
        Node::Map(entries) if entries.is_empty() => {
            out.push(line(format!("{pad}{{}}"), path, indent))
        }
        Node::Seq(items) if items.is_empty() => out.push(line(format!("{pad}[]"), path, indent)),
        Node::Map(entries) => {
            for (k, v, p) in entries {
                let lead = format!("{pad}{k}: ");
                match v {
                    Node::Scalar(s) => emit_scalar(s, &lead, &inner, p, out),
                    Node::Map(m) if m.is_empty() => {
                        out.push(line(format!("{lead}{{}}"), p, lead.len()))
                    }
                    Node::Seq(s) if s.is_empty() => {
                        out.push(line(format!("{lead}[]"), p, lead.len()))
                    }
                    Node::Map(_) => {
                        out.push(line(format!("{pad}{k}:"), p, lead.len()));
                        emit(v, indent + 2, p, out);
                    }
                    Node::Seq(_) => {
                        out.push(line(format!("{pad}{k}:"), p, lead.len()));
                        emit(v, indent, p, out);
                    }
                }
            }
        }
        Node::Seq(items) => {
            for (item, p) in items {
                let start = out.len();
                emit(item, indent + 2, p, out);
                // The first line of the item carries the dash.
                if let Some(first) = out.get_mut(start) {
                    for text in [&mut first.text, &mut first.identity] {
                        let body = text.get(indent + 2..).unwrap_or("").to_string();
                        let mut dashed = String::new();
                        let _ = write!(dashed, "{pad}- {body}");
                        *text = dashed;
                    }
                    first.value_start = first.value_start.max(indent + 2);
                }
            }
        }
    }
}

/// A YAML mapping key as go-yaml writes it (a key is never a block scalar).
fn yaml_key(k: &str) -> String {
    if k.contains(['\n', '\r']) {
        return double_quoted(k);
    }
    yaml_string(k)
}

/// A one-line string as go-yaml (kubectl's `-o yaml`) writes it: plain when the emitter allows
/// it and it reads back as this string, else single-quoted, else double-quoted.
pub(crate) fn yaml_string(s: &str) -> String {
    yaml_block(s).0
}

/// A string as go-yaml writes it: as [`yaml_string`], or, holding a line feed, as a literal
/// block scalar: its header (`|`, `|-`, `|+`, with `2` when it starts with a space) and content
/// lines. A string with other line breaks, or that a block cannot hold, is double-quoted.
pub(crate) fn yaml_block(s: &str) -> (String, Vec<String>) {
    let a = analyze(s);
    if s.contains('\n') {
        if a.block_allowed && !s.contains(['\r', '\u{85}', '\u{2028}', '\u{2029}']) {
            return literal_block(s);
        }
        return (double_quoted(s), Vec::new());
    }
    let reads_back = !s.is_empty()
        && resolve_plain(s) == GoScalar::Str
        && !is_base60_float(s)
        && !looks_like_timestamp(s)
        && s != "<<";
    let text = if reads_back && a.block_plain_allowed {
        s.to_string()
    } else if reads_back && a.single_quoted_allowed {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        double_quoted(s)
    };
    (text, Vec::new())
}

fn double_quoted(s: &str) -> String {
    serde_json::to_string(s).expect("string")
}

/// go-yaml's `yaml_emitter_write_block_scalar_hints` and the content of a literal scalar.
fn literal_block(s: &str) -> (String, Vec<String>) {
    let mut header = String::from("|");
    if s.starts_with([' ', '\n']) {
        header.push('2');
    }
    let body = if let Some(body) = s.strip_suffix('\n') {
        if body.is_empty() || body.ends_with('\n') {
            header.push('+');
        }
        body
    } else {
        header.push('-');
        s
    };
    (header, body.split('\n').map(str::to_string).collect())
}

/// What libyaml's `yaml_emitter_analyze_scalar` allows a scalar in block context.
struct Allowed {
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn analyze(s: &str) -> Allowed {
    if s.is_empty() {
        return Allowed {
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let is_break = |c: char| matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
    let is_printable = |c: char| {
        matches!(c, '\n' | '\u{20}'..='\u{7E}' | '\u{85}' | '\u{A0}'..='\u{D7FF}' | '\u{10000}'..)
            || (('\u{E000}'..='\u{FFFD}').contains(&c) && c != '\u{FEFF}')
    };
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let followed_by_whitespace = next.is_none_or(|n| n == ' ' || n == '\t' || is_break(n));
        let last = next.is_none();
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => block_indicators = true,
                '?' | ':' | '-' if followed_by_whitespace => block_indicators = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_by_whitespace => block_indicators = true,
                '#' if preceded_by_whitespace => block_indicators = true,
                _ => {}
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = matches!(c, ' ' | '\t' | '\0') || is_break(c);
    }
    let mut a = Allowed {
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks || block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

/// go-yaml v2's `isBase60Float` (`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`): such a
/// string is quoted, as YAML 1.1 readers take it for a number.
fn is_base60_float(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (s, frac) = match s.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    if frac.is_some_and(|f| !f.bytes().all(|b| b.is_ascii_digit() || b == b'_')) {
        return false;
    }
    let mut parts = s.split(':');
    let head = parts.next().unwrap_or("");
    let head_ok = head.starts_with(|c: char| c.is_ascii_digit())
        && head.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    let mut sixties = 0;
    for p in parts {
        let ok = matches!(p.len(), 1 | 2)
            && p.bytes().all(|b| b.is_ascii_digit())
            && (p.len() == 1 || p.as_bytes()[0] <= b'5');
        if !ok {
            return false;
        }
        sixties += 1;
    }
    head_ok && sixties > 0
}

/// A string go-yaml v2 resolves as a timestamp (`2006-1-2`, with a time after `T`, `t` or a
/// space) and so quotes.
fn looks_like_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 8 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let date_end = s.find(['T', 't', ' ']).unwrap_or(s.len());
    let mut parts = s[5..date_end].split('-');
    let (Some(m), Some(d), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    [m, d]
        .iter()
        .all(|p| matches!(p.len(), 1 | 2) && p.bytes().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::value::decode;

    #[test]
    fn renders_go_values_as_yaml_with_paths() {
        let l = Layout::arc();
        let v = decode(
            l,
            l.ephemeral_runner_spec,
            r#"{"githubConfigUrl":"https://github.com/o","runnerScaleSetId":3,
               "metadata":{"labels":{"app.kubernetes.io/name":"r"}},
               "spec":{"containers":[{"name":"runner","image":"img","env":[],"securityContext":{},
                 "resources":{"limits":{"cpu":"1000m"}}}]}}"#,
        )
        .unwrap();
        let node = tree(l, l.ephemeral_runner_spec, &v, "").unwrap();
        let got: Vec<(String, String)> =
            lines(&node).into_iter().map(|l| (l.text, l.path)).collect();
        let want = [
            ("githubConfigUrl: https://github.com/o", "githubConfigUrl"),
            ("runnerScaleSetId: 3", "runnerScaleSetId"),
            ("metadata:", "metadata"),
            ("  labels:", "metadata.labels"),
            (
                "    app.kubernetes.io/name: r",
                "metadata.labels[\"app.kubernetes.io/name\"]",
            ),
            ("spec:", "spec"),
            ("  containers:", "spec.containers"),
            ("  - name: runner", "spec.containers[0].name"),
            ("    image: img", "spec.containers[0].image"),
            ("    env: []", "spec.containers[0].env"),
            ("    resources:", "spec.containers[0].resources"),
            ("      limits:", "spec.containers[0].resources.limits"),
            (
                "        cpu: 1000m",
                "spec.containers[0].resources.limits.cpu",
            ),
            (
                "    securityContext: {}",
                "spec.containers[0].securityContext",
            ),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn quantities_read_as_they_were_written() {
        for (json, shown) in [
            (r#""1000m""#, "1000m"),
            ("0.5", "0.5"),
            (r#""1.5Gi""#, "1.5Gi"),
            (r#""2.25Ki""#, "2.25Ki"),
            (r#""0.5Gi""#, "512Mi"),
            (r#""1536Mi""#, "1536Mi"),
            (r#""8192Mi""#, "8Gi"),
            ("null", "0"),
        ] {
            let q = crate::core::quantity::Quantity::from_json(json).unwrap();
            assert_eq!(quantity_as_written(&q), shown, "{json}");
        }
    }

    /// The lines of a runner spec written as a YAML (or JSON) file, each value as written.
    fn written_lines(text: &str) -> Vec<Line> {
        let l = Layout::arc();
        let objects = crate::manifest::parse(text, "t.yaml").unwrap();
        let json = crate::manifest::go_json(&objects[0].value);
        let v = decode(l, l.ephemeral_runner_spec, &json).unwrap();
        let mut written = Written::from_json(&json);
        written.spell("", &objects[0].spellings);
        lines(&tree_written(l, l.ephemeral_runner_spec, &v, "", &written).unwrap())
    }

    /// The text of the line at `path` (the first one, for a block scalar).
    fn at(lines: &[Line], path: &str) -> String {
        lines
            .iter()
            .find(|l| l.path == path)
            .map(|l| l.text.trim().to_string())
            .unwrap_or_else(|| panic!("no line at {path}: {lines:#?}"))
    }

    #[test]
    fn every_scalar_shows_as_its_yaml_wrote_it() {
        let got = written_lines(
            "spec:
  terminationGracePeriodSeconds: 30.0
  activeDeadlineSeconds: 1e3
  priority: 0x10
  automountServiceAccountToken: yes
  hostNetwork: True
  containers:
  - name: r
    ports:
    - containerPort: 8080
    livenessProbe:
      tcpSocket: {port: '8080'}
      httpGet: {port: 080, path: \"1\"}
    readinessProbe:
      tcpSocket: {port: http}
    resources:
      limits: {a: 1, b: \"1\", c: 1000m, d: 1k, e: 1Ki, f: 1e3, g: .5, h: +1, i: 4096Mi, j: 1.5Gi, k: \"1e3\", l: 12345678901234567890, m: ~, q:}
",
        );
        let c = "spec.containers[0]";
        for (path, want) in [
            (
                "spec.terminationGracePeriodSeconds".to_string(),
                "terminationGracePeriodSeconds: 30.0",
            ),
            (
                "spec.activeDeadlineSeconds".into(),
                "activeDeadlineSeconds: 1e3",
            ),
            ("spec.priority".into(), "priority: 0x10"),
            (
                "spec.automountServiceAccountToken".into(),
                "automountServiceAccountToken: yes",
            ),
            ("spec.hostNetwork".into(), "hostNetwork: True"),
            (
                format!("{c}.ports[0].containerPort"),
                "- containerPort: 8080",
            ),
            // int-or-string: a string stays a string, a number a number.
            (
                format!("{c}.livenessProbe.tcpSocket.port"),
                "port: \"8080\"",
            ),
            (format!("{c}.livenessProbe.httpGet.port"), "port: 080"),
            (format!("{c}.livenessProbe.httpGet.path"), "path: \"1\""),
            (format!("{c}.readinessProbe.tcpSocket.port"), "port: http"),
        ] {
            assert_eq!(at(&got, &path), want, "{path}");
        }
        for (key, want) in [
            ("a", "1"),
            ("b", "\"1\""),
            ("c", "1000m"),
            ("d", "1k"),
            ("e", "1Ki"),
            ("f", "1e3"),
            ("g", ".5"),
            ("h", "+1"),
            ("i", "4096Mi"),
            ("j", "1.5Gi"),
            ("k", "\"1e3\""),
            ("l", "12345678901234567890"),
            ("m", "~"),
            ("q", ""),
        ] {
            let path = format!("{c}.resources.limits.{key}");
            let want = format!("{key}:{}{want}", if want.is_empty() { "" } else { " " });
            assert_eq!(at(&got, &path), want, "{path}");
        }
    }

    #[test]
    fn a_json_file_keeps_its_numbers_and_strings() {
        let got = written_lines(
            r#"{"spec":{"terminationGracePeriodSeconds":30.0,"containers":[{"name":"r",
               "resources":{"limits":{"cpu":"1","memory":4096e6,"x":1E3}}}]}}"#,
        );
        let limits = "spec.containers[0].resources.limits";
        assert_eq!(
            at(&got, "spec.terminationGracePeriodSeconds"),
            "terminationGracePeriodSeconds: 30.0"
        );
        assert_eq!(at(&got, &format!("{limits}.cpu")), "cpu: \"1\"");
        assert_eq!(at(&got, &format!("{limits}.memory")), "memory: 4096e6");
        assert_eq!(at(&got, &format!("{limits}.x")), "x: 1E3");
    }

    #[test]
    fn a_spelling_that_is_not_the_value_compared_is_not_shown() {
        let l = Layout::arc();
        let v = decode(
            l,
            l.ephemeral_runner_spec,
            r#"{"runnerScaleSetId":7,"spec":{"priority":16}}"#,
        )
        .unwrap();
        // Written elsewhere (ARC filled it in, or the input said another value): Go's form.
        let written = Written::from_json(r#"{"runnerScaleSetId":"7","spec":{"priority":17}}"#);
        let got = lines(&tree_written(l, l.ephemeral_runner_spec, &v, "", &written).unwrap());
        assert_eq!(at(&got, "runnerScaleSetId"), "runnerScaleSetId: 7");
        assert_eq!(at(&got, "spec.priority"), "priority: 16");
    }

    #[test]
    fn identities_follow_go_not_the_spelling() {
        let l = Layout::arc();
        let identity = |json: &str, written: &str| {
            let v = decode(l, l.ephemeral_runner_spec, json).unwrap();
            let written = Written::from_json(written);
            let lines = lines(&tree_written(l, l.ephemeral_runner_spec, &v, "", &written).unwrap());
            lines.last().unwrap().identity.clone()
        };
        let cpu = |q: &str| {
            format!(r#"{{"spec":{{"containers":[{{"resources":{{"limits":{{"cpu":{q}}}}}}}]}}}}"#)
        };
        // One value however written...
        assert_eq!(
            identity(&cpu("1"), &cpu("1")),
            identity(&cpu("\"1\""), &cpu("\"1\""))
        );
        assert_eq!(
            identity(&cpu("\"4Gi\""), &cpu("\"4Gi\"")),
            identity(&cpu("\"4Gi\""), "{}")
        );
        // ...and two values, however alike they read.
        assert_ne!(
            identity(&cpu("\"1\""), "{}"),
            identity(&cpu("\"1000m\""), "{}")
        );
        assert_ne!(
            identity(&cpu("\"4Gi\""), "{}"),
            identity(&cpu("\"4096Mi\""), "{}")
        );
        let port = |p: &str| {
            format!(
                r#"{{"spec":{{"containers":[{{"livenessProbe":{{"tcpSocket":{{"port":{p}}}}}}}]}}}}"#
            )
        };
        assert_ne!(
            identity(&port("8080"), "{}"),
            identity(&port("\"8080\""), "{}")
        );
    }

    #[test]
    fn strings_are_spelled_as_go_yaml_writes_them() {
        for (s, want) in [
            ("img:1", "img:1"),
            ("https://github.com/o", "https://github.com/o"),
            (
                "--host=unix:///var/run/docker.sock",
                "--host=unix:///var/run/docker.sock",
            ),
            ("-c", "-c"),
            ("$(DOCKER_GROUP_GID)", "$(DOCKER_GROUP_GID)"),
            ("a b", "a b"),
            ("x#y", "x#y"),
            ("1", "\"1\""),
            ("1.0", "\"1.0\""),
            ("0x10", "\"0x10\""),
            ("1_000", "\"1_000\""),
            ("yes", "\"yes\""),
            ("True", "\"True\""),
            ("~", "\"~\""),
            ("null", "\"null\""),
            ("", "\"\""),
            ("<<", "\"<<\""),
            ("1:20", "\"1:20\""),
            ("2024-01-02", "\"2024-01-02\""),
            ("2024-01-02T03:04:05Z", "\"2024-01-02T03:04:05Z\""),
            (": x", "': x'"),
            ("#hash", "'#hash'"),
            ("x #y", "'x #y'"),
            ("a: b", "'a: b'"),
            ("- a", "'- a'"),
            ("-", "'-'"),
            ("*", "'*'"),
            ("it's", "it's"),
            ("'q'", "'''q'''"),
            (" lead", "' lead'"),
            ("trail ", "'trail '"),
            ("tab\there", "\"tab\\there\""),
            ("---x", "'---x'"),
            ("1000m", "1000m"),
            ("4096Mi", "4096Mi"),
        ] {
            assert_eq!(yaml_string(s), want, "{s:?}");
        }
    }

    #[test]
    fn multi_line_strings_are_literal_blocks() {
        let block = |s: &str| {
            let (header, lines) = yaml_block(s);
            (header, lines.join("/"))
        };
        assert_eq!(block("a\nb\n"), ("|".into(), "a/b".into()));
        assert_eq!(block("a\nb"), ("|-".into(), "a/b".into()));
        assert_eq!(block("a\n\n"), ("|+".into(), "a/".into()));
        assert_eq!(block(" a\nb\n"), ("|2".into(), " a/b".into()));
        // What a block cannot hold is double-quoted.
        assert_eq!(block("a \nb").0, "\"a \\nb\"");
        assert_eq!(block("a\r\nb").0, "\"a\\r\\nb\"");
        let got = written_lines("spec:\n  containers:\n  - args:\n    - |\n      one\n      two\n");
        let texts: Vec<&str> = got.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts[texts.len() - 3..],
            ["    - |", "      one", "      two"],
            "{texts:#?}"
        );
        assert!(
            got[got.len() - 3..]
                .iter()
                .all(|l| l.path == "spec.containers[0].args[0]")
        );
    }
}
