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

    /// [`Written::from_json`] of only what lies on the way to `paths` and under them (`None`:
    /// all of it): every lookup along those paths ([`Written::at_path`], [`Written::get`],
    /// [`Written::item`]) finds what it finds in the whole tree; any other object entry is left
    /// out and any other array item is [`Written::Unknown`]. A report that quotes a few
    /// differences reads a few paths of a large spec.
    pub fn from_json_reaching(text: &str, paths: Option<&Paths>) -> Written {
        let Some(paths) = paths else {
            return Written::from_json(text);
        };
        if check_valid(text.as_bytes()).is_err() {
            return Written::Unknown;
        }
        // One stack of tails for the whole reading, room for all at once: each level holds at
        // most one tail of each path, one step shorter than the level above.
        let room = paths.0.iter().map(|p| p.len() + 1).sum();
        let mut tails: Vec<&[PathStep]> = Vec::with_capacity(room);
        tails.extend(paths.0.iter().map(Vec::as_slice));
        Builder::default().read_reaching(&mut Reader::new(text), &mut tails, 0)
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
        for step in (PathSteps { rest: path }) {
            node = match step {
                Some(PathStep::Key(key)) => node.get(&key),
                Some(PathStep::Item(i)) => node.item(i),
                None => return &Written::Unknown,
            };
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

/// One step of a path: an object's key, or an array's item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathStep {
    Key(String),
    Item(usize),
}

/// The steps of a path as [`crate::equality`] spells it (`spec.containers[0].env`,
/// `limits["nvidia.com/gpu"]`); a step that cannot be read is `None`, and ends the path.
struct PathSteps<'a> {
    rest: &'a str,
}

impl Iterator for PathSteps<'_> {
    type Item = Option<PathStep>;

    fn next(&mut self) -> Option<Option<PathStep>> {
        if self.rest.is_empty() {
            return None;
        }
        let rest = self.rest.strip_prefix('.').unwrap_or(self.rest);
        let Some(bracket) = rest.strip_prefix('[') else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            self.rest = &rest[end..];
            return Some(Some(PathStep::Key(rest[..end].to_string())));
        };
        self.rest = "";
        let Some(end) = bracket.find(']') else {
            return Some(None);
        };
        // A quoted key may hold `]`: read it as the JSON string it is.
        if bracket.starts_with('"') {
            let mut de = serde_json::Deserializer::from_str(bracket).into_iter::<String>();
            let Some(Ok(key)) = de.next() else {
                return Some(None);
            };
            let after = bracket[de.byte_offset()..].strip_prefix(']');
            self.rest = after.unwrap_or("");
            return Some(after.map(|_| PathStep::Key(key)));
        }
        let i = bracket[..end].parse::<usize>().ok();
        self.rest = if i.is_some() { &bracket[end + 1..] } else { "" };
        Some(i.map(PathStep::Item))
    }
}

/// Paths into a tree, as steps from its root: what [`Written::from_json_reaching`] reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Paths(pub Vec<Vec<PathStep>>);

impl Paths {
    /// Paths spelled as [`crate::equality`] spells them. A path with a step that cannot be read
    /// keeps the steps before it: [`Written::at_path`] finds nothing there anyway.
    pub fn parse<'p>(paths: impl IntoIterator<Item = &'p str>) -> Paths {
        Paths(
            paths
                .into_iter()
                .map(|p| PathSteps { rest: p }.map_while(|s| s).collect())
                .collect(),
        )
    }

    /// The same paths one level down, under `key`.
    pub fn under(&self, key: &str) -> Paths {
        let step = PathStep::Key(key.to_string());
        Paths(
            (self.0.iter())
                .map(|p| {
                    std::iter::once(step.clone())
                        .chain(p.iter().cloned())
                        .collect()
                })
                .collect(),
        )
    }
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

    /// [`Builder::read`] of what lies on the way to the `tails` (the steps left of each path)
    /// and under them; whole where a path ends. `tails[lo..]` are this node's; the tails of a
    /// child are pushed after them while it is read (one stack for the whole tree).
    fn read_reaching<'p>(
        &mut self,
        r: &mut Reader<'_>,
        tails: &mut Vec<&'p [PathStep]>,
        lo: usize,
    ) -> Written {
        if tails[lo..].iter().any(|t| t.is_empty()) {
            return self.read(r);
        }
        // The tails of the child that `is_next` takes, pushed: whether there are any.
        let push_next =
            |tails: &mut Vec<&'p [PathStep]>, hi: usize, is_next: &dyn Fn(&PathStep) -> bool| {
                for j in lo..hi {
                    let t = tails[j];
                    if is_next(&t[0]) {
                        tails.push(&t[1..]);
                    }
                }
                tails.len() > hi
            };
        let hi = tails.len();
        match r.peek_kind() {
            Token::Object => {
                r.begin_object();
                let base = self.entries.len();
                while let Some(key) = r.next_key() {
                    if push_next(tails, hi, &|s| matches!(s, PathStep::Key(k) if *k == *key)) {
                        let value = self.read_reaching(r, tails, hi);
                        self.entries.push((key.into_owned(), value));
                    } else {
                        r.skip_value();
                    }
                    tails.truncate(hi);
                }
                Written::Object(self.entries.drain(base..).collect())
            }
            Token::Array => {
                r.begin_array();
                let base = self.items.len();
                let mut i = 0;
                while r.next_element() {
                    let item = if push_next(tails, hi, &|s| *s == PathStep::Item(i)) {
                        self.read_reaching(r, tails, hi)
                    } else {
                        r.skip_value();
                        Written::Unknown
                    };
                    tails.truncate(hi);
                    self.items.push(item);
                    i += 1;
                }
                Written::Array(self.items.drain(base..).collect())
            }
            _ => self.read(r),
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

    #[test]
    fn a_tree_read_along_paths_answers_on_them_as_the_whole_tree() {
        let text = include_str!("../../../../tests/oracle/testdata/realistic-spec.json");
        let text = format!(
            r#"{{"x":{text},"x":{text},"m":{{"a.b":[1,{{"c]":2}}],"":3}},"s":"1Gi","n":-0.0}}"#
        );
        let whole = Written::from_json(&text);
        let mut all = Vec::new();
        test_support::paths_of(&whole, "", &mut all);
        assert!(all.len() > 300, "{}", all.len());
        // `a` is `b` or under it.
        let under = |a: &str, b: &str| {
            b.is_empty()
                || a.starts_with(b) && matches!(a.as_bytes().get(b.len()), None | Some(b'.' | b'['))
        };
        // Each path alone, and every seventh with the next two: every path at or under one read
        // is found as in the whole tree, and every node on the way to one is of the same kind.
        let sets: Vec<Vec<&str>> = (all.iter().map(|p| vec![p.as_str()]))
            .chain(
                all.chunks(3)
                    .step_by(7)
                    .map(|c| c.iter().map(String::as_str).collect()),
            )
            .collect();
        for set in &sets {
            let read = Written::from_json_reaching(&text, Some(&Paths::parse(set.iter().copied())));
            for q in all.iter().filter(|q| set.iter().any(|p| under(q, p))) {
                assert_eq!(read.at_path(q), whole.at_path(q), "{q} read along {set:?}");
            }
            for q in all.iter().filter(|q| set.iter().any(|p| under(p, q))) {
                let kind = std::mem::discriminant::<Written>;
                assert_eq!(
                    kind(read.at_path(q)),
                    kind(whole.at_path(q)),
                    "{q} on the way"
                );
            }
        }
        // Unreadable steps, and paths the text does not hold, read nothing wrong.
        for odd in [
            "x[",
            "x[a]",
            r#"m["a.b""#,
            "m[\"c\"]",
            "nothing.here",
            "x..y",
            "x.",
        ] {
            let read = Written::from_json_reaching(&text, Some(&Paths::parse([odd])));
            assert_eq!(read.at_path(odd), whole.at_path(odd), "{odd}");
        }
        assert_eq!(Written::from_json_reaching(&text, None), whole);
        assert_eq!(
            Written::from_json_reaching("{", Some(&Paths::parse(["a"]))),
            Written::Unknown
        );
        let under = Paths::parse(["a[0]"]).under("spec");
        assert_eq!(
            under.0,
            vec![vec![
                PathStep::Key("spec".into()),
                PathStep::Key("a".into()),
                PathStep::Item(0)
            ]]
        );
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::Written;

    /// Every node's path in a tree, spelled as the equality spells paths (test support).
    pub(crate) fn paths_of(w: &Written, here: &str, out: &mut Vec<String>) {
        out.push(here.to_string());
        match w {
            Written::Object(entries) => {
                for (k, v) in entries {
                    let plain = !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric());
                    let step = match (plain, here.is_empty()) {
                        (true, true) => k.clone(),
                        (true, false) => format!(".{k}"),
                        (false, _) => format!("[{}]", serde_json::to_string(k).unwrap()),
                    };
                    paths_of(v, &format!("{here}{step}"), out);
                }
            }
            Written::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    paths_of(v, &format!("{here}[{i}]"), out);
                }
            }
            _ => {}
        }
    }
}
