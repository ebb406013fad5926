// Package actionsgithubcom reproduces, in our own code, what ARC's controller package
// (controllers/actions.github.com, Go package name actionsgithubcom) and its hash package compute
// for the legacy EphemeralRunnerSet integrity hash. The package name matters: go-spew prints the
// function-local wrapper type of ARC's ephemeralRunnerSetIntegrityHash as "actionsgithubcom.data".
package actionsgithubcom

import (
	"hash/fnv"
	"io"
	"strconv"
	"strings"

	"github.com/davecgh/go-spew/spew"
	"k8s.io/apimachinery/pkg/util/rand"
)

// spewConfig is the go-spew configuration of ARC's hash.ComputeTemplateHash (hash/hash.go).
// Indent has no effect on the %#v formatter; the other three switches do.
var spewConfig = spew.ConfigState{Indent: " ", SortKeys: true, DisableMethods: true, SpewKeys: true}

func writeSpew(w io.Writer, v interface{}) {
	spewConfig.Fprintf(w, "%#v", v)
}

// ComputeTemplateHash gives what ARC's hash.ComputeTemplateHash gives for v: the go-spew %#v text
// written into FNV-32a, the sum in decimal, encoded with rand.SafeEncodeString.
func ComputeTemplateHash(v interface{}) string {
	h := fnv.New32a()
	writeSpew(h, v)
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// TemplateSpew is the text ComputeTemplateHash hashes, for debugging and tests.
func TemplateSpew(v interface{}) string {
	var b strings.Builder
	writeSpew(&b, v)
	return b.String()
}

// HashOfSpew finishes the hash from a spew text.
func HashOfSpew(s string) string {
	h := fnv.New32a()
	_, _ = io.WriteString(h, s)
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}
