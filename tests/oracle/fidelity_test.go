package main

import (
	"strings"
	"testing"
)

// The desired builder fails as ARC's newEphemeralRunnerSet does: a githubConfigUrl its URL
// parsing rejects is ARC's error, set metadata without annotations ARC's nil-map panic.
func TestDesiredFailsAsARC(t *testing.T) {
	ars := func(spec string) string {
		return `{"metadata":{"annotations":{"runner-scale-set-id":"1"}},"spec":` + spec + `}`
	}
	for _, c := range []struct {
		spec, key, want string
	}{
		{`{"githubConfigUrl":"https://github.com"}`, "arcError", `failed to apply GitHub URL labels: failed to parse github config from url: "https://github.com": invalid config URL, should point to an enterprise, org, or repository`},
		{`{"githubConfigUrl":"https://github.com/o/%zz"}`, "arcError", `failed to apply GitHub URL labels: failed to parse github config from url: parse "https://github.com/o/%zz": invalid URL escape "%zz"`},
		{`{"githubConfigUrl":"https://github.com/o","ephemeralRunnerSetMetadata":{"labels":{"a":"b"}}}`, "arcPanic", "assignment to entry in nil map"},
	} {
		resp := call(t, map[string]any{"op": "desired", "ars": ars(c.spec)})
		if resp[c.key] != c.want {
			t.Errorf("%s: %s = %v, want %q (%v)", c.spec, c.key, resp[c.key], c.want, resp)
		}
	}
	resp := call(t, map[string]any{"op": "desired", "ars": ars(`{"githubConfigUrl":"https://github.com/o","ephemeralRunnerSetMetadata":{"labels":{"a":"b"},"annotations":{}}}`)})
	if _, ok := resp["spec"]; !ok {
		t.Errorf("annotations: {} must build: %v", resp)
	}
}

// kubectl stores an integer beyond int64 as a float64, and a YAML -0.0 as 0.
func TestKubectlStores(t *testing.T) {
	resp := call(t, map[string]any{"op": "kubectlStores", "yaml": "apiVersion: v1\nkind: X\na: [12345678901234567890, -0.0, '<']\n"})
	if got, _ := resp["json"].(string); !strings.Contains(got, `"a":[12345678901234567000,0,"\u003c"]`) {
		t.Errorf("kubectlStores: %v", resp)
	}
}

// Go's shortest digits break an exact tie to the even digit.
func TestFormatFloatTie(t *testing.T) {
	resp := call(t, map[string]any{"op": "formatFloat", "bits": "4310000000000001"})
	if resp["g"] != "1.1258999068426242e+15" || resp["json"] != "1125899906842624.2" {
		t.Errorf("formatFloat: %v", resp)
	}
}
