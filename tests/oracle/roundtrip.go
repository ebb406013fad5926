package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	kjson "sigs.k8s.io/json"

	"kubectl-arc/oracle/arc/v1alpha1"
)

// opRoundTrip follows a desired runner spec through the API server as an
// integrity-hash-era ARC does: the spec built in memory (S decoded, or the
// desired spec of the AutoscalingRunnerSet A) is written with
// encoding/json.Marshal, read back with the controller-runtime decoder, and
// both are hashed with ephemeralRunnerSetIntegrityHash. The two controllers
// fight forever ("loop") when the hashes differ. A round trip that Go cannot
// make (the written JSON does not decode) answers readBackError.
func opRoundTrip(req *request) (response, error) {
	var inMemory v1alpha1.EphemeralRunnerSpec
	var err error
	if req.ARS != nil {
		inMemory, err = desiredSpec(req)
	} else {
		inMemory, err = decode[v1alpha1.EphemeralRunnerSpec]("spec", req.Spec)
	}
	if err != nil {
		return nil, err
	}
	// A decoded metav1.Time points at time.Local, whose printed content
	// changes when the process first uses the local zone. Use it now, so
	// both hashes below print it in the same state.
	_ = time.Local.String()
	// Hash first: nothing below may change the in-memory value (Marshal has
	// value receivers), but the hash is the result that would notice.
	hashInMemory := hashSpec(inMemory)
	written, err := json.Marshal(inMemory)
	if err != nil {
		return nil, fmt.Errorf("json.Marshal: %w", err)
	}
	var readBack v1alpha1.EphemeralRunnerSpec
	if err := kjson.UnmarshalCaseSensitivePreserveInts(written, &readBack); err != nil {
		return response{"json": string(written), "readBackError": err.Error()}, nil
	}
	hashReadBack := hashSpec(readBack)
	paths := []string{}
	if !reflect.DeepEqual(inMemory, readBack) {
		changedPaths("", reflect.ValueOf(inMemory), reflect.ValueOf(readBack), &paths)
	}
	return response{
		"loop":         hashInMemory != hashReadBack,
		"hashInMemory": hashInMemory,
		"hashReadBack": hashReadBack,
		"paths":        paths,
		"json":         string(written),
	}, nil
}

// leafTypes are compared whole, as kubectl-arc's equality walk compares
// them: the types with their own JSON and equality code.
var leafTypes = map[reflect.Type]bool{
	reflect.TypeFor[resource.Quantity]():  true,
	reflect.TypeFor[metav1.Time]():        true,
	reflect.TypeFor[metav1.MicroTime]():   true,
	reflect.TypeFor[metav1.FieldsV1]():    true,
	reflect.TypeFor[intstr.IntOrString](): true,
}

// changedPaths appends the path of every place where a and b (values of one
// type) differ under reflect.DeepEqual (walked once, not asked again at every
// level), in kubectl-arc's path notation (the
// one `kubectl arc diff` reports):
//
//   - a struct field adds "." and its JSON name (the first one without a
//     dot); an inline embedded struct (json:",inline", or no tag) adds
//     nothing, its fields are promoted;
//   - a slice element adds "[i]";
//   - a map entry adds ".key" when the key is non-empty and only ASCII
//     letters, digits, '_' and '-', else `["key"]` quoted as Rust's
//     {:?} quotes a string (quoteKey);
//   - the walk stops at the first difference on its way down: a nil and a
//     non-nil pointer, slice or map, slices of different lengths, a key
//     present on one side only, and any difference in a Quantity, Time,
//     MicroTime, FieldsV1 or IntOrString are reported at their own path.
//
// Paths come in field order, slice order and sorted key order.
func changedPaths(path string, a, b reflect.Value, out *[]string) {
	t := a.Type()
	if leafTypes[t] {
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			*out = append(*out, path)
		}
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if a.IsNil() && b.IsNil() {
			return
		}
		if a.IsNil() || b.IsNil() {
			*out = append(*out, path)
			return
		}
		changedPaths(path, a.Elem(), b.Elem(), out)
	case reflect.Slice:
		if a.IsNil() && b.IsNil() {
			return
		}
		if a.IsNil() || b.IsNil() || a.Len() != b.Len() {
			*out = append(*out, path)
			return
		}
		for i := range a.Len() {
			changedPaths(path+"["+strconv.Itoa(i)+"]", a.Index(i), b.Index(i), out)
		}
	case reflect.Map:
		if a.IsNil() && b.IsNil() {
			return
		}
		if a.IsNil() || b.IsNil() {
			*out = append(*out, path)
			return
		}
		var keys []string
		seen := map[string]bool{}
		for _, m := range []reflect.Value{a, b} {
			for _, k := range m.MapKeys() {
				if !seen[k.String()] {
					seen[k.String()] = true
					keys = append(keys, k.String())
				}
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			kv := reflect.ValueOf(k).Convert(t.Key())
			va, vb := a.MapIndex(kv), b.MapIndex(kv)
			p := joinKey(path, k)
			if !va.IsValid() || !vb.IsValid() {
				*out = append(*out, p)
				continue
			}
			changedPaths(p, va, vb, out)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			info := describeField(t.Field(i))
			p := path
			if !info.Inline {
				p = joinField(path, info.JSON)
			}
			changedPaths(p, a.Field(i), b.Field(i), out)
		}
	default:
		// Scalars (bool, numbers, strings): == as reflect.DeepEqual compares them.
		if !a.Equal(b) {
			*out = append(*out, path)
		}
	}
}

func joinField(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// joinKey mirrors kubectl-arc's push_key (crates/kubectl-arc-core/src/go/equality.rs).
func joinKey(path, key string) string {
	plain := key != ""
	for _, c := range []byte(key) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			plain = false
			break
		}
	}
	if plain {
		return joinField(path, key)
	}
	return path + "[" + quoteKey(key) + "]"
}

// quoteKey quotes a map key as Rust's Debug formatting of a str does:
// `"` and `\` escaped, \t \r \n \0 by name, other characters that are not
// printable (and combining marks) as \u{hex}. Printability follows Go's
// unicode.IsPrint, which agrees with Rust's table for the keys the tests
// generate (ASCII and common letters); a key outside that is spelled
// differently by the two only in this rare escaping.
func quoteKey(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == 0:
			b.WriteString(`\0`)
		case !unicode.IsPrint(r) && r != ' ' || unicode.In(r, unicode.Mn, unicode.Me):
			fmt.Fprintf(&b, `\u{%x}`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
