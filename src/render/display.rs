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
use crate::core::layout::{Kind, Layout, TypeId};
use crate::core::quantity::{Format, Quantity};
use crate::core::value::Value;

/// A display tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A scalar, already spelled as YAML (quoted when needed).
    Scalar(String),
    /// A mapping in order: key, node, path.
    Map(Vec<(String, Node, String)>),
    /// A sequence: node, path.
    Seq(Vec<(Node, String)>),
}

/// One rendered line and the path of the value it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub text: String,
    pub path: String,
}

/// Build the display tree of a value (`None` when nothing would be shown).
pub fn tree(layout: &Layout, ty: TypeId, v: &Value, path: &str) -> Option<Node> {
    let t = layout.ty(ty);
    match v {
        Value::Bool(b) => Some(Node::Scalar(b.to_string())),
        Value::Int(n) => Some(Node::Scalar(n.to_string())),
        Value::Uint(n) => Some(Node::Scalar(n.to_string())),
        Value::Float(f) => Some(Node::Scalar(f.to_string())),
        Value::String(s) => Some(Node::Scalar(yaml_string(s))),
        Value::Ptr(None) | Value::Slice(None) | Value::Map(None) => None,
        Value::Ptr(Some(inner)) => {
            let Kind::Ptr(e) = t.kind else { unreachable!() };
            Some(tree(layout, e, inner, path).unwrap_or(Node::Map(Vec::new())))
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
                        let node = tree(layout, elem, item, &p).unwrap_or(Node::Map(Vec::new()));
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
                        let node =
                            tree(layout, elem, item, &p).unwrap_or(Node::Scalar("null".into()));
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
                    if let Some(Node::Map(inner)) = tree(layout, f.ty, fv, path) {
                        out.extend(inner);
                    }
                    continue;
                }
                let mut p = path.to_string();
                if !p.is_empty() {
                    p.push('.');
                }
                p.push_str(&f.json);
                if f.omitempty && is_zero_scalar(fv) {
                    continue;
                }
                if let Some(node) = tree(layout, f.ty, fv, &p) {
                    if matches!(fv, Value::Struct(_)) && node == Node::Map(Vec::new()) {
                        continue;
                    }
                    out.push((yaml_key(&f.json), node, p));
                }
            }
            Some(Node::Map(out))
        }
        Value::Quantity(q) => Some(Node::Scalar(yaml_string(&quantity_as_written(q)))),
        Value::IntOrString(x) => Some(Node::Scalar(if x.kind == 1 {
            yaml_string(&x.str_val)
        } else {
            x.int_val.to_string()
        })),
        Value::Time(t) => {
            if !t.local && t.secs == 0 && t.nanos == 0 {
                None
            } else {
                Some(Node::Scalar(yaml_string(
                    &crate::core::gotime::format_rfc3339_utc(t.secs, t.nanos),
                )))
            }
        }
        Value::FieldsV1(raw) => raw
            .as_ref()
            .map(|r| Node::Scalar(yaml_string(&String::from_utf8_lossy(r)))),
    }
}

/// A quantity as it was most likely written: Go's cached string when it kept one, else the int64
/// amount with the suffix its scale implies (`1000m`, `1.0`), else the canonical form. Display only:
/// it lets `1` and `1000m` read differently in a diff, as they differ to a strict comparison.
pub fn quantity_as_written(q: &Quantity) -> String {
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

fn emit(node: &Node, indent: usize, path: &str, out: &mut Vec<Line>) {
    let pad = " ".repeat(indent);
    match node {
        Node::Scalar(s) => out.push(Line {
            text: format!("{pad}{s}"),
            path: path.to_string(),
        }),
        Node::Map(entries) if entries.is_empty() => out.push(Line {
            text: format!("{pad}{{}}"),
            path: path.to_string(),
        }),
        Node::Seq(items) if items.is_empty() => out.push(Line {
            text: format!("{pad}[]"),
            path: path.to_string(),
        }),
        Node::Map(entries) => {
            for (k, v, p) in entries {
                match v {
                    Node::Scalar(s) => out.push(Line {
                        text: format!("{pad}{k}: {s}"),
                        path: p.clone(),
                    }),
                    Node::Map(m) if m.is_empty() => out.push(Line {
                        text: format!("{pad}{k}: {{}}"),
                        path: p.clone(),
                    }),
                    Node::Seq(s) if s.is_empty() => out.push(Line {
                        text: format!("{pad}{k}: []"),
                        path: p.clone(),
                    }),
                    Node::Map(_) => {
                        out.push(Line {
                            text: format!("{pad}{k}:"),
                            path: p.clone(),
                        });
                        emit(v, indent + 2, p, out);
                    }
                    Node::Seq(_) => {
                        out.push(Line {
                            text: format!("{pad}{k}:"),
                            path: p.clone(),
                        });
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
                    let body = first.text[indent + 2..].to_string();
                    let mut text = String::new();
                    let _ = write!(text, "{pad}- {body}");
                    first.text = text;
                }
            }
        }
    }
}

/// A YAML mapping key: plain when safe, else double-quoted.
fn yaml_key(k: &str) -> String {
    if plain_safe(k) {
        k.to_string()
    } else {
        serde_json::to_string(k).expect("string")
    }
}

/// A YAML string scalar: plain when it cannot be read as anything else, else double-quoted.
pub fn yaml_string(s: &str) -> String {
    if plain_safe(s) && !looks_like_other_scalar(s) {
        s.to_string()
    } else {
        serde_json::to_string(s).expect("string")
    }
}

fn plain_safe(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    b'_' | b'-' | b'.' | b'/' | b'$' | b'(' | b')' | b'=' | b'+' | b'@' | b':'
                )
        })
        && !s.starts_with(['-', '.', '+', ':'])
        && !s.ends_with(':')
        && !s.contains("://")
}

fn looks_like_other_scalar(s: &str) -> bool {
    matches!(
        s.to_ascii_lowercase().as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "~" | ".inf" | ".nan"
    ) || s.parse::<f64>().is_ok()
        || s.starts_with("0x")
        || s.starts_with("0o")
        || (s.contains(':') && s.starts_with(|c: char| c.is_ascii_digit()))
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
            (
                "githubConfigUrl: \"https://github.com/o\"",
                "githubConfigUrl",
            ),
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
}
