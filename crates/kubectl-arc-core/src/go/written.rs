//! A side's input as its author wrote it, beside the Go value decoded from it: the JSON text the
//! value was decoded from, kept as raw tokens (`"1"` and `1` stay apart, a quantity keeps its
//! `4096Mi`), and, for a YAML file, the YAML spelling of the scalars kubectl rewrote on the way
//! to JSON (`1.0`, `0x10`, `1e3`, `yes`, `~`).
//!
//! Pure core. Display only: nothing here changes what is compared; the renderers
//! ([`crate::render::display`]) show a value as written when its written form decodes to the
//! very value compared, and as Go writes it otherwise.

pub use crate::go::spelling::{Spelling, pointer_step};
use crate::json::{Reader, Token, check_valid};

/// A JSON value as raw tokens.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Written {
    /// A scalar: its JSON text (`"1Gi"`, `8080`, `true`, `null`), and its YAML spelling when the
    /// file said it otherwise.
    Scalar {
        json: String,
        yaml: Option<String>,
    },
    /// An object's entries in order (a later duplicate key wins, as in Go for a scalar).
    Object(Vec<(String, Written)>),
    Array(Vec<Written>),
    /// Nothing is known (a field the input did not hold, or filled in by ARC).
    #[default]
    Unknown,
}

impl Written {
    /// The tree of a JSON text; [`Written::Unknown`] when it is not valid JSON.
    pub fn from_json(text: &str) -> Written {
        if check_valid(text.as_bytes()).is_err() {
            return Written::Unknown;
        }
        Builder::default().read(&mut Reader::new(text))
    }

    /// The value of an object's key (the last one, when the key is given twice).
    pub fn get(&self, key: &str) -> &Written {
        match self {
            Written::Object(entries) => entries
                .iter()
                .rev()
                .find(|(k, _)| k == key)
                .map_or(&Written::Unknown, |(_, v)| v),
            _ => &Written::Unknown,
        }
    }

    /// An array's item.
    pub fn item(&self, i: usize) -> &Written {
        match self {
            Written::Array(items) => items.get(i).unwrap_or(&Written::Unknown),
            _ => &Written::Unknown,
        }
    }

    /// Take an object's key out (the last one), leaving the rest.
    pub fn take(&mut self, key: &str) -> Written {
        match self {
            Written::Object(entries) => match entries.iter().rposition(|(k, _)| k == key) {
                Some(i) => entries.remove(i).1,
                None => Written::Unknown,
            },
            _ => Written::Unknown,
        }
    }

    /// The node at a path as [`crate::equality`] spells it (`spec.containers[0].env`,
    /// `limits["nvidia.com/gpu"]`); [`Written::Unknown`] when the input did not hold it.
    pub fn at_path(&self, path: &str) -> &Written {
        let mut node = self;
        let mut rest = path;
        while !rest.is_empty() {
            rest = rest.strip_prefix('.').unwrap_or(rest);
            if let Some(bracket) = rest.strip_prefix('[') {
                let Some(end) = bracket.find(']') else {
                    return &Written::Unknown;
                };
                // A quoted key may hold `]`: read it as the JSON string it is.
                let (step, after) = if bracket.starts_with('"') {
                    let mut de = serde_json::Deserializer::from_str(bracket).into_iter::<String>();
                    match de.next() {
                        Some(Ok(key)) => {
                            let used = de.byte_offset();
                            match bracket[used..].strip_prefix(']') {
                                Some(after) => (Step::Key(key), after),
                                None => return &Written::Unknown,
                            }
                        }
                        _ => return &Written::Unknown,
                    }
                } else {
                    match bracket[..end].parse::<usize>() {
                        Ok(i) => (Step::Item(i), &bracket[end + 1..]),
                        Err(_) => return &Written::Unknown,
                    }
                };
                node = match step {
                    Step::Key(key) => node.get(&key),
                    Step::Item(i) => node.item(i),
                };
                rest = after;
            } else {
                let end = rest.find(['.', '[']).unwrap_or(rest.len());
                node = node.get(&rest[..end]);
                rest = &rest[end..];
            }
        }
        node
    }

    /// A scalar as its input wrote it: the YAML spelling, else a JSON string's text, else the
    /// JSON (`8080`, `true`). `None` for anything but a scalar.
    pub fn as_written(&self) -> Option<String> {
        match self {
            Written::Scalar {
                yaml: Some(yaml), ..
            } => Some(yaml.clone()),
            Written::Scalar { json, .. } => {
                Some(serde_json::from_str::<String>(json).unwrap_or_else(|_| json.clone()))
            }
            _ => None,
        }
    }

    /// The node at a JSON pointer (`/a/0/b~1c`), mutably.
    fn at_pointer_mut(&mut self, pointer: &str) -> Option<&mut Written> {
        let mut node = self;
        if pointer.is_empty() {
            return Some(node);
        }
        for raw in pointer.strip_prefix('/')?.split('/') {
            let step = raw.replace("~1", "/").replace("~0", "~");
            node = match node {
                Written::Object(entries) => {
                    let i = entries.iter().rposition(|(k, _)| *k == step)?;
                    &mut entries[i].1
                }
                Written::Array(items) => items.get_mut(step.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// Lay the YAML spellings under `prefix` (a pointer, `/spec/ephemeralRunnerSpec`) on the
    /// tree of the JSON at that prefix. A spelling whose JSON is not the scalar found at its place
    /// (a merge key replaced it) is left out.
    pub fn spell(&mut self, prefix: &str, spellings: &[Spelling]) {
        for s in spellings {
            let Some(rest) = s.pointer.strip_prefix(prefix) else {
                continue;
            };
            if !(rest.is_empty() || rest.starts_with('/')) {
                continue;
            }
            if let Some(Written::Scalar { json, yaml }) = self.at_pointer_mut(rest)
                && *json == s.json
            {
                *yaml = Some(s.yaml.clone());
            }
        }
    }
}

/// One step of a path.
enum Step {
    Key(String),
    Item(usize),
}

/// Reads a tree: the entries and items of the objects and arrays being read, innermost last,
/// each moved out into a vector of their exact number when it ends (no growing vector per node).
#[derive(Default)]
struct Builder {
    entries: Vec<(String, Written)>,
    items: Vec<Written>,
}

impl Builder {
    fn read(&mut self, r: &mut Reader<'_>) -> Written {
        match r.peek_kind() {
            Token::Object => {
                r.begin_object();
                let base = self.entries.len();
                while let Some(key) = r.next_key() {
                    let value = self.read(r);
                    self.entries.push((key.into_owned(), value));
                }
                Written::Object(self.entries.drain(base..).collect())
            }
            Token::Array => {
                r.begin_array();
                let base = self.items.len();
                while r.next_element() {
                    let item = self.read(r);
                    self.items.push(item);
                }
                Written::Array(self.items.drain(base..).collect())
            }
            _ => Written::Scalar {
                json: r.raw_value().to_string(),
                yaml: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(json: &str, yaml: Option<&str>) -> Written {
        Written::Scalar {
            json: json.into(),
            yaml: yaml.map(str::to_string),
        }
    }

    #[test]
    fn keeps_each_scalar_as_its_json_text() {
        let w = Written::from_json(r#"{"a":"1","b":1,"c":[1.5e3,null,true],"a":"2","d/e":{}}"#);
        assert_eq!(w.get("a"), &scalar(r#""2""#, None));
        assert_eq!(w.get("b"), &scalar("1", None));
        assert_eq!(w.get("c").item(0), &scalar("1.5e3", None));
        assert_eq!(w.get("c").item(1), &scalar("null", None));
        assert_eq!(w.get("c").item(9), &Written::Unknown);
        assert_eq!(w.get("d/e"), &Written::Object(Vec::new()));
        assert_eq!(w.get("x").get("y"), &Written::Unknown);
        assert_eq!(Written::from_json("{"), Written::Unknown);
    }

    #[test]
    fn yaml_spellings_land_where_their_json_is() {
        let mut w = Written::from_json(r#"{"x":{"a/b":[16,1]},"y":true}"#);
        let s = |p: &str, yaml: &str, json: &str| Spelling {
            pointer: p.into(),
            yaml: yaml.into(),
            json: json.into(),
        };
        w.spell(
            "/spec",
            &[
                s("/spec/x/a~1b/0", "0x10", "16"),
                // Replaced by a merge: the JSON there is not what the spelling made.
                s("/spec/x/a~1b/1", "2.0", "2"),
                s("/spec/y", "yes", "true"),
                s("/specs/y", "on", "true"),
                s("/other/y", "on", "true"),
            ],
        );
        assert_eq!(w.get("x").get("a/b").item(0), &scalar("16", Some("0x10")));
        assert_eq!(w.get("x").get("a/b").item(1), &scalar("1", None));
        assert_eq!(w.get("y"), &scalar("true", Some("yes")));
        let mut p = String::new();
        pointer_step(&mut p, "a/b~c");
        assert_eq!(p, "/a~1b~0c");
    }

    #[test]
    fn paths_as_equality_spells_them_find_what_was_written() {
        let mut w = Written::from_json(
            r#"{"spec":{"containers":[{"resources":{"limits":{"cpu":"1e3","nvidia.com/gpu":1,"a]b":"x"}}}]}}"#,
        );
        w.spell(
            "",
            &[Spelling {
                pointer: "/spec/containers/0/resources/limits/nvidia.com~1gpu".into(),
                yaml: "1.0".into(),
                json: "1".into(),
            }],
        );
        let at = |p: &str| w.at_path(p).as_written();
        assert_eq!(
            at("spec.containers[0].resources.limits.cpu").as_deref(),
            Some("1e3")
        );
        assert_eq!(
            at(r#"spec.containers[0].resources.limits["nvidia.com/gpu"]"#).as_deref(),
            Some("1.0")
        );
        assert_eq!(
            at(r#"spec.containers[0].resources.limits["a]b"]"#).as_deref(),
            Some("x")
        );
        assert_eq!(at("spec.containers[1].resources"), None);
        assert_eq!(at("spec.containers[0].resources"), None, "not a scalar");
        assert_eq!(at("spec.containers[x]"), None);
    }
}
