//! The Go type layout that drives decoding, equality and the legacy hash.
//!
//! Pure core. The data comes from the Go oracle's reflection walk (`tests/oracle`, `oracle layout`)
//! over `v1alpha1.EphemeralRunnerSpec` and `v1alpha1.AutoscalingRunnerSetSpec`, one file per
//! supported k8s.io/api version under `crates/kubectl-arc-core/src/layouts/`; a test regenerates them and fails when they
//! differ. Nothing here types a Kubernetes field by hand: the only names written below are the few
//! types whose Go behaviour is custom code (`UnmarshalJSON`, `Equal`, equality functions), which the
//! value model implements natively.
//!
//! JSON field resolution mirrors encoding/json's `typeFields` (as forked by sigs.k8s.io/json):
//! fields of embedded structs without a JSON name are promoted, the shallowest wins, and at equal
//! depth a tagged field beats untagged ones; anything else ambiguous is dropped.

use std::any::Any;
use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// Index of a type in a [`Layout`].
pub type TypeId = u32;

/// The kinds of Go type the closure contains, as `reflect.Kind` names them.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Bool,
    /// A signed integer of this many bits (`int` is 64 on the platforms ARC ships for).
    Int(u8),
    /// An unsigned integer of this many bits.
    Uint(u8),
    /// A float of this many bits.
    Float(u8),
    String,
    Struct(Vec<Field>),
    Ptr(TypeId),
    Slice(TypeId),
    Array(TypeId, usize),
    Map(TypeId, TypeId),
    Interface,
}

/// Types whose Go behaviour is custom code rather than their fields' structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    None,
    /// `k8s.io/apimachinery/pkg/api/resource.Quantity`
    Quantity,
    /// `k8s.io/apimachinery/pkg/util/intstr.IntOrString`
    IntOrString,
    /// `k8s.io/apimachinery/pkg/apis/meta/v1.Time`
    MetaTime,
    /// `k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime`
    MetaMicroTime,
    /// `k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1`
    FieldsV1,
}

/// One Go type of the closure.
#[derive(Debug, Clone)]
pub struct TypeDef {
    /// `reflect.Type.String()`, as go-spew prints it: `v1.PodSpec`, `[]v1.Container`, `*bool`.
    pub name: String,
    pub kind: Kind,
    pub special: Special,
    /// `reflect.PointerTo(t).Implements(json.Unmarshaler)`.
    pub unmarshal_json: bool,
    /// For structs: JSON key → path of field indexes (through promoted embedded structs).
    pub json_fields: HashMap<String, Vec<u16>>,
    /// For structs: the same keys and paths in the order encoding/json writes them (its
    /// `typeFields` list, sorted by index sequence).
    pub json_fields_in_order: Vec<(String, Vec<u16>)>,
}

/// One struct field, in declaration order (which is reflect's and go-spew's order).
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The Go field name; for an embedded field, its type's name.
    pub name: String,
    pub ty: TypeId,
    /// The JSON name: the tag's name, or the Go name. `-` means never decoded.
    pub json: String,
    pub embedded: bool,
    pub exported: bool,
    /// An embedded struct whose fields encoding/json promotes (`json:",inline"` or no tag).
    pub inline: bool,
    /// Whether the tag names the field (matters for encoding/json's dominance rule).
    pub tagged: bool,
    /// `json:",omitempty"`: Go's encoder leaves zero scalars and empty collections out.
    pub omitempty: bool,
    /// `json:",omitzero"` (Go 1.24+): Go's encoder leaves the field out when its value is zero
    /// (by the type's `IsZero` method when it has one).
    pub omitzero: bool,
}

/// A whole type layout: one k8s.io/api version's closure of ARC's runner-spec types.
#[derive(Debug)]
pub struct Layout {
    /// The k8s.io/api version the layout was taken from, e.g. `v0.36.2`.
    pub k8s_api: String,
    types: Vec<TypeDef>,
    by_name: HashMap<String, TypeId>,
    /// `v1alpha1.EphemeralRunnerSpec`
    pub ephemeral_runner_spec: TypeId,
    /// `v1alpha1.AutoscalingRunnerSetSpec`
    pub autoscaling_runner_set_spec: TypeId,
    /// `v1alpha1.runnerSetSpec`: the function-local struct of ARC's `RunnerSetSpecHash`, a root
    /// of the release layouts only (see [`crate::release`]).
    pub runner_set_spec: Option<TypeId>,
    /// A small number unique to each layout kept for the whole process (the shipped ones), by
    /// which the spew formatter keeps its fixed texts per layout; `None` for any other.
    pub static_id: Option<usize>,
    /// A slot per type, filled once by whoever asks first ([`Layout::slot`]): `value.rs` keeps
    /// each struct type's shared zero value there. Opaque here, so that the layout names no
    /// value type (the values name the layout).
    slots: Vec<OnceLock<Box<dyn Any + Send + Sync>>>,
}

/// The layouts shipped in the binary, newest supported first after ARC's own pin.
const SHIPPED: &[(&str, &str)] = &[
    ("v0.36.2", include_str!("../layouts/k8s-api-v0.36.2.json")),
    ("v0.35.10", include_str!("../layouts/k8s-api-v0.35.10.json")),
    ("v0.37.2", include_str!("../layouts/k8s-api-v0.37.2.json")),
];

/// The layouts of ARC's releases (gha-runner-scale-set 0.9.0 to 0.14.2): the oracle's reflection
/// walk over each distinct pair of ARC type declarations and k8s.io/api version, with the roots
/// `v1alpha1.EphemeralRunnerSpec`, `v1alpha1.AutoscalingRunnerSetSpec` and `v1alpha1.runnerSetSpec`
/// (`oracle layout RELEASE`). [`crate::release`] says which release uses which. Releases
/// whose dumps are the same type for type share one file (0.13.1 on k8s.io/api v0.34.3 shares
/// 0.13.0's on v0.34.1; `tests/testsuite/layouts.rs` compares them), so a layout's `k8s_api` is
/// that of the first release using it; [`crate::release::ArcRelease::k8s_api`] is each
/// release's own.
pub const RELEASE_SHIPPED: &[(&str, &str)] = &[
    (
        "arc-0.9.0-k8s-v0.28.4",
        include_str!("../layouts/arc-0.9.0-k8s-v0.28.4.json"),
    ),
    (
        "arc-0.11.0-k8s-v0.32.2",
        include_str!("../layouts/arc-0.11.0-k8s-v0.32.2.json"),
    ),
    (
        "arc-0.12.0-k8s-v0.32.3",
        include_str!("../layouts/arc-0.12.0-k8s-v0.32.3.json"),
    ),
    (
        "arc-0.13.0-k8s-v0.34.1",
        include_str!("../layouts/arc-0.13.0-k8s-v0.34.1.json"),
    ),
    (
        "arc-0.14.0-k8s-v0.35.2",
        include_str!("../layouts/arc-0.14.0-k8s-v0.35.2.json"),
    ),
];

/// How many layouts live for the whole process: the shipped k8s.io/api ones, then the releases'.
pub const STATIC_LAYOUTS: usize = SHIPPED.len() + RELEASE_SHIPPED.len();

/// Errors in layout data (a layout file that this program cannot honour).
#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    /// The JSON is not a layout dump.
    #[error("layout data is malformed: {0}")]
    Malformed(#[from] serde_json::Error),
    /// A type refers to a type the dump does not define.
    #[error("layout data: type {0:?} is referenced but not defined")]
    Undefined(String),
    /// A kind this program has no Go semantics for.
    #[error("layout data: type {0:?} has unsupported kind {1:?}")]
    UnsupportedKind(String, String),
    /// A type that decodes with custom Go code this program does not reproduce.
    #[error(
        "layout data: type {0:?} has a custom UnmarshalJSON that kubectl-arc does not reproduce"
    )]
    UnknownUnmarshaler(String),
    /// A root type is missing.
    #[error("layout data: root type {0:?} is missing")]
    MissingRoot(String),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawLayout {
    k8s_api: String,
    types: Vec<RawType>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawType {
    name: String,
    #[serde(default)]
    pkg_path: String,
    kind: String,
    #[serde(default)]
    elem: Option<String>,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    len: Option<usize>,
    #[serde(default)]
    unmarshal_json: bool,
    #[serde(default)]
    fields: Vec<RawField>,
}

#[derive(Deserialize)]
struct RawField {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    tag: String,
    json: String,
    #[serde(default)]
    omitempty: bool,
    #[serde(default)]
    omitzero: bool,
    embedded: bool,
    exported: bool,
    inline: bool,
}

impl Layout {
    /// ARC's own pin (k8s.io/api v0.36.2 at ARC commit 2ee6b3b8).
    pub fn arc() -> &'static Layout {
        Self::shipped_at(0)
    }

    /// Every shipped layout, ARC's pin first.
    pub fn shipped() -> impl Iterator<Item = &'static Layout> {
        (0..SHIPPED.len()).map(Self::shipped_at)
    }

    /// The k8s.io/api versions of the shipped layouts, without parsing them.
    pub fn shipped_versions() -> impl Iterator<Item = &'static str> {
        SHIPPED.iter().map(|(v, _)| *v)
    }

    /// Each shipped layout is parsed on first use only: most runs need just ARC's pin.
    fn shipped_at(i: usize) -> &'static Layout {
        static CELLS: [OnceLock<Layout>; SHIPPED.len()] =
            [const { OnceLock::new() }; SHIPPED.len()];
        CELLS[i].get_or_init(|| {
            let (version, text) = SHIPPED[i];
            let mut layout = Layout::from_json(text)
                .unwrap_or_else(|e| panic!("shipped layout {version} is broken: {e}"));
            layout.static_id = Some(i);
            layout
        })
    }

    /// The `i`th release layout of [`RELEASE_SHIPPED`], parsed on first use only.
    pub fn release_shipped(i: usize) -> &'static Layout {
        static CELLS: [OnceLock<Layout>; RELEASE_SHIPPED.len()] =
            [const { OnceLock::new() }; RELEASE_SHIPPED.len()];
        CELLS[i].get_or_init(|| {
            let (name, text) = RELEASE_SHIPPED[i];
            let mut layout = Layout::from_json(text)
                .unwrap_or_else(|e| panic!("shipped layout {name} is broken: {e}"));
            if layout.runner_set_spec.is_none() {
                panic!("shipped layout {name} has no root v1alpha1.runnerSetSpec");
            }
            layout.static_id = Some(SHIPPED.len() + i);
            layout
        })
    }

    /// The shipped layout for a k8s.io/api version (`v0.36.2`, or a minor like `v0.36`).
    pub fn find(version: &str) -> Option<&'static Layout> {
        let i = SHIPPED
            .iter()
            .position(|(v, _)| *v == version || v.starts_with(&format!("{version}.")))?;
        Some(Self::shipped_at(i))
    }

    /// Parse and check a layout dump.
    pub fn from_json(text: &str) -> Result<Layout, LayoutError> {
        let raw: RawLayout = serde_json::from_str(text)?;
        let by_name: HashMap<String, TypeId> = raw
            .types
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i as TypeId))
            .collect();
        let id = |name: &str| -> Result<TypeId, LayoutError> {
            by_name
                .get(name)
                .copied()
                .ok_or_else(|| LayoutError::Undefined(name.to_string()))
        };
        let mut types = Vec::with_capacity(raw.types.len());
        for t in &raw.types {
            let elem = || id(t.elem.as_deref().unwrap_or_default());
            let kind = match t.kind.as_str() {
                "bool" => Kind::Bool,
                "int" | "int64" => Kind::Int(64),
                "int32" => Kind::Int(32),
                "int16" => Kind::Int(16),
                "int8" => Kind::Int(8),
                "uint" | "uint64" | "uintptr" => Kind::Uint(64),
                "uint32" => Kind::Uint(32),
                "uint16" => Kind::Uint(16),
                "uint8" => Kind::Uint(8),
                "float64" => Kind::Float(64),
                "float32" => Kind::Float(32),
                "string" => Kind::String,
                "ptr" => Kind::Ptr(elem()?),
                "slice" => Kind::Slice(elem()?),
                "array" => Kind::Array(elem()?, t.len.unwrap_or(0)),
                "map" => Kind::Map(id(t.key.as_deref().unwrap_or_default())?, elem()?),
                "interface" => Kind::Interface,
                "struct" => Kind::Struct(
                    t.fields
                        .iter()
                        .map(|f| {
                            Ok(Field {
                                name: f.name.clone(),
                                ty: id(&f.ty)?,
                                json: f.json.clone(),
                                embedded: f.embedded,
                                exported: f.exported,
                                inline: f.inline,
                                tagged: tag_name(&f.tag).is_some_and(|n| !n.is_empty()),
                                omitempty: f.omitempty,
                                omitzero: f.omitzero,
                            })
                        })
                        .collect::<Result<_, LayoutError>>()?,
                ),
                other => return Err(LayoutError::UnsupportedKind(t.name.clone(), other.into())),
            };
            let special = match (t.pkg_path.as_str(), t.name.as_str()) {
                ("k8s.io/apimachinery/pkg/api/resource", "resource.Quantity") => Special::Quantity,
                ("k8s.io/apimachinery/pkg/util/intstr", "intstr.IntOrString") => {
                    Special::IntOrString
                }
                ("k8s.io/apimachinery/pkg/apis/meta/v1", "v1.Time") => Special::MetaTime,
                ("k8s.io/apimachinery/pkg/apis/meta/v1", "v1.MicroTime") => Special::MetaMicroTime,
                ("k8s.io/apimachinery/pkg/apis/meta/v1", "v1.FieldsV1") => Special::FieldsV1,
                _ => Special::None,
            };
            types.push(TypeDef {
                name: t.name.clone(),
                kind,
                special,
                unmarshal_json: t.unmarshal_json,
                json_fields: HashMap::new(),
                json_fields_in_order: Vec::new(),
            });
        }
        let root = |name: &str| {
            by_name
                .get(name)
                .copied()
                .ok_or_else(|| LayoutError::MissingRoot(name.to_string()))
        };
        let mut layout = Layout {
            k8s_api: raw.k8s_api,
            ephemeral_runner_spec: root("v1alpha1.EphemeralRunnerSpec")?,
            autoscaling_runner_set_spec: root("v1alpha1.AutoscalingRunnerSetSpec")?,
            runner_set_spec: by_name.get("v1alpha1.runnerSetSpec").copied(),
            static_id: None,
            slots: types.iter().map(|_| OnceLock::new()).collect(),
            types,
            by_name,
        };
        layout.check_decodable()?;
        for i in 0..layout.types.len() {
            if matches!(layout.types[i].kind, Kind::Struct(_)) {
                let fields = layout.json_fields_of(i as TypeId);
                let mut in_order: Vec<(String, Vec<u16>)> =
                    fields.iter().map(|(k, p)| (k.clone(), p.clone())).collect();
                in_order.sort_by(|a, b| a.1.cmp(&b.1));
                layout.types[i].json_fields = fields;
                layout.types[i].json_fields_in_order = in_order;
            }
        }
        Ok(layout)
    }

    /// Type `id`'s slot: what `make` made the first time it was asked for.
    pub(crate) fn slot(
        &self,
        id: TypeId,
        make: impl FnOnce() -> Box<dyn Any + Send + Sync>,
    ) -> &(dyn Any + Send + Sync) {
        &**self.slots[id as usize].get_or_init(make)
    }

    /// The type with this id.
    pub fn ty(&self, id: TypeId) -> &TypeDef {
        &self.types[id as usize]
    }

    /// The type named `name` (`reflect.Type.String()`).
    pub fn by_name(&self, name: &str) -> Option<TypeId> {
        self.by_name.get(name).copied()
    }

    /// Whether the layout holds a type of this name (`reflect.Type.String()`: `v1alpha1.VaultConfig`).
    pub fn has_type(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// How many types the layout holds.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether the layout holds no type (a parsed layout always holds its roots).
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// Every type that JSON decoding can reach from the roots must be one whose decoding we model:
    /// plain kinds, or a [`Special`] (whose internals JSON never reaches).
    fn check_decodable(&self) -> Result<(), LayoutError> {
        let mut seen = vec![false; self.types.len()];
        let mut stack = vec![self.ephemeral_runner_spec, self.autoscaling_runner_set_spec];
        stack.extend(self.runner_set_spec);
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut seen[id as usize], true) {
                continue;
            }
            let t = self.ty(id);
            if t.special != Special::None {
                continue;
            }
            if t.unmarshal_json {
                return Err(LayoutError::UnknownUnmarshaler(t.name.clone()));
            }
            match &t.kind {
                Kind::Ptr(e) | Kind::Slice(e) | Kind::Array(e, _) => stack.push(*e),
                Kind::Map(k, e) => {
                    if self.ty(*k).kind != Kind::String {
                        return Err(LayoutError::UnsupportedKind(
                            t.name.clone(),
                            "map with non-string keys".into(),
                        ));
                    }
                    stack.push(*e)
                }
                Kind::Struct(fields) => stack.extend(
                    fields
                        .iter()
                        .filter(|f| f.exported || f.inline)
                        .map(|f| f.ty),
                ),
                Kind::Interface => {
                    return Err(LayoutError::UnsupportedKind(
                        t.name.clone(),
                        "interface".into(),
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Mirrors encoding/json `typeFields` (sigs.k8s.io/json `internal/golang/encoding/json/encode.go`):
    /// breadth-first over embedded structs, dominance by depth and tag.
    fn json_fields_of(&self, id: TypeId) -> HashMap<String, Vec<u16>> {
        struct Candidate {
            name: String,
            path: Vec<u16>,
            tagged: bool,
        }
        let mut out: HashMap<String, Vec<u16>> = HashMap::new();
        let mut level: Vec<(TypeId, Vec<u16>)> = vec![(id, Vec::new())];
        let mut visited: Vec<TypeId> = Vec::new();
        while !level.is_empty() {
            let mut next = Vec::new();
            let mut candidates: Vec<Candidate> = Vec::new();
            for (ty, prefix) in level {
                if visited.contains(&ty) {
                    continue;
                }
                visited.push(ty);
                let Kind::Struct(fields) = &self.ty(ty).kind else {
                    continue;
                };
                for (i, f) in fields.iter().enumerate() {
                    let mut path = prefix.clone();
                    path.push(i as u16);
                    if f.json == "-" {
                        continue;
                    }
                    let target = self.deref(f.ty);
                    let promote = f.embedded
                        && !f.tagged
                        && matches!(self.ty(target).kind, Kind::Struct(_))
                        && self.ty(target).special == Special::None;
                    if f.embedded && !f.exported && !promote {
                        continue;
                    }
                    if !f.embedded && !f.exported {
                        continue;
                    }
                    if promote {
                        // Go follows embedded pointers too, allocating on decode; the closure has
                        // only embedded values, and the decoder walks values.
                        next.push((target, path));
                        continue;
                    }
                    candidates.push(Candidate {
                        name: f.json.clone(),
                        path,
                        tagged: f.tagged,
                    });
                }
            }
            // At this depth: a name claimed once wins; claimed several times, a single tagged
            // field wins, otherwise none does. Shallower names already chosen dominate.
            let mut by_name: HashMap<&str, Vec<&Candidate>> = HashMap::new();
            for c in &candidates {
                by_name.entry(c.name.as_str()).or_default().push(c);
            }
            for (name, cs) in by_name {
                if out.contains_key(name) {
                    continue;
                }
                let chosen = if cs.len() == 1 {
                    Some(cs[0])
                } else {
                    let tagged: Vec<_> = cs.iter().filter(|c| c.tagged).collect();
                    (tagged.len() == 1).then(|| *tagged[0])
                };
                match chosen {
                    Some(c) => {
                        out.insert(name.to_string(), c.path.clone());
                    }
                    None => {
                        // Ambiguous at this depth: encoding/json drops it, and deeper ones too.
                        out.insert(name.to_string(), Vec::new());
                    }
                }
            }
            level = next;
        }
        out.retain(|_, path| !path.is_empty());
        out
    }

    fn deref(&self, id: TypeId) -> TypeId {
        match self.ty(id).kind {
            Kind::Ptr(e) => e,
            _ => id,
        }
    }
}

/// The name part of a struct tag's `json:"name,opts"`, or `None` without a json key.
fn tag_name(tag: &str) -> Option<&str> {
    let start = tag.find("json:\"")? + 6;
    let rest = &tag[start..];
    let end = rest.find('"')?;
    Some(rest[..end].split(',').next().unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_layouts_load_and_know_the_roots() {
        for l in Layout::shipped() {
            let ers = l.ty(l.ephemeral_runner_spec);
            assert_eq!(ers.name, "v1alpha1.EphemeralRunnerSpec");
            let keys: Vec<&str> = {
                let mut k: Vec<&str> = ers.json_fields.keys().map(String::as_str).collect();
                k.sort();
                k
            };
            // The inline PodTemplateSpec promotes metadata and spec (go-semantics.md C.2).
            assert_eq!(
                keys,
                [
                    "ephemeralRunnerConfigSecretMetadata",
                    "githubConfigSecret",
                    "githubConfigUrl",
                    "githubServerTLS",
                    "metadata",
                    "proxy",
                    "proxySecretRef",
                    "runnerScaleSetId",
                    "spec",
                    "vaultConfig"
                ],
                "{}",
                l.k8s_api
            );
            assert_eq!(ers.json_fields["spec"], vec![8, 1]);
        }
        assert_eq!(Layout::arc().k8s_api, "v0.36.2");
        assert!(Layout::find("v0.35").is_some());
    }

    #[test]
    fn closure_counts_match_the_recorded_reflection_walk() {
        // verified/closure_summary.txt: 133 struct types reachable from EphemeralRunnerSpec.
        let l = Layout::arc();
        let mut seen = vec![false; l.len()];
        let mut stack = vec![l.ephemeral_runner_spec];
        let mut structs = 0;
        while let Some(id) = stack.pop() {
            if std::mem::replace(&mut seen[id as usize], true) {
                continue;
            }
            match &l.ty(id).kind {
                Kind::Struct(fields) => {
                    structs += 1;
                    stack.extend(fields.iter().map(|f| f.ty));
                }
                Kind::Ptr(e) | Kind::Slice(e) | Kind::Array(e, _) => stack.push(*e),
                Kind::Map(k, e) => stack.extend([*k, *e]),
                _ => {}
            }
        }
        assert_eq!(structs, 133);
    }

    #[test]
    fn tag_names() {
        assert_eq!(tag_name(r#"json:"metadata,omitempty""#), Some("metadata"));
        assert_eq!(tag_name(r#"json:",inline""#), Some(""));
        assert_eq!(tag_name(r#"protobuf:"bytes,1""#), None);
    }
}
