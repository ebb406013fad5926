package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"kubectl-arc/oracle/arc/actionsgithubcom"
	"kubectl-arc/oracle/arc/v1alpha1"
)

// benchSets is how many scale sets (an AutoscalingRunnerSet and its
// EphemeralRunnerSet each) the file benchmarks read.
const benchSets = 1000

// benchDirEnv names the directory holding sets-1000.yaml and sets-1000.json,
// so that scripts/bench.sh gives the Go and Rust benchmarks the same files.
const benchDirEnv = "KUBECTL_ARC_BENCH_DIR"

var (
	benchFilesOnce sync.Once
	benchFilesDir  string
	benchFilesErr  error
)

// benchFiles returns the two files of benchSets realistic scale sets, writing
// them first when they are not there.
func benchFiles(tb testing.TB) (yamlPath, jsonPath string) {
	tb.Helper()
	benchFilesOnce.Do(func() {
		dir := os.Getenv(benchDirEnv)
		if dir == "" {
			dir, benchFilesErr = os.MkdirTemp("", "kubectl-arc-bench-")
			if benchFilesErr != nil {
				return
			}
		}
		benchFilesDir = dir
		if _, err := os.Stat(filepath.Join(dir, "sets-1000.json")); err == nil {
			return
		}
		benchFilesErr = writeBenchFiles(dir)
	})
	if benchFilesErr != nil {
		tb.Fatal(benchFilesErr)
	}
	return filepath.Join(benchFilesDir, "sets-1000.yaml"), filepath.Join(benchFilesDir, "sets-1000.json")
}

// TestWriteBenchFiles writes the benchmark files into $KUBECTL_ARC_BENCH_DIR
// (scripts/bench.sh runs it before both sides' benchmarks).
func TestWriteBenchFiles(t *testing.T) {
	if os.Getenv(benchDirEnv) == "" {
		t.Skip(benchDirEnv + " is not set")
	}
	benchFiles(t)
}

// writeBenchFiles makes a List of benchSets copies of
// testdata/realistic-dump.yaml's scale set and its set, each pair in its own
// namespace, every set carrying the legacy integrity hash of its spec (in
// sync), and writes it as `kubectl get -o json` and `-o yaml` print it.
func writeBenchFiles(dir string) error {
	raw, err := os.ReadFile(filepath.Join("testdata", "realistic-dump.yaml"))
	if err != nil {
		return err
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return err
	}
	var dump struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(js, &dump); err != nil {
		return err
	}
	items := make([]any, 0, 2*benchSets)
	for i := 0; i < benchSets; i++ {
		for _, template := range dump.Items {
			b, _ := json.Marshal(template)
			var item map[string]any
			if err := json.Unmarshal(b, &item); err != nil {
				return err
			}
			meta := item["metadata"].(map[string]any)
			meta["namespace"] = fmt.Sprintf("arc-runners-%d", i)
			if item["kind"] == "EphemeralRunnerSet" {
				b, _ := json.Marshal(item)
				var ers v1alpha1.EphemeralRunnerSet
				if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &ers); err != nil {
					return err
				}
				annotations, _ := meta["annotations"].(map[string]any)
				if annotations == nil {
					annotations = map[string]any{}
					meta["annotations"] = annotations
				}
				annotations[integrityHashAnnotation] = hashSpec(ers.Spec.EphemeralRunnerSpec)
			}
			items = append(items, item)
		}
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}
	j, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		return err
	}
	y, err := yaml.Marshal(list)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "sets-1000.json"), append(j, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "sets-1000.yaml"), y, 0o644)
}

// readSets reads a manifest file as kubectl and ARC's typed client would: a
// YAML file through sigs.k8s.io/yaml.YAMLToJSON, the List's items, each item's
// kind found first (as apimachinery's serializer does), then decoded into
// ARC's types with controller-runtime's decoder.
func readSets(b *testing.B, path string) ([]v1alpha1.AutoscalingRunnerSet, []v1alpha1.EphemeralRunnerSet) {
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if strings.HasSuffix(path, ".yaml") {
		if raw, err = yaml.YAMLToJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		b.Fatal(err)
	}
	var arss []v1alpha1.AutoscalingRunnerSet
	var erss []v1alpha1.EphemeralRunnerSet
	for _, item := range list.Items {
		var kind metav1.TypeMeta
		if err := json.Unmarshal(item, &kind); err != nil {
			b.Fatal(err)
		}
		switch kind.Kind {
		case "AutoscalingRunnerSet":
			var ars v1alpha1.AutoscalingRunnerSet
			if err := kjson.UnmarshalCaseSensitivePreserveInts(item, &ars); err != nil {
				b.Fatal(err)
			}
			arss = append(arss, ars)
		case "EphemeralRunnerSet":
			var ers v1alpha1.EphemeralRunnerSet
			if err := kjson.UnmarshalCaseSensitivePreserveInts(item, &ers); err != nil {
				b.Fatal(err)
			}
			erss = append(erss, ers)
		}
	}
	if len(arss) != benchSets || len(erss) != benchSets {
		b.Fatalf("%s: %d scale sets and %d sets, want %d each", path, len(arss), len(erss), benchSets)
	}
	return arss, erss
}

// benchMigrate is the work of `kubectl arc migrate --dry-run=client -f`: read
// the sets and check each one's legacy integrity hash against its annotation.
func benchMigrate(b *testing.B, path string) {
	b.ReportAllocs()
	for b.Loop() {
		_, erss := readSets(b, path)
		inSync := 0
		for i := range erss {
			if hashSpec(erss[i].Spec.EphemeralRunnerSpec) == erss[i].Annotations[integrityHashAnnotation] {
				inSync++
			}
		}
		if inSync != benchSets {
			b.Fatalf("%d of %d sets in sync", inSync, benchSets)
		}
	}
}

// benchDiff is the work of `kubectl arc diff -f`: read the scale sets and
// their sets, build each desired runner spec with ARC's builder and compare
// it with the set's as ARC's revision-era controller does.
func benchDiff(b *testing.B, path string) {
	b.ReportAllocs()
	for b.Loop() {
		arss, erss := readSets(b, path)
		sets := make(map[string]*v1alpha1.EphemeralRunnerSet, len(erss))
		for i := range erss {
			sets[erss[i].Namespace+"/"+erss[i].Name] = &erss[i]
		}
		drift := 0
		for i := range arss {
			desired, err := actionsgithubcom.NewEphemeralRunnerSetSpec(&arss[i])
			if err != nil {
				b.Fatal(err)
			}
			set := sets[arss[i].Namespace+"/"+arss[i].Name]
			if !equality.Semantic.DeepEqual(desired.EphemeralRunnerSpec, set.Spec.EphemeralRunnerSpec) {
				drift++
			}
		}
		if drift != benchSets {
			b.Fatalf("%d of %d scale sets drift, want all (the dump's image moved)", drift, benchSets)
		}
	}
}

// BenchmarkMigrateFilesYAML: migrate's reading and hashing of 1,000 sets
// from a YAML file (5.5 MB).
func BenchmarkMigrateFilesYAML(b *testing.B) {
	y, _ := benchFiles(b)
	benchMigrate(b, y)
}

// BenchmarkMigrateFilesJSON: the same from a JSON file.
func BenchmarkMigrateFilesJSON(b *testing.B) {
	_, j := benchFiles(b)
	benchMigrate(b, j)
}

// BenchmarkDiffFilesYAML: diff's reading, building and comparing of 1,000
// scale sets and their sets from a YAML file.
func BenchmarkDiffFilesYAML(b *testing.B) {
	y, _ := benchFiles(b)
	benchDiff(b, y)
}

// BenchmarkDiffFilesJSON: the same from a JSON file.
func BenchmarkDiffFilesJSON(b *testing.B) {
	_, j := benchFiles(b)
	benchDiff(b, j)
}
