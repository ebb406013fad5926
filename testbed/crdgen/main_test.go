package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// claims is the schema controller-gen writes for ResourceRequirements.claims.
const claims = `
                            claims:
                              items:
                                properties:
                                  name: {type: string}
                                required: [name]
                                type: object
                              type: array
                              x-kubernetes-list-map-keys: [name]
                              x-kubernetes-list-type: map`

// runnerCRD is a cut-down EphemeralRunner CRD: the three container lists of the pod spec, and a
// listType elsewhere (volumes) that must be kept.
var runnerCRD = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ephemeralrunners.actions.github.com}
spec:
  versions:
  - name: v1alpha1
    schema:
      openAPIV3Schema:
        properties:
          spec:
            properties:
              spec:
                properties:
                  activeDeadlineSeconds: {format: int64, minimum: 0, maximum: 9007199254740993, type: integer}
                  containers:
                    items:
                      properties:
                        resources:
                          properties:` + claims + `
                  ephemeralContainers:
                    items:
                      properties:
                        resources:
                          properties:` + claims + `
                  initContainers:
                    items:
                      properties:
                        resources:
                          properties:` + claims + `
                  volumes:
                    items: {type: object}
                    type: array
                    x-kubernetes-list-map-keys: [name]
                    x-kubernetes-list-type: map
`

func toMap(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFixCRDDeletesExactlyARCsKeys(t *testing.T) {
	out, err := fixCRD([]byte(runnerCRD), fixups["actions.github.com_ephemeralrunners.yaml"])
	if err != nil {
		t.Fatal(err)
	}
	// The expected document: the input without the six lines under the three claims.
	want := strings.ReplaceAll(runnerCRD, claims, strings.Split(claims, "\n                              x-kubernetes-list-map-keys")[0])
	if got, want := toMap(t, out), toMap(t, []byte(want)); !sameDocument(t, got, want) {
		t.Errorf("fixCRD:\n%s\nwant the input without the claims' list keys", out)
	}
	if !strings.HasPrefix(string(out), "---\n") {
		t.Errorf("output does not start a YAML document: %q", out[:20])
	}
	// Integers are kept exactly (2^53+1 does not survive a float64).
	if !strings.Contains(string(out), "maximum: 9007199254740993") {
		t.Errorf("maximum not kept exactly:\n%s", out)
	}
}

func TestFixCRDFailsWhenAPathOrKeyIsMissing(t *testing.T) {
	if _, err := fixCRD([]byte(runnerCRD), []string{"spec.spec.sidecars[].resources.claims"}); err == nil ||
		!strings.Contains(err.Error(), `no object at "sidecars"`) {
		t.Errorf("missing path: err = %v", err)
	}
	once, err := fixCRD([]byte(runnerCRD), fixups["actions.github.com_ephemeralrunners.yaml"])
	if err != nil {
		t.Fatal(err)
	}
	// A second run finds nothing to delete: an error, never a silent no-op.
	if _, err := fixCRD(once, fixups["actions.github.com_ephemeralrunners.yaml"]); err == nil ||
		!strings.Contains(err.Error(), "no x-kubernetes-list-type to delete") {
		t.Errorf("second run: err = %v", err)
	}
	if _, err := fixCRD([]byte("kind: CustomResourceDefinition\n"), nil); err == nil {
		t.Error("a CRD without versions was accepted")
	}
}

func TestFixDirRewritesTheThreeFiles(t *testing.T) {
	dir := t.TempDir()
	for f := range fixups {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(runnerCRD), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The runner paths do not exist in the other kinds' files of this fixture: an error naming it.
	err := fixDir(dir)
	if err == nil || !strings.Contains(err.Error(), "actions.github.com_autoscalingrunnersets.yaml") {
		t.Errorf("fixDir: err = %v", err)
	}
}

func sameDocument(t *testing.T, a, b map[string]any) bool {
	t.Helper()
	ja, err := yaml.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := yaml.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}
