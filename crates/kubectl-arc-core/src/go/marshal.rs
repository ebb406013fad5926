//! Go's `encoding/json.Marshal` of a [`Value`]: the JSON text ARC's controller sends to the API
//! server for a Go value it built in memory.
//!
//! Pure core. Mirrors encoding/json (Go 1.26 `encode.go`: `Marshal`, `typeFields`, `isEmptyValue`,
//! `appendString`, `floatEncoder`, `marshalerEncoder` with `appendCompact`) over a [`Layout`]:
//! struct fields in `typeFields` order with promoted inline structs, `omitempty` (a false, zero or
//! empty scalar, an empty or nil slice or map, a nil pointer; never a struct), `omitzero` (the
//! type's `IsZero` method when it has one, else every field zero), nil slices, maps and pointers as
//! `null`, map keys sorted, strings escaped with `SetEscapeHTML(true)` as `Marshal` does. The types
//! with their own `MarshalJSON` are written by the Go code they mirror:
//! - `resource.Quantity.MarshalJSON`: the cached string `s` when there is one, else the canonical
//!   form (`CanonicalizeBytes`), always as a JSON string;
//! - `intstr.IntOrString.MarshalJSON`: `IntVal` as a number or `StrVal` as a string, by `Type`;
//! - `metav1.Time.MarshalJSON`: `null` for the zero instant, else RFC 3339 in UTC with whole
//!   seconds (`metav1.MicroTime`: six fractional digits);
//! - `metav1.FieldsV1.MarshalJSON`: `null` without bytes, else the raw bytes (then compacted, as
//!   encoding/json does with every `MarshalJSON` result).

use std::fmt::Write as _;

use crate::gotime::UNIX_TO_INTERNAL;
use crate::layout::{Kind, Layout, Special, TypeId};
use crate::value::{GoTime, IntOrString, Value};

/// Why Go's `json.Marshal` would fail. None of these arise from a value the decoder made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MarshalError {
    /// A NaN or infinite float (`json.UnsupportedValueError`).
    #[error("{path}: json: unsupported value: {value}")]
    UnsupportedFloat { path: String, value: String },
    /// An `IntOrString` whose `Type` is neither 0 nor 1 (`IntOrString.MarshalJSON`).
    #[error("{path}: impossible IntOrString.Type")]
    ImpossibleIntOrString { path: String },
}

/// `encoding/json.Marshal(v)` for a value of type `ty`.
pub fn marshal(layout: &Layout, ty: TypeId, v: &Value) -> Result<String, MarshalError> {
    let mut e = Encoder {
        layout,
        out: String::with_capacity(4096),
        path: String::new(),
    };
    e.value(ty, v)?;
    Ok(e.out)
}

struct Encoder<'a> {
    layout: &'a Layout,
    out: String,
    /// Where the encoder is, for error messages only (the diff's path spelling).
    path: String,
}

impl Encoder<'_> {
    /// `newTypeEncoder`: a type's `MarshalJSON` first, then its kind.
    fn value(&mut self, ty: TypeId, v: &Value) -> Result<(), MarshalError> {
        let t = self.layout.ty(ty);
        match v {
            Value::Quantity(q) => {
                // `Quantity.MarshalJSON`; the cached or canonical string holds nothing that
                // `appendCompact` would escape.
                self.out.push_str(&q.marshal_json());
                Ok(())
            }
            Value::IntOrString(x) => self.int_or_string(x),
            Value::Time(time) => {
                write_meta_time(&mut self.out, time, t.special == Special::MetaMicroTime);
                Ok(())
            }
            // `FieldsV1.MarshalJSON`: no bytes is `null`; JSON bytes are returned as they are and
            // compacted by encoding/json.
            Value::FieldsV1(raw) => {
                match raw.as_deref() {
                    None | Some([]) => self.out.push_str("null"),
                    Some(raw) => compact_into(&mut self.out, raw),
                }
                Ok(())
            }
            Value::Bool(b) => {
                self.out.push_str(if *b { "true" } else { "false" });
                Ok(())
            }
            Value::Int(n) => {
                let _ = write!(self.out, "{n}");
                Ok(())
            }
            Value::Uint(n) => {
                let _ = write!(self.out, "{n}");
                Ok(())
            }
            Value::Float(f) => {
                let bits = match t.kind {
                    Kind::Float(32) => 32,
                    _ => 64,
                };
                match go_float(*f, bits) {
                    Some(s) => {
                        self.out.push_str(&s);
                        Ok(())
                    }
                    None => Err(MarshalError::UnsupportedFloat {
                        path: self.path.clone(),
                        value: f.to_string(),
                    }),
                }
            }
            Value::String(s) => {
                write_go_string(&mut self.out, s);
                Ok(())
            }
            Value::Ptr(None) => {
                self.out.push_str("null");
                Ok(())
            }
            Value::Ptr(Some(inner)) => {
                let Kind::Ptr(elem) = t.kind else {
                    unreachable!("pointer value of a non-pointer type {}", t.name)
                };
                self.value(elem, inner)
            }
            Value::Slice(None) if matches!(t.kind, Kind::Slice(_)) => {
                self.out.push_str("null");
                Ok(())
            }
            Value::Slice(items) => {
                let items = items.as_deref().unwrap_or_default();
                let (elem, is_slice) = match t.kind {
                    Kind::Slice(e) => (e, true),
                    Kind::Array(e, _) => (e, false),
                    _ => unreachable!("slice value of type {}", t.name),
                };
                // `newSliceEncoder`: a []byte (not a named element type with its own marshaler)
                // is written as a base64 string.
                let elem_t = self.layout.ty(elem);
                if is_slice && elem_t.kind == Kind::Uint(8) && elem_t.special == Special::None {
                    let bytes: Vec<u8> = items
                        .iter()
                        .map(|b| match b {
                            Value::Uint(n) => *n as u8,
                            _ => 0,
                        })
                        .collect();
                    self.out.push('"');
                    base64_std_into(&mut self.out, &bytes);
                    self.out.push('"');
                    return Ok(());
                }
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    let len = self.path.len();
                    let _ = write!(self.path, "[{i}]");
                    self.value(elem, item)?;
                    self.path.truncate(len);
                }
                self.out.push(']');
                Ok(())
            }
            Value::Map(None) => {
                self.out.push_str("null");
                Ok(())
            }
            Value::Map(Some(entries)) => {
                let Kind::Map(_, elem) = t.kind else {
                    unreachable!("map value of type {}", t.name)
                };
                // `mapEncoder`: string keys as they are, sorted by `strings.Compare` (byte order,
                // which is the entries' order).
                self.out.push('{');
                for (i, (k, item)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    write_go_string(&mut self.out, k);
                    self.out.push(':');
                    let len = self.path.len();
                    crate::equality::push_key(&mut self.path, k);
                    self.value(elem, item)?;
                    self.path.truncate(len);
                }
                self.out.push('}');
                Ok(())
            }
            Value::Struct(_) => self.structure(ty, v),
        }
    }

    /// `structEncoder.encode`: the fields of `typeFields`, in index order, minus the omitted ones.
    fn structure(&mut self, ty: TypeId, v: &Value) -> Result<(), MarshalError> {
        let t = self.layout.ty(ty);
        self.out.push('{');
        let mut first = true;
        'fields: for (name, path) in &t.json_fields_in_order {
            // Follow the index path through embedded structs (a nil embedded pointer would skip
            // the field; the closure embeds values only).
            let mut fty = ty;
            let mut fv = v;
            let mut field = None;
            for &i in path {
                while let (Kind::Ptr(e), Value::Ptr(p)) = (&self.layout.ty(fty).kind, fv) {
                    match p {
                        Some(inner) => {
                            fty = *e;
                            fv = inner;
                        }
                        None => continue 'fields,
                    }
                }
                let Kind::Struct(fields) = &self.layout.ty(fty).kind else {
                    unreachable!("field path through a non-struct")
                };
                let f = &fields[i as usize];
                fty = f.ty;
                fv = &fv.fields().expect("struct value")[i as usize];
                field = Some(f);
            }
            let f = field.expect("a field path is never empty");
            if f.omitempty && is_empty_value(fv) {
                continue;
            }
            if f.omitzero && self.is_zero(fty, fv) {
                continue;
            }
            if !first {
                self.out.push(',');
            }
            first = false;
            write_go_string(&mut self.out, name);
            self.out.push(':');
            let len = self.path.len();
            if !self.path.is_empty() {
                self.path.push('.');
            }
            self.path.push_str(name);
            self.value(fty, fv)?;
            self.path.truncate(len);
        }
        self.out.push('}');
        Ok(())
    }

    /// `IntOrString.MarshalJSON`.
    fn int_or_string(&mut self, x: &IntOrString) -> Result<(), MarshalError> {
        match x.kind {
            0 => {
                let _ = write!(self.out, "{}", x.int_val);
                Ok(())
            }
            1 => {
                write_go_string(&mut self.out, &x.str_val);
                Ok(())
            }
            _ => Err(MarshalError::ImpossibleIntOrString {
                path: self.path.clone(),
            }),
        }
    }

    /// The `isZero` function `typeFields` picks for an `omitzero` field: the type's `IsZero`
    /// method (`(*metav1.Time).IsZero`, `(*metav1.MicroTime).IsZero`: the zero instant;
    /// `(*resource.Quantity).IsZero`: the number zero), else `reflect.Value.IsZero`.
    fn is_zero(&self, ty: TypeId, v: &Value) -> bool {
        match v {
            Value::Time(t) => t.secs == 0 && t.nanos == 0,
            Value::Quantity(q) => q.is_zero(),
            Value::Float(f) => f.to_bits() == 0,
            _ => *v == Value::zero(self.layout, ty),
        }
    }
}

/// `isEmptyValue`: what `omitempty` leaves out. Structs (and so the types with their own
/// `MarshalJSON`, which are structs) are never empty.
fn is_empty_value(v: &Value) -> bool {
    match v {
        Value::Bool(b) => !b,
        Value::Int(n) => *n == 0,
        Value::Uint(n) => *n == 0,
        // `reflect.Value.IsZero` on a float compares its bits: -0.0 is not empty.
        Value::Float(f) => f.to_bits() == 0,
        Value::String(s) => s.is_empty(),
        Value::Ptr(p) => p.is_none(),
        Value::Slice(s) => s.as_ref().is_none_or(|s| s.is_empty()),
        Value::Map(m) => m.as_ref().is_none_or(|m| m.is_empty()),
        Value::Struct(_)
        | Value::Quantity(_)
        | Value::IntOrString(_)
        | Value::Time(_)
        | Value::FieldsV1(_) => false,
    }
}

/// `metav1.Time.MarshalJSON` (`t.UTC().AppendFormat(buf, time.RFC3339)`, whole seconds, the
/// fraction truncated) and `metav1.MicroTime.MarshalJSON` (`RFC3339Micro`: six digits).
fn write_meta_time(out: &mut String, t: &GoTime, micro: bool) {
    if t.secs == 0 && t.nanos == 0 {
        out.push_str("null");
        return;
    }
    let unix = t.secs - UNIX_TO_INTERNAL;
    let days = unix.div_euclid(86400);
    let rem = unix.rem_euclid(86400);
    let (y, m, d) = civil_from_days(days);
    out.push('"');
    // `appendInt(b, year, 4)`: a sign, then at least four digits.
    if y < 0 {
        out.push('-');
    }
    let _ = write!(
        out,
        "{:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        y.unsigned_abs(),
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    );
    if micro {
        let _ = write!(out, ".{:06}", t.nanos / 1000);
    }
    out.push_str("Z\"");
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// `appendString` with `escapeHTML`: `"` and `\` escaped, `\b \f \n \r \t` by name, other control
/// bytes and `<`, `>`, `&` as `\u00XX`, U+2028 and U+2029 as `\u2028`/`\u2029`.
pub fn write_go_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{0}'..='\u{1f}' => {
                let b = c as u8;
                out.push_str("\\u00");
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 0xf) as usize] as char);
            }
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `appendCompact(dst, src, escapeHTML=true)` on valid JSON: insignificant whitespace removed,
/// `<`, `>`, `&`, U+2028 and U+2029 inside strings escaped.
fn compact_into(out: &mut String, raw: &[u8]) {
    let text = String::from_utf8_lossy(raw);
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            match c {
                _ if escaped => {
                    escaped = false;
                    out.push(c);
                }
                '\\' => {
                    escaped = true;
                    out.push(c);
                }
                '"' => {
                    in_string = false;
                    out.push(c);
                }
                '<' => out.push_str("\\u003c"),
                '>' => out.push_str("\\u003e"),
                '&' => out.push_str("\\u0026"),
                '\u{2028}' => out.push_str("\\u2028"),
                '\u{2029}' => out.push_str("\\u2029"),
                c => out.push(c),
            }
        } else {
            match c {
                ' ' | '\t' | '\n' | '\r' => {}
                '"' => {
                    in_string = true;
                    out.push(c);
                }
                c => out.push(c),
            }
        }
    }
}

/// `floatEncoder.encode`: `strconv.AppendFloat(f, 'f', -1, bits)`, or `'e'` below 1e-6 and from
/// 1e21 on with a two-digit negative exponent shortened (`e-07` to `e-7`). `None` for NaN and
/// the infinities, which Go refuses.
fn go_float(f: f64, bits: u8) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let abs = f.abs();
    let exp_form = abs != 0.0
        && if bits == 32 {
            let a = abs as f32;
            !(1e-6..1e21).contains(&a)
        } else {
            !(1e-6..1e21).contains(&abs)
        };
    let text = match (exp_form, bits) {
        (false, 32) => format!("{}", f as f32),
        (false, _) => format!("{f}"),
        (true, 32) => format!("{:e}", f as f32),
        (true, _) => format!("{f:e}"),
    };
    if !exp_form {
        return Some(text);
    }
    // Rust writes `1e21` and `1.5e-7`; Go writes `1e+21` and `1.5e-07`, then shortens `e-07`.
    let (mantissa, exponent) = text.split_once('e').expect("exponent form");
    Some(if let Some(neg) = exponent.strip_prefix('-') {
        format!("{mantissa}e-{neg}")
    } else {
        format!("{mantissa}e+{exponent:0>2}")
    })
}

/// Standard base64 with padding (`encoding/base64.StdEncoding`), as encoding/json writes a []byte.
fn base64_std_into(out: &mut String, bytes: &[u8]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let n = chunk.len();
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= n {
                out.push(ALPHABET[((v >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::decode;

    fn round(json: &str) -> String {
        let l = Layout::arc();
        let v = decode(l, l.ephemeral_runner_spec, json).unwrap();
        marshal(l, l.ephemeral_runner_spec, &v).unwrap()
    }

    #[test]
    fn omitempty_drops_empty_collections_and_zero_scalars() {
        assert_eq!(
            round(
                r#"{"githubConfigUrl":"","runnerScaleSetId":0,"spec":{"containers":[{"name":"r","env":[],"args":[]}],"nodeSelector":{},"tolerations":[]}}"#
            ),
            r#"{"metadata":{},"spec":{"containers":[{"name":"r","resources":{}}]}}"#
        );
    }

    #[test]
    fn structs_and_pointers_to_empty_structs_stay() {
        // `containers` has no omitempty: an empty list is written; a pointer to an empty struct is
        // not empty; `automountServiceAccountToken: false` is a non-nil pointer.
        assert_eq!(
            round(
                r#"{"proxy":{},"spec":{"containers":[],"securityContext":{},"automountServiceAccountToken":false}}"#
            ),
            r#"{"proxy":{},"metadata":{},"spec":{"containers":[],"automountServiceAccountToken":false,"securityContext":{}}}"#
        );
    }

    #[test]
    fn custom_marshalers() {
        let out = round(
            r#"{"metadata":{"creationTimestamp":"2024-01-01T01:00:00.5+01:00"},"spec":{"containers":[{"name":"r",
            "resources":{"limits":{"cpu":"1000m","memory":"1.5Gi"},"requests":{"cpu":4,"memory":"8192Mi"}},
            "livenessProbe":{"httpGet":{"port":"http"}},"readinessProbe":{"tcpSocket":{"port":8080}}}]}}"#,
        );
        assert!(
            out.contains(r#""creationTimestamp":"2024-01-01T00:00:00Z""#),
            "{out}"
        );
        assert!(
            out.contains(
                r#""limits":{"cpu":"1","memory":"1536Mi"},"requests":{"cpu":"4","memory":"8Gi"}"#
            ),
            "{out}"
        );
        assert!(out.contains(r#""port":"http""#), "{out}");
        assert!(out.contains(r#""port":8080"#), "{out}");
        // A zero (and non-pointer) IntOrString is the number 0; the zero time is left out
        // (omitzero) or null.
        let out = round(
            r#"{"metadata":{"creationTimestamp":null},"spec":{"containers":[{"name":"r","livenessProbe":{"httpGet":{}}}]}}"#,
        );
        assert!(out.contains(r#""httpGet":{"port":0}"#), "{out}");
        assert!(!out.contains("creationTimestamp"), "{out}");
    }

    #[test]
    fn strings_are_escaped_as_go_does() {
        let mut s = String::new();
        write_go_string(&mut s, "a\"b\\c\n\t\u{1}<>&\u{8}\u{c}\u{2028}é");
        assert_eq!(s, r#""a\"b\\c\n\t\u0001\u003c\u003e\u0026\b\f\u2028é""#);
    }

    #[test]
    fn times_outside_four_digit_years() {
        let mut s = String::new();
        write_meta_time(
            &mut s,
            &GoTime {
                secs: -3600,
                nanos: 0,
                local: true,
            },
            false,
        );
        assert_eq!(s, r#""0000-12-31T23:00:00Z""#);
        s.clear();
        // Year 0 is a leap year in Go's proleptic calendar.
        write_meta_time(
            &mut s,
            &GoTime {
                secs: -366 * 86400 - 3600,
                nanos: 0,
                local: true,
            },
            false,
        );
        assert_eq!(s, r#""-0001-12-31T23:00:00Z""#);
        s.clear();
        write_meta_time(
            &mut s,
            &GoTime {
                secs: 2,
                nanos: 123_456_789,
                local: true,
            },
            true,
        );
        assert_eq!(s, r#""0001-01-01T00:00:02.123456Z""#);
    }

    #[test]
    fn floats_and_bytes_as_go_writes_them() {
        assert_eq!(go_float(1.0, 64).unwrap(), "1");
        assert_eq!(go_float(0.1, 64).unwrap(), "0.1");
        assert_eq!(go_float(1e21, 64).unwrap(), "1e+21");
        assert_eq!(go_float(1.5e-7, 64).unwrap(), "1.5e-7");
        assert_eq!(go_float(1e-10, 64).unwrap(), "1e-10");
        assert_eq!(go_float(1e20, 64).unwrap(), "100000000000000000000");
        assert_eq!(go_float(f64::NAN, 64), None);
        let mut s = String::new();
        base64_std_into(&mut s, b"hello!?");
        assert_eq!(s, "aGVsbG8hPw==");
        let mut s = String::new();
        compact_into(&mut s, b"{ \"f:a\" : { \"<\" : [ 1 , 2 ] } }");
        assert_eq!(s, r#"{"f:a":{"\u003c":[1,2]}}"#);
    }
}
