// Package hash reproduces, in our own code, ARC's hash package (hash/hash.go, identical in every
// release from gha-runner-scale-set 0.9.0 to 0.14.2 and at 2ee6b3b8): ComputeTemplateHash prints
// its argument with go-spew's %#v under ConfigState{Indent: " ", SortKeys: true, DisableMethods:
// true, SpewKeys: true}, writes the text into FNV-32a, and encodes the decimal sum with
// rand.SafeEncodeString. The go-spew version is the one the modfile links (v1.1.1 for ARC 0.9.x
// and 0.10.x, d8f796af33cc after; their spew/ directories are byte for byte the same).
package hash

import (
	"hash/fnv"
	"io"
	"strconv"
	"strings"

	"github.com/davecgh/go-spew/spew"
	"k8s.io/apimachinery/pkg/util/rand"
)

// config is ARC's printer. Indent has no effect on %#v; the other three switches do.
var config = spew.ConfigState{Indent: " ", SortKeys: true, DisableMethods: true, SpewKeys: true}

// ComputeTemplateHash gives what ARC's hash.ComputeTemplateHash gives for v.
func ComputeTemplateHash(v interface{}) string {
	h := fnv.New32a()
	config.Fprintf(h, "%#v", v)
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// Spew is the text ComputeTemplateHash hashes.
func Spew(v interface{}) string {
	var b strings.Builder
	config.Fprintf(&b, "%#v", v)
	return b.String()
}

// OfSpew finishes the hash from a spew text.
func OfSpew(s string) string {
	h := fnv.New32a()
	_, _ = io.WriteString(h, s)
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}
