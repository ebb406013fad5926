package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"kubectl-arc/oracle/arc/actionsgithubcom"
	"kubectl-arc/oracle/arc/v1alpha1"
)

// verifiedDir holds the outputs of an independent Go run against the same
// versions (see its README.md). It sits beside the repository in this
// project's CI; a clone made elsewhere lacks it. A missing file fails the
// tests under CI=true; elsewhere the comparison is skipped with a note.
var verifiedDir = filepath.Join("..", "..", "..", "shared", "reference", "verified")

// referenceAPI is the k8s.io/api version the verified hashes and spew texts
// were produced with. `go test` runs with go.mod (ARC's pin) only; the other
// modfiles are built and checked from the Rust tests, so a test here never
// skips: on another layout it fails.
const referenceAPI = "v0.36.2"

func onReferenceAPI() bool { return moduleVersion("k8s.io/api") == referenceAPI }

func requireReferenceAPI(t *testing.T) {
	t.Helper()
	if !onReferenceAPI() {
		t.Fatalf("hashes and spew texts are for k8s.io/api %s, linked %s: run go test with go.mod", referenceAPI, moduleVersion("k8s.io/api"))
	}
}

func readVerified(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(verifiedDir, name))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("reference file missing (under CI=true ../shared/ must sit beside the repository): %v", err)
		}
		t.Skipf("reference file missing, comparison not made on this machine: %v", err)
	}
	return string(b)
}

// callRaw runs one protocol request built from req and returns the
// response line.
func callRaw(t *testing.T, req map[string]any) []byte {
	t.Helper()
	line, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := serve(bytes.NewReader(append(line, '\n')), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// call runs one protocol request built from req and returns the decoded
// response.
func call(t *testing.T, req map[string]any) map[string]any {
	t.Helper()
	out := callRaw(t, req)
	var resp map[string]any
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("response %q: %v", out, err)
	}
	return resp
}

// workedExample is the spec of go-semantics.md E.3.
const workedExample = `{"githubConfigUrl":"https://github.com/my-org","githubConfigSecret":"gh-secret","runnerScaleSetId":3,
 "metadata":{"labels":{"app":"runner"}},
 "spec":{"restartPolicy":"Never","serviceAccountName":"runner-sa",
  "containers":[{"name":"runner","image":"ghcr.io/actions/actions-runner:latest",
   "command":["/home/runner/run.sh"],"env":[{"name":"RUNNER_FEATURE_FLAG_EPHEMERAL","value":"true"}],
   "resources":{"limits":{"cpu":"2","memory":"4Gi"},"requests":{"cpu":"500m"}}}]}}`

func TestHashOfEmptySpec(t *testing.T) {
	requireReferenceAPI(t)
	resp := call(t, map[string]any{"op": "hash", "spec": "{}", "spew": true})
	if resp["hash"] != "9755cd855" {
		t.Errorf("hash of {} = %v, want 9755cd855", resp["hash"])
	}
	if want := readVerified(t, "empty_spew.txt"); resp["spew"] != want {
		t.Errorf("spew of {} differs from empty_spew.txt:\n got %v\nwant %s", resp["spew"], want)
	}
}

func TestHashOfWorkedExample(t *testing.T) {
	requireReferenceAPI(t)
	resp := call(t, map[string]any{"op": "hash", "spec": workedExample, "spew": true})
	if resp["hash"] != "667fcbb9d8" {
		t.Errorf("hash = %v, want 667fcbb9d8", resp["hash"])
	}
	if want := readVerified(t, "example_spew.txt"); resp["spew"] != want {
		t.Errorf("spew differs from example_spew.txt:\n got %v\nwant %s", resp["spew"], want)
	}
	if got := actionsgithubcom.HashOfSpew(resp["spew"].(string)); got != resp["hash"] {
		t.Errorf("hash of the spew text = %s, but the hash function gave %v", got, resp["hash"])
	}
}

// EphemeralRunnerSpec.Hash() in ARC hashes *EphemeralRunnerSpec directly;
// the reference gives 5c97dfb666 for the worked example.
func TestSpecHashMethodOfWorkedExample(t *testing.T) {
	requireReferenceAPI(t)
	spec, err := decode[v1alpha1.EphemeralRunnerSpec]("spec", ptr(workedExample))
	if err != nil {
		t.Fatal(err)
	}
	if got := actionsgithubcom.ComputeTemplateHash(&spec); got != "5c97dfb666" {
		t.Errorf("ComputeTemplateHash(&spec) = %s, want 5c97dfb666", got)
	}
}

func ptr[T any](v T) *T { return &v }

// equalityCases holds the documents behind each row of
// verified/equality_table.txt. The base document is
// {"githubConfigUrl":"https://github.com/o","spec":{"containers":[{"name":"runner","image":"img"}]}}.
func equalityCases() map[string][2]string {
	doc := func(container, spec, top string) string {
		return `{"githubConfigUrl":"https://github.com/o"` + top +
			`,"spec":{"containers":[{"name":"runner","image":"img"` + container + `}]` + spec + `}}`
	}
	c := func(container string) string { return doc(container, "", "") }
	s := func(spec string) string { return doc("", spec, "") }
	top := func(top string) string { return doc("", "", top) }
	base := doc("", "", "")
	limits := func(q string) string { return c(`,"resources":{"limits":` + q + `}`) }
	return map[string][2]string{
		"env: [] vs absent":                          {c(`,"env":[]`), base},
		"env: null vs absent":                        {c(`,"env":null`), base},
		"command: [] vs absent":                      {c(`,"command":[]`), base},
		`limits.cpu "1" vs "1000m"`:                  {limits(`{"cpu":"1"}`), limits(`{"cpu":"1000m"}`)},
		`limits.cpu "1" vs 1 (number)`:               {limits(`{"cpu":"1"}`), limits(`{"cpu":1}`)},
		`limits.cpu "1" vs "1.0"`:                    {limits(`{"cpu":"1"}`), limits(`{"cpu":"1.0"}`)},
		`limits.cpu "500m" vs "0.5"`:                 {limits(`{"cpu":"500m"}`), limits(`{"cpu":"0.5"}`)},
		`limits.memory "1Gi" vs "1024Mi"`:            {limits(`{"memory":"1Gi"}`), limits(`{"memory":"1024Mi"}`)},
		"limits: {} vs absent":                       {limits(`{}`), base},
		"resources: {} vs absent":                    {c(`,"resources":{}`), base},
		"securityContext: {} vs absent":              {c(`,"securityContext":{}`), base},
		"securityContext: null vs absent":            {c(`,"securityContext":null`), base},
		"nodeSelector: {} vs absent":                 {s(`,"nodeSelector":{}`), base},
		`serviceAccountName "" vs absent`:            {s(`,"serviceAccountName":""`), base},
		"runnerScaleSetId 0 vs absent":               {top(`,"runnerScaleSetId":0`), base},
		"automountSAToken false vs absent":           {s(`,"automountServiceAccountToken":false`), base},
		"automountSAToken false vs true":             {s(`,"automountServiceAccountToken":false`), s(`,"automountServiceAccountToken":true`)},
		"terminationGracePeriodSeconds 30 vs absent": {s(`,"terminationGracePeriodSeconds":30`), base},
		"proxy: {} vs absent":                        {top(`,"proxy":{}`), base},
		"metadata: {} vs absent":                     {top(`,"metadata":{}`), base},
		"metadata.labels {} vs absent":               {top(`,"metadata":{"labels":{}}`), base},
		"metadata.creationTimestamp null vs absent":  {top(`,"metadata":{"creationTimestamp":null}`), base},
		"labels key order":                           {top(`,"metadata":{"labels":{"a":"1","b":"2"}}`), top(`,"metadata":{"labels":{"b":"2","a":"1"}}`)},
		"ports: [] vs absent":                        {c(`,"ports":[]`), base},
		"containerPort 0 vs absent (in port obj)":    {c(`,"ports":[{"containerPort":0}]`), c(`,"ports":[{}]`)},
		`probe port 8080 vs "8080"`:                  {c(`,"livenessProbe":{"httpGet":{"port":8080}}`), c(`,"livenessProbe":{"httpGet":{"port":"8080"}}`)},
		"unknown field vs absent":                    {top(`,"bogus":1`), base},
		"case-mismatch key (Image) vs absent":        {c(`,"Image":"x"`), base},
		"creationTimestamp Z vs +01:00 same instant": {
			top(`,"metadata":{"creationTimestamp":"2024-01-01T00:00:00Z"}`),
			top(`,"metadata":{"creationTimestamp":"2024-01-01T01:00:00+01:00"}`),
		},
		"volumes emptyDir {} vs absent": {s(`,"volumes":[{"name":"w","emptyDir":{}}]`), s(`,"volumes":[{"name":"w"}]`)},
	}
}

// A non-null metav1.Time decodes with loc = time.Local, whose spew text
// depends on TZ and /etc/localtime (go-semantics.md A.8): its hashes are
// not compared.
var localTimeDependent = map[string]bool{"creationTimestamp Z vs +01:00 same instant": true}

func TestEqualityTable(t *testing.T) {
	cases := equalityCases()
	rows := 0
	for _, line := range strings.Split(readVerified(t, "equality_table.txt"), "\n") {
		cols := strings.Split(line, "|")
		if len(cols) != 6 || strings.HasPrefix(line, "case ") {
			continue
		}
		for i := range cols {
			cols[i] = strings.TrimSpace(cols[i])
		}
		rows++
		name := cols[0]
		docs, ok := cases[name]
		if !ok {
			t.Errorf("no documents for row %q", name)
			continue
		}
		resp := call(t, map[string]any{"op": "equal", "a": docs[0], "b": docs[1]})
		got := []string{
			jsonText(resp["reflect"]), jsonText(resp["cmp"]), jsonText(resp["semantic"]),
			jsonText(resp["hashA"] == resp["hashB"]),
		}
		if want := cols[1:5]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: reflect/cmp/semantic/sameHash = %v, want %v (response %v)", name, got, want, resp)
		}
		if hashes := resp["hashA"].(string) + " " + resp["hashB"].(string); onReferenceAPI() && !localTimeDependent[name] && hashes != cols[5] {
			t.Errorf("%s: hashes %s, want %s", name, hashes, cols[5])
		}
	}
	if rows != len(cases) {
		t.Errorf("table has %d rows, %d cases defined", rows, len(cases))
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var quantityRow = regexp.MustCompile(`^(.*?)\s+err=(.*?) (?:canonical=(\S*) )?spew=(.*)$`)

func TestQuantityParses(t *testing.T) {
	n := 0
	for _, file := range []string{"quantity_parses.txt", "quantity_parses_extra.txt"} {
		for _, line := range strings.Split(readVerified(t, file), "\n") {
			m := quantityRow.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			n++
			input, wantErr, wantCanonical, wantSpew := m[1], m[2], m[3], m[4]
			resp := call(t, map[string]any{"op": "quantity", "json": input})
			if gotErr, _ := resp["error"].(string); (wantErr == "<nil>") != (gotErr == "") || (gotErr != "" && gotErr != wantErr) {
				t.Errorf("%s: error %q, want %s", input, gotErr, wantErr)
			}
			if resp["spew"] != wantSpew {
				t.Errorf("%s: spew\n got %v\nwant %s", input, resp["spew"], wantSpew)
			}
			if wantCanonical != "" && resp["canonical"] != wantCanonical {
				t.Errorf("%s: canonical %v, want %s", input, resp["canonical"], wantCanonical)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d quantity rows found", n)
	}
}

func TestQuantityCmp(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{{`"1"`, `"1000m"`, 0}, {`"1Gi"`, `"1024Mi"`, 0}, {`"500m"`, `"1"`, -1}, {`"2"`, `1`, 1}, {`null`, `"0"`, 0}} {
		resp := call(t, map[string]any{"op": "qcmp", "a": c.a, "b": c.b})
		if resp["cmp"] != c.want {
			t.Errorf("qcmp(%s, %s) = %v, want %v", c.a, c.b, resp["cmp"], c.want)
		}
	}
}

func TestProtocolLoop(t *testing.T) {
	in := strings.Join([]string{
		`{"id":1,"op":"hash","spec":"{}"}`,
		`not json`,
		``,
		`{"id":{"k":[1,"x"]},"op":"hash","spec":"{\"runnerScaleSetId\":\"3\"}"}`,
		`{"id":null,"op":"nope"}`,
		`{"op":"hash"}`,
		`{"id":"v","op":"version"}`,
	}, "\n") // no trailing newline: the last line still counts
	var out bytes.Buffer
	if err := serve(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"hash":"` + hashSpec(v1alpha1.EphemeralRunnerSpec{}) + `","id":1}`,
		`{"error":"bad request: invalid character 'o' in literal null (expecting 'u')"}`,
		`{"error":"json: cannot unmarshal string into Go struct field EphemeralRunnerSpec.runnerScaleSetId of type int","id":{"k":[1,"x"]}}`,
		`{"error":"unknown op \"nope\"","id":null}`,
		`{"error":"missing field \"spec\" (a JSON string holding the raw document)"}`,
	}
	sc := bufio.NewScanner(&out)
	var got []string
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	if len(got) != len(want)+1 {
		t.Fatalf("got %d responses, want %d:\n%s", len(got), len(want)+1, strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("response %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	var v map[string]string
	if err := json.Unmarshal([]byte(got[len(want)]), &v); err != nil {
		t.Fatal(err)
	}
	if v["id"] != "v" || v["go"] == "" || v["k8sApi"] == "" || v["apimachinery"] != v["k8sApi"] ||
		v["spew"] != "v1.1.2-0.20180830191138-d8f796af33cc" || v["cmp"] != "v0.7.0" {
		t.Errorf("version response %v", v)
	}
}

// arsWithTemplate is an AutoscalingRunnerSet whose template writes env: []
// and a non-canonical quantity, so that the spec built in memory differs
// from what a round trip through JSON would give.
const arsWithTemplate = `{"apiVersion":"actions.github.com/v1alpha1","kind":"AutoscalingRunnerSet",
 "metadata":{"name":"arc","namespace":"ci","annotations":{"runner-scale-set-id":"3"}},
 "spec":{"githubConfigUrl":"https://github.com/my-org","githubConfigSecret":"gh-secret",
  "vaultConfig":{"type":"azure_key_vault","azureKeyVault":{"url":"u"}},
  "ephemeralRunnerConfigSecretMetadata":{"labels":{}},
  "template":{"metadata":{"labels":{"app":"runner"}},"spec":{"containers":[{"name":"runner","image":"img","env":[],
   "resources":{"limits":{"cpu":"1000m"}}}]}}}}`

func TestDesiredAndCompare(t *testing.T) {
	raw := callRaw(t, map[string]any{"op": "desired", "ars": arsWithTemplate})
	var resp map[string]any
	var spec struct{ Spec json.RawMessage }
	if json.Unmarshal(raw, &resp) != nil || json.Unmarshal(raw, &spec) != nil {
		t.Fatalf("bad response %s", raw)
	}
	wantSpec := `{"githubConfigUrl":"https://github.com/my-org","githubConfigSecret":"gh-secret","runnerScaleSetId":3,` +
		`"vaultConfig":{"type":"azure_key_vault","azureKeyVault":{"url":"u"}},"ephemeralRunnerConfigSecretMetadata":{},` +
		`"metadata":{"labels":{"app":"runner"}},"spec":{"containers":[{"name":"runner","image":"img","resources":{"limits":{"cpu":"1"}}}]}}`
	if string(spec.Spec) != wantSpec {
		t.Errorf("desired spec\n got %s\nwant %s", spec.Spec, wantSpec)
	}
	if h, _ := resp["hash"].(string); h == "" || actionsgithubcom.HashOfSpew(resp["spew"].(string)) != h {
		t.Errorf("desired hash %v does not match its spew", resp["hash"])
	}

	// The ERS as the API server returns it after ARC wrote the desired spec.
	ers := `{"metadata":{"name":"arc","namespace":"ci","annotations":{"actions.github.com/integrity-hash":"` +
		resp["hash"].(string) + `"}},"spec":{"replicas":1,"patchID":0,"ephemeralRunnerSpec":` + string(spec.Spec) + `}}`
	cmpResp := call(t, map[string]any{"op": "compareDesired", "ars": arsWithTemplate, "ers": ers})
	if cmpResp["reflect"] != false || cmpResp["cmp"] != false || cmpResp["semantic"] != true {
		t.Errorf("desired vs read back: %v, want reflect false, cmp false, semantic true", cmpResp)
	}
	if cmpResp["hashDesired"] != resp["hash"] || cmpResp["annotation"] != resp["hash"] || cmpResp["hashCurrent"] == resp["hash"] {
		t.Errorf("hashes: %v (desired hash %v)", cmpResp, resp["hash"])
	}

	if r := call(t, map[string]any{"op": "desired", "ars": `{"metadata":{"annotations":{"runner-scale-set-id":"x"}}}`}); r["error"] != `strconv.Atoi: parsing "x": invalid syntax` {
		t.Errorf("bad annotation: %v", r)
	}
}

func TestRealisticSpecHashIsStable(t *testing.T) {
	raw := string(readTestdata(t))
	a := call(t, map[string]any{"op": "hash", "spec": raw, "spew": true})
	b := call(t, map[string]any{"op": "equal", "a": raw, "b": raw})
	if a["hash"] != b["hashA"] || b["hashA"] != b["hashB"] || b["reflect"] != true || b["cmp"] != true || b["semantic"] != true {
		t.Errorf("hash %v, equal %v", a["hash"], b)
	}
	if actionsgithubcom.HashOfSpew(a["spew"].(string)) != a["hash"] {
		t.Errorf("hash does not match spew")
	}
}

func readTestdata(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "realistic-spec.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
