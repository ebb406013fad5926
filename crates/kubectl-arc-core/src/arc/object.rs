//! One object, from a file, standard input or the cluster: its kind, the metadata kubectl-arc
//! reads, its `spec` and `status` as Go-compatible JSON text, and where it came from.
//!
//! The model is kube-core's `object.rs` (an object as the API machinery sees it) over the
//! unstructured text the commands read: the CLI crate's `input` reads files into it, its cluster
//! layer reads the API server into it, and the core's facts read it. The metadata checks are Go's
//! decoder into `ObjectMeta` (k8s.io/apimachinery `pkg/apis/meta/v1/types.go`), which kubectl runs
//! on every object it reads.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::arc;
use crate::manifest;
use crate::written::{Paths, Spelling, Written, pointer_step};

/// Where an object was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A manifest file: its path as given, the document (from 1, when the file has several) and
    /// the item indexes of enclosing `List`s.
    File {
        path: String,
        document: Option<usize>,
        items: Vec<usize>,
    },
    /// Standard input (`-f -`).
    Stdin {
        document: Option<usize>,
        items: Vec<usize>,
    },
    /// The API server.
    Cluster,
}

impl Origin {
    /// The file's path, when the object came from a named file.
    pub fn file(&self) -> Option<&str> {
        match self {
            Origin::File { path, .. } => Some(path),
            _ => None,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (label, document, items) = match self {
            Origin::File {
                path,
                document,
                items,
            } => (path.as_str(), document, items),
            Origin::Stdin { document, items } => ("<stdin>", document, items),
            Origin::Cluster => return f.write_str("cluster"),
        };
        f.write_str(label)?;
        if let Some(d) = document {
            write!(f, "#{d}")?;
        }
        for i in items {
            write!(f, "[{i}]")?;
        }
        Ok(())
    }
}

/// A controller owner reference (`metadata.ownerReferences[]` with `controller: true`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnerRef {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
}

impl OwnerRef {
    /// The controller among `owner_references` (the field's JSON), by the core's one rule
    /// ([`crate::owner::controller_ref`], `metav1.GetControllerOf`).
    pub fn controller_of(owner_references: Option<&Value>) -> Option<OwnerRef> {
        crate::owner::controller_ref(owner_references).map(|c| {
            let s = |f: Option<&str>| f.unwrap_or("").to_string();
            OwnerRef {
                api_version: s(c.api_version()),
                kind: s(c.kind()),
                name: s(c.name()),
                uid: s(c.uid()),
            }
        })
    }

    /// Whether it is an owner of ARC's `kind` ([`crate::owner::is_arc_owner`]).
    pub fn is_arc(&self, kind: &str) -> bool {
        crate::owner::is_arc_owner(&self.api_version, &self.kind, kind)
    }
}

/// The parts of `metadata` kubectl-arc reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub generate_name: Option<String>,
    pub uid: Option<String>,
    pub resource_version: Option<String>,
    pub generation: Option<i64>,
    pub creation_timestamp: Option<String>,
    pub deletion_timestamp: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    /// The controller owner reference, if any.
    pub controller: Option<OwnerRef>,
}

/// One object, from a file or the cluster.
#[derive(Debug, Clone)]
pub struct Object {
    pub origin: Origin,
    pub api_version: String,
    pub kind: String,
    pub meta: Meta,
    /// `metadata` as JSON text (as read; for a cluster object, as kube-rs writes `ObjectMeta`).
    pub metadata: Option<Box<RawValue>>,
    /// `spec` as Go-compatible JSON text (numbers as Go writes them), `None` when absent or null.
    pub spec: Option<Box<RawValue>>,
    /// `status`, likewise.
    pub status: Option<Box<RawValue>>,
    /// The YAML spellings kubectl rewrote on the way to JSON (`1.0`, `0x10`, `yes`), by JSON
    /// pointer from the object's root: the text diff shows values as written.
    pub spellings: Vec<Spelling>,
    /// Why this object must not be used although it was read (a metadata field of the wrong type,
    /// a namespace that contradicts `-n`, a scalar kubectl reads otherwise): reported as the
    /// object's error, while the other objects are used.
    pub problem: Option<String>,
}

impl Object {
    /// `namespace/name` (the namespace as resolved by [`resolve_namespaces`] for file objects).
    pub fn key(&self) -> (String, String) {
        (
            self.meta.namespace.clone().unwrap_or_default(),
            self.meta.name.clone().unwrap_or_default(),
        )
    }

    pub fn name(&self) -> &str {
        self.meta.name.as_deref().unwrap_or("")
    }

    pub fn namespace(&self) -> &str {
        self.meta.namespace.as_deref().unwrap_or("")
    }

    /// Whether this is one of ARC's `actions.github.com/v1alpha1` objects of `kind`.
    pub fn is_arc(&self, kind: &str) -> bool {
        self.kind == kind && self.api_version == arc::API_VERSION
    }

    /// Its controller, when that is ARC's `kind` (an EphemeralRunnerSet of a runner, an
    /// AutoscalingRunnerSet of a set): whose object this is, by the core's one owner rule
    /// ([`crate::owner::is_arc_owner`] of [`crate::owner::controller_ref`]).
    pub fn owner(&self, kind: &str) -> Option<&OwnerRef> {
        (self.meta.controller.as_ref()).filter(|c| c.is_arc(kind))
    }

    /// Whether the object belongs to ARC's API group (any version).
    pub fn in_arc_group(&self) -> bool {
        self.api_version.split('/').next() == Some(arc::GROUP)
    }

    /// `Kind ns/name`, and where it came from unless the cluster: how reports name an object.
    pub fn describe(&self) -> String {
        let (ns, name) = self.key();
        match self.origin {
            Origin::Cluster => format!("{} {ns}/{name}", self.kind),
            ref origin => format!("{} {ns}/{name} ({origin})", self.kind),
        }
    }

    /// `T` read from the object's `metadata`, `spec` and `status` as from its whole JSON text,
    /// without writing the object out: a view's fields borrow the parts' text. `apiVersion` and
    /// `kind` are not offered (no view reads them). Its errors name no line or column, so a
    /// caller that shows the error reads [`Object::json`] instead when this fails.
    pub fn read_parts<'a, T: serde::Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
        use serde::de::value::MapDeserializer;
        let parts = [
            ("metadata", self.metadata.as_deref()),
            ("spec", self.spec.as_deref()),
            ("status", self.status.as_deref()),
        ];
        let present = parts.into_iter().filter_map(|(k, v)| Some((k, v?)));
        T::deserialize(MapDeserializer::<_, serde_json::Error>::new(present))
    }

    /// The parts of the object `parts` names (`metadata`, `spec`, `status`) as one JSON value,
    /// each read from its own text: at those keys exactly what the whole text ([`Object::json`])
    /// reads as, without writing the object out, and without reading the parts not named. For
    /// the rules that look at an object through JSON pointers under those parts (its
    /// `apiVersion` and `kind` are not offered, as in [`Object::read_parts`]).
    pub fn parts_value(&self, parts: &[&str]) -> Value {
        let mut out = serde_json::Map::new();
        for (key, part) in [
            ("metadata", &self.metadata),
            ("spec", &self.spec),
            ("status", &self.status),
        ] {
            if let Some(part) = part.as_deref().filter(|_| parts.contains(&key)) {
                let value = serde_json::from_str(part.get()).unwrap_or(Value::Null);
                out.insert(key.to_string(), value);
            }
        }
        Value::Object(out)
    }

    /// The whole object as JSON text (apiVersion, kind, metadata, spec, status), for the decoders
    /// that read whole objects.
    pub fn json(&self) -> String {
        let mut out = format!(
            "{{\"apiVersion\":{},\"kind\":{}",
            Value::String(self.api_version.clone()),
            Value::String(self.kind.clone())
        );
        for (key, part) in [
            ("metadata", &self.metadata),
            ("spec", &self.spec),
            ("status", &self.status),
        ] {
            if let Some(part) = part {
                out.push_str(&format!(",\"{key}\":{}", part.get()));
            }
        }
        out.push('}');
        out
    }

    /// Give an object without one its namespace, in `meta` and in the metadata text.
    pub fn set_namespace(&mut self, namespace: &str) {
        self.meta.namespace = Some(namespace.to_string());
        let mut metadata: serde_json::Map<String, Value> = self
            .metadata
            .as_ref()
            .and_then(|m| serde_json::from_str(m.get()).ok())
            .unwrap_or_default();
        metadata.insert("namespace".into(), Value::String(namespace.to_string()));
        self.metadata = RawValue::from_string(manifest::go_json(&Value::Object(metadata))).ok();
    }

    /// The raw JSON text of `spec.<field>`, when `spec` is an object holding it (not null).
    pub fn spec_field(&self, field: &str) -> Result<Option<&RawValue>, String> {
        let Some(spec) = &self.spec else {
            return Ok(None);
        };
        let found =
            field_of(spec.get(), field).map_err(|e| format!("spec is not an object: {e}"))?;
        Ok(found.filter(|r| r.get() != "null"))
    }

    /// The raw JSON text of `status.<field>`, when `status` is an object holding it (not null).
    pub fn status_field(&self, field: &str) -> Option<&RawValue> {
        let status = self.status.as_ref()?;
        field_of(status.get(), field)
            .ok()
            .flatten()
            .filter(|r| r.get() != "null")
    }

    /// What `spec` (or its `field`) wrote, with the YAML spellings laid on it, for showing its
    /// values as written.
    pub fn written_spec(&self, field: Option<&str>) -> Written {
        self.written_spec_reaching(field, None)
    }

    /// [`Object::written_spec`] of only what lies on the way to `paths` (from the field's root)
    /// and under them ([`Written::from_json_reaching`]; `None`: all of it).
    pub fn written_spec_reaching(&self, field: Option<&str>, paths: Option<&Paths>) -> Written {
        let Some(spec) = &self.spec else {
            return Written::Unknown;
        };
        let under;
        let paths = match (field, paths) {
            (Some(field), Some(paths)) => {
                under = paths.under(field);
                Some(&under)
            }
            (_, paths) => paths,
        };
        let mut written = Written::from_json_reaching(spec.get(), paths);
        let mut prefix = "/spec".to_string();
        if let Some(field) = field {
            written = written.take(field);
            pointer_step(&mut prefix, field);
        }
        written.spell(&prefix, &self.spellings);
        written
    }

    /// What the pairing rule ([`crate::pairing`]) needs of an EphemeralRunnerSet.
    pub fn pairing_set(&self) -> crate::pairing::RunnerSet<'_> {
        use crate::pairing::{LABEL_SCALE_SET_NAME, LABEL_SCALE_SET_NAMESPACE};
        crate::pairing::RunnerSet {
            namespace: self.namespace(),
            name: self.name(),
            owner: self.meta.controller.as_ref().map(|c| {
                (
                    c.api_version.as_str(),
                    c.kind.as_str(),
                    c.name.as_str(),
                    c.uid.as_str(),
                )
            }),
            label_name: self
                .meta
                .labels
                .get(LABEL_SCALE_SET_NAME)
                .map(String::as_str),
            label_namespace: self
                .meta
                .labels
                .get(LABEL_SCALE_SET_NAMESPACE)
                .map(String::as_str),
            creation_timestamp: self.meta.creation_timestamp.as_deref(),
            deleting: self.meta.deletion_timestamp.is_some(),
        }
    }

    /// An object read from a manifest. A `metadata` field of the wrong type makes it a problem
    /// object (kubectl refuses it), never a silently defaulted one.
    pub fn from_manifest(value: &Value, origin: Origin, problem: Option<String>) -> Object {
        let part = |key: &str| {
            value
                .get(key)
                .filter(|v| !v.is_null())
                .map(manifest::go_json)
        };
        let string = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or("");
        Object::assemble(
            (string("apiVersion"), string("kind")),
            (value.get("metadata"), part("metadata")),
            (part("spec"), part("status")),
            origin,
            problem,
        )
    }

    /// The object [`Object::from_manifest`] makes of a manifest object read into its parts
    /// ([`crate::json::ObjectParts`], what the value it reads holds at those keys): the same
    /// object, field for field.
    pub fn from_parts(
        parts: crate::json::ObjectParts,
        origin: Origin,
        problem: Option<String>,
    ) -> Object {
        let crate::json::ObjectParts {
            kind,
            api_version,
            metadata,
            metadata_text,
            spec,
            status,
        } = parts;
        // Read from its text only (JSON): the metadata checks on the text's light reading, else
        // (a field that reading does not take) on the value of the text, as on a value read.
        let (light, parsed) = match (&metadata, &metadata_text) {
            (None, Some(text)) => match light_meta(text) {
                Some(meta) => (Some(meta), None),
                None => (None, serde_json::from_str::<Value>(text).ok()),
            },
            _ => (None, None),
        };
        let mut object = Object::assemble(
            (
                api_version.as_deref().unwrap_or(""),
                kind.as_deref().unwrap_or(""),
            ),
            (metadata.as_ref().or(parsed.as_ref()), metadata_text),
            (spec, status),
            origin,
            problem,
        );
        if let Some(meta) = light {
            object.meta = meta;
        }
        object
    }

    /// The object of a manifest's `apiVersion` and `kind` (when strings), `metadata` (as read,
    /// and its text), and `spec` and `status` (texts written by [`manifest::go_json`], `None`
    /// when absent or null).
    fn assemble(
        (api_version, kind): (&str, &str),
        (metadata, metadata_text): (Option<&Value>, Option<String>),
        (spec, status): (Option<String>, Option<String>),
        origin: Origin,
        problem: Option<String>,
    ) -> Object {
        let text = |v: &Value| v.as_str().map(str::to_string);
        let (meta, meta_problem) = match meta_of(metadata) {
            Ok(meta) => (meta, None),
            Err(e) => (
                // The name and namespace, where readable, still say which object it is.
                Meta {
                    namespace: metadata.and_then(|m| m.get("namespace")).and_then(text),
                    name: metadata.and_then(|m| m.get("name")).and_then(text),
                    ..Meta::default()
                },
                Some(e),
            ),
        };
        let raw = |text: String| RawValue::from_string(text).ok();
        Object {
            origin,
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            meta,
            metadata: metadata_text.and_then(raw),
            spec: spec.and_then(raw),
            status: status.and_then(raw),
            spellings: Vec::new(),
            problem: problem.or(meta_problem),
        }
    }
}

/// The raw text of an object's `field` in the JSON `text`, read as a map of keys to raw values
/// is (the last of a key given twice, as in Go's maps and in a map read whole; the error of a
/// text that is no object that reading's), with no map built.
fn field_of<'t>(text: &'t str, field: &str) -> Result<Option<&'t RawValue>, serde_json::Error> {
    use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
    struct Field<'f>(&'f str);
    impl<'de> DeserializeSeed<'de> for Field<'_> {
        type Value = Option<&'de RawValue>;
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Field<'_> {
        type Value = Option<&'de RawValue>;
        // What serde's map says: the same error for a text that is no object.
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a map")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(crate::json::TextKey(key)) = map.next_key()? {
                if key == self.0 {
                    found = Some(map.next_value::<&'de RawValue>()?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }
    let mut d = serde_json::Deserializer::from_str(text);
    let found = Field(field).deserialize(&mut d)?;
    d.end()?;
    Ok(found)
}

/// [`meta_of`] of the value of `text` (a `metadata` object's Go JSON text), read without building
/// that value: `None` where it would not be a plain one (a field of another type, a null label or
/// annotation, a key given twice, anything but an object), which [`meta_of`] then reads (and
/// refuses or takes). Where both read, they agree: the fields not declared here are skipped by
/// both, a string field is a string or null, a map of strings is one, `generation` is
/// `Value::as_i64` of the number (an int64's text; anything else none), and the owner references
/// are read by the same [`OwnerRef::controller_of`].
fn light_meta(text: &str) -> Option<Meta> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Light<'a> {
        namespace: Option<String>,
        name: Option<String>,
        generate_name: Option<String>,
        uid: Option<String>,
        resource_version: Option<String>,
        #[serde(borrow)]
        generation: Option<&'a RawValue>,
        creation_timestamp: Option<String>,
        deletion_timestamp: Option<String>,
        labels: Option<BTreeMap<String, String>>,
        annotations: Option<BTreeMap<String, String>>,
        #[serde(borrow)]
        owner_references: Option<&'a RawValue>,
    }
    let light: Light<'_> = serde_json::from_str(text).ok()?;
    let owner_references = match light.owner_references {
        Some(raw) => Some(serde_json::from_str::<Value>(raw.get()).ok()?),
        None => None,
    };
    Some(Meta {
        namespace: light.namespace,
        name: light.name,
        generate_name: light.generate_name,
        uid: light.uid,
        resource_version: light.resource_version,
        generation: light
            .generation
            .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
            .and_then(|v| v.as_i64()),
        creation_timestamp: light.creation_timestamp,
        deletion_timestamp: light.deletion_timestamp,
        labels: light.labels.unwrap_or_default(),
        annotations: light.annotations.unwrap_or_default(),
        controller: OwnerRef::controller_of(owner_references.as_ref()),
    })
}

/// The Go type of a JSON value, for messages that say what kubectl's decoder refuses.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The metadata fields kubectl-arc reads, with the type checks Go's decoder into `ObjectMeta`
/// makes (`json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.namespace of type
/// string`). `null` is Go's zero value, as in Go.
fn meta_of(metadata: Option<&Value>) -> Result<Meta, String> {
    let Some(metadata) = metadata.filter(|m| !m.is_null()) else {
        return Ok(Meta::default());
    };
    let Value::Object(m) = metadata else {
        return Err(format!(
            "metadata is a {}, not an object: kubectl refuses this object",
            json_type(metadata)
        ));
    };
    let string = |field: &str| -> Result<Option<String>, String> {
        match m.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!(
                "metadata.{field}: {other} is a {} where Kubernetes wants a string: kubectl refuses this object{} (quote it)",
                json_type(other),
                if other.is_boolean() {
                    " (YAML 1.1 reads y, yes, on, n, no, off as booleans)"
                } else {
                    ""
                }
            )),
        }
    };
    let string_map = |field: &str| -> Result<BTreeMap<String, String>, String> {
        match m.get(field) {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(entries)) => entries
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    Value::Null => Ok((k.clone(), String::new())),
                    other => Err(format!(
                        "metadata.{field}[{k:?}]: {other} is a {} where Kubernetes wants a string: kubectl refuses this object (quote it)",
                        json_type(other)
                    )),
                })
                .collect(),
            Some(other) => Err(format!(
                "metadata.{field} is a {}, not a map of strings: kubectl refuses this object",
                json_type(other)
            )),
        }
    };
    let controller = OwnerRef::controller_of(m.get("ownerReferences"));
    Ok(Meta {
        namespace: string("namespace")?,
        name: string("name")?,
        generate_name: string("generateName")?,
        uid: string("uid")?,
        resource_version: string("resourceVersion")?,
        generation: m.get("generation").and_then(Value::as_i64),
        creation_timestamp: string("creationTimestamp")?,
        deletion_timestamp: string("deletionTimestamp")?,
        labels: string_map("labels")?,
        annotations: string_map("annotations")?,
        controller,
    })
}

#[cfg(test)]
mod parts_tests {
    use super::*;
    use serde_json::json;

    /// Objects as ARC writes them and as it never would, one with duplicate keys in its parts'
    /// text (the last one wins, in a part as in the whole).
    fn cases() -> Vec<Object> {
        let mut objects: Vec<Object> = [
            json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "EphemeralRunnerSet",
                "metadata": {"name": "s", "namespace": "ns", "annotations": {"a": "1"},
                    "ownerReferences": [{"kind": "AutoscalingRunnerSet", "name": "a",
                    "controller": true}]},
                "spec": {"actionableRevision": 4, "ephemeralRunnerSpec": {"spec": {}}},
                "status": {"appliedActionableRevision": 3, "pendingEphemeralRunners": 1.5}}),
            json!({"kind": "CustomResourceDefinition", "metadata": {"name": "c"},
                "spec": {"versions": [{"name": "v1alpha1", "schema": {}}]}}),
            json!({"metadata": "x", "spec": [1, "2"], "status": 7}),
            json!({"metadata": {"name": 3}, "spec": null}),
            json!({}),
        ]
        .iter()
        .map(|v| Object::from_manifest(v, Origin::Cluster, None))
        .collect();
        let raw = |t: &str| RawValue::from_string(t.to_string()).ok();
        let mut duplicated = objects[0].clone();
        duplicated.metadata = raw(r#"{"name":"a","name":"b","labels":{"x":"1","x":"2"}}"#);
        duplicated.status = raw(r#"{"phase":"Running","phase":"Failed"}"#);
        objects.push(duplicated);
        objects
    }

    #[test]
    fn the_parts_value_is_the_whole_text_read_at_those_parts() {
        let subsets: [&[&str]; 5] = [
            &["metadata", "spec", "status"],
            &["metadata", "status"],
            &["metadata", "spec"],
            &["status"],
            &[],
        ];
        for o in cases() {
            let mut whole: Value = serde_json::from_str(&o.json()).unwrap_or(Value::Null);
            let whole = whole.as_object_mut().unwrap();
            whole.remove("apiVersion");
            whole.remove("kind");
            for parts in subsets {
                let mut want = whole.clone();
                want.retain(|k, _| parts.contains(&k.as_str()));
                assert_eq!(o.parts_value(parts), Value::Object(want), "{}", o.json());
            }
        }
    }
}

/// The objects made of a JSON manifest's objects read into their parts
/// ([`manifest::parse_each_read`], [`Object::from_parts`]) are the objects made of the same
/// objects read whole ([`manifest::parse_each`], [`Object::from_manifest`]): every field.
#[cfg(test)]
mod from_parts_tests {
    use super::*;
    use crate::manifest::parts_tests::{both_readings, dump_json, edge_cases, generated};

    fn origin(document: Option<usize>, items: Vec<usize>) -> Origin {
        Origin::File {
            path: "f.json".to_string(),
            document,
            items,
        }
    }

    /// Both readings of `text` make the same objects; returns how many were read into parts.
    fn same_objects(text: &str) -> usize {
        let ((whole, whole_result), (read, read_result)) = both_readings(text);
        assert_eq!(read_result, whole_result, "{text}");
        let mut parts = 0;
        let read: Vec<Object> = read
            .into_iter()
            .map(|read| match read {
                manifest::Read::Value(o) => {
                    let mut object =
                        Object::from_manifest(&o.value, origin(o.document, o.items), o.problem);
                    object.spellings = o.spellings;
                    object
                }
                manifest::Read::Parts(o) => {
                    parts += 1;
                    let mut object =
                        Object::from_parts(o.parts, origin(o.document, o.items), o.problem);
                    object.spellings = o.spellings;
                    object
                }
            })
            .collect();
        let whole: Vec<Object> = whole
            .into_iter()
            .map(|o| {
                let mut object =
                    Object::from_manifest(&o.value, origin(o.document, o.items), o.problem);
                object.spellings = o.spellings;
                object
            })
            .collect();
        assert_eq!(format!("{read:#?}"), format!("{whole:#?}"), "{text}");
        parts
    }

    #[test]
    fn objects_read_into_parts_are_the_objects_read_whole() {
        let mut parts = 0;
        for text in edge_cases().iter().chain(&generated(1000)) {
            parts += same_objects(text);
        }
        assert!(parts > 400, "only {parts} objects read into parts");
    }

    #[test]
    fn a_dump_as_kubectl_prints_it_makes_the_same_objects() {
        let text = dump_json(20);
        assert_eq!(same_objects(&text), 40);
        let objects = {
            let mut out = Vec::new();
            manifest::parse_each_read(&text, "f.json", &mut |o| out.push(o)).unwrap();
            out
        };
        // The scale set's spec, written as the API server's encoding/json writes it.
        let manifest::Read::Parts(first) = &objects[0] else {
            panic!("the first item is read whole")
        };
        let spec = first.parts.spec.as_deref().unwrap();
        assert!(spec.starts_with(r#"{"githubConfigSecret":"arc-runner-set-gha-rs-github-secret","githubConfigUrl":"https://github.com/my-org","maxRunners":10,"#), "{spec}");
    }
}

#[cfg(test)]
mod light_meta_tests {
    use super::*;

    /// The light reading of a `metadata` text is `meta_of` of its value wherever it reads one,
    /// and leaves to `meta_of` what it does not take.
    #[test]
    fn the_light_reading_is_meta_of_where_it_reads() {
        let owner = r#"{"apiVersion":"actions.github.com/v1alpha1","kind":"AutoscalingRunnerSet","name":"a","uid":"u","controller":true}"#;
        // (text, whether the light reading takes it)
        let cases = [
            ("{}", true),
            (r#"{"name":"a","namespace":"b"}"#, true),
            (
                r#"{"annotations":{"x":"1"},"creationTimestamp":"2024-01-01T00:00:00Z","deletionTimestamp":null,"generateName":"a-","generation":7,"labels":{"k":"v"},"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}],"name":"a","namespace":"b","resourceVersion":"12","uid":"u"}"#,
                true,
            ),
            (r#"{"name":null,"labels":null,"annotations":{}}"#, true),
            (r#"{"name":"\u00e9\ufffdx","labels":{"a\"b":"c\\d"}}"#, true),
            (r#"{"generation":"7"}"#, true),
            (r#"{"generation":null}"#, true),
            (r#"{"generation":-9223372036854775808}"#, true),
            (r#"{"generation":9223372036854775808}"#, true),
            (r#"{"generation":7.0}"#, true),
            (r#"{"generation":{}}"#, true),
            (&format!(r#"{{"ownerReferences":[{owner}]}}"#), true),
            (
                &format!(r#"{{"ownerReferences":[{{"name":"x"}},{owner}]}}"#),
                true,
            ),
            (r#"{"ownerReferences":null}"#, true),
            (r#"{"ownerReferences":{"a":1}}"#, true),
            (r#"{"ownerReferences":"x"}"#, true),
            // What `meta_of` reads, or refuses, itself.
            (r#"{"labels":{"a":null}}"#, false),
            (r#"{"labels":{"a":1}}"#, false),
            (r#"{"labels":[]}"#, false),
            (r#"{"annotations":"x"}"#, false),
            (r#"{"name":3}"#, false),
            (r#"{"namespace":true}"#, false),
            (r#"{"name":"a","name":"b"}"#, false),
            ("[]", false),
            ("3", false),
        ];
        for (text, light) in cases {
            let value: Value = serde_json::from_str(text).unwrap();
            let want = meta_of(Some(&value));
            match light_meta(text) {
                Some(meta) => {
                    assert!(light, "{text}: read light");
                    assert_eq!(
                        format!("{:?}", Ok::<_, String>(meta)),
                        format!("{want:?}"),
                        "{text}"
                    );
                }
                None => assert!(!light, "{text}: not read light"),
            }
        }
    }
}

#[cfg(test)]
mod field_of_tests {
    use super::*;

    /// A field read with no map built is the field of the map read whole: the last of a key
    /// given twice, a key spelled with an escape, none at a deeper level; and a text that is no
    /// object fails with the map reading's error.
    #[test]
    fn a_field_is_the_maps_field() {
        let whole = |text: &str, field: &str| -> Result<Option<String>, String> {
            serde_json::from_str::<BTreeMap<String, &RawValue>>(text)
                .map(|m| m.get(field).map(|r| r.get().to_string()))
                .map_err(|e| e.to_string())
        };
        let cases = [
            (r#"{"a":1,"b":{"c":2}}"#, "b"),
            (r#"{"a":1,"a":[2, 3]}"#, "a"),
            (r#"{"a\u0062":true}"#, "ab"),
            (r#"{"x":{"a":1}}"#, "a"),
            (r#"{}"#, "a"),
            (r#"{"a":null}"#, "a"),
            (r#""text""#, "a"),
            (r#"[1]"#, "a"),
            (r#"{"a":1} x"#, "a"),
        ];
        for (text, field) in cases {
            let read = field_of(text, field)
                .map(|f| f.map(|r| r.get().to_string()))
                .map_err(|e| e.to_string());
            assert_eq!(read, whole(text, field), "{text}");
        }
    }
}
