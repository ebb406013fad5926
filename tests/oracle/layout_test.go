package main

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"kubectl-arc/oracle/arc/v1alpha1"
)

// TestLayoutMatchesVerifiedClosure compares the structs reachable from
// EphemeralRunnerSpec alone with verified/closure_layout.txt (k8s.io/api
// v0.36.2): the same struct types, and per struct the same fields in the
// same order with the same types, json tags and embedding.
func TestLayoutMatchesVerifiedClosure(t *testing.T) {
	requireReferenceAPI(t)
	l, err := buildLayout([]reflect.Type{reflect.TypeFor[v1alpha1.EphemeralRunnerSpec]()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	var order []string
	fields, core := 0, 0
	for _, ti := range l.Types {
		if ti.Fields == nil {
			continue
		}
		order = append(order, ti.Name)
		if ti.PkgPath == "k8s.io/api/core/v1" {
			core++
		}
		var fs []string
		for _, f := range *ti.Fields {
			fields++
			fs = append(fs, fmt.Sprintf("%s %s %q %v", f.Name, f.Type, reflect.StructTag(f.Tag).Get("json"), f.Embedded))
		}
		got[ti.Name] = fs
	}
	if len(got) != 133 || core != 108 || fields != 577 {
		t.Errorf("%d struct types (%d core/v1), %d fields; want 133 (108), 577", len(got), core, fields)
	}

	header := regexp.MustCompile(`^type (\S+)`)
	field := regexp.MustCompile(`^    (\S+)\s+(\S+)\s+json:"(.*?)"( \(embedded\))?$`)
	want := map[string][]string{}
	var cur string
	for _, line := range strings.Split(readVerified(t, "closure_layout.txt"), "\n") {
		if m := header.FindStringSubmatch(line); m != nil {
			cur = m[1]
			want[cur] = []string{}
		} else if m := field.FindStringSubmatch(line); m != nil {
			want[cur] = append(want[cur], fmt.Sprintf("%s %s %q %v", m[1], m[2], m[3], m[4] != ""))
		}
	}
	if len(want) != 133 {
		t.Fatalf("parsed %d types from closure_layout.txt", len(want))
	}
	for _, name := range order {
		if w, ok := want[name]; !ok {
			t.Errorf("%s is not in closure_layout.txt", name)
		} else if !reflect.DeepEqual(got[name], w) {
			t.Errorf("%s fields differ:\n got %q\nwant %q", name, got[name], w)
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("%s missing from the layout", name)
		}
	}
}

func TestLayoutFlags(t *testing.T) {
	l, err := buildLayout(layoutRoots)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]typeInfo{}
	for _, ti := range l.Types {
		types[ti.Name] = ti
	}
	if got := l.Roots; !reflect.DeepEqual(got, []string{"v1alpha1.EphemeralRunnerSpec", "v1alpha1.AutoscalingRunnerSetSpec"}) {
		t.Errorf("roots %v", got)
	}
	// go-semantics.md D.3: Quantity and time.Time have an Equal method cmp
	// uses; metav1.Time's is on the pointer only.
	for name, want := range map[string]bool{"resource.Quantity": true, "time.Time": true, "v1.Time": false, "v1.PodSpec": false} {
		if types[name].CmpEqualMethod != want {
			t.Errorf("%s cmpEqualMethod = %v, want %v", name, types[name].CmpEqualMethod, want)
		}
	}
	for name, want := range map[string]bool{"resource.Quantity": true, "intstr.IntOrString": true, "v1.Time": true, "v1.FieldsV1": true, "v1.PodSpec": false} {
		if types[name].UnmarshalJSON != want {
			t.Errorf("%s unmarshalJSON = %v, want %v", name, types[name].UnmarshalJSON, want)
		}
	}
	ers := *types["v1alpha1.EphemeralRunnerSpec"].Fields
	if f := ers[len(ers)-1]; f.Name != "PodTemplateSpec" || !f.Inline || f.JSON != "PodTemplateSpec" || !f.Embedded {
		t.Errorf("embedded PodTemplateSpec: %+v", f)
	}
	pts := *types["v1.PodTemplateSpec"].Fields
	if f := pts[0]; f.Name != "ObjectMeta" || f.Inline || f.JSON != "metadata" || !f.OmitEmpty {
		t.Errorf("PodTemplateSpec.ObjectMeta: %+v", f)
	}
	if f := (*types["v1.ObjectMeta"].Fields)[7]; f.JSON != "creationTimestamp" || !f.OmitZero || !f.OmitEmpty {
		t.Errorf("ObjectMeta.CreationTimestamp: %+v", f)
	}
	if f := (*types["v1.FieldsV1"].Fields)[0]; f.JSON != "-" {
		t.Errorf("FieldsV1.Raw: %+v", f)
	}
	if ti := types["map[string]*v1alpha1.CounterMetric"]; ti.Kind != "map" || ti.Key != "string" || ti.Elem != "*v1alpha1.CounterMetric" {
		t.Errorf("MetricsConfig.Counters type: %+v", ti)
	}
}
