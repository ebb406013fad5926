package main

import (
	"encoding/json"
	"reflect"
	"testing"
)

func roundTripOf(t *testing.T, spec string) map[string]any {
	t.Helper()
	resp := call(t, map[string]any{"op": "roundTrip", "spec": spec})
	if e, ok := resp["error"]; ok {
		t.Fatalf("%s: %v", spec, e)
	}
	return resp
}

func TestRoundTripVerdictsAndPaths(t *testing.T) {
	cases := []struct {
		container string
		loop      bool
		paths     []string
	}{
		{`"env":[]`, true, []string{"spec.containers[0].env"}},
		{`"env":null,"args":["x"]`, false, nil},
		{`"resources":{"limits":{"cpu":"1000m"}}`, true, []string{"spec.containers[0].resources.limits.cpu"}},
		{`"resources":{"limits":{"cpu":1000}}`, true, []string{"spec.containers[0].resources.limits.cpu"}},
		{`"resources":{"limits":{"cpu":"1e3","memory":"8192Mi"}}`, false, nil},
		{`"resources":{"limits":{"cpu":"4","memory":"8Gi"}}`, false, nil},
		{`"securityContext":{}`, false, nil},
		{`"env":[{"name":"C","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu"}}}]`, true,
			[]string{"spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor"}},
	}
	for _, c := range cases {
		spec := `{"spec":{"containers":[{"name":"r",` + c.container + `}]}}`
		resp := roundTripOf(t, spec)
		if resp["loop"] != c.loop {
			t.Errorf("%s: loop %v, want %v", c.container, resp["loop"], c.loop)
		}
		if (resp["hashInMemory"] != resp["hashReadBack"]) != c.loop {
			t.Errorf("%s: hashes %v", c.container, resp)
		}
		var paths []string
		for _, p := range resp["paths"].([]any) {
			paths = append(paths, p.(string))
		}
		if !reflect.DeepEqual(paths, c.paths) {
			t.Errorf("%s: paths %q, want %q", c.container, paths, c.paths)
		}
	}
}

func TestRoundTripOfAnAutoscalingRunnerSet(t *testing.T) {
	ars := `{"metadata":{"annotations":{"runner-scale-set-id":"3"}},"spec":{"githubConfigUrl":"https://github.com/o",
		"template":{"spec":{"nodeSelector":{},"containers":[{"name":"r"}]}}}}`
	resp := call(t, map[string]any{"op": "roundTrip", "ars": ars})
	if resp["loop"] != true || !reflect.DeepEqual(resp["paths"], []any{"spec.nodeSelector"}) {
		t.Errorf("%v", resp)
	}
}

func TestRoundTripThatDoesNotReadBack(t *testing.T) {
	// 23:30 at UTC-1 on the last day of 9999 is in year 10000 in UTC: written, not parsed again.
	resp := roundTripOf(t, `{"metadata":{"creationTimestamp":"9999-12-31T23:30:00-01:00"}}`)
	if _, ok := resp["readBackError"]; !ok {
		t.Errorf("%v", resp)
	}
}

func TestMapKeysAreSpelledAsKubectlArcSpellsThem(t *testing.T) {
	for _, c := range []struct{ key, want string }{
		{"app", "labels.app"},
		{"a_b-9", "labels.a_b-9"},
		{"app.kubernetes.io/name", `labels["app.kubernetes.io/name"]`},
		{"", `labels[""]`},
		{"q\"\\\t\n\x01é", `labels["q\"\\\t\n\u{1}é"]`},
	} {
		if got := joinKey("labels", c.key); got != c.want {
			t.Errorf("%q: %s, want %s", c.key, got, c.want)
		}
	}
	b, _ := json.Marshal(joinKey("", "x"))
	if string(b) != `"x"` {
		t.Errorf("%s", b)
	}
}
