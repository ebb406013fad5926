package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"kubectl-arc/oracle/arc/v1alpha1"
)

// layout is the reflection dump of the Go types reachable from the roots.
type layout struct {
	K8sAPI string `json:"k8sApi"`
	// ArcReleases names the ARC releases whose types a release layout holds ("0.9.0-0.10.1").
	ArcReleases string     `json:"arcReleases,omitempty"`
	Roots       []string   `json:"roots"`
	Types       []typeInfo `json:"types"`
}

type typeInfo struct {
	Name           string       `json:"name"`
	PkgPath        string       `json:"pkgPath"`
	Kind           string       `json:"kind"`
	Elem           string       `json:"elem,omitempty"`
	Key            string       `json:"key,omitempty"`
	Len            *int         `json:"len,omitempty"`
	UnmarshalJSON  bool         `json:"unmarshalJSON"`
	CmpEqualMethod bool         `json:"cmpEqualMethod"`
	Fields         *[]fieldInfo `json:"fields,omitempty"` // present exactly for structs
}

type fieldInfo struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	Tag       string `json:"tag"`
	JSON      string `json:"json"`
	OmitEmpty bool   `json:"omitempty"`
	OmitZero  bool   `json:"omitzero"`
	Embedded  bool   `json:"embedded"`
	Exported  bool   `json:"exported"`
	Inline    bool   `json:"inline"`
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// layoutRoots are the roots of the "layout" op and subcommand, walked in
// this order.
var layoutRoots = []reflect.Type{
	reflect.TypeFor[v1alpha1.EphemeralRunnerSpec](),
	reflect.TypeFor[v1alpha1.AutoscalingRunnerSetSpec](),
}

// buildLayout walks the roots breadth-first: pointer, slice and array lead
// to their element, a map to its key then its element, a struct to every
// field's type (exported or not). Types are listed in first-seen order and
// keyed by reflect's String(), which must therefore be unique.
func buildLayout(roots []reflect.Type) (*layout, error) {
	l := &layout{K8sAPI: moduleVersion("k8s.io/api")}
	seen := map[string]reflect.Type{}
	var queue []reflect.Type
	visit := func(t reflect.Type) error {
		if prev, ok := seen[t.String()]; ok {
			if prev != t {
				return fmt.Errorf("two distinct types are both named %q (%s and %s)", t.String(), prev.PkgPath(), t.PkgPath())
			}
			return nil
		}
		seen[t.String()] = t
		queue = append(queue, t)
		return nil
	}
	for _, t := range roots {
		l.Roots = append(l.Roots, t.String())
		if err := visit(t); err != nil {
			return nil, err
		}
	}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		info := typeInfo{
			Name:           t.String(),
			PkgPath:        t.PkgPath(),
			Kind:           t.Kind().String(),
			UnmarshalJSON:  reflect.PointerTo(t).Implements(unmarshalerType),
			CmpEqualMethod: hasCmpEqualMethod(t),
		}
		var next []reflect.Type
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice:
			info.Elem = t.Elem().String()
			next = []reflect.Type{t.Elem()}
		case reflect.Array:
			n := t.Len()
			info.Elem, info.Len = t.Elem().String(), &n
			next = []reflect.Type{t.Elem()}
		case reflect.Map:
			info.Elem, info.Key = t.Elem().String(), t.Key().String()
			next = []reflect.Type{t.Key(), t.Elem()}
		case reflect.Struct:
			fields := make([]fieldInfo, 0, t.NumField())
			for i := range t.NumField() {
				f := t.Field(i)
				fields = append(fields, describeField(f))
				next = append(next, f.Type)
			}
			info.Fields = &fields
		}
		l.Types = append(l.Types, info)
		for _, n := range next {
			if err := visit(n); err != nil {
				return nil, err
			}
		}
	}
	return l, nil
}

// hasCmpEqualMethod reports whether cmp.Equal (go-cmp v0.7.0) would use t's
// Equal method: cmp/compare.go (*state).tryMethod looks up
// t.MethodByName("Equal") and accepts it when
// internal/function.IsType(m.Type, function.EqualAssignable) holds, i.e.
// func(T, I) bool: not variadic, 2 inputs, 1 output of type bool, and
// In(0) assignable to In(1).
func hasCmpEqualMethod(t reflect.Type) bool {
	m, ok := t.MethodByName("Equal")
	if !ok {
		return false
	}
	ft := m.Type
	if ft == nil || ft.Kind() != reflect.Func || ft.IsVariadic() {
		return false
	}
	return ft.NumIn() == 2 && ft.NumOut() == 1 &&
		ft.In(0).AssignableTo(ft.In(1)) && ft.Out(0) == reflect.TypeFor[bool]()
}

// describeField applies encoding/json's naming rules (encoding/json
// encode.go typeFields, which sigs.k8s.io/json's fork shares): the tag
// name if valid, else the Go name; "-" for a field tagged exactly "-"
// (never decoded). Inline means encoding/json promotes the fields of this
// embedded struct: embedded, no tag name, and a struct (or an unnamed
// pointer to one).
func describeField(f reflect.StructField) fieldInfo {
	tag := f.Tag.Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	if !isValidTag(name) {
		name = ""
	}
	ft := f.Type
	if ft.Name() == "" && ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	info := fieldInfo{
		Name:      f.Name,
		Type:      f.Type.String(),
		Tag:       string(f.Tag),
		JSON:      name,
		OmitEmpty: hasOption(opts, "omitempty"),
		OmitZero:  hasOption(opts, "omitzero"),
		Embedded:  f.Anonymous,
		Exported:  f.IsExported(),
		Inline:    f.Anonymous && name == "" && ft.Kind() == reflect.Struct,
	}
	switch {
	case tag == "-":
		info.JSON = "-"
	case name == "":
		info.JSON = f.Name
	}
	return info
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// isValidTag mirrors encoding/json encode.go isValidTag.
func isValidTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
			// Backslash and quote chars are reserved, but
			// otherwise any punctuation chars are allowed
			// in a tag name.
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
