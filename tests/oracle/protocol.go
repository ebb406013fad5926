package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"kubectl-arc/oracle/arc/actionsgithubcom"
	"kubectl-arc/oracle/arc/hash"
	"kubectl-arc/oracle/arc/v1alpha1"
)

// templateHash and templateSpew are ARC's hash.ComputeTemplateHash and the text it hashes.
var templateHash, templateSpew = hash.ComputeTemplateHash, hash.Spew

// integrityHashAnnotation mirrors annotationKeyIntegrityHash in ARC
// controllers/actions.github.com/resourcebuilder.go.
const integrityHashAnnotation = "actions.github.com/integrity-hash"

// request is one protocol line. Documents travel as JSON strings holding
// the raw document text, so their exact bytes reach the Go decoder.
type request struct {
	Op   string  `json:"op"`
	Spew bool    `json:"spew"`
	Spec *string `json:"spec"`
	A    *string `json:"a"`
	B    *string `json:"b"`
	ARS  *string `json:"ars"`
	ERS  *string `json:"ers"`
	JSON *string `json:"json"`
	YAML *string `json:"yaml"`
	URL  *string `json:"url"`
	// Bits is a float64's IEEE 754 bits in hexadecimal, for formatFloat.
	Bits *string `json:"bits"`
	// Release is an ARC release ("0.14.2"), for runnerSetSpecHash, listenerSpecHash and layout.
	Release *string `json:"release"`
}

type response map[string]any

// handle answers one request line. It never panics: a panic in an
// operation is reported as an error. The request's "id", whatever JSON
// value it is, is echoed back as "id".
func handle(line []byte) response {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return response{"error": "bad request: " + err.Error()}
	}
	resp := answer(line)
	if id, ok := fields["id"]; ok {
		if id == nil { // encoding/json stores a null map value as nil
			id = json.RawMessage("null")
		}
		resp["id"] = id
	}
	return resp
}

func answer(line []byte) (resp response) {
	defer func() {
		if r := recover(); r != nil {
			resp = response{"error": fmt.Sprintf("panic: %v", r)}
		}
	}()
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return response{"error": "bad request: " + err.Error()}
	}
	resp, err := dispatch(&req)
	if err != nil {
		return response{"error": err.Error()}
	}
	return resp
}

func dispatch(req *request) (response, error) {
	switch req.Op {
	case "hash":
		return opHash(req)
	case "equal":
		return opEqual(req)
	case "desired":
		return opDesired(req)
	case "compareDesired":
		return opCompareDesired(req)
	case "quantity":
		return opQuantity(req)
	case "qcmp":
		return opQcmp(req)
	case "roundTrip":
		return opRoundTrip(req)
	case "layout":
		l, err := buildLayout(layoutRoots)
		if req.Release != nil {
			l, err = releaseLayout(req.Release)
		}
		if err != nil {
			return nil, err
		}
		return response{"layout": l}, nil
	case "runnerSetSpecHash":
		return opSpecHash(req, false)
	case "listenerSpecHash":
		return opSpecHash(req, true)
	case "yaml2json":
		return opYAMLToJSON(req)
	case "jsonString":
		return opJSONString(req)
	case "kubectlStores":
		return opKubectlStores(req)
	case "formatFloat":
		return opFormatFloat(req)
	case "githubConfigUrl":
		u, err := need("url", req.URL)
		if err != nil {
			return nil, err
		}
		if err := actionsgithubcom.GitHubURLLabelsError(string(u)); err != nil {
			return response{"arcError": err.Error()}, nil
		}
		return response{}, nil
	case "version":
		return opVersion(), nil
	default:
		return nil, fmt.Errorf("unknown op %q", req.Op)
	}
}

// need returns the raw document of a required string field.
func need(name string, s *string) ([]byte, error) {
	if s == nil {
		return nil, fmt.Errorf("missing field %q (a JSON string holding the raw document)", name)
	}
	return []byte(*s), nil
}

// decode decodes data into a fresh zero T the way controller-runtime's
// JSON serializer does (apimachinery runtime/serializer/json
// Serializer.unmarshal, non-strict): sigs.k8s.io/json
// UnmarshalCaseSensitivePreserveInts.
func decode[T any](name string, s *string) (T, error) {
	var v T
	data, err := need(name, s)
	if err != nil {
		return v, err
	}
	err = kjson.UnmarshalCaseSensitivePreserveInts(data, &v)
	return v, err
}

// hashSpec is the legacy integrity hash of an ERS whose
// spec.ephemeralRunnerSpec is spec.
func hashSpec(spec v1alpha1.EphemeralRunnerSpec) string {
	ers := &v1alpha1.EphemeralRunnerSet{Spec: v1alpha1.EphemeralRunnerSetSpec{EphemeralRunnerSpec: spec}}
	return actionsgithubcom.EphemeralRunnerSetIntegrityHash(ers)
}

func spewSpec(spec v1alpha1.EphemeralRunnerSpec) string {
	ers := &v1alpha1.EphemeralRunnerSet{Spec: v1alpha1.EphemeralRunnerSetSpec{EphemeralRunnerSpec: spec}}
	return actionsgithubcom.EphemeralRunnerSetIntegritySpew(ers)
}

func opHash(req *request) (response, error) {
	spec, err := decode[v1alpha1.EphemeralRunnerSpec]("spec", req.Spec)
	if err != nil {
		return nil, err
	}
	resp := response{"hash": hashSpec(spec)}
	if req.Spew {
		resp["spew"] = spewSpec(spec)
	}
	return resp, nil
}

// compare fills resp with reflect.DeepEqual, cmp.Equal (no options) and
// equality.Semantic.DeepEqual of a and b. A panic of cmp or Semantic is
// reported as cmpPanic / semanticPanic instead of the bool.
func compare(resp response, a, b v1alpha1.EphemeralRunnerSpec) {
	resp["reflect"] = reflect.DeepEqual(a, b)
	if eq, msg := catch(func() bool { return cmp.Equal(a, b) }); msg != "" {
		resp["cmpPanic"] = msg
	} else {
		resp["cmp"] = eq
	}
	if eq, msg := catch(func() bool { return equality.Semantic.DeepEqual(a, b) }); msg != "" {
		resp["semanticPanic"] = msg
	} else {
		resp["semantic"] = eq
	}
}

func catch(f func() bool) (result bool, panicMsg string) {
	defer func() {
		if r := recover(); r != nil {
			panicMsg = fmt.Sprint(r)
		}
	}()
	return f(), ""
}

func opEqual(req *request) (response, error) {
	a, err := decode[v1alpha1.EphemeralRunnerSpec]("a", req.A)
	if err != nil {
		return nil, fmt.Errorf("a: %w", err)
	}
	b, err := decode[v1alpha1.EphemeralRunnerSpec]("b", req.B)
	if err != nil {
		return nil, fmt.Errorf("b: %w", err)
	}
	// Hash first: nothing below may touch the values, but the hash is the
	// one result that would notice (Quantity.String caches into s).
	resp := response{"hashA": hashSpec(a), "hashB": hashSpec(b)}
	compare(resp, a, b)
	return resp, nil
}

// arcFailure is what ARC's newEphemeralRunnerSet did instead of building a
// set: returned an error (ARC logs it and leaves the set alone) or panicked.
type arcFailure struct {
	msg   string
	panic bool
}

func (f *arcFailure) Error() string {
	if f.panic {
		return "panic: " + f.msg
	}
	return f.msg
}

// answerFailure turns an arcFailure into its answer: "error" as for any
// failure, and "arcError" or "arcPanic" with ARC's own message.
func answerFailure(err error) (response, error) {
	var f *arcFailure
	if !errors.As(err, &f) {
		return nil, err
	}
	resp := response{"error": f.Error()}
	if f.panic {
		resp["arcPanic"] = f.msg
	} else {
		resp["arcError"] = f.msg
	}
	return resp, nil
}

// desiredSpec decodes an AutoscalingRunnerSet and builds the desired
// EphemeralRunnerSpec in memory from it, as ARC's newEphemeralRunnerSet does.
// ARC's error or panic comes back as an *arcFailure.
func desiredSpec(req *request) (v1alpha1.EphemeralRunnerSpec, error) {
	ars, err := decode[v1alpha1.AutoscalingRunnerSet]("ars", req.ARS)
	if err != nil {
		return v1alpha1.EphemeralRunnerSpec{}, fmt.Errorf("ars: %w", err)
	}
	spec, err := buildRecovering(&ars)
	if err != nil {
		return v1alpha1.EphemeralRunnerSpec{}, err
	}
	return spec.EphemeralRunnerSpec, nil
}

// buildRecovering runs the builder, turning its error or panic into an
// *arcFailure.
func buildRecovering(ars *v1alpha1.AutoscalingRunnerSet) (spec v1alpha1.EphemeralRunnerSetSpec, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &arcFailure{msg: fmt.Sprint(r), panic: true}
		}
	}()
	spec, err = actionsgithubcom.NewEphemeralRunnerSetSpec(ars)
	if err != nil {
		return spec, &arcFailure{msg: err.Error()}
	}
	return spec, nil
}

func opDesired(req *request) (response, error) {
	spec, err := desiredSpec(req)
	if err != nil {
		return answerFailure(err)
	}
	resp := response{"hash": hashSpec(spec), "spew": spewSpec(spec)}
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	resp["spec"] = json.RawMessage(b)
	return resp, nil
}

func opCompareDesired(req *request) (response, error) {
	desired, err := desiredSpec(req)
	if err != nil {
		return answerFailure(err)
	}
	ers, err := decode[v1alpha1.EphemeralRunnerSet]("ers", req.ERS)
	if err != nil {
		return nil, fmt.Errorf("ers: %w", err)
	}
	current := ers.Spec.EphemeralRunnerSpec
	resp := response{"hashDesired": hashSpec(desired), "hashCurrent": hashSpec(current)}
	if v, ok := ers.Annotations[integrityHashAnnotation]; ok {
		resp["annotation"] = v
	}
	compare(resp, desired, current)
	return resp, nil
}

// parseQuantity decodes one JSON value into a fresh resource.Quantity
// through its UnmarshalJSON (via encoding/json).
func parseQuantity(name string, s *string) (resource.Quantity, error) {
	var q resource.Quantity
	data, err := need(name, s)
	if err != nil {
		return q, err
	}
	err = json.Unmarshal(data, &q)
	return q, err
}

func opQuantity(req *request) (response, error) {
	if req.JSON == nil {
		_, err := need("json", nil)
		return nil, err
	}
	q, err := parseQuantity("json", req.JSON)
	resp := response{"spew": actionsgithubcom.TemplateSpew(q)}
	// String has a pointer receiver and caches the canonical form into s:
	// call it on a deep copy so q itself stays as decoded.
	c := q.DeepCopy()
	resp["canonical"] = c.String()
	if err != nil {
		resp["error"] = err.Error()
	}
	return resp, nil
}

func opQcmp(req *request) (response, error) {
	a, err := parseQuantity("a", req.A)
	if err != nil {
		return nil, fmt.Errorf("a: %w", err)
	}
	b, err := parseQuantity("b", req.B)
	if err != nil {
		return nil, fmt.Errorf("b: %w", err)
	}
	return response{"cmp": a.Cmp(b)}, nil
}

// moduleVersion is the version of module path linked into this binary.
func moduleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path == path {
			if m.Replace != nil {
				return m.Replace.Version
			}
			return m.Version
		}
	}
	return ""
}

func opVersion() response {
	return response{
		"k8sApi":       moduleVersion("k8s.io/api"),
		"apimachinery": moduleVersion("k8s.io/apimachinery"),
		"go":           runtime.Version(),
		"spew":         moduleVersion("github.com/davecgh/go-spew"),
		"cmp":          moduleVersion("github.com/google/go-cmp"),
		"sigsJson":     moduleVersion("sigs.k8s.io/json"),
	}
}

// opYAMLToJSON converts a YAML document to JSON the way kubectl and Helm
// read manifests: sigs.k8s.io/yaml.YAMLToJSON (go.yaml.in/yaml/v2 resolves
// the scalars with YAML 1.1 rules, then encoding/json writes the result).
// A conversion error is an answer ("yamlError"), not a protocol error.
func opYAMLToJSON(req *request) (response, error) {
	doc, err := need("yaml", req.YAML)
	if err != nil {
		return nil, err
	}
	out, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return response{"yamlError": err.Error()}, nil
	}
	return response{"json": string(out)}, nil
}

// opJSONString decodes a JSON string literal with encoding/json into a Go
// string: invalid UTF-8 and lone surrogate escapes become U+FFFD. The answer
// carries the string and its UTF-8 bytes in hexadecimal.
func opJSONString(req *request) (response, error) {
	doc, err := need("json", req.JSON)
	if err != nil {
		return nil, err
	}
	var s string
	if err := json.Unmarshal(doc, &s); err != nil {
		return response{"jsonError": err.Error()}, nil
	}
	return response{"string": s, "hex": hex.EncodeToString([]byte(s))}, nil
}

// opKubectlStores answers what kubectl sends to the API server for one
// manifest document (YAML, or JSON when it starts with '{'): the document
// made JSON (sigs.k8s.io/yaml.YAMLToJSON for YAML), decoded into an
// Unstructured object as kubectl's resource builder decodes it (integers that
// overflow int64 become float64), and written back with encoding/json.
// A refusal is an answer ("yamlError" or "decodeError").
func opKubectlStores(req *request) (response, error) {
	var doc []byte
	switch {
	case req.JSON != nil:
		doc = []byte(*req.JSON)
	case req.YAML != nil:
		out, err := yaml.YAMLToJSON([]byte(*req.YAML))
		if err != nil {
			return response{"yamlError": err.Error()}, nil
		}
		doc = out
	default:
		_, err := need("yaml", nil)
		return nil, err
	}
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(doc, nil, nil)
	if err != nil {
		return response{"decodeError": err.Error()}, nil
	}
	out, err := json.Marshal(obj.(*unstructured.Unstructured).Object)
	if err != nil {
		return response{"decodeError": err.Error()}, nil
	}
	return response{"json": string(out)}, nil
}

// opFormatFloat formats the float64 with these IEEE 754 bits as
// strconv.FormatFloat(f, 'g', -1, 64) and as encoding/json writes it.
func opFormatFloat(req *request) (response, error) {
	if req.Bits == nil {
		return nil, fmt.Errorf("missing field \"bits\" (hexadecimal IEEE 754 bits)")
	}
	bits, err := strconv.ParseUint(*req.Bits, 16, 64)
	if err != nil {
		return nil, err
	}
	f := math.Float64frombits(bits)
	resp := response{"g": strconv.FormatFloat(f, 'g', -1, 64)}
	if b, err := json.Marshal(f); err == nil {
		resp["json"] = string(b)
	} else {
		resp["jsonError"] = err.Error()
	}
	return resp, nil
}
