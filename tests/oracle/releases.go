package main

import (
	"fmt"
	"reflect"

	kjson "sigs.k8s.io/json"

	r09 "kubectl-arc/oracle/arc/releases/v09/v1alpha1"
	r11 "kubectl-arc/oracle/arc/releases/v11/v1alpha1"
	r12 "kubectl-arc/oracle/arc/releases/v12/v1alpha1"
	r14 "kubectl-arc/oracle/arc/releases/v14/v1alpha1"
)

// arcRelease is one released ARC (a gha-runner-scale-set tag) and the module versions its
// go.mod pins: the ones its RunnerSetSpecHash and ListenerSpecHash depend on.
type arcRelease struct {
	version string
	k8sAPI  string
	spew    string
	types   *typeVersion
}

const (
	spew111 = "v1.1.1"
	spewD8f = "v1.1.2-0.20180830191138-d8f796af33cc"
)

// typeVersion is one distinct set of ARC's API declarations (tests/oracle/arc/releases/*).
type typeVersion struct {
	// tags names the releases that declare these types.
	tags string
	// roots: the release's EphemeralRunnerSpec, AutoscalingRunnerSetSpec and the function-local
	// runnerSetSpec of RunnerSetSpecHash, in this order.
	roots []reflect.Type
	// values decodes an AutoscalingRunnerSet's spec as ARC's controller does and gives what
	// RunnerSetSpecHash and ListenerSpecHash hand to hash.ComputeTemplateHash.
	values func(spec []byte) (runner, listener interface{}, err error)
}

// versionOf builds a typeVersion from a release package's spec type and its two functions.
func versionOf[E, S any](tags string, runner, listener func(*S) interface{}) *typeVersion {
	return &typeVersion{
		tags: tags,
		roots: []reflect.Type{
			reflect.TypeFor[E](),
			reflect.TypeFor[S](),
			reflect.TypeOf(runner(new(S))).Elem().Elem(),
		},
		values: func(data []byte) (interface{}, interface{}, error) {
			var s S
			if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &s); err != nil {
				return nil, nil, err
			}
			return runner(&s), listener(&s), nil
		},
	}
}

var (
	types09 = versionOf[r09.EphemeralRunnerSpec]("0.9.0-0.10.1", r09.RunnerSetSpec, r09.ListenerSpec)
	types11 = versionOf[r11.EphemeralRunnerSpec]("0.11.0", r11.RunnerSetSpec, r11.ListenerSpec)
	types12 = versionOf[r12.EphemeralRunnerSpec]("0.12.0-0.13.1", r12.RunnerSetSpec, r12.ListenerSpec)
	types14 = versionOf[r14.EphemeralRunnerSpec]("0.14.0-0.14.2", r14.RunnerSetSpec, r14.ListenerSpec)
)

// arcReleases: every gha-runner-scale-set tag from 0.9.0 to 0.14.2, with the k8s.io/api
// (= k8s.io/apimachinery) and go-spew versions of its go.mod.
var arcReleases = []arcRelease{
	{"0.9.0", "v0.28.4", spew111, types09},
	{"0.9.1", "v0.28.4", spew111, types09},
	{"0.9.2", "v0.28.4", spew111, types09},
	{"0.9.3", "v0.28.4", spew111, types09},
	{"0.10.0", "v0.28.4", spew111, types09},
	{"0.10.1", "v0.28.4", spew111, types09},
	{"0.11.0", "v0.32.2", spewD8f, types11},
	{"0.12.0", "v0.32.3", spewD8f, types12},
	{"0.12.1", "v0.32.3", spewD8f, types12},
	{"0.13.0", "v0.34.1", spewD8f, types12},
	{"0.13.1", "v0.34.3", spewD8f, types12},
	{"0.14.0", "v0.35.2", spewD8f, types14},
	{"0.14.1", "v0.35.2", spewD8f, types14},
	{"0.14.2", "v0.35.2", spewD8f, types14},
}

// linkedRelease is the named release, refused unless this binary links the k8s.io/api,
// k8s.io/apimachinery and go-spew versions it pins (its hashes depend on all three).
func linkedRelease(version *string) (*arcRelease, error) {
	if version == nil {
		return nil, fmt.Errorf("missing field \"release\" (an ARC release such as \"0.14.2\")")
	}
	for i := range arcReleases {
		r := &arcReleases[i]
		if r.version != *version {
			continue
		}
		api, mach, spew := moduleVersion("k8s.io/api"), moduleVersion("k8s.io/apimachinery"), moduleVersion("github.com/davecgh/go-spew")
		if api != r.k8sAPI || mach != r.k8sAPI || spew != r.spew {
			return nil, fmt.Errorf("ARC %s pins k8s.io/api and apimachinery %s and go-spew %s; this oracle links %s, %s and %s (use its own modfile)",
				r.version, r.k8sAPI, r.spew, api, mach, spew)
		}
		return r, nil
	}
	return nil, fmt.Errorf("unknown ARC release %q", *version)
}

// opSpecHash answers runnerSetSpecHash and listenerSpecHash: the spec is an
// AutoscalingRunnerSet's spec as the API server stores it (JSON).
func opSpecHash(req *request, listener bool) (response, error) {
	r, err := linkedRelease(req.Release)
	if err != nil {
		return nil, err
	}
	data, err := need("spec", req.Spec)
	if err != nil {
		return nil, err
	}
	runner, listen, err := r.types.values(data)
	if err != nil {
		return response{"decodeError": err.Error()}, nil
	}
	v := runner
	if listener {
		v = listen
	}
	resp := response{"hash": templateHash(v)}
	if req.Spew {
		resp["spew"] = templateSpew(v)
	}
	return resp, nil
}

// releaseLayout is the layout of a release's roots.
func releaseLayout(version *string) (*layout, error) {
	r, err := linkedRelease(version)
	if err != nil {
		return nil, err
	}
	l, err := buildLayout(r.types.roots)
	if err != nil {
		return nil, err
	}
	l.ArcReleases = r.types.tags
	return l, nil
}
