package main

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"kubectl-arc/oracle/arc/v1alpha1"
)

// decodeRealistic decodes testdata/realistic-spec.json the way
// controller-runtime does.
func decodeRealistic(b *testing.B, raw []byte) v1alpha1.EphemeralRunnerSpec {
	b.Helper()
	var spec v1alpha1.EphemeralRunnerSpec
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &spec); err != nil {
		b.Fatal(err)
	}
	return spec
}

// BenchmarkSemanticDeepEqual compares two separately decoded, equal copies
// of a realistic runner spec (no drift: the full walk is done).
func BenchmarkSemanticDeepEqual(b *testing.B) {
	raw := readTestdata(b)
	x, y := decodeRealistic(b, raw), decodeRealistic(b, raw)
	if !equality.Semantic.DeepEqual(x, y) {
		b.Fatal("copies differ")
	}
	b.ReportAllocs()
	for b.Loop() {
		equality.Semantic.DeepEqual(x, y)
	}
}

// BenchmarkLegacyHash is ARC's legacy integrity hash of a decoded spec.
func BenchmarkLegacyHash(b *testing.B) {
	spec := decodeRealistic(b, readTestdata(b))
	b.ReportAllocs()
	for b.Loop() {
		hashSpec(spec)
	}
}

// BenchmarkDecode decodes the realistic spec into a fresh value.
func BenchmarkDecode(b *testing.B) {
	raw := readTestdata(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		decodeRealistic(b, raw)
	}
}

// BenchmarkYAMLToJSON reads a manifest as kubectl and Helm do:
// sigs.k8s.io/yaml.YAMLToJSON of testdata/realistic-dump.yaml (a List of an
// AutoscalingRunnerSet and its EphemeralRunnerSet, 5.6 KB).
func BenchmarkYAMLToJSON(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "realistic-dump.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := yaml.YAMLToJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTrip is the roundTrip op on the realistic spec: decode,
// both hashes, json.Marshal, read back and the path walk.
func BenchmarkRoundTrip(b *testing.B) {
	raw := string(readTestdata(b))
	req := &request{Op: "roundTrip", Spec: &raw}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := opRoundTrip(req); err != nil {
			b.Fatal(err)
		}
	}
}
