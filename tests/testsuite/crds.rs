//! ARC's CRDs as the test bed generates them (`scripts/testbed.sh build`: controller-gen on our Go
//! declarations of ARC's API types, `tests/oracle/arc/`), compared with the CRDs ARC publishes
//! (`../shared/arc/crds/<era>/`, where it exists), and the two generated eras with each other.
//!
//! The comparison is structural and fails on anything the API server acts on: the CRD's group,
//! names, scope, versions (served, storage), subresources and printer columns, and in each
//! `openAPIV3Schema` every `type`, `format`, `default`, `required`, `enum`, `nullable`,
//! `x-kubernetes-*` extension, `items`, `additionalProperties`, min/max constraint and `pattern`,
//! and the set of `properties` (what the server prunes). It is fail-closed: every key of the
//! documents is compared except a schema's `description` (documentation; ours are our own words)
//! and controller-gen's version annotation. `required` and `enum` are compared as sets, the order
//! of their entries meaning nothing to the server.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Map, Value, json};

/// The annotation controller-gen writes with its own version: not compared.
const VERSION_ANNOTATION: &str = "controller-gen.kubebuilder.io/version";

/// The file names of ARC's four CRDs, as ARC's `config/crd/bases` and the test bed name them.
const FILES: [&str; 4] = [
    "actions.github.com_autoscalinglisteners.yaml",
    "actions.github.com_autoscalingrunnersets.yaml",
    "actions.github.com_ephemeralrunners.yaml",
    "actions.github.com_ephemeralrunnersets.yaml",
];

const ERAS: [&str; 2] = ["legacy", "revision"];

fn read_crd(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `*.yaml` file names in `dir`, sorted.
fn yaml_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".yaml"))
        .collect();
    names.sort();
    names
}

/// Every difference between two CRD documents that the API server would act on, each as
/// `path: what`, naming the two sides `a_name` and `b_name` (for example "generated" and
/// "published"). Empty when they are the same CRD.
pub fn crd_differences(a: &Value, a_name: &str, b: &Value, b_name: &str) -> Vec<String> {
    let mut diff = Diff {
        a_name,
        b_name,
        out: Vec::new(),
    };
    diff.values(&without_version(a), &without_version(b), "", false);
    diff.out
}

/// The document without controller-gen's version annotation (and without `annotations` when that
/// was the only one).
fn without_version(crd: &Value) -> Value {
    let mut crd = crd.clone();
    if let Some(metadata) = crd.get_mut("metadata").and_then(Value::as_object_mut)
        && let Some(annotations) = metadata
            .get_mut("annotations")
            .and_then(Value::as_object_mut)
    {
        annotations.remove(VERSION_ANNOTATION);
        if annotations.is_empty() {
            metadata.remove("annotations");
        }
    }
    crd
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// A short rendering of a value for a report.
fn show(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 120 {
        format!("{}...", text.chars().take(117).collect::<String>())
    } else {
        text
    }
}

/// A comparison of two documents `a` and `b`, collecting the differences.
struct Diff<'n> {
    a_name: &'n str,
    b_name: &'n str,
    out: Vec<String>,
}

impl Diff<'_> {
    /// Compares `a` with `b` at `path`. `schema` is true when they are JSON schemas (the
    /// `openAPIV3Schema` and every schema below it), where `description` is skipped and
    /// `properties` holds a schema per property name.
    fn values(&mut self, a: &Value, b: &Value, path: &str, schema: bool) {
        match (a, b) {
            (Value::Object(a), Value::Object(b)) => self.objects(a, b, path, schema),
            (Value::Array(xs), Value::Array(ys)) => {
                if xs.len() != ys.len() {
                    self.out.push(format!(
                        "{path}: {} entries in {}, {} in {}: {} vs {}",
                        xs.len(),
                        self.a_name,
                        ys.len(),
                        self.b_name,
                        show(a),
                        show(b)
                    ));
                    return;
                }
                for (i, (x, y)) in xs.iter().zip(ys).enumerate() {
                    // Versions are named by their name, other entries by their index.
                    let step = match x.get("name").and_then(Value::as_str) {
                        Some(name) if path.ends_with("versions") => format!("{path}[{name}]"),
                        _ => format!("{path}[{i}]"),
                    };
                    self.values(x, y, &step, schema);
                }
            }
            _ if a == b => {}
            _ => self.out.push(format!(
                "{path}: {} {}, {} {}",
                self.a_name,
                show(a),
                self.b_name,
                show(b)
            )),
        }
    }

    fn objects(
        &mut self,
        a: &Map<String, Value>,
        b: &Map<String, Value>,
        path: &str,
        schema: bool,
    ) {
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for key in keys {
            if schema && key == "description" {
                continue;
            }
            let here = join(path, key);
            let (x, y) = match (a.get(key), b.get(key)) {
                (Some(x), Some(y)) => (x, y),
                (Some(x), None) => {
                    let only = format!("{here}: only in the {} CRD: {}", self.a_name, show(x));
                    self.out.push(only);
                    continue;
                }
                (None, Some(y)) => {
                    let only = format!("{here}: only in the {} CRD: {}", self.b_name, show(y));
                    self.out.push(only);
                    continue;
                }
                (None, None) => unreachable!(),
            };
            match key.as_str() {
                "openAPIV3Schema" => self.values(x, y, &here, true),
                // In a schema: a map from property name to schema. A name on one side only is a
                // field the other side's server prunes.
                "properties" if schema => self.properties(x, y, &here),
                "required" | "enum" if schema => self.sets(x, y, &here),
                _ => self.values(x, y, &here, schema),
            }
        }
    }

    fn properties(&mut self, a: &Value, b: &Value, path: &str) {
        let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
            return self.values(a, b, path, true);
        };
        let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for name in names {
            let here = join(path, name);
            let (only, other) = match (a.get(name), b.get(name)) {
                (Some(x), Some(y)) => {
                    self.values(x, y, &here, true);
                    continue;
                }
                (Some(_), None) => (self.a_name, self.b_name),
                (None, Some(_)) => (self.b_name, self.a_name),
                (None, None) => unreachable!(),
            };
            self.out.push(format!(
                "{here}: property only in the {only} CRD (the {other} CRD prunes it)"
            ));
        }
    }

    fn sets(&mut self, a: &Value, b: &Value, path: &str) {
        let (Some(xs), Some(ys)) = (a.as_array(), b.as_array()) else {
            return self.values(a, b, path, true);
        };
        let set = |vs: &Vec<Value>| vs.iter().map(Value::to_string).collect::<BTreeSet<_>>();
        let (xs, ys) = (set(xs), set(ys));
        for (only, mut names) in [
            (self.a_name, xs.difference(&ys).peekable()),
            (self.b_name, ys.difference(&xs).peekable()),
        ] {
            if names.peek().is_some() {
                let names: Vec<&str> = names.map(String::as_str).collect();
                self.out.push(format!(
                    "{path}: only in the {only} CRD: {}",
                    names.join(", ")
                ));
            }
        }
    }
}

fn report(what: &str, differences: &[String]) -> String {
    format!(
        "{what}: {} difference(s):\n  {}",
        differences.len(),
        differences.join("\n  ")
    )
}

#[test]
fn generated_crds_match_arcs_published_ones() {
    let generated = crate::common::test_crds_dir();
    let Some(published) = crate::common::shared_dir("arc/crds") else {
        return;
    };
    let mut failures = Vec::new();
    for era in ERAS {
        let (gen_dir, pub_dir) = (generated.join(era), published.join(era));
        assert_eq!(yaml_files(&gen_dir), FILES, "{}", gen_dir.display());
        assert_eq!(yaml_files(&pub_dir), FILES, "{}", pub_dir.display());
        for file in FILES {
            let differences = crd_differences(
                &read_crd(&gen_dir.join(file)),
                "generated",
                &read_crd(&pub_dir.join(file)),
                "published",
            );
            if !differences.is_empty() {
                failures.push(report(&format!("{era}/{file}"), &differences));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "the generated CRDs ({}) differ from ARC's ({}):\n{}",
        generated.display(),
        published.display(),
        failures.join("\n")
    );
}

/// The schema of the EphemeralRunnerSet's `spec` or `status` in a CRD document.
fn ers_part<'a>(crd: &'a mut Value, part: &str) -> &'a mut Map<String, Value> {
    crd.pointer_mut(&format!(
        "/spec/versions/0/schema/openAPIV3Schema/properties/{part}/properties"
    ))
    .and_then(Value::as_object_mut)
    .unwrap_or_else(|| panic!("no {part}.properties in the EphemeralRunnerSet CRD"))
}

#[test]
fn the_generated_eras_differ_by_exactly_the_two_revision_fields() {
    let dir = crate::common::test_crds_dir();
    for file in FILES {
        let legacy = read_crd(&dir.join("legacy").join(file));
        let mut revision = read_crd(&dir.join("revision").join(file));
        if file == "actions.github.com_ephemeralrunnersets.yaml" {
            for (part, field) in [
                ("spec", "actionableRevision"),
                ("status", "appliedActionableRevision"),
            ] {
                let mut schema = ers_part(&mut revision, part)
                    .remove(field)
                    .unwrap_or_else(|| panic!("revision era: no {part}.{field}"));
                schema.as_object_mut().unwrap().remove("description");
                assert_eq!(
                    schema,
                    json!({"type": "integer", "format": "int64"}),
                    "revision era: {part}.{field}"
                );
                assert!(
                    !ers_part(&mut legacy.clone(), part).contains_key(field),
                    "legacy era: {part}.{field} exists"
                );
            }
        }
        let differences = crd_differences(&revision, "revision", &legacy, "legacy");
        assert!(
            differences.is_empty(),
            "{}",
            report(
                &format!("{file}: revision era (less the two fields) vs legacy era"),
                &differences
            )
        );
    }
}

/// The comparison itself: a small CRD, changed in each way the API server acts on, must be reported
/// with its path; changed descriptions and controller-gen's version must not.
#[test]
fn the_comparison_reports_what_the_server_acts_on_and_only_that() {
    let base = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"annotations": {VERSION_ANNOTATION: "v0.20.1"}, "name": "things.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Thing", "listKind": "ThingList", "plural": "things", "singular": "thing"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1",
                "served": true,
                "storage": true,
                "subresources": {"status": {}},
                "additionalPrinterColumns": [{"jsonPath": ".spec.n", "name": "N", "type": "integer"}],
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "description": "A thing.",
                    "properties": {
                        "spec": {
                            "type": "object",
                            "required": ["a", "n"],
                            "properties": {
                                "a": {"type": "string", "default": "", "enum": ["x", "y"]},
                                "n": {"type": "integer", "format": "int64", "minimum": 0},
                                "m": {"type": "object", "additionalProperties": {"type": "string"}},
                                "l": {"type": "array", "items": {"type": "string"},
                                      "x-kubernetes-list-type": "set"},
                                // A property named like a schema keyword is a property.
                                "description": {"type": "string", "pattern": "^d"}
                            }
                        }
                    }
                }}
            }]
        }
    });
    assert_eq!(
        crd_differences(&base, "generated", &base, "published"),
        Vec::<String>::new()
    );

    let changed = |edit: &dyn Fn(&mut Value)| {
        let mut crd = base.clone();
        edit(&mut crd);
        crd_differences(&crd, "generated", &base, "published")
    };
    let schema = "/spec/versions/0/schema/openAPIV3Schema/properties/spec";
    let p = "spec.versions[v1].schema.openAPIV3Schema.properties.spec";

    // Not acted on: descriptions, controller-gen's version, the order of required and enum.
    assert!(
        changed(&|c| {
            c["metadata"]["annotations"][VERSION_ANNOTATION] = json!("v0.23.0");
            *c.pointer_mut("/spec/versions/0/schema/openAPIV3Schema/description")
                .unwrap() = json!("Another text.");
            c.pointer_mut(&format!("{schema}/properties/n"))
                .unwrap()
                .as_object_mut()
                .unwrap()
                .insert("description".into(), json!("N."));
            *c.pointer_mut(&format!("{schema}/required")).unwrap() = json!(["n", "a"]);
            *c.pointer_mut(&format!("{schema}/properties/a/enum"))
                .unwrap() = json!(["y", "x"]);
        })
        .is_empty()
    );

    // Acted on: each edit, and the path and words expected in its report.
    type Edit = (&'static str, String, Value, String);
    let edits: Vec<Edit> = vec![
        (
            "replace",
            "/spec/group".into(),
            json!("example.org"),
            "spec.group: generated \"example.org\"".into(),
        ),
        (
            "replace",
            "/spec/names/plural".into(),
            json!("thingz"),
            "spec.names.plural".into(),
        ),
        (
            "replace",
            "/spec/scope".into(),
            json!("Cluster"),
            "spec.scope".into(),
        ),
        (
            "replace",
            "/spec/versions/0/served".into(),
            json!(false),
            "spec.versions[v1].served".into(),
        ),
        (
            "replace",
            "/spec/versions/0/storage".into(),
            json!(false),
            "spec.versions[v1].storage".into(),
        ),
        (
            "remove",
            "/spec/versions/0/subresources".into(),
            json!(null),
            "spec.versions[v1].subresources: only in the published CRD".into(),
        ),
        (
            "replace",
            "/spec/versions/0/additionalPrinterColumns/0/type".into(),
            json!("number"),
            "spec.versions[v1].additionalPrinterColumns[0].type".into(),
        ),
        (
            "replace",
            format!("{schema}/properties/n/type"),
            json!("number"),
            format!("{p}.properties.n.type"),
        ),
        (
            "replace",
            format!("{schema}/properties/n/format"),
            json!("int32"),
            format!("{p}.properties.n.format"),
        ),
        (
            "replace",
            format!("{schema}/properties/n/minimum"),
            json!(1),
            format!("{p}.properties.n.minimum"),
        ),
        (
            "add",
            format!("{schema}/properties/n/maximum"),
            json!(9),
            format!("{p}.properties.n.maximum: only in the generated CRD"),
        ),
        (
            "replace",
            format!("{schema}/properties/a/default"),
            json!("x"),
            format!("{p}.properties.a.default"),
        ),
        (
            "replace",
            format!("{schema}/properties/a/enum"),
            json!(["x"]),
            format!("{p}.properties.a.enum: only in the published CRD: \"y\""),
        ),
        (
            "add",
            format!("{schema}/properties/a/nullable"),
            json!(true),
            format!("{p}.properties.a.nullable"),
        ),
        (
            "replace",
            format!("{schema}/required"),
            json!(["a"]),
            format!("{p}.required: only in the published CRD: \"n\""),
        ),
        (
            "replace",
            format!("{schema}/properties/l/x-kubernetes-list-type"),
            json!("atomic"),
            format!("{p}.properties.l.x-kubernetes-list-type"),
        ),
        (
            "add",
            format!("{schema}/x-kubernetes-preserve-unknown-fields"),
            json!(true),
            format!("{p}.x-kubernetes-preserve-unknown-fields"),
        ),
        (
            "replace",
            format!("{schema}/properties/l/items/type"),
            json!("integer"),
            format!("{p}.properties.l.items.type"),
        ),
        (
            "replace",
            format!("{schema}/properties/m/additionalProperties/type"),
            json!("integer"),
            format!("{p}.properties.m.additionalProperties.type"),
        ),
        (
            "remove",
            format!("{schema}/properties/m"),
            json!(null),
            format!(
                "{p}.properties.m: property only in the published CRD (the generated CRD prunes it)"
            ),
        ),
        (
            "add",
            format!("{schema}/properties/extra"),
            json!({"type": "string"}),
            format!("{p}.properties.extra: property only in the generated CRD"),
        ),
        (
            "replace",
            format!("{schema}/properties/description/pattern"),
            json!("^e"),
            format!("{p}.properties.description.pattern"),
        ),
    ];
    for (op, pointer, value, want) in edits {
        let differences = changed(&|c| {
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            let parent = c.pointer_mut(parent).unwrap_or_else(|| panic!("{pointer}"));
            let parent = parent.as_object_mut().unwrap();
            match op {
                "remove" => {
                    parent.remove(key).unwrap();
                }
                _ => {
                    assert_eq!(op == "replace", parent.contains_key(key), "{op} {pointer}");
                    parent.insert(key.to_owned(), value.clone());
                }
            }
        });
        assert!(
            differences.len() == 1 && differences[0].starts_with(&want),
            "{op} {pointer}: want one difference starting with {want:?}, got {differences:#?}"
        );
    }
}
