//! A JSON reader with Go's rules, for the typed decoder in [`crate::value`].
//!
//! Pure core. [`check_valid`] mirrors encoding/json's `checkValid` (the scanner that runs over the
//! whole input before anything is decoded, with its nesting limit of 10000); [`Reader`] then walks
//! input that is known to be valid, so it needs no error paths. [`unquote`] mirrors `unquote` in
//! encoding/json's decode.go (invalid surrogates become U+FFFD). [`DecodeError`] is encoding/json's
//! errors (`SyntaxError`, `UnmarshalTypeError`), of the reader and the typed decoder alike, as they
//! are one package in Go.

use std::borrow::Cow;
use std::ops::Range;

use crate::go::spelling::{Spelling, pointer_step};
use crate::goyaml::go_float;

/// Why a document does not decode into a Go value: Go's `json.Unmarshal` would return an error,
/// so ARC's client would fail to read the object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON at all (Go's `SyntaxError`).
    #[error("invalid JSON at byte {offset}: {msg}")]
    Syntax { offset: usize, msg: String },
    /// A JSON value of the wrong kind for the Go field (Go's `UnmarshalTypeError`).
    #[error("{path}: cannot decode JSON {found} into Go type {go_type}")]
    Type {
        path: String,
        found: &'static str,
        go_type: String,
    },
    /// A custom `UnmarshalJSON` refused the value (a malformed quantity or time).
    #[error("{path}: {msg}")]
    Custom { path: String, msg: String },
}

/// encoding/json's `maxNestingDepth`.
pub const MAX_NESTING_DEPTH: usize = 10000;

/// What the next JSON value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    Object,
    Array,
    String,
    Number,
    True,
    False,
    Null,
}

fn syntax(offset: usize, msg: impl Into<String>) -> DecodeError {
    DecodeError::Syntax {
        offset,
        msg: msg.into(),
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Eight bytes of `b` from `i`, when there are eight.
#[inline]
fn word(b: &[u8], i: usize) -> Option<u64> {
    let bytes = b.get(i..i + 8)?;
    Some(u64::from_le_bytes(bytes.try_into().expect("eight bytes")))
}

/// The bytes of `w` below `n` (`n` at most 128), each flagged by its high bit; the lowest flag is
/// exact (a borrow only reaches the bytes above the first match), which is all that is read.
#[inline]
fn below(w: u64, n: u8) -> u64 {
    const LOW: u64 = 0x0101_0101_0101_0101;
    w.wrapping_sub(LOW * u64::from(n)) & !w & (LOW << 7)
}

/// The bytes of `w` equal to `c`, flagged as by [`below`].
#[inline]
fn equal(w: u64, c: u8) -> u64 {
    below(w ^ (0x0101_0101_0101_0101 * u64::from(c)), 1)
}

/// The offset of the first byte from `i` that is a quote, a backslash or (with `controls`) a
/// control character, else `b.len()`: the run of plain bytes in a string, eight at a time.
#[inline]
fn plain_end(b: &[u8], mut i: usize, controls: bool) -> usize {
    while let Some(w) = word(b, i) {
        let mut found = equal(w, b'"') | equal(w, b'\\');
        if controls {
            found |= below(w, 0x20);
        }
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && !(b[i] == b'"' || b[i] == b'\\' || (controls && b[i] < 0x20)) {
        i += 1;
    }
    i
}

/// The offset of the first byte from `i` that is not white space, eight spaces at a time (the
/// indentation of a pretty-printed file).
#[inline]
fn skip_ws_at(b: &[u8], mut i: usize) -> usize {
    loop {
        if word(b, i) == Some(0x2020_2020_2020_2020) {
            i += 8;
        } else if i < b.len() && is_ws(b[i]) {
            i += 1;
        } else {
            return i;
        }
    }
}

/// Check that `b` is exactly one JSON value with optional surrounding white space.
/// Iterative, so hostile nesting cannot overflow the stack.
pub fn check_valid(b: &[u8]) -> Result<(), DecodeError> {
    let end = check_valid_prefix(b, 0)?;
    let mut i = end;
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    if i < b.len() {
        return Err(syntax(
            i,
            format!("invalid character {:?} after top-level value", b[i] as char),
        ));
    }
    Ok(())
}

/// Check that one JSON value starts at `start` (after optional white space) and return the index
/// just after it: one step of Go's `json.Decoder` over a stream of values.
pub fn check_valid_prefix(b: &[u8], start: usize) -> Result<usize, DecodeError> {
    scan_prefix(b, start, MAX_NESTING_DEPTH, None).map(|(end, _)| end)
}

/// Where the values of a document's last `kind` and last `items` keys are, when it is an object
/// (what kubectl's test of a List reads, [`read_list`]), noted by the scan that checks it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListKeys {
    kind: Option<Range<usize>>,
    items: Option<Range<usize>>,
}

impl ListKeys {
    /// Note the value at `value` of the top-level key whose string starts at `key`.
    fn note(&mut self, b: &[u8], key: usize, value: Range<usize>) {
        let end = skip_valid_string(b, key);
        // A key starts and ends with a quote: the slice is at character boundaries.
        let raw = std::str::from_utf8(&b[key..end]).expect("UTF-8 text");
        let key = if raw.contains('\\') {
            Cow::Owned(unquote(raw))
        } else {
            Cow::Borrowed(&raw[1..raw.len() - 1])
        };
        match key.as_ref() {
            "kind" => self.kind = Some(value),
            "items" => self.items = Some(value),
            _ => {}
        }
    }
}

/// [`check_valid_prefix`], also returning the offset of the first container (in text order) that
/// opens inside `depth` or more enclosing ones, if any: where a reader with that nesting limit
/// stops. With `list`, the last `kind` and `items` of a top-level object are noted in it.
fn scan_prefix(
    b: &[u8],
    start: usize,
    depth: usize,
    mut list: Option<&mut ListKeys>,
) -> Result<(usize, Option<usize>), DecodeError> {
    #[derive(Clone, Copy, PartialEq)]
    enum Frame {
        Object,
        Array,
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut too_deep = None;
    // A key of the top-level object and where its value starts, until the value ends.
    let mut member: Option<(usize, usize)> = None;
    let mut i = start;
    let skip_ws = |i: &mut usize| *i = skip_ws_at(b, *i);
    skip_ws(&mut i);
    'value: loop {
        // Parse one value at i.
        if i >= b.len() {
            return Err(syntax(i, "unexpected end of JSON input"));
        }
        match b[i] {
            b'{' => {
                // Go's scanner pushes a parse state for every container, empty ones too.
                if stack.len() >= MAX_NESTING_DEPTH {
                    return Err(syntax(i, "exceeded max depth"));
                }
                if stack.len() >= depth && too_deep.is_none() {
                    too_deep = Some(i);
                }
                i += 1;
                skip_ws(&mut i);
                if i < b.len() && b[i] == b'}' {
                    i += 1;
                } else {
                    stack.push(Frame::Object);
                    let key = i;
                    i = scan_key(b, i)?;
                    skip_ws(&mut i);
                    if stack.len() == 1 && list.is_some() {
                        member = Some((key, i));
                    }
                    continue 'value;
                }
            }
            b'[' => {
                // Go's scanner pushes a parse state for every container, empty ones too.
                if stack.len() >= MAX_NESTING_DEPTH {
                    return Err(syntax(i, "exceeded max depth"));
                }
                if stack.len() >= depth && too_deep.is_none() {
                    too_deep = Some(i);
                }
                i += 1;
                skip_ws(&mut i);
                if i < b.len() && b[i] == b']' {
                    i += 1;
                } else {
                    stack.push(Frame::Array);
                    continue 'value;
                }
            }
            b'"' => i = scan_string(b, i)?,
            b'-' | b'0'..=b'9' => i = scan_number(b, i)?,
            b't' => i = scan_literal(b, i, b"true")?,
            b'f' => i = scan_literal(b, i, b"false")?,
            b'n' => i = scan_literal(b, i, b"null")?,
            c => {
                return Err(syntax(
                    i,
                    format!(
                        "invalid character {:?} looking for beginning of value",
                        c as char
                    ),
                ));
            }
        }
        // After a value: close containers or move to the next element.
        loop {
            if stack.len() == 1
                && let Some((key, value)) = member.take()
                && let Some(list) = list.as_deref_mut()
            {
                list.note(b, key, value..i);
            }
            skip_ws(&mut i);
            match stack.last() {
                None => return Ok((i, too_deep)),
                Some(frame) => {
                    let close = if *frame == Frame::Object { b'}' } else { b']' };
                    match b.get(i) {
                        Some(&c) if c == close => {
                            i += 1;
                            stack.pop();
                        }
                        Some(b',') => {
                            i += 1;
                            skip_ws(&mut i);
                            if *frame == Frame::Object {
                                let key = i;
                                i = scan_key(b, i)?;
                                skip_ws(&mut i);
                                if stack.len() == 1 && list.is_some() {
                                    member = Some((key, i));
                                }
                            }
                            continue 'value;
                        }
                        Some(&c) => {
                            return Err(syntax(
                                i,
                                format!("invalid character {:?} after element", c as char),
                            ));
                        }
                        None => return Err(syntax(i, "unexpected end of JSON input")),
                    }
                }
            }
        }
    }
}

/// A key string and its colon; returns the index after the colon.
fn scan_key(b: &[u8], i: usize) -> Result<usize, DecodeError> {
    if b.get(i) != Some(&b'"') {
        return Err(syntax(i, "looking for beginning of object key string"));
    }
    let mut i = scan_string(b, i)?;
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    if b.get(i) != Some(&b':') {
        return Err(syntax(i, "after object key"));
    }
    Ok(i + 1)
}

fn scan_string(b: &[u8], start: usize) -> Result<usize, DecodeError> {
    let mut i = start + 1;
    loop {
        i = plain_end(b, i, true);
        if i >= b.len() {
            break;
        }
        match b[i] {
            b'"' => return Ok(i + 1),
            b'\\' => match b.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u') => {
                    if i + 6 > b.len() || !b[i + 2..i + 6].iter().all(u8::is_ascii_hexdigit) {
                        return Err(syntax(i, "invalid character in \\u hexadecimal escape"));
                    }
                    i += 6;
                }
                _ => return Err(syntax(i, "invalid character in string escape code")),
            },
            c if c < 0x20 => return Err(syntax(i, "invalid character in string literal")),
            _ => i += 1,
        }
    }
    Err(syntax(b.len(), "unexpected end of JSON input"))
}

/// The offset after the string starting at `start` in text already checked ([`scan_string`]
/// checked its escapes): only a backslash and the closing quote matter.
fn skip_valid_string(b: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    loop {
        i = plain_end(b, i, false);
        match b[i] {
            b'"' => return i + 1,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

fn scan_number(b: &[u8], start: usize) -> Result<usize, DecodeError> {
    let mut i = start;
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > s
    };
    if b[i] == b'-' {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return Err(syntax(i, "in numeric literal")),
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return Err(syntax(i, "after decimal point in numeric literal"));
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return Err(syntax(i, "in exponent of numeric literal"));
        }
    }
    Ok(i)
}

fn scan_literal(b: &[u8], i: usize, lit: &[u8]) -> Result<usize, DecodeError> {
    if b.len() >= i + lit.len() && &b[i..i + lit.len()] == lit {
        Ok(i + lit.len())
    } else {
        Err(syntax(i, "in literal"))
    }
}

/// A cursor over input that [`check_valid`] accepted.
pub struct Reader<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Reader<'a> {
    pub fn new(s: &'a str) -> Self {
        Reader {
            s,
            b: s.as_bytes(),
            i: 0,
        }
    }

    fn ws(&mut self) {
        self.i = skip_ws_at(self.b, self.i);
    }

    /// The byte offset of the cursor.
    pub fn offset(&self) -> usize {
        self.i
    }

    /// The kind of the next value.
    pub fn peek_kind(&mut self) -> Token {
        self.ws();
        match self.b[self.i] {
            b'{' => Token::Object,
            b'[' => Token::Array,
            b'"' => Token::String,
            b't' => Token::True,
            b'f' => Token::False,
            b'n' => Token::Null,
            _ => Token::Number,
        }
    }

    /// Skip the next value entirely.
    ///
    /// The text is valid JSON (checked before any reader is made), so inside an object or an
    /// array only the quotes and the brackets matter: every other byte (numbers, literals,
    /// commas, colons, white space) is stepped over without being told apart, and a string's
    /// escapes only so far as to find its closing quote.
    pub fn skip_value(&mut self) {
        self.ws();
        let b = self.b;
        let mut i = self.i;
        match b[i] {
            b'{' | b'[' => {}
            b'"' => {
                self.i = skip_valid_string(b, i);
                return;
            }
            b'-' | b'0'..=b'9' => {
                self.i = scan_number(b, i).expect("validated");
                return;
            }
            b't' | b'n' => {
                self.i = i + 4;
                return;
            }
            b'f' => {
                self.i = i + 5;
                return;
            }
            _ => unreachable!("validated JSON"),
        }
        let mut depth = 0usize;
        loop {
            match b[i] {
                b'"' => i = skip_valid_string(b, i),
                b'{' | b'[' => {
                    depth += 1;
                    i += 1;
                }
                b'}' | b']' => {
                    depth -= 1;
                    i += 1;
                    if depth == 0 {
                        self.i = i;
                        return;
                    }
                }
                _ => i += 1,
            }
        }
    }

    /// The next value's text, as it stands in the input.
    pub fn raw_value(&mut self) -> &'a str {
        self.ws();
        let start = self.i;
        self.skip_value();
        // A value starts and ends with ASCII: the slice is at character boundaries.
        &self.s[start..self.i]
    }

    /// Consume `{`.
    pub fn begin_object(&mut self) {
        self.ws();
        debug_assert_eq!(self.b[self.i], b'{');
        self.i += 1;
    }

    /// The next key of the current object (consuming its colon), or `None` after consuming `}`.
    pub fn next_key(&mut self) -> Option<Cow<'a, str>> {
        self.ws();
        if self.b[self.i] == b',' {
            self.i += 1;
            self.ws();
        }
        if self.b[self.i] == b'}' {
            self.i += 1;
            return None;
        }
        let key = self.string();
        self.ws();
        self.i += 1; // ':'
        Some(key)
    }

    /// Consume `[`.
    pub fn begin_array(&mut self) {
        self.ws();
        debug_assert_eq!(self.b[self.i], b'[');
        self.i += 1;
    }

    /// Whether another element follows (consuming its comma), or `false` after consuming `]`.
    pub fn next_element(&mut self) -> bool {
        self.ws();
        if self.b[self.i] == b',' {
            self.i += 1;
            self.ws();
        }
        if self.b[self.i] == b']' {
            self.i += 1;
            return false;
        }
        true
    }

    /// The next value, a string, decoded.
    pub fn string(&mut self) -> Cow<'a, str> {
        self.ws();
        let start = self.i;
        let mut i = start + 1;
        let mut escaped = false;
        loop {
            i = plain_end(self.b, i, false);
            match self.b[i] {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    i += 2;
                }
                _ => i += 1,
            }
        }
        self.i = i + 1;
        let raw = &self.s[start..self.i];
        if escaped {
            Cow::Owned(unquote(raw))
        } else {
            Cow::Borrowed(&raw[1..raw.len() - 1])
        }
    }

    /// The next value, a number, as written.
    pub fn number(&mut self) -> &'a str {
        self.raw_value()
    }
}

/// The exact text of the value at `path` (object keys) in a JSON document, if the document is
/// valid and the path exists. The last duplicate key wins, as for Go's scalars.
pub fn find_raw<'a>(text: &'a str, path: &[&str]) -> Option<&'a str> {
    check_valid(text.as_bytes()).ok()?;
    let mut r = Reader::new(text);
    find_in(&mut r, path)
}

fn find_in<'a>(r: &mut Reader<'a>, path: &[&str]) -> Option<&'a str> {
    let Some((first, rest)) = path.split_first() else {
        return Some(r.raw_value());
    };
    if r.peek_kind() != Token::Object {
        return None;
    }
    r.begin_object();
    let mut found = None;
    while let Some(key) = r.next_key() {
        if key == *first {
            let raw = r.raw_value();
            found = Some(raw);
        } else {
            r.skip_value();
        }
    }
    let raw = found?;
    let mut inner = Reader::new(raw);
    find_in(&mut inner, rest)
}

/// One JSON document of a manifest, as kubectl reads it.
#[derive(Debug, Clone)]
pub struct ManifestDocument {
    pub value: serde_json::Value,
    /// Values kubectl refuses, by path (`spec.template.x[0]`) with the byte offset and Go's
    /// message: numbers beyond float64.
    pub refused: Vec<RefusedValue>,
    /// Numbers written otherwise than Go writes them back (`1.0`, `1e3`), for showing them as
    /// written.
    pub spellings: Vec<Spelling>,
}

/// A value kubectl refuses in a JSON document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedValue {
    pub path: String,
    pub offset: usize,
    pub text: String,
    pub message: String,
}

/// The documents of a JSON manifest, as kubectl's `YAMLOrJSONDecoder` (a stream of JSON values)
/// and its unstructured decoding (`UnstructuredJSONScheme`) read them: strings decoded as
/// encoding/json does (a lone surrogate escape is U+FFFD; DEL, C1 controls, U+FFFE and U+FFFF
/// are plain characters), the last of duplicate keys wins, an integer within int64 is one,
/// any other number a float64 (so an integer in [2^63, 2^64) is rounded to float64, as kubectl
/// stores it). A number beyond float64 is recorded in `refused` (kubectl refuses its object), not
/// the whole file. Nesting deeper than `max_depth` is an error, as is any syntax error.
pub fn manifest_documents(
    text: &str,
    max_depth: usize,
) -> Result<Vec<ManifestDocument>, DecodeError> {
    document_spans(text, max_depth)?
        .into_iter()
        .map(|span| read_document(text, span, max_depth))
        .collect()
}

/// The byte range of each JSON document of a manifest, every one checked first as
/// [`manifest_documents`] checks them (the first document with a syntax error, or with nesting
/// deeper than `max_depth`, is the error), so that the documents can then be read one at a time
/// (and a List's items one at a time, [`read_list`]) with nothing left to fail.
pub fn document_spans(text: &str, max_depth: usize) -> Result<Vec<Range<usize>>, DecodeError> {
    Ok(documents(text, max_depth)?
        .into_iter()
        .map(|(span, _)| span)
        .collect())
}

/// [`document_spans`], each with its [`ListKeys`], noted by the same pass ([`read_list_at`]).
pub fn documents(
    text: &str,
    max_depth: usize,
) -> Result<Vec<(Range<usize>, ListKeys)>, DecodeError> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    loop {
        while i < b.len() && is_ws(b[i]) {
            i += 1;
        }
        if i >= b.len() {
            return Ok(spans);
        }
        let deeper = |offset| syntax(offset, format!("nested deeper than {max_depth} levels"));
        let mut keys = ListKeys::default();
        let (end, too_deep) =
            scan_prefix(b, i, max_depth, Some(&mut keys)).map_err(|e| match e {
                DecodeError::Syntax { offset, msg } if msg == "exceeded max depth" => {
                    deeper(offset)
                }
                e => e,
            })?;
        if let Some(offset) = too_deep {
            return Err(deeper(offset));
        }
        spans.push((i..end, keys));
        i = end;
    }
}

/// A cursor over the document at `span` of `text` (offsets stay the file's).
fn reader_at(text: &str, span: Range<usize>) -> Reader<'_> {
    Reader {
        s: &text[..span.end],
        b: &text.as_bytes()[..span.end],
        i: span.start,
    }
}

/// The document at `span` (one of [`document_spans`]), read whole.
pub fn read_document(
    text: &str,
    span: Range<usize>,
    max_depth: usize,
) -> Result<ManifestDocument, DecodeError> {
    let mut r = reader_at(text, span);
    let mut found = Found::default();
    let value = to_serde(&mut r, &mut Vec::new(), &mut found, max_depth)?;
    Ok(found.document(value))
}

/// The document at `span` (one of [`document_spans`]): its parts straight from the text
/// ([`read_parts`]) when that reading is exact, else the document read whole ([`read_document`]).
pub fn read_document_object(
    text: &str,
    span: Range<usize>,
    max_depth: usize,
) -> Result<ReadObject, DecodeError> {
    let mut r = reader_at(text, span.clone());
    if let Some(parts) = read_parts(&mut r, 0, max_depth, &mut String::new()) {
        return Ok(ReadObject::Parts(parts));
    }
    read_document(text, span, max_depth).map(ReadObject::Whole)
}

/// The items of a List document, read one at a time: each is what [`read_document`] would have
/// made of it in the whole List, paths and pointers from the List's root (`items[3].spec.x`,
/// `/items/3/spec/x`).
pub struct ListItems<'a> {
    r: Reader<'a>,
    index: usize,
    max_depth: usize,
    /// What [`read_parts`] writes a value it does not keep into, kept between items.
    scratch: String,
}

impl<'a> ListItems<'a> {
    /// The next item, or `None` after the last.
    pub fn next_item(&mut self) -> Result<Option<ManifestDocument>, DecodeError> {
        if !self.r.next_element() {
            return Ok(None);
        }
        let mut path = item_path(self.count());
        let mut found = Found::default();
        let value = to_serde(&mut self.r, &mut path, &mut found, self.max_depth)?;
        Ok(Some(found.document(value)))
    }

    /// The next item: its parts straight from the text ([`read_parts`]) when that reading is
    /// exact, else the item read whole (as [`ListItems::next_item`] reads it); `None` after the
    /// last.
    pub fn next_object(&mut self) -> Result<Option<ReadObject>, DecodeError> {
        if !self.r.next_element() {
            return Ok(None);
        }
        let index = self.count();
        self.r.ws();
        let start = self.r.i;
        // At `items[i]`: two steps deep.
        if let Some(parts) = read_parts(&mut self.r, 2, self.max_depth, &mut self.scratch) {
            return Ok(Some(ReadObject::Parts(parts)));
        }
        // Not handled: the item is read again from its start, as the whole List reads it.
        self.r.i = start;
        let mut path = item_path(index);
        let mut found = Found::default();
        let value = to_serde(&mut self.r, &mut path, &mut found, self.max_depth)?;
        Ok(Some(ReadObject::Whole(found.document(value))))
    }

    /// The next item's index, counted.
    fn count(&mut self) -> usize {
        self.index += 1;
        self.index - 1
    }
}

/// `items[i]`, a List item's path.
fn item_path<'a>(index: usize) -> Vec<Step<'a>> {
    vec![Step::Key(Cow::Borrowed("items")), Step::Index(index)]
}

/// What kubectl-arc keeps of an object (`Object::from_manifest` of the crate's `arc::object`),
/// read straight from a JSON manifest's text by [`read_parts`]: exactly what reading the object
/// whole ([`read_document`]) and keeping those parts makes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjectParts {
    /// `kind`, when it is a string (not one ending in `List`: such an object is read whole).
    pub kind: Option<String>,
    /// `apiVersion`, when it is a string.
    pub api_version: Option<String>,
    /// `metadata` as [`read_document`] reads it, when the reading made its value (a YAML
    /// document's); `None` when absent, and when only its text was read ([`read_parts`]: then
    /// `metadata_text` is all of it, [`ObjectParts::metadata_value`]).
    pub metadata: Option<serde_json::Value>,
    /// `metadata` as `manifest::go_json` writes it; `None` when absent or null.
    pub metadata_text: Option<String>,
    /// `spec` as `manifest::go_json` writes what [`read_document`] reads of it; `None` when
    /// absent or null.
    pub spec: Option<String>,
    /// `status`, likewise.
    pub status: Option<String>,
}

impl ObjectParts {
    /// `metadata` as [`read_document`] reads it: the value kept, else the value of its text
    /// (which [`read_parts`] writes only where the two say the same); `None` when absent or null.
    pub fn metadata_value(&self) -> Option<std::borrow::Cow<'_, serde_json::Value>> {
        match (&self.metadata, &self.metadata_text) {
            (Some(value), _) => Some(std::borrow::Cow::Borrowed(value)),
            (None, Some(text)) => serde_json::from_str(text).ok().map(std::borrow::Cow::Owned),
            (None, None) => None,
        }
    }
}

/// An object of a JSON manifest as read: its parts straight from the text, or (when that reading
/// does not apply) the whole document.
#[derive(Debug, Clone)]
pub enum ReadObject {
    Parts(ObjectParts),
    Whole(ManifestDocument),
}

/// The object at the cursor read into its parts with no value tree: `kind`, `apiVersion`,
/// `metadata`, `spec` and `status` written as they are read ([`transcode`]; the fields
/// kubectl-arc reads of `metadata` are read from its text later, as kubectl's
/// `YAMLOrJSONDecoder` and `UnstructuredJSONScheme` read them), every other key's value checked
/// and dropped.
///
/// Exact by construction: `None` ("not handled"; the cursor is then anywhere inside the object,
/// and the caller reads it again whole) unless every key, at every level, follows the one before
/// it in byte order (so no key repeats, and the order written is the order read), every number is
/// an int64 spelled as Go spells it, nothing is refused or respelled in `metadata`, nothing is
/// nested as deep as `max_depth`, and the object is no List (its `kind` a string ending in
/// `List`). `depth` is the length of the object's own path (2 at `items[3]`, 0 for a document).
fn read_parts<'a>(
    r: &mut Reader<'a>,
    depth: usize,
    max_depth: usize,
    scratch: &mut String,
) -> Option<ObjectParts> {
    if r.peek_kind() != Token::Object || depth >= max_depth {
        return None;
    }
    r.begin_object();
    let mut parts = ObjectParts::default();
    let mut last: Option<Cow<'a, str>> = None;
    while let Some(key) = r.next_key() {
        if last.as_deref().is_some_and(|last| last >= key.as_ref()) {
            return None;
        }
        match key.as_ref() {
            "kind" | "apiVersion" if r.peek_kind() == Token::String => {
                let value = r.string().into_owned();
                if key == "apiVersion" {
                    parts.api_version = Some(value);
                } else if value.ends_with("List") {
                    return None;
                } else {
                    parts.kind = Some(value);
                }
            }
            "spec" | "status" | "metadata" => {
                scratch.clear();
                if !transcode(r, depth + 1, max_depth, scratch) {
                    return None;
                }
                // Exactly as long as written: the part's text is kept as it stands.
                // `metadata` too: where `transcode` writes a value, reading it whole finds no
                // refusal and no spelling (those are numbers other than Go's int64 spelling), so
                // its text says all its value does; the value is read from the text when needed
                // (`Object::from_parts`), not built here.
                let text = (scratch != "null").then(|| scratch.as_str().to_owned());
                match key.as_ref() {
                    "spec" => parts.spec = text,
                    "status" => parts.status = text,
                    _ => parts.metadata_text = text,
                }
            }
            _ => {
                scratch.clear();
                if !transcode(r, depth + 1, max_depth, scratch) {
                    return None;
                }
            }
        }
        last = Some(key);
    }
    Some(parts)
}

/// The next value written to `out` as `manifest::go_json` writes what [`read_document`] reads of
/// it (encoding/json's `encodeState` over kubectl's decoded value: `mapEncoder` with its keys
/// sorted, `stringEncoder` with HTML escaping, `intEncoder`), token by token, with no value tree;
/// `depth` is the length of the value's path. `false` ("not handled", `out` then holds part of
/// it) when writing it so would not be exact: a key not after the one before it in byte order (a
/// duplicate, or keys the writer sorts), a number that is not an int64 in Go's spelling (a float,
/// `-0`, beyond int64: kubectl stores a float64 and the reader records a spelling or a refusal),
/// a container as deep as `max_depth` (the reader's error).
fn transcode(r: &mut Reader<'_>, depth: usize, max_depth: usize, out: &mut String) -> bool {
    match r.peek_kind() {
        Token::Null | Token::True | Token::False => out.push_str(r.raw_value()),
        Token::String => crate::goyaml::go_json_string(&r.string(), out),
        Token::Number => {
            let text = r.number();
            if text == "-0" || text.parse::<i64>().is_err() {
                return false;
            }
            out.push_str(text);
        }
        Token::Array => {
            if depth >= max_depth {
                return false;
            }
            r.begin_array();
            out.push('[');
            let mut first = true;
            while r.next_element() {
                if !std::mem::take(&mut first) {
                    out.push(',');
                }
                if !transcode(r, depth + 1, max_depth, out) {
                    return false;
                }
            }
            out.push(']');
        }
        Token::Object => {
            if depth >= max_depth {
                return false;
            }
            r.begin_object();
            out.push('{');
            let mut last: Option<Cow<'_, str>> = None;
            while let Some(key) = r.next_key() {
                match &last {
                    Some(last) if last.as_ref() >= key.as_ref() => return false,
                    Some(_) => out.push(','),
                    None => {}
                }
                crate::goyaml::go_json_string(&key, out);
                out.push(':');
                if !transcode(r, depth + 1, max_depth, out) {
                    return false;
                }
                last = Some(key);
            }
            out.push('}');
        }
    }
    true
}

/// The document at `span` as a List (kubectl's test: an object whose `kind`, the last of that
/// key, is a string ending in `List`, and whose last `items` is an array): the List without its
/// `items` (what the other keys hold, and what reading them found, earlier duplicate `items` keys
/// included), and its items to read one at a time. `None` when it is not a List.
pub fn read_list(
    text: &str,
    span: Range<usize>,
    max_depth: usize,
) -> Result<Option<(ManifestDocument, ListItems<'_>)>, DecodeError> {
    read_list_at(text, span.clone(), &list_keys(text, span), max_depth)
}

/// The [`ListKeys`] of the document at `span`, found by reading its keys.
fn list_keys(text: &str, span: Range<usize>) -> ListKeys {
    let mut keys = ListKeys::default();
    let mut r = reader_at(text, span);
    if r.peek_kind() != Token::Object {
        return keys;
    }
    r.begin_object();
    while let Some(key) = r.next_key() {
        r.ws();
        let at = r.offset();
        r.skip_value();
        match key.as_ref() {
            "kind" => keys.kind = Some(at..r.offset()),
            "items" => keys.items = Some(at..r.offset()),
            _ => {}
        }
    }
    keys
}

/// [`read_list`] of a document whose [`ListKeys`] are known ([`documents`] noted them), with no
/// pass over the document to find them.
pub fn read_list_at<'t>(
    text: &'t str,
    span: Range<usize>,
    keys: &ListKeys,
    max_depth: usize,
) -> Result<Option<(ManifestDocument, ListItems<'t>)>, DecodeError> {
    // The last `kind` and the last `items` decide, as the last duplicate key wins in Go's maps.
    let b = text.as_bytes();
    let list_kind = keys.kind.as_ref().is_some_and(|kind| {
        b[kind.start] == b'"' && reader_at(text, kind.clone()).string().ends_with("List")
    });
    let Some(Range {
        start: items_at,
        end: items_end,
    }) = (keys.items.clone()).filter(|items| list_kind && b[items.start] == b'[')
    else {
        return Ok(None);
    };
    // The List without its last `items`, read as to_serde reads an object.
    let mut r = reader_at(text, span.clone());
    let mut found = Found::default();
    let mut path = Vec::new();
    r.begin_object();
    let mut map = serde_json::Map::new();
    while let Some(key) = r.next_key() {
        if r.peek_kind() == Token::Array && r.offset() == items_at {
            r.i = items_end;
            continue;
        }
        path.push(Step::Key(key));
        let v = to_serde(&mut r, &mut path, &mut found, max_depth)?;
        let Some(Step::Key(key)) = path.pop() else {
            unreachable!("the key pushed above")
        };
        map.insert(key.into_owned(), v);
    }
    // An earlier `items` is replaced by the last (what it held was still read, as Go reads it).
    map.remove("items");
    let head = found.document(serde_json::Value::Object(map));
    let mut r = reader_at(text, span);
    r.i = items_at;
    r.begin_array();
    Ok(Some((
        head,
        ListItems {
            r,
            index: 0,
            max_depth,
            scratch: String::new(),
        },
    )))
}

/// A step of the path to a value: an object key, or an array index.
enum Step<'a> {
    Key(Cow<'a, str>),
    Index(usize),
}

/// `spec.template.x[0]`: where a refused value is.
fn path_text(path: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// `/spec/template/x/0`: the JSON pointer of a value.
fn pointer_text(path: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => pointer_step(&mut out, key),
            Step::Index(i) => out.push_str(&format!("/{i}")),
        }
    }
    out
}

/// What reading a JSON document noticed beside its value.
#[derive(Default)]
struct Found {
    refused: Vec<RefusedValue>,
    spellings: Vec<Spelling>,
}

impl Found {
    fn document(self, value: serde_json::Value) -> ManifestDocument {
        ManifestDocument {
            value,
            refused: self.refused,
            spellings: self.spellings,
        }
    }
}

fn to_serde<'a>(
    r: &mut Reader<'a>,
    path: &mut Vec<Step<'a>>,
    found: &mut Found,
    max_depth: usize,
) -> Result<serde_json::Value, DecodeError> {
    let refused = &mut found.refused;
    use serde_json::Value;
    let deeper = |r: &mut Reader<'_>, path: &Vec<Step<'_>>| {
        if path.len() >= max_depth {
            Err(syntax(
                r.offset(),
                format!("nested deeper than {max_depth} levels"),
            ))
        } else {
            Ok(())
        }
    };
    Ok(match r.peek_kind() {
        Token::Null => {
            r.skip_value();
            Value::Null
        }
        Token::True | Token::False => {
            let b = r.peek_kind() == Token::True;
            r.skip_value();
            Value::Bool(b)
        }
        Token::String => Value::String(r.string().into_owned()),
        Token::Number => {
            let offset = r.offset();
            let text = r.number();
            // What kubectl stores, and the text Go writes of it.
            let (value, go) = if let Ok(n) = text.parse::<i64>() {
                // JSON's grammar has no `+` and no leading zero: an integer's text is Go's,
                // but for `-0`.
                if text != "-0" {
                    return Ok(Value::from(n));
                }
                (Value::from(n), n.to_string())
            } else {
                match text.parse::<f64>() {
                    Ok(f) if f.is_finite() => (Value::from(f), go_float(f)),
                    _ => {
                        refused.push(RefusedValue {
                            path: path_text(path),
                            offset,
                            text: text.to_string(),
                            message: format!(
                                "json: cannot unmarshal number {text} into Go value of type float64"
                            ),
                        });
                        return Ok(Value::Null);
                    }
                }
            };
            if go != text {
                found.spellings.push(Spelling {
                    pointer: pointer_text(path),
                    yaml: text.to_string(),
                    json: go,
                });
            }
            value
        }
        Token::Array => {
            deeper(r, path)?;
            r.begin_array();
            let mut items = Vec::new();
            while r.next_element() {
                path.push(Step::Index(items.len()));
                items.push(to_serde(r, path, found, max_depth)?);
                path.pop();
            }
            Value::Array(items)
        }
        Token::Object => {
            deeper(r, path)?;
            r.begin_object();
            let mut map = serde_json::Map::new();
            while let Some(key) = r.next_key() {
                path.push(Step::Key(key));
                let v = to_serde(r, path, found, max_depth)?;
                let Some(Step::Key(key)) = path.pop() else {
                    unreachable!("the key pushed above")
                };
                // The last duplicate wins, as for Go's maps.
                map.insert(key.into_owned(), v);
            }
            Value::Object(map)
        }
    })
}

/// Decode a valid JSON string literal (with its quotes) as Go's `unquote` does.
pub fn unquote(raw: &str) -> String {
    let s = &raw[1..raw.len() - 1];
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let hex4 = |i: usize| -> Option<u32> {
        if i + 6 <= b.len() && b[i] == b'\\' && b[i + 1] == b'u' {
            u32::from_str_radix(&s[i + 2..i + 6], 16).ok()
        } else {
            None
        }
    };
    while i < b.len() {
        if b[i] != b'\\' {
            let next = s[i..].find('\\').map_or(s.len(), |n| i + n);
            out.push_str(&s[i..next]);
            i = next;
            continue;
        }
        match b[i + 1] {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let r = hex4(i).expect("validated escape");
                i += 6;
                if (0xD800..0xE000).contains(&r) {
                    // utf16.DecodeRune of a surrogate pair, else U+FFFD for this escape alone.
                    if let Some(r2) = hex4(i)
                        && (0xD800..0xDC00).contains(&r)
                        && (0xDC00..0xE000).contains(&r2)
                    {
                        let c = 0x10000 + ((r - 0xD800) << 10) + (r2 - 0xDC00);
                        out.push(char::from_u32(c).expect("valid pair"));
                        i += 6;
                        continue;
                    }
                    out.push('\u{FFFD}');
                } else {
                    out.push(char::from_u32(r).expect("not a surrogate"));
                }
                continue;
            }
            _ => unreachable!("validated escape"),
        }
        i += 2;
    }
    out
}

/// A key read by serde, borrowed from the text unless it holds an escape (serde's own `Cow`
/// is always a copy).
pub(crate) struct TextKey<'a>(pub(crate) Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for TextKey<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = TextKey<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, k: &'de str) -> Result<TextKey<'de>, E> {
                Ok(TextKey(Cow::Borrowed(k)))
            }
            fn visit_str<E>(self, k: &str) -> Result<TextKey<'de>, E> {
                Ok(TextKey(Cow::Owned(k.to_string())))
            }
        }
        d.deserialize_str(Visit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validity_follows_go() {
        for ok in [
            "{}",
            " [1, -0, 0.5e-3, \"a\\u00e9\", true, false, null] ",
            r#"{"a":{"b":[{}]}}"#,
        ] {
            check_valid(ok.as_bytes()).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        for bad in [
            "",
            "{",
            "{\"a\"}",
            "[1,]",
            "01",
            "1.",
            "-",
            "{\"a\":1,}",
            "\"\t\"",
            "{} {}",
            "nul",
            "\"\\x\"",
            "[1 2]",
        ] {
            assert!(
                check_valid(bad.as_bytes()).is_err(),
                "{bad:?} should be invalid"
            );
        }
        let deep = "[".repeat(MAX_NESTING_DEPTH + 1) + &"]".repeat(MAX_NESTING_DEPTH + 1);
        assert!(check_valid(deep.as_bytes()).is_err());
        let ok = "[".repeat(MAX_NESTING_DEPTH) + &"]".repeat(MAX_NESTING_DEPTH);
        assert!(check_valid(ok.as_bytes()).is_ok());
    }

    /// The scans eight bytes at a time stop where the byte-wise scans stop: every position of
    /// every special byte among plain ones (ASCII, UTF-8, DEL, white space), near the ends too.
    #[test]
    fn word_scans_stop_where_byte_scans_stop() {
        let plain: &[u8] = "ab é\u{7f}\t~".as_bytes();
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for len in 0..20 {
                for at in 0..=len {
                    let mut b: Vec<u8> = (0..len).map(|k| plain[k % plain.len()]).collect();
                    if at < len {
                        b[at] = special;
                    }
                    for from in 0..=len {
                        for controls in [false, true] {
                            let naive = (from..b.len())
                                .find(|&k| {
                                    b[k] == b'"' || b[k] == b'\\' || (controls && b[k] < 0x20)
                                })
                                .unwrap_or(b.len());
                            assert_eq!(plain_end(&b, from, controls), naive, "{b:?} {from}");
                        }
                        let naive = (from..b.len()).find(|&k| !is_ws(b[k])).unwrap_or(b.len());
                        assert_eq!(skip_ws_at(&b, from), naive, "{b:?} {from}");
                    }
                }
            }
        }
        let spaces = format!("{}\n\t{}x", " ".repeat(17), " ".repeat(9));
        assert_eq!(skip_ws_at(spaces.as_bytes(), 0), spaces.len() - 1);
    }

    #[test]
    fn unquote_follows_go() {
        assert_eq!(unquote(r#""a\nb\u00e9\/""#), "a\nbé/");
        assert_eq!(unquote(r#""\ud83d\ude00""#), "😀");
        assert_eq!(unquote(r#""\ud83dx""#), "\u{FFFD}x");
        assert_eq!(unquote(r#""\ude00\ud83d""#), "\u{FFFD}\u{FFFD}");
    }

    #[test]
    fn find_raw_keeps_the_exact_text() {
        let text = r#"{"spec": {"ephemeralRunnerSpec": {"a": 1e3, "b": "\u0030"}, "x": 1}}"#;
        assert_eq!(
            find_raw(text, &["spec", "ephemeralRunnerSpec"]),
            Some(r#"{"a": 1e3, "b": "\u0030"}"#)
        );
        assert_eq!(find_raw(text, &["spec", "missing"]), None);
        assert_eq!(find_raw(text, &["spec", "x", "deeper"]), None);
        assert_eq!(find_raw(r#"{"a":1,"a":2}"#, &["a"]), Some("2"));
    }

    /// The scan that checks the documents notes the `kind` and `items` that reading the keys
    /// finds (the last of each; a key spelled with an escape; not a nested one's).
    #[test]
    fn the_checking_scan_notes_the_list_keys_reading_finds() {
        let text = r#"{"kind":"List","items":[{"kind":"x","items":[]}],"kind":1}
            {"\u006bind" : "AList" , "items":{"a":[1]}, "x":[], "items" : [ ] }
            [{"kind":"List","items":[]}] "kind" 1
            {"items":[],"a":{"kind":"List"},"kind":"ConfigMapList"} {} {"kind":"List"}
            {"kind":"List","items":[1,{"kind":"List","items":[]}],"k":{},"items":[2],"z":null}"#;
        let documents = documents(text, 256).unwrap();
        assert_eq!(documents.len(), 9);
        let mut lists = 0;
        for (span, keys) in documents {
            assert_eq!(keys, list_keys(text, span.clone()), "{}", &text[span]);
            let read = read_list_at(text, span.clone(), &keys, 256).unwrap();
            lists += usize::from(read.is_some());
        }
        assert_eq!(lists, 3);
    }

    #[test]
    fn reader_walks_objects_and_arrays() {
        let text = r#" { "a" : [1, {"b": null}], "c\n": "x" } "#;
        check_valid(text.as_bytes()).unwrap();
        let mut r = Reader::new(text);
        r.begin_object();
        assert_eq!(r.next_key().as_deref(), Some("a"));
        assert_eq!(r.raw_value(), r#"[1, {"b": null}]"#);
        assert_eq!(r.next_key().as_deref(), Some("c\n"));
        assert_eq!(r.string(), "x");
        assert_eq!(r.next_key(), None);
    }
}
