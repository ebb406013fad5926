// Command crd-fixup finishes controller-gen's output the way ARC finishes its own: ARC's Makefile
// (target manifests-gen-crds-fix, at actions-runner-controller 2ee6b3b8) deletes
// x-kubernetes-list-type and x-kubernetes-list-map-keys from the `claims` of the containers'
// resources in the runner pod templates, so ARC's published CRDs declare those lists atomic
// (the default) where k8s.io/api's markers make them maps keyed by name. The API server acts on
// the difference (server-side apply merges a map list per key, and rejects duplicate keys), so
// the test bed's CRDs must have it too.
//
// Usage: crd-fixup DIR, where DIR holds controller-gen's actions.github.com_*.yaml. Each path
// below must exist and carry both keys, so that a change of controller-gen or k8s.io/api that
// moves them is an error and not a silent no-op; a second run on the same files therefore fails.
// ARC's Makefile also names paths that match nothing (the claims of an ephemeral volume's
// resources, which have none, and a misspelt ephemeralrunnersets path): they are left out here.
// The rewritten files keep their content; their keys come out sorted.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// fixups maps a CRD file to the schema paths, from openAPIV3Schema, whose list keys ARC deletes.
// A path is a dotted list of property names; a name ending in "[]" steps into the array's items.
var fixups = map[string][]string{
	"actions.github.com_autoscalingrunnersets.yaml": {
		"spec.template.spec.resources.claims",
		"spec.template.spec.containers[].resources.claims",
		"spec.template.spec.ephemeralContainers[].resources.claims",
		"spec.template.spec.initContainers[].resources.claims",
	},
	"actions.github.com_ephemeralrunnersets.yaml": {
		"spec.ephemeralRunnerSpec.spec.containers[].resources.claims",
		"spec.ephemeralRunnerSpec.spec.ephemeralContainers[].resources.claims",
		"spec.ephemeralRunnerSpec.spec.initContainers[].resources.claims",
	},
	"actions.github.com_ephemeralrunners.yaml": {
		"spec.spec.containers[].resources.claims",
		"spec.spec.ephemeralContainers[].resources.claims",
		"spec.spec.initContainers[].resources.claims",
	},
}

// deletedKeys are the keys ARC deletes at each path.
var deletedKeys = []string{"x-kubernetes-list-type", "x-kubernetes-list-map-keys"}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: crd-fixup DIR")
		os.Exit(2)
	}
	if err := fixDir(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "crd-fixup:", err)
		os.Exit(1)
	}
}

// fixDir applies every fixup to the files in dir, in place.
func fixDir(dir string) error {
	files := make([]string, 0, len(fixups))
	for f := range fixups {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		path := filepath.Join(dir, f)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, err := fixCRD(data, fixups[f])
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// fixCRD deletes deletedKeys at each of paths, in every version's schema of the CRD document data.
// Numbers are kept as written (json.Number), not rounded through float64.
func fixCRD(data []byte, paths []string) ([]byte, error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var crd map[string]any
	if err := dec.Decode(&crd); err != nil {
		return nil, err
	}
	spec, _ := crd["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	if len(versions) == 0 {
		return nil, fmt.Errorf("no spec.versions")
	}
	for _, v := range versions {
		version, _ := v.(map[string]any)
		schema, err := walk(version, "schema", "openAPIV3Schema")
		if err != nil {
			return nil, fmt.Errorf("version %v: %w", version["name"], err)
		}
		for _, p := range paths {
			if err := deleteKeys(schema, p); err != nil {
				return nil, fmt.Errorf("version %v: %s: %w", version["name"], p, err)
			}
		}
	}
	j, err = json.Marshal(crd)
	if err != nil {
		return nil, err
	}
	out, err := yaml.JSONToYAML(j)
	if err != nil {
		return nil, err
	}
	return append([]byte("---\n"), out...), nil
}

// deleteKeys deletes deletedKeys from the schema at path under schema; both must be there.
func deleteKeys(schema map[string]any, path string) error {
	node := schema
	for _, name := range strings.Split(path, ".") {
		items := strings.HasSuffix(name, "[]")
		name = strings.TrimSuffix(name, "[]")
		next, err := walk(node, "properties", name)
		if err != nil {
			return err
		}
		if items {
			if next, err = walk(next, "items"); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		node = next
	}
	for _, k := range deletedKeys {
		if _, ok := node[k]; !ok {
			return fmt.Errorf("no %s to delete", k)
		}
		delete(node, k)
	}
	return nil
}

// walk follows keys through nested objects.
func walk(node map[string]any, keys ...string) (map[string]any, error) {
	for _, k := range keys {
		next, ok := node[k].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("no object at %q", k)
		}
		node = next
	}
	return node, nil
}
