//! How kubectl and Helm read a plain YAML scalar: `sigs.k8s.io/yaml.YAMLToJSON`, which decodes
//! with go.yaml.in/yaml/v2 (YAML 1.1 resolution) and writes the result with `encoding/json`.
//!
//! Pure core. [`resolve_plain`] mirrors `resolve` in go.yaml.in/yaml/v2 `resolve.go` (v2.4) for an
//! untagged plain scalar, and [`go_map_key_text`] the key `YAMLToJSON` makes of it; the manifest
//! reader builds its values with them. The tests check them against YAMLToJSON's recorded output
//! through `go_json`, the JSON text `encoding/json` writes for a resolved scalar (test-only: the
//! reader writes whole values with `crate::manifest::go_json`).

/// What go.yaml.in/yaml/v2 makes of an untagged plain scalar, decoded into `interface{}`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GoScalar {
    Null,
    Bool(bool),
    /// `int` (int64 on 64-bit).
    Int(i64),
    /// `uint64`: an integer beyond int64 without a sign.
    Uint(u64),
    Float(f64),
    /// The text itself (timestamps too: yaml/v2 decodes them into `interface{}` as strings).
    Str,
}

/// `resolveMap` of yaml/v2: the spellings it looks up before trying numbers.
fn lookup(text: &str) -> Option<GoScalar> {
    Some(match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            GoScalar::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            GoScalar::Bool(false)
        }
        "" | "~" | "null" | "Null" | "NULL" => GoScalar::Null,
        ".nan" | ".NaN" | ".NAN" => GoScalar::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => GoScalar::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => GoScalar::Float(f64::NEG_INFINITY),
        _ => return None,
    })
}

/// Mirrors yaml/v2 `resolve("", text)` for a plain scalar (the `<<` merge key aside).
pub fn resolve_plain(text: &str) -> GoScalar {
    if let Some(known) = lookup(text) {
        return known;
    }
    let Some(&first) = text.as_bytes().first() else {
        return GoScalar::Null;
    };
    match first {
        // hint '.': maybe a float such as .5
        b'.' => match go_parse_float(text) {
            Some(f) => GoScalar::Float(f),
            None => GoScalar::Str,
        },
        // hints 'D' and 'S': a timestamp, an integer or a float.
        b'0'..=b'9' | b'+' | b'-' => {
            if first.is_ascii_digit() && is_timestamp(text) {
                return GoScalar::Str;
            }
            let plain: std::borrow::Cow<str> = if text.contains('_') {
                text.replace('_', "").into()
            } else {
                text.into()
            };
            if let Some(i) = go_parse_int(&plain) {
                return GoScalar::Int(i);
            }
            if let Some(u) = go_parse_uint(&plain) {
                return GoScalar::Uint(u);
            }
            if is_yaml_style_float(&plain)
                && let Some(f) = go_parse_float(&plain)
            {
                return GoScalar::Float(f);
            }
            if let Some(bits) = plain.strip_prefix("0b") {
                if let Some(i) = parse_radix_i64(bits, 2, false) {
                    return GoScalar::Int(i);
                }
                if let Some(u) = parse_radix_u64(bits, 2) {
                    return GoScalar::Uint(u);
                }
            } else if let Some(bits) = plain.strip_prefix("-0b")
                && let Some(i) = parse_radix_i64(bits, 2, true)
            {
                return GoScalar::Int(i);
            }
            GoScalar::Str
        }
        _ => GoScalar::Str,
    }
}

#[cfg(test)]
/// The JSON text `encoding/json` writes for the value (the text itself for a string); `Err` where
/// `json.Marshal` fails (NaN and infinities), as YAMLToJSON does.
pub fn go_json(value: GoScalar, text: &str) -> Result<String, String> {
    Ok(match value {
        GoScalar::Null => "null".into(),
        GoScalar::Bool(b) => b.to_string(),
        GoScalar::Int(i) => i.to_string(),
        GoScalar::Uint(u) => u.to_string(),
        GoScalar::Float(f) if !f.is_finite() => {
            return Err(format!("json: unsupported value: {}", go_float_name(f)));
        }
        GoScalar::Float(f) => go_float(f),
        GoScalar::Str => {
            let mut out = String::new();
            go_json_string(text, &mut out);
            out
        }
    })
}

/// A float64 as Go's `encoding/json` writes it (`floatEncoder.encode`): the shortest digits that
/// read back as the same float ([`shortest_digits`]), in `strconv.FormatFloat` format `'f'` when
/// 1e-6 <= |f| < 1e21 (or f is zero) and `'e'` otherwise, whose exponent has at least two digits,
/// except that `e-0N` is shortened to `e-N`.
pub fn go_float(f: f64) -> String {
    let abs = f.abs();
    let (digits, exp) = shortest_digits(f);
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let e = format_e(&digits, exp);
        // Go writes e-07, then encoding/json shortens it to e-7: no padding.
        let e = match e.rfind("e-0") {
            Some(i) if e.len() == i + 4 => format!("{}e-{}", &e[..i], &e[i + 3..]),
            _ => e,
        };
        format!("{sign}{e}")
    } else {
        format!("{sign}{}", format_f(&digits, exp))
    }
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`: the shortest digits, in `%e` form when the decimal
/// exponent is below -4 or at least 6 (with the shortest digits Go takes 6 as the precision for
/// this decision), else `%f` form.
pub fn go_format_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    let (digits, exp) = shortest_digits(f);
    let sign = if f.is_sign_negative() { "-" } else { "" };
    format!("{sign}{}", format_g(&digits, exp))
}

/// strconv's `'g'` with the shortest digits.
fn format_g(digits: &[u8], exp: i32) -> String {
    if digits != b"0" && !(-4..6).contains(&exp) {
        format_e(digits, exp)
    } else {
        format_f(digits, exp)
    }
}

/// The shortest decimal digits (no leading or trailing zeros; "0" for zero) that read back as `f`
/// (a finite float64, sign ignored), as Go's `strconv` shortest formatting picks them, with the
/// decimal exponent of the first digit: `(b"125", -3)` is 1.25e-3.
///
/// For each length from 1 digit up, the decimal of that length nearest to `f` (ties to the even
/// digit, as Go rounds an exact tie) is tried, and so are its two neighbours, since the interval
/// of decimals that read back as `f` is narrower below a power of two than above it; the first
/// length with a candidate that reads back wins, and among those the one nearest to `f`.
pub fn shortest_digits(f: f64) -> (Vec<u8>, i32) {
    shortest(f.abs(), 17, |s| s.parse::<f64>().ok() == Some(f.abs()))
}

/// As [`shortest_digits`] for a float32.
pub fn shortest_digits32(f: f32) -> (Vec<u8>, i32) {
    let x = f.abs();
    shortest(f64::from(x), 9, |s| s.parse::<f32>().ok() == Some(x))
}

fn shortest(x: f64, max: usize, reads_back: impl Fn(&str) -> bool) -> (Vec<u8>, i32) {
    if x == 0.0 {
        return (b"0".to_vec(), 0);
    }
    for n in 1..=max {
        // The nearest n-digit decimal, exactly rounded (Rust rounds an exact tie to even).
        let e = format!("{:.*e}", n - 1, x);
        let (mantissa, exp) = e.split_once('e').expect("{:e} has an exponent");
        let exp: i32 = exp.parse().expect("an integer exponent");
        let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
        let mut found = None;
        for candidate in neighbours(&digits, exp) {
            let text = decimal_text(&candidate.0, candidate.1);
            if reads_back(&text) {
                found = Some(candidate);
                break;
            }
        }
        if let Some((digits, exp)) = found {
            return trim(digits, exp);
        }
    }
    unreachable!("17 digits always read back")
}

/// The nearest decimal first, then the one below and the one above (same length).
fn neighbours(digits: &[u8], exp: i32) -> Vec<(Vec<u8>, i32)> {
    let mut out = vec![(digits.to_vec(), exp)];
    // One unit less in the last digit.
    let mut down = digits.to_vec();
    let mut i = down.len();
    while i > 0 {
        i -= 1;
        if down[i] > b'0' {
            down[i] -= 1;
            break;
        }
        down[i] = b'9';
    }
    if down[0] == b'0' {
        // 1000 - 1 = 0999: one digit shorter at this exponent, 9.99 at exponent - 1.
        down.remove(0);
        down.push(b'9');
        out.push((down, exp - 1));
    } else {
        out.push((down, exp));
    }
    // One unit more.
    let mut up = digits.to_vec();
    let mut i = up.len();
    loop {
        if i == 0 {
            up.insert(0, b'1');
            up.pop();
            out.push((up, exp + 1));
            break;
        }
        i -= 1;
        if up[i] < b'9' {
            up[i] += 1;
            out.push((up, exp));
            break;
        }
        up[i] = b'0';
    }
    out
}

fn decimal_text(digits: &[u8], exp: i32) -> String {
    format!(
        "{}.{}e{exp}",
        digits[0] as char,
        std::str::from_utf8(&digits[1..]).expect("digits")
    )
}

fn trim(mut digits: Vec<u8>, exp: i32) -> (Vec<u8>, i32) {
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, exp)
}

/// `%e` with the given digits: `d.ddde+XX` (exponent of two digits at least).
fn format_e(digits: &[u8], exp: i32) -> String {
    let mut s = String::new();
    s.push(digits[0] as char);
    if digits.len() > 1 {
        s.push('.');
        s.push_str(std::str::from_utf8(&digits[1..]).expect("digits"));
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{s}e{sign}{:02}", exp.unsigned_abs())
}

/// `%f` with the given digits: all of them, no exponent.
fn format_f(digits: &[u8], exp: i32) -> String {
    let digits = std::str::from_utf8(digits).expect("digits");
    if digits == "0" {
        return "0".into();
    }
    let dp = exp + 1;
    if dp <= 0 {
        format!("0.{}{digits}", "0".repeat((-dp) as usize))
    } else if dp as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(dp as usize - digits.len()))
    } else {
        format!("{}.{}", &digits[..dp as usize], &digits[dp as usize..])
    }
}

/// A string as Go's `encoding/json` writes it (`appendString` with HTML escaping, as
/// `json.Marshal` does): `"` and `\\` escaped, `\b \f \n \r \t`, other control bytes as
/// `\u00XX`, `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`, U+2028 and U+2029 as `\u2028` and
/// `\u2029`; everything else (DEL, C1 controls, U+FFFE) as it is.
pub fn go_json_string(s: &str, out: &mut String) {
    use std::fmt::Write as _;
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let escaped: Option<&str> = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            _ => None,
        };
        let needs = escaped.is_some()
            || (c as u32) < 0x20
            || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}');
        if !needs {
            continue;
        }
        out.push_str(&s[start..i]);
        match escaped {
            Some(e) => out.push_str(e),
            None => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
        }
        start = i + c.len_utf8();
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
/// The JSON object key `sigs.k8s.io/yaml` makes of a resolved mapping key
/// (`convertToJSONableObject`): a string as is, an int in decimal, a bool as `true`/`false`, a
/// float with `strconv.FormatFloat(f, 'g', -1, 32)` (infinities and NaN spelled `.inf`, `-.inf`,
/// `.nan`); a null or uint64 key is an error. Returned as a JSON string.
pub fn go_map_key(value: GoScalar, text: &str) -> Result<String, String> {
    let key = go_map_key_text(value, text)?;
    let mut out = String::new();
    go_json_string(&key, &mut out);
    Ok(out)
}

/// As [`go_map_key`], the key's text itself (not JSON-quoted).
pub fn go_map_key_text(value: GoScalar, text: &str) -> Result<String, String> {
    Ok(match value {
        GoScalar::Str => text.to_string(),
        GoScalar::Int(i) => i.to_string(),
        GoScalar::Bool(b) => b.to_string(),
        GoScalar::Float(f) if f.is_nan() => ".nan".into(),
        GoScalar::Float(f) if (f as f32).is_infinite() => {
            if f > 0.0 { ".inf" } else { "-.inf" }.into()
        }
        GoScalar::Float(f) => format_g32(f as f32),
        GoScalar::Null => return Err("unsupported map key of type: <nil>".into()),
        GoScalar::Uint(_) => return Err("unsupported map key of type: uint64".into()),
    })
}

/// What go.yaml.in/yaml/v2 makes of a scalar with its tag (`decoder.scalar` and `resolve` in its
/// decode.go and resolve.go), decoded into `interface{}`.
#[derive(Debug, Clone, PartialEq)]
pub enum GoTagged {
    /// A resolved value; [`GoScalar::Str`] is the scalar's text.
    Scalar(GoScalar),
    /// A `!!binary` scalar: its base64 content, decoded.
    Binary(String),
}

/// `resolve(tag, text)` for a scalar of the given tag: `None` is no tag (then a quoted or block
/// scalar, `plain == false`, is a string), `Some("int")` a tag of the YAML namespace
/// (`tag:yaml.org,2002:int`, written `!!int`), `Some("!foo")` any other tag (a string, as for
/// every tag v2 cannot resolve: `!!map` on a scalar, `!!merge` as a value, local tags). `Err`
/// holds go-yaml's complaint (`cannot decode !!str `abc` as a !!int`).
pub fn resolve_tagged(tag: Option<&str>, text: &str, plain: bool) -> Result<GoTagged, String> {
    let Some(tag) = tag else {
        return Ok(GoTagged::Scalar(if plain {
            resolve_plain(text)
        } else {
            GoScalar::Str
        }));
    };
    match tag {
        "binary" => match go_base64(text) {
            Some(bytes) => Ok(GoTagged::Binary(go_lossy_utf8(&bytes))),
            None => Err("!!binary value contains invalid base64 data".into()),
        },
        "str" => Ok(GoTagged::Scalar(GoScalar::Str)),
        "bool" | "int" | "float" | "null" | "timestamp" => {
            // Only an untagged or !!timestamp scalar is tried as a timestamp.
            if tag == "timestamp" && is_timestamp(text) {
                return Ok(GoTagged::Scalar(GoScalar::Str));
            }
            let resolved = resolve_plain(text);
            let rtag = match resolved {
                GoScalar::Null => "null",
                GoScalar::Bool(_) => "bool",
                GoScalar::Int(_) | GoScalar::Uint(_) => "int",
                GoScalar::Float(_) => "float",
                GoScalar::Str => "str",
            };
            match (tag, resolved) {
                _ if rtag == tag => Ok(GoTagged::Scalar(resolved)),
                ("float", GoScalar::Int(i)) => Ok(GoTagged::Scalar(GoScalar::Float(i as f64))),
                _ => Err(format!("cannot decode !!{rtag} `{text}` as a !!{tag}")),
            }
        }
        _ => Ok(GoTagged::Scalar(GoScalar::Str)),
    }
}

/// Bytes as `encoding/json` writes them into a string: each byte that is not part of valid UTF-8
/// is U+FFFD (`utf8.DecodeRuneInString` takes one byte at a time there).
fn go_lossy_utf8(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                return out;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push('\u{FFFD}');
                rest = &after[1..];
            }
        }
    }
}

/// `base64.StdEncoding.DecodeString`: padded standard alphabet; CR and LF are skipped.
fn go_base64(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = text.bytes().filter(|&b| b != b'\r' && b != b'\n').collect();
    if !digits.len().is_multiple_of(4) {
        return None;
    }
    let value = |b: u8| -> Option<u32> {
        Some(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(digits.len() / 4 * 3);
    let quads = digits.len() / 4;
    for (q, quad) in digits.chunks(4).enumerate() {
        let pad = quad.iter().rev().take_while(|&&b| b == b'=').count();
        if pad > 2 || (pad > 0 && q + 1 != quads) {
            return None;
        }
        let mut n = 0u32;
        for &b in &quad[..4 - pad] {
            n = (n << 6) | value(b)?;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        // StdEncoding is not Strict: bits after the last byte are ignored.
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

/// `strconv.FormatFloat(float64(f), 'g', -1, 32)`: the shortest digits of the float32, as
/// [`go_format_g`] places them.
fn format_g32(f: f32) -> String {
    let (digits, exp) = shortest_digits32(f);
    let sign = if f.is_sign_negative() { "-" } else { "" };
    format!("{sign}{}", format_g(&digits, exp))
}

#[cfg(test)]
fn go_float_name(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "+Inf"
    } else {
        "-Inf"
    }
}

/// `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// `strconv.ParseFloat(s, 64)` for the decimal spellings that reach it here (a yamlStyleFloat, or
/// text starting with '.'); `None` on a syntax error or when the value overflows (ErrRange).
/// Go also reads hexadecimal floats and underscores after a base prefix; neither passes the
/// callers' checks (a '.'-led hexadecimal float does not exist).
fn go_parse_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let ok = !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !ok {
        return None;
    }
    let f: f64 = s.parse().ok()?;
    f.is_finite().then_some(f)
}

/// `strconv.ParseInt(s, 0, 64)`: an optional sign, then `0x`/`0X` hex, `0o`/`0O` or a leading
/// `0` octal, `0b`/`0B` binary, or decimal. (Underscores are already removed.)
fn go_parse_int(s: &str) -> Option<i64> {
    let (negative, body) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let (digits, radix) = split_radix(body)?;
    parse_radix_i64(digits, radix, negative)
}

/// `strconv.ParseUint(s, 0, 64)`: as `go_parse_int`, without a sign.
fn go_parse_uint(s: &str) -> Option<u64> {
    let (digits, radix) = split_radix(s)?;
    parse_radix_u64(digits, radix)
}

fn split_radix(body: &str) -> Option<(&str, u32)> {
    let b = body.as_bytes();
    if b.len() >= 2 && b[0] == b'0' {
        match b[1] {
            b'x' | b'X' => return Some((&body[2..], 16)),
            b'o' | b'O' => return Some((&body[2..], 8)),
            b'b' | b'B' => return Some((&body[2..], 2)),
            _ => return Some((&body[1..], 8)),
        }
    }
    if body.is_empty() {
        None
    } else {
        Some((body, 10))
    }
}

fn parse_radix_u64(digits: &str, radix: u32) -> Option<u64> {
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

fn parse_radix_i64(digits: &str, radix: u32, negative: bool) -> Option<i64> {
    let magnitude = parse_radix_u64(digits, radix)?;
    if negative {
        if magnitude <= i64::MAX as u64 + 1 {
            Some((magnitude as i64).wrapping_neg())
        } else {
            None
        }
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// yaml/v2 `parseTimestamp`: the layouts `2006-1-2T15:4:5.999999999Z07:00`,
/// `2006-1-2t15:4:5.999999999Z07:00`, `2006-1-2 15:4:5.999999999` and `2006-1-2`, tried only when
/// the text starts with four digits and a '-' (`time.Parse` decides the rest). Such a scalar is a
/// string for `interface{}` either way; what matters is that it is not read as a number, which a
/// text with two '-' after a year never is.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 5 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-'
}

/// go.yaml.in/yaml/v2's line breaks: CR, LF, and also NEL (U+0085), LS (U+2028) and PS (U+2029),
/// which YAML 1.2 readers take for ordinary characters.
pub fn is_goyaml_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// How go.yaml.in/yaml/v2 reads the quoted scalar that starts (with its quote) at the beginning of
/// `src`: `yaml_parser_scan_flow_scalar` in its scannerc.go. Line folding treats NEL, LS and PS as
/// line breaks (a NEL folds like LF; a lone LS or PS is kept, the blanks around it dropped), and
/// the double-quoted escapes are its own: no `\/`, and no `\u` or `\U` of a surrogate or beyond
/// U+10FFFF. `Err` holds go-yaml's complaint.
pub fn goyaml_quoted_scalar(src: &str) -> Result<String, &'static str> {
    let chars: Vec<char> = src.chars().collect();
    let single = chars.first() == Some(&'\'');
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let is_blank = |c: char| c == ' ' || c == '\t';
    let is_blankz = |c: char| is_blank(c) || is_goyaml_break(c) || c == '\0';
    // read_line: CR LF, CR, LF and NEL read as LF; LS and PS as themselves.
    let read_line = |i: &mut usize, out: &mut String| {
        match at(*i) {
            '\r' if at(*i + 1) == '\n' => {
                out.push('\n');
                *i += 2;
                return;
            }
            '\r' | '\n' | '\u{85}' => out.push('\n'),
            c => out.push(c),
        }
        *i += 1;
    };
    let (mut s, mut leading_break, mut trailing_breaks, mut whitespaces) =
        (String::new(), String::new(), String::new(), String::new());
    let mut i = 1;
    let mut column0 = false;
    loop {
        if column0
            && ((at(i) == '-' && at(i + 1) == '-' && at(i + 2) == '-')
                || (at(i) == '.' && at(i + 1) == '.' && at(i + 2) == '.'))
            && is_blankz(at(i + 3))
        {
            return Err("found unexpected document indicator");
        }
        if at(i) == '\0' {
            return Err("found unexpected end of stream");
        }
        let mut leading_blanks = false;
        while !is_blankz(at(i)) {
            let c = at(i);
            column0 = false;
            if single && c == '\'' && at(i + 1) == '\'' {
                s.push('\'');
                i += 2;
            } else if single && c == '\'' || !single && c == '"' {
                break;
            } else if !single && c == '\\' && is_goyaml_break(at(i + 1)) {
                // An escaped line break: skip it (CR LF as one).
                i += if at(i + 1) == '\r' && at(i + 2) == '\n' {
                    3
                } else {
                    2
                };
                column0 = true;
                leading_blanks = true;
                break;
            } else if !single && c == '\\' {
                let mut code_length = 0;
                match at(i + 1) {
                    '0' => s.push('\0'),
                    'a' => s.push('\u{7}'),
                    'b' => s.push('\u{8}'),
                    't' | '\t' => s.push('\t'),
                    'n' => s.push('\n'),
                    'v' => s.push('\u{b}'),
                    'f' => s.push('\u{c}'),
                    'r' => s.push('\r'),
                    'e' => s.push('\u{1b}'),
                    ' ' => s.push(' '),
                    '"' => s.push('"'),
                    '\'' => s.push('\''),
                    '\\' => s.push('\\'),
                    'N' => s.push('\u{85}'),
                    '_' => s.push('\u{a0}'),
                    'L' => s.push('\u{2028}'),
                    'P' => s.push('\u{2029}'),
                    'x' => code_length = 2,
                    'u' => code_length = 4,
                    'U' => code_length = 8,
                    _ => return Err("found unknown escape character"),
                }
                i += 2;
                if code_length > 0 {
                    let mut value: u32 = 0;
                    for k in 0..code_length {
                        let Some(d) = at(i + k).to_digit(16) else {
                            return Err("did not find expected hexdecimal number");
                        };
                        value = (value << 4) + d;
                    }
                    match char::from_u32(value) {
                        Some(c) => s.push(c),
                        None => return Err("found invalid Unicode character escape code"),
                    }
                    i += code_length;
                }
            } else {
                s.push(c);
                i += 1;
            }
        }
        if at(i) == if single { '\'' } else { '"' } {
            break;
        }
        while is_blank(at(i)) || is_goyaml_break(at(i)) {
            if is_blank(at(i)) {
                if !leading_blanks {
                    whitespaces.push(at(i));
                }
                i += 1;
                column0 = false;
            } else {
                if !leading_blanks {
                    whitespaces.clear();
                    read_line(&mut i, &mut leading_break);
                    leading_blanks = true;
                } else {
                    read_line(&mut i, &mut trailing_breaks);
                }
                column0 = true;
            }
        }
        if leading_blanks {
            if leading_break.starts_with('\n') {
                if trailing_breaks.is_empty() {
                    s.push(' ');
                } else {
                    s.push_str(&trailing_breaks);
                }
            } else {
                s.push_str(&leading_break);
                s.push_str(&trailing_breaks);
            }
            trailing_breaks.clear();
            leading_break.clear();
        } else {
            s.push_str(&whitespaces);
            whitespaces.clear();
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outputs of `sigs.k8s.io/yaml.YAMLToJSON` v1.6.0 for these plain scalars (the oracle's
    /// yaml2json, run here).
    #[test]
    fn resolves_as_yaml_v2() {
        for (text, go) in [
            ("1e3", "1000"),
            ("0755", "493"),
            ("1_000", "1000"),
            ("yes", "true"),
            ("y", "true"),
            ("on", "true"),
            ("~", "null"),
            ("1.0", "1"),
            (".5", "0.5"),
            ("0x1F", "31"),
            ("0b101", "5"),
            ("1e-7", "1e-7"),
            ("1e21", "1e+21"),
            ("99999999999999999999", "100000000000000000000"),
            ("-0.0", "-0"),
            ("012e1", "120"),
            ("+1", "1"),
            ("0o17", "15"),
            ("1:20", "\"1:20\""),
            ("2006-01-02", "\"2006-01-02\""),
            ("NO", "false"),
            (".5e3", "500"),
            ("1.e3", "1000"),
            ("9223372036854775808", "9223372036854775808"),
            ("18446744073709551616", "18446744073709552000"),
            ("-9223372036854775809", "-9223372036854776000"),
            ("0X1F", "31"),
            ("tRue", "\"tRue\""),
            ("1e400", "\"1e400\""),
            ("+13107948143372986474", "13107948143372986000"),
        ] {
            assert_eq!(go_json(resolve_plain(text), text).unwrap(), go, "{text:?}");
        }
        assert!(go_json(resolve_plain(".inf"), ".inf").is_err());
    }

    /// go-yaml v2's readings of quoted scalars (the oracle's yaml2json, run here).
    #[test]
    fn quoted_scalars_as_yaml_v2() {
        for (src, go) in [
            ("'a\u{85}b'", Ok("a b")),
            ("'a\u{2028}b'", Ok("a\u{2028}b")),
            ("'a\u{2028}  b'", Ok("a\u{2028}b")),
            ("\"a\u{2028}b\"", Ok("a\u{2028}b")),
            ("\"x a\\L b\"", Ok("x a\u{2028} b")),
            ("\"a\\/b\"", Err("found unknown escape character")),
            (
                "\"\\ud83d\\ude00\"",
                Err("found invalid Unicode character escape code"),
            ),
            ("'it''s'", Ok("it's")),
            ("\"a\n\n  b\"", Ok("a\nb")),
            ("\"a\\\n  b\"", Ok("ab")),
        ] {
            assert_eq!(
                goyaml_quoted_scalar(src).as_deref().map_err(|e| *e),
                go,
                "{src:?}"
            );
        }
    }

    /// Keys as `sigs.k8s.io/yaml.YAMLToJSON` v1.6.0 writes them (the oracle's yaml2json).
    #[test]
    fn map_keys_as_sigs_yaml() {
        for (text, go) in [
            ("1.0", "1"),
            ("yes", "true"),
            ("1e21", "1e+21"),
            ("0x10", "16"),
            ("1e-7", "1e-07"),
            ("0.5", "0.5"),
            ("-0.0", "-0"),
            ("99999999999999999999", "1e+20"),
            ("12345678.5", "1.2345678e+07"),
            ("123456789.5", "1.2345679e+08"),
            ("1e-45", "1e-45"),
            ("3.4e38", "3.4e+38"),
            ("1e39", ".inf"),
            ("0.0001", "0.0001"),
            ("0.00001", "1e-05"),
            ("100000", "100000"),
            ("name", "name"),
        ] {
            assert_eq!(
                go_map_key(resolve_plain(text), text).unwrap(),
                serde_json::Value::String(go.into()).to_string(),
                "{text:?}"
            );
        }
        assert!(go_map_key(resolve_plain("~"), "~").is_err());
        assert!(go_map_key(resolve_plain("9223372036854775808"), "x").is_err());
    }
}
