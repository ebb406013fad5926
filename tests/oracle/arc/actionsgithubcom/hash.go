// Package actionsgithubcom mirrors the parts of ARC's controller package
// (controllers/actions.github.com, Go package name actionsgithubcom) and of
// its hash package that decide the legacy EphemeralRunnerSet integrity
// hash. The package name matters: go-spew prints the function-local type
// of ephemeralRunnerSetIntegrityHash as "actionsgithubcom.data".
package actionsgithubcom

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/davecgh/go-spew/spew"
	"k8s.io/apimachinery/pkg/util/rand"
)

// ComputeTemplateHash mirrors ComputeTemplateHash in ARC hash/hash.go:
// spew "%#v" into FNV-32a, the sum in decimal, then rand.SafeEncodeString.
func ComputeTemplateHash(template interface{}) string {
	hasher := fnv.New32a()

	hasher.Reset()

	printer := spew.ConfigState{
		Indent:         " ",
		SortKeys:       true,
		DisableMethods: true,
		SpewKeys:       true,
	}
	printer.Fprintf(hasher, "%#v", template)

	return rand.SafeEncodeString(fmt.Sprint(hasher.Sum32()))
}

// TemplateSpew returns the text ComputeTemplateHash feeds to the hasher
// (same printer configuration, same verb). For debugging and tests only.
func TemplateSpew(template interface{}) string {
	var b strings.Builder

	printer := spew.ConfigState{
		Indent:         " ",
		SortKeys:       true,
		DisableMethods: true,
		SpewKeys:       true,
	}
	printer.Fprintf(&b, "%#v", template)
	return b.String()
}

// HashOfSpew finishes ComputeTemplateHash from a spew text: FNV-32a, the sum
// in decimal, rand.SafeEncodeString.
func HashOfSpew(s string) string {
	hasher := fnv.New32a()
	hasher.Write([]byte(s))
	return rand.SafeEncodeString(fmt.Sprint(hasher.Sum32()))
}
