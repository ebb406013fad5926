// Package v1alpha1 mirrors the struct declarations of ARC's API package
// github.com/actions/actions-runner-controller/apis/actions.github.com/v1alpha1
// at commit 2ee6b3b8 (2026-06-30), field for field: same Go names, order,
// types and struct tags. Go package name, type names and field order are
// what reflect, go-spew and the equality functions see, so they must not
// drift from ARC's.
//
// The kubebuilder markers are ARC's too (root objects, status subresource,
// printer columns, validation, required and optional fields): the test bed
// generates ARC's four CRDs of the integrity-hash era from this package with
// controller-gen (scripts/testbed.sh, testbed/crdgen), and the revision era
// from it plus ../revision/v1alpha1. The doc comments are ours, so the
// generated descriptions differ from ARC's; nothing else may.
//
// Methods, scheme registration and deepcopy code are left out (only
// VaultConfig() is kept, because ARC's newEphemeralRunnerSet calls it); the
// CRD generator needs none of them.
//
// +groupName=actions.github.com
package v1alpha1
