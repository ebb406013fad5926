// Package vault mirrors the one declaration of ARC's vault package
// (vault/vault.go at actions-runner-controller 2ee6b3b8) that the API types
// need. The package name matters: reflect and go-spew print the type as
// "vault.VaultType".
package vault

// VaultType mirrors vault.VaultType in ARC's vault/vault.go. Its methods
// (String, Validate) are omitted: spew runs with DisableMethods and no
// comparison used here calls them.
type VaultType string
