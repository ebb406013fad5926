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
