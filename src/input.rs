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
use std::io::Read;
use std::path::{Path, PathBuf};

pub(crate) use crate::core::object::{Meta, Object, Origin, OwnerRef};
use crate::manifest;

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
    // Straight into `inputs` (no second vector to move them from), dropped again on an error.
    let before = inputs.objects.len();
    let objects = &mut inputs.objects;
    let origin = |document, items| match file {
        Some(_) => Origin::File {
            path: label.clone(),
            document,
            items,
        },
        None => Origin::Stdin { document, items },
    };
    // A JSON object read into its parts is the object its value makes, without the value.
    let read = manifest::parse_each_read(text, &label, &mut |read| {
        let (mut object, spellings) = match read {
            manifest::Read::Value(o) => {
                let origin = origin(o.document, o.items);
                (
                    Object::from_manifest(&o.value, origin, o.problem),
                    o.spellings,
                )
            }
            manifest::Read::Parts(o) => {
                let origin = origin(o.document, o.items);
                (Object::from_parts(o.parts, origin, o.problem), o.spellings)
            }
        };
        if !keep(&object) {
            return;
        }
        object.spellings = spellings;
        objects.push(object);
    });
    if let Err(e) = read {
        inputs.objects.truncate(before);
        inputs.errors.push(e.to_string());
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
