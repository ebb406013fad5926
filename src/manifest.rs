//! Manifests from files: multi-document YAML or JSON, `List` kinds flattened, every object tagged
//! with where it came from.
//!
//! Pure: takes text, returns objects. The command layer reads the files. YAML is parsed with
//! serde-saphyr, whose budgets bound alias expansion and nesting; JSON documents are YAML too.

use serde_json::Value;

use crate::core::arc;

/// One object read from a manifest.
#[derive(Debug, Clone)]
pub struct ManifestObject {
    /// `file.yaml#2` (index from 1 among the file's non-empty documents), with `[i]` for List items.
    pub source: String,
    pub value: Value,
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
    let mut options = serde_saphyr::Options::default();
    // Scalars resolve as kubectl and Helm read them (sigs.k8s.io/yaml over go.yaml.in/yaml/v2,
    // YAML 1.1): a plain `0755` is octal (strconv.ParseInt base 0), `yes`/`on`/`y` are booleans.
    options.legacy_octal_numbers = true;
    if let Some(budget) = options.budget.as_mut() {
        budget.max_depth = MAX_DEPTH;
        budget.max_nodes = 20_000_000;
        budget.max_events = 40_000_000;
        budget.max_documents = 1_000_000;
        budget.max_total_scalar_bytes = MAX_BYTES;
    }
    let docs: Vec<Option<Value>> = serde_saphyr::from_multiple_with_options(text, options)
        .map_err(|e| ManifestError::Parse {
            origin: source.to_string(),
            message: friendly(&e.to_string()),
        })?;
    let mut out = Vec::new();
    let multi = docs.len() > 1;
    for (i, doc) in docs.into_iter().enumerate() {
        let Some(doc) = doc else { continue };
        let src = if multi {
            format!("{source}#{}", i + 1)
        } else {
            source.to_string()
        };
        push_object(doc, src, &mut out)?;
    }
    Ok(out)
}

/// The JSON text of a manifest value as `sigs.k8s.io/yaml.YAMLToJSON` writes it, for the
/// Go-faithful decoder: numbers as Go's `encoding/json` prints them (a YAML `1e3` or `1.0` is the
/// float64 1000 or 1 and is written `1000` or `1`, not `1000.0`), since a `resource.Quantity`
/// keeps the literal text of a JSON number. Object keys keep the file's order (the decoder does
/// not depend on it); strings are escaped as JSON.
pub fn go_json(value: &Value) -> String {
    let mut out = String::new();
    write_go_json(value, &mut out);
    out
}

fn write_go_json(value: &Value, out: &mut String) {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if !(n.is_i64() || n.is_u64()) => out.push_str(&go_float(f)),
            _ => out.push_str(&n.to_string()),
        },
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
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_go_json(v, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
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
    } else if what.contains("budget breached") || what.contains("alias") {
        format!(
            "the document expands beyond kubectl-arc's limits ({what}): aliases that multiply (a \"billion laughs\" document?)"
        )
    } else {
        what
    };
    format!("{place}{what}")
}

fn push_object(
    doc: Value,
    source: String,
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
                    push_object(item, format!("{source}[{j}]"), out)?;
                }
                Ok(())
            } else {
                out.push(ManifestObject { source, value: doc });
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
        ] {
            assert_eq!(go_float(f), go, "{f:e}");
        }
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
