// Package actionsgithubcom reproduces, in our own code, what ARC's controller package
// (controllers/actions.github.com, Go package name actionsgithubcom) and its hash package compute
// for the legacy EphemeralRunnerSet integrity hash. The package name matters: go-spew prints the
// function-local wrapper type of ARC's ephemeralRunnerSetIntegrityHash as "actionsgithubcom.data".
package actionsgithubcom

import "kubectl-arc/oracle/arc/hash"

// ComputeTemplateHash gives what ARC's hash.ComputeTemplateHash gives for v (see package hash).
func ComputeTemplateHash(v interface{}) string { return hash.ComputeTemplateHash(v) }

// TemplateSpew is the text ComputeTemplateHash hashes, for debugging and tests.
func TemplateSpew(v interface{}) string { return hash.Spew(v) }

// HashOfSpew finishes the hash from a spew text.
func HashOfSpew(s string) string { return hash.OfSpew(s) }
