//! One way in: every command reads ARC's objects through here, from files, directories, standard
//! input or the cluster, into one object type with a structured origin.
//!
//! Mirrors what kubectl's resource Builder does for `-f` (`FilenameParam`,
//! `NamespaceParam().DefaultNamespace()`, k8s.io/cli-runtime `pkg/resource/builder.go`): a
//! directory is read for its `.json`, `.yaml` and `.yml` files, `-` is standard input, every
//! document of a file and every item of a `List` is an object, an object without a namespace takes
//! the command's (`-n`, else the context's), and an explicit `-n` that differs from an object's
//! own namespace is refused (kubectl's message). A `metadata` field that is not a string where
//! Kubernetes wants one (`namespace: y` is a YAML 1.1 boolean) refuses that object, as kubectl
//! refuses the file; the file's other objects are still used.
//!
//! Pure apart from reading the files and the reader it is handed for `-`.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;
use serde_json::value::RawValue;

use crate::core::arc;
use crate::core::written::{Spelling, Written, pointer_step};
use crate::manifest;

/// Where an object was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
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
    pub(crate) fn file(&self) -> Option<&str> {
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
pub(crate) struct OwnerRef {
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub(crate) name: String,
    pub(crate) uid: String,
}

impl OwnerRef {
    /// The controller among `owner_references` (the field's JSON), by the core's one rule
    /// ([`crate::core::owner::controller_ref`], `metav1.GetControllerOf`).
    pub(crate) fn controller_of(owner_references: Option<&Value>) -> Option<OwnerRef> {
        crate::core::owner::controller_ref(owner_references).map(|c| {
            let s = |f: Option<&str>| f.unwrap_or("").to_string();
            OwnerRef {
                api_version: s(c.api_version()),
                kind: s(c.kind()),
                name: s(c.name()),
                uid: s(c.uid()),
            }
        })
    }

    /// Whether it is an owner of ARC's `kind` ([`crate::core::owner::is_arc_owner`]).
    pub(crate) fn is_arc(&self, kind: &str) -> bool {
        crate::core::owner::is_arc_owner(&self.api_version, &self.kind, kind)
    }
}

/// The parts of `metadata` kubectl-arc reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Meta {
    pub(crate) namespace: Option<String>,
    pub(crate) name: Option<String>,
    pub(crate) generate_name: Option<String>,
    pub(crate) uid: Option<String>,
    pub(crate) resource_version: Option<String>,
    pub(crate) generation: Option<i64>,
    pub(crate) creation_timestamp: Option<String>,
    pub(crate) deletion_timestamp: Option<String>,
    pub(crate) labels: BTreeMap<String, String>,
    pub(crate) annotations: BTreeMap<String, String>,
    /// The controller owner reference, if any.
    pub(crate) controller: Option<OwnerRef>,
}

/// One object, from a file or the cluster.
#[derive(Debug, Clone)]
pub(crate) struct Object {
    pub(crate) origin: Origin,
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub(crate) meta: Meta,
    /// `metadata` as JSON text (as read; for a cluster object, as kube-rs writes `ObjectMeta`).
    pub(crate) metadata: Option<Box<RawValue>>,
    /// `spec` as Go-compatible JSON text (numbers as Go writes them), `None` when absent or null.
    pub(crate) spec: Option<Box<RawValue>>,
    /// `status`, likewise.
    pub(crate) status: Option<Box<RawValue>>,
    /// The YAML spellings kubectl rewrote on the way to JSON (`1.0`, `0x10`, `yes`), by JSON
    /// pointer from the object's root: the text diff shows values as written.
    pub(crate) spellings: Vec<Spelling>,
    /// Why this object must not be used although it was read (a metadata field of the wrong type,
    /// a namespace that contradicts `-n`, a scalar kubectl reads otherwise): reported as the
    /// object's error, while the other objects are used.
    pub(crate) problem: Option<String>,
}

impl Object {
    /// `namespace/name` (the namespace as resolved by [`resolve_namespaces`] for file objects).
    pub(crate) fn key(&self) -> (String, String) {
        (
            self.meta.namespace.clone().unwrap_or_default(),
            self.meta.name.clone().unwrap_or_default(),
        )
    }

    pub(crate) fn name(&self) -> &str {
        self.meta.name.as_deref().unwrap_or("")
    }

    pub(crate) fn namespace(&self) -> &str {
        self.meta.namespace.as_deref().unwrap_or("")
    }

    /// Whether this is one of ARC's `actions.github.com/v1alpha1` objects of `kind`.
    pub(crate) fn is_arc(&self, kind: &str) -> bool {
        self.kind == kind && self.api_version == arc::API_VERSION
    }

    /// Its controller, when that is ARC's `kind` (an EphemeralRunnerSet of a runner, an
    /// AutoscalingRunnerSet of a set): whose object this is, by the core's one owner rule
    /// ([`crate::core::owner::is_arc_owner`] of [`crate::core::owner::controller_ref`]).
    pub(crate) fn owner(&self, kind: &str) -> Option<&OwnerRef> {
        (self.meta.controller.as_ref()).filter(|c| c.is_arc(kind))
    }

    /// Whether the object belongs to ARC's API group (any version).
    pub(crate) fn in_arc_group(&self) -> bool {
        self.api_version.split('/').next() == Some(arc::GROUP)
    }

    /// `Kind ns/name`, and where it came from unless the cluster: how reports name an object.
    pub(crate) fn describe(&self) -> String {
        let (ns, name) = self.key();
        match self.origin {
            Origin::Cluster => format!("{} {ns}/{name}", self.kind),
            ref origin => format!("{} {ns}/{name} ({origin})", self.kind),
        }
    }

    /// The whole object as JSON text (apiVersion, kind, metadata, spec, status), for the decoders
    /// that read whole objects.
    pub(crate) fn json(&self) -> String {
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
    fn set_namespace(&mut self, namespace: &str) {
        self.meta.namespace = Some(namespace.to_string());
        let mut metadata: serde_json::Map<String, Value> = self
            .metadata
            .as_ref()
            .and_then(|m| serde_json::from_str(m.get()).ok())
            .unwrap_or_default();
        metadata.insert("namespace".into(), Value::String(namespace.to_string()));
        self.metadata = RawValue::from_string(manifest::go_json(&Value::Object(metadata))).ok();
    }

    /// The raw JSON text of `spec.<field>`, when `spec` is an object holding it.
    pub(crate) fn spec_field(&self, field: &str) -> Result<Option<&RawValue>, String> {
        let Some(spec) = &self.spec else {
            return Ok(None);
        };
        let map: BTreeMap<String, &RawValue> =
            serde_json::from_str(spec.get()).map_err(|e| format!("spec is not an object: {e}"))?;
        Ok(map.get(field).copied().filter(|r| r.get() != "null"))
    }

    /// What `spec` (or its `field`) wrote, with the YAML spellings laid on it, for showing its
    /// values as written.
    pub(crate) fn written_spec(&self, field: Option<&str>) -> Written {
        let Some(spec) = &self.spec else {
            return Written::Unknown;
        };
        let mut written = Written::from_json(spec.get());
        let mut prefix = "/spec".to_string();
        if let Some(field) = field {
            written = written.take(field);
            pointer_step(&mut prefix, field);
        }
        written.spell(&prefix, &self.spellings);
        written
    }

    /// What the pairing rule ([`crate::core::pairing`]) needs of an EphemeralRunnerSet.
    pub(crate) fn pairing_set(&self) -> crate::core::pairing::RunnerSet<'_> {
        use crate::core::pairing::{LABEL_SCALE_SET_NAME, LABEL_SCALE_SET_NAMESPACE};
        crate::core::pairing::RunnerSet {
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
    pub(crate) fn from_manifest(value: &Value, origin: Origin, problem: Option<String>) -> Object {
        let text = |v: &Value| v.as_str().map(str::to_string);
        let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
        let api_version = value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let (meta, meta_problem) = match meta_of(value.get("metadata")) {
            Ok(meta) => (meta, None),
            Err(e) => (
                // The name and namespace, where readable, still say which object it is.
                Meta {
                    namespace: value.pointer("/metadata/namespace").and_then(text),
                    name: value.pointer("/metadata/name").and_then(text),
                    ..Meta::default()
                },
                Some(e),
            ),
        };
        let part = |key: &str| {
            value
                .get(key)
                .filter(|v| !v.is_null())
                .and_then(|v| RawValue::from_string(manifest::go_json(v)).ok())
        };
        Object {
            origin,
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            meta,
            metadata: part("metadata"),
            spec: part("spec"),
            status: part("status"),
            spellings: Vec::new(),
            problem: problem.or(meta_problem),
        }
    }
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

/// What reading `-f` arguments gave: the objects, and the files that could not be read at all
/// (each named in its message; the other files are still read).
#[derive(Debug, Clone, Default)]
pub(crate) struct Inputs {
    pub(crate) objects: Vec<Object>,
    pub(crate) errors: Vec<String>,
}

/// Read every `-f` argument: a file, a directory (its `.json`, `.yaml` and `.yml` files, sorted,
/// not recursive, as kubectl without `-R`), or `-` for `stdin` (read once, however often given).
pub(crate) fn read(paths: &[PathBuf], stdin: &mut dyn Read) -> Inputs {
    read_only(paths, stdin, &|_| true)
}

/// [`read`], keeping only the objects `keep` wants: each other one is dropped as soon as it is
/// read, so a dump's objects that a command never asks about never take memory all at once.
pub(crate) fn read_only(
    paths: &[PathBuf],
    stdin: &mut dyn Read,
    keep: &dyn Fn(&Object) -> bool,
) -> Inputs {
    let mut inputs = Inputs::default();
    let mut stdin_read = false;
    for path in paths {
        if path.as_os_str() == "-" {
            if std::mem::replace(&mut stdin_read, true) {
                continue;
            }
            let mut bytes = Vec::new();
            match stdin.read_to_end(&mut bytes) {
                Ok(_) => match String::from_utf8(bytes) {
                    Ok(text) => parse_into(&text, None, keep, &mut inputs),
                    Err(e) => inputs.errors.push(not_utf8("<stdin>", &e)),
                },
                Err(e) => inputs
                    .errors
                    .push(format!("cannot read standard input: {e}")),
            }
            continue;
        }
        match files_of(path) {
            Ok(files) => {
                for file in files {
                    match read_text(&file) {
                        Ok(text) => parse_into(&text, Some(&file), keep, &mut inputs),
                        Err(e) => inputs.errors.push(e),
                    }
                }
            }
            Err(e) => inputs.errors.push(e),
        }
    }
    inputs
}

/// The manifest files a `-f` path names.
fn files_of(path: &Path) -> Result<Vec<PathBuf>, String> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries = std::fs::read_dir(path)
        .map_err(|e| format!("cannot read directory {}: {e}", path.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("yaml" | "yml" | "json")
                )
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!(
            "{}: a directory without .yaml, .yml or .json files",
            path.display()
        ));
    }
    Ok(files)
}

fn not_utf8(label: &str, e: &std::string::FromUtf8Error) -> String {
    format!(
        "{label}: not UTF-8 text (invalid byte at offset {}): is this a manifest?",
        e.utf8_error().valid_up_to()
    )
}

fn read_text(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| not_utf8(&path.display().to_string(), &e))
}

/// Read one file's objects into `inputs`, each made an [`Object`] as soon as it is read (so a
/// List's items are never all value trees at once); a file refused as a whole adds its error and
/// none of its objects.
fn parse_into(
    text: &str,
    file: Option<&Path>,
    keep: &dyn Fn(&Object) -> bool,
    inputs: &mut Inputs,
) {
    let label = file.map_or_else(|| "<stdin>".to_string(), |f| f.display().to_string());
    let mut objects = Vec::new();
    let read = manifest::parse_each(text, &label, &mut |o| {
        let origin = match file {
            Some(_) => Origin::File {
                path: label.clone(),
                document: o.document,
                items: o.items,
            },
            None => Origin::Stdin {
                document: o.document,
                items: o.items,
            },
        };
        let mut object = Object::from_manifest(&o.value, origin, o.problem);
        if !keep(&object) {
            return;
        }
        object.spellings = o.spellings;
        objects.push(object);
    });
    match read {
        Ok(()) => inputs.objects.append(&mut objects),
        Err(e) => inputs.errors.push(e.to_string()),
    }
}

/// kubectl's namespace rules for objects read from files, in one place
/// (`FilenameParam(enforceNamespace, ...)` with `DefaultNamespace()`): an object without a
/// namespace takes `namespace` (the `-n` value, else the context's); an object whose own namespace
/// differs from an explicit `-n` is refused with kubectl's message. Only ARC's objects are
/// checked: the others (a chart's Role, ServiceAccount, Secret) are not read.
pub(crate) fn resolve_namespaces(objects: &mut [Object], namespace: &str, explicit: bool) {
    for o in objects.iter_mut().filter(|o| o.in_arc_group()) {
        match &o.meta.namespace {
            None => o.set_namespace(namespace),
            Some(own) if explicit && own != namespace => {
                o.problem.get_or_insert(format!(
                    "the namespace from the provided object \"{own}\" does not match the namespace \"{namespace}\". You must pass '--namespace={own}' to perform this operation."
                ));
            }
            Some(_) => {}
        }
    }
}

/// The same object (kind, namespace, name) read twice from the same side: never a silent choice.
/// Returns a message naming both origins for each repeat after the first.
pub(crate) fn duplicates<'a>(
    objects: impl IntoIterator<Item = &'a Object>,
) -> Vec<(usize, String)> {
    let mut first: BTreeMap<(String, String, String), &Origin> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, o) in objects.into_iter().enumerate() {
        if o.meta.name.is_none() {
            continue;
        }
        let (ns, name) = o.key();
        match first.get(&(o.kind.clone(), ns.clone(), name.clone())) {
            Some(earlier) => out.push((
                i,
                format!(
                    "{} {ns}/{name} is given twice, in {earlier} and in {}: which one is meant? (a render and a dump that also holds the live object? give the dump with --live)",
                    o.kind, o.origin
                ),
            )),
            None => {
                first.insert((o.kind.clone(), ns, name), &o.origin);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn objects(text: &str) -> Vec<Object> {
        let mut inputs = Inputs::default();
        parse_into(text, Some(Path::new("f.yaml")), &|_| true, &mut inputs);
        assert!(inputs.errors.is_empty(), "{:?}", inputs.errors);
        inputs.objects
    }

    const ARS: &str = "apiVersion: actions.github.com/v1alpha1\nkind: AutoscalingRunnerSet\nmetadata:\n  name: a\n";

    #[test]
    fn origins_name_file_document_and_item() {
        let text = format!(
            "{ARS}---\napiVersion: v1\nkind: List\nitems:\n- {{apiVersion: actions.github.com/v1alpha1, kind: EphemeralRunnerSet, metadata: {{name: e}}}}\n"
        );
        let objs = objects(&text);
        assert_eq!(objs[0].origin.to_string(), "f.yaml#1");
        assert_eq!(objs[1].origin.to_string(), "f.yaml#2[0]");
        assert_eq!(objects(ARS)[0].origin.to_string(), "f.yaml");
    }

    #[test]
    fn a_boolean_namespace_is_refused_like_kubectl() {
        let mut objs = objects(&format!("{ARS}  namespace: y\n"));
        assert!(
            objs[0]
                .problem
                .as_deref()
                .unwrap()
                .contains("metadata.namespace: true is a bool where Kubernetes wants a string"),
            "{:?}",
            objs[0].problem
        );
        resolve_namespaces(&mut objs, "default", false);
        assert_eq!(objs[0].namespace(), "default");
    }

    #[test]
    fn explicit_namespace_must_match() {
        let mut objs = objects(&format!("{ARS}  namespace: team\n"));
        resolve_namespaces(&mut objs, "other", true);
        assert_eq!(
            objs[0].problem.as_deref(),
            Some(
                "the namespace from the provided object \"team\" does not match the namespace \"other\". You must pass '--namespace=team' to perform this operation."
            )
        );
        let mut objs = objects(&format!("{ARS}  namespace: team\n"));
        resolve_namespaces(&mut objs, "team", true);
        assert!(objs[0].problem.is_none());
        let mut objs = objects(ARS);
        resolve_namespaces(&mut objs, "ctx-ns", false);
        assert_eq!(objs[0].key(), ("ctx-ns".into(), "a".into()));
    }

    #[test]
    fn duplicates_name_both_origins() {
        let mut objs = objects(&format!("{ARS}---\n{ARS}"));
        resolve_namespaces(&mut objs, "default", false);
        let d = duplicates(&objs);
        assert_eq!(d.len(), 1);
        assert!(d[0].1.contains("in f.yaml#1 and in f.yaml#2"), "{}", d[0].1);
    }

    #[test]
    fn spec_parts_are_go_json() {
        // (A key `y` would be the YAML 1.1 boolean: kubectl stores it as "true".)
        let objs = objects(&format!("{ARS}spec:\n  x: 1.0\n  z: null\n  y: 1\n"));
        assert_eq!(
            objs[0].spec.as_ref().unwrap().get(),
            r#"{"true":1,"x":1,"z":null}"#
        );
        assert!(objs[0].spec_field("z").unwrap().is_none());
        assert_eq!(objs[0].spec_field("x").unwrap().unwrap().get(), "1");
    }
}
