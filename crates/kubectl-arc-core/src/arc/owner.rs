//! Whose object is this: one owner rule for every source and every kind.
//!
//! ARC finds a scale set's EphemeralRunnerSets and a set's EphemeralRunners through field indexes
//! on the object's controller (`mgr.GetFieldIndexer().IndexField(..., resourceOwnerKey, ...)` in
//! ARC's controllers/actions.github.com, each built on `metav1.GetControllerOf`), so kubectl-arc
//! answers "whose set or runner is this?" the same way everywhere: the controller owner reference,
//! and nothing else. An owner reference without `controller: true` owns nothing here, as it owns
//! nothing in ARC's indexes.

use serde_json::{Map, Value};

/// An object's controller owner reference, as read (its fields are absent when not written).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ControllerRef<'a>(&'a Map<String, Value>);

impl<'a> ControllerRef<'a> {
    fn field(&self, key: &str) -> Option<&'a str> {
        self.0.get(key).and_then(Value::as_str)
    }

    pub fn api_version(&self) -> Option<&'a str> {
        self.field("apiVersion")
    }

    pub fn kind(&self) -> Option<&'a str> {
        self.field("kind")
    }

    pub fn name(&self) -> Option<&'a str> {
        self.field("name")
    }

    pub fn uid(&self) -> Option<&'a str> {
        self.field("uid")
    }

    /// Of `kind` in ARC's group (`actions.github.com/<version>`): [`is_arc_owner`].
    pub fn is_arc(&self, kind: &str) -> bool {
        is_arc_owner(
            self.api_version().unwrap_or(""),
            self.kind().unwrap_or(""),
            kind,
        )
    }
}

/// Whether a controller reference of `api_version` and `kind` is an owner of ARC's `want` kind:
/// the kind, in ARC's group (`actions.github.com/<version>`, any version), as the owner
/// reference ARC's indexes key on (the group and kind of the owner's type). The one answer to
/// "whose set or runner is this?", with [`controller_ref`].
pub fn is_arc_owner(api_version: &str, kind: &str, want: &str) -> bool {
    kind == want && api_version.split('/').next() == Some(crate::arc::GROUP)
}

/// Mirrors `metav1.GetControllerOf` (k8s.io/apimachinery/pkg/apis/meta/v1/controller_ref.go): the
/// first of `metadata.ownerReferences` whose `controller` is true. `owner_references` is that
/// field's JSON; anything but a list of objects has no controller.
pub fn controller_ref(owner_references: Option<&Value>) -> Option<ControllerRef<'_>> {
    owner_references?
        .as_array()?
        .iter()
        .filter_map(Value::as_object)
        .find(|r| r.get("controller") == Some(&Value::Bool(true)))
        .map(ControllerRef)
}

/// [`controller_ref`] of a whole object's JSON.
pub fn controller_of(object: &Value) -> Option<ControllerRef<'_>> {
    controller_ref(object.pointer("/metadata/ownerReferences"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_reference_marked_controller_owns() {
        let obj = |refs: Value| json!({"metadata": {"ownerReferences": refs}});
        let ars = json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
            "name": "runners", "uid": "u-1", "controller": true});
        let other = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "u-2"});
        let o = obj(json!([other, ars]));
        let c = controller_of(&o).unwrap();
        assert_eq!((c.name(), c.uid()), (Some("runners"), Some("u-1")));
        assert!(c.is_arc("AutoscalingRunnerSet"));
        assert!(!c.is_arc("EphemeralRunnerSet"));
        // Not marked, or marked false: no controller (GetControllerOf needs `controller: true`).
        let unmarked = json!({"apiVersion": "actions.github.com/v1alpha1", "kind": "AutoscalingRunnerSet",
            "name": "runners", "uid": "u-1"});
        assert_eq!(controller_of(&obj(json!([unmarked]))), None);
        let mut off = ars.clone();
        off["controller"] = json!(false);
        assert_eq!(controller_of(&obj(json!([off]))), None);
        // The first one marked, as Go's loop returns it.
        let mut second = ars.clone();
        second["name"] = json!("second");
        let both = obj(json!([ars, second]));
        assert_eq!(controller_of(&both).unwrap().name(), Some("runners"));
        // Of another group: not ARC's.
        let foreign = json!({"apiVersion": "example.com/v1", "kind": "AutoscalingRunnerSet",
            "name": "runners", "uid": "u-1", "controller": true});
        assert!(
            !controller_of(&obj(json!([foreign])))
                .unwrap()
                .is_arc("AutoscalingRunnerSet")
        );
        // No list, or not a list: no controller.
        assert_eq!(controller_of(&json!({"metadata": {}})), None);
        assert_eq!(controller_of(&obj(json!({"kind": "x"}))), None);
    }
}
