// Package v1alpha1 mirrors the struct declarations of ARC's API package
// github.com/actions/actions-runner-controller/apis/actions.github.com/v1alpha1
// at commit 2ee6b3b8 (2026-06-30), field for field: same Go names, order,
// types and struct tags. Go package name, type names and field order are
// what reflect, go-spew and the equality functions see, so they must not
// drift from ARC's. Methods, kubebuilder markers, scheme registration and
// deepcopy code are left out (only VaultConfig() is kept, because ARC's
// newEphemeralRunnerSet calls it).
package v1alpha1
