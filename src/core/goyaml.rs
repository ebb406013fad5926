//! How kubectl and Helm read a plain YAML scalar: `sigs.k8s.io/yaml.YAMLToJSON`, which decodes
//! with go.yaml.in/yaml/v2 (YAML 1.1 resolution) and writes the result with `encoding/json`.
//!
//! Pure core. [`resolve_plain`] mirrors `resolve` in go.yaml.in/yaml/v2 `resolve.go` (v2.4) for an
//! untagged plain scalar; [`go_json`] is the JSON text `encoding/json` writes for the result. The
//! manifest reader uses them to find the scalars its own YAML parser reads differently.

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
            let plain: String = text.chars().filter(|&c| c != '_').collect();
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
        GoScalar::Str => serde_json::Value::String(text.to_string()).to_string(),
    })
}

/// A float64 as Go's `encoding/json` writes it (`floatEncoder.encode`): the shortest digits that
/// read back as the same float, in `strconv.FormatFloat` format `'f'` when 1e-6 <= |f| < 1e21 (or
/// f is zero) and `'e'` otherwise, whose exponent has at least two digits, except that `e-0N` is
/// shortened to `e-N`. Rust's `{}` and `{:e}` give the same shortest digits.
pub fn go_float(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e').expect("{:e} has an exponent");
        let exponent: i32 = exponent.parse().expect("an integer exponent");
        if exponent < 0 {
            // Go writes e-07, then encoding/json shortens it to e-7: no padding.
            format!("{mantissa}e-{}", exponent.unsigned_abs())
        } else {
            format!("{mantissa}e+{exponent:02}")
        }
    } else {
        format!("{f}")
    }
}

/// The JSON object key `sigs.k8s.io/yaml` makes of a resolved mapping key
/// (`convertToJSONableObject`): a string as is, an int in decimal, a bool as `true`/`false`, a
/// float with `strconv.FormatFloat(f, 'g', -1, 32)` (infinities and NaN spelled `.inf`, `-.inf`,
/// `.nan`); a null or uint64 key is an error. Returned as a JSON string.
pub fn go_map_key(value: GoScalar, text: &str) -> Result<String, String> {
    let key = match value {
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
    };
    Ok(serde_json::Value::String(key).to_string())
}

/// `strconv.FormatFloat(float64(f), 'g', -1, 32)`: the shortest digits of the float32, in `%e`
/// form (two-digit exponent at least) when the exponent is below -4 or at least 6 (the precision
/// Go uses for this decision with the shortest digits), else `%f` form.
fn format_g32(f: f32) -> String {
    let e = format!("{f:e}");
    let (mantissa, exponent) = e.split_once('e').expect("{:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    if f != 0.0 && !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
    } else {
        format!("{f}")
    }
}

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
