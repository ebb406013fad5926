#!/usr/bin/env python3
"""Regenerate the committed seed corpora (fuzz/corpus/<target>/seed-*) and dictionaries
(fuzz/dict/*.dict) from files kept in the repository:

  examples/scale-set-dump.yaml, tests/oracle/testdata/realistic-spec.json, tests/badinput/*,
  tests/data/quantity/go_cases.tsv, crates/kubectl-arc-core/src/layouts/k8s-api-v0.36.2.json

Run from anywhere: python3 fuzz/seeds.py. Seeds are small and realistic; libFuzzer grows its own
corpus from them in a scratch directory (see scripts/fuzz.sh), which is not committed.
"""

import glob
import json
import os
import shutil

import yaml

FUZZ = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(FUZZ)


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def write_corpus(target, seeds):
    d = os.path.join(FUZZ, "corpus", target)
    if os.path.isdir(d):
        for old in glob.glob(os.path.join(d, "seed-*")):
            os.remove(old)
    os.makedirs(d, exist_ok=True)
    for name, data in seeds:
        if isinstance(data, str):
            data = data.encode("utf-8")
        with open(os.path.join(d, "seed-" + name), "wb") as f:
            f.write(data)


dump_text = read("examples/scale-set-dump.yaml")
dump = yaml.safe_load(dump_text)
ars_obj = next(o for o in dump["items"] if o["kind"] == "AutoscalingRunnerSet")
ers_obj = next(o for o in dump["items"] if o["kind"] == "EphemeralRunnerSet")
ars_spec = ars_obj["spec"]
ers_spec = ers_obj["spec"]["ephemeralRunnerSpec"]
realistic_text = read("tests/oracle/testdata/realistic-spec.json")
realistic = json.loads(realistic_text)

# The desired side of the realistic spec: the ARS spec ARC would build it from.
ARS_COPIED = ["githubConfigUrl", "githubConfigSecret", "proxy", "githubServerTLS", "vaultConfig",
              "ephemeralRunnerConfigSecretMetadata"]
realistic_ars = {k: realistic[k] for k in ARS_COPIED if k in realistic}
realistic_ars["template"] = {k: realistic[k] for k in ("metadata", "spec") if k in realistic}

# Small documents with the Go quirks the unit tests pin (crates/kubectl-arc-core/src/go/{value,legacy_hash}.rs).
WORKED = ('{"githubConfigUrl":"https://github.com/my-org","githubConfigSecret":"gh-secret",'
          '"runnerScaleSetId":3,"metadata":{"labels":{"app":"runner"}},"spec":{"restartPolicy":'
          '"Never","serviceAccountName":"runner-sa","containers":[{"name":"runner","image":'
          '"ghcr.io/actions/actions-runner:latest","command":["/home/runner/run.sh"],"env":[{"name":'
          '"RUNNER_FEATURE_FLAG_EPHEMERAL","value":"true"}],"resources":{"limits":{"cpu":"2",'
          '"memory":"4Gi"},"requests":{"cpu":"500m"}}}]}}')
QUIRKS = [
    "{}",
    WORKED,
    '{"spec":{"nodeSelector":{},"tolerations":null}}',
    '{"proxy":{},"githubServerTLS":null}',
    '{"spec":{"automountServiceAccountToken":false}}',
    '{"spec":{"containers":[{"Image":"x","bogus":{"deep":[1,2]}}]}}',
    '{"spec":{"containers":[{"livenessProbe":{"httpGet":{"port":"http"}},'
    '"readinessProbe":{"httpGet":{"port":8080}}}]}}',
    '{"metadata":{"creationTimestamp":"2024-01-01T00:00:00Z"}}',
    '{"metadata":{"creationTimestamp":null,"managedFields":[{"fieldsV1":{"f:a":{}}}]}}',
    '{"spec":{"containers":[{"name":"a","env":[],"ports":null,"securityContext":{"privileged":'
    'false,"capabilities":{"add":[]}}}],"nodeSelector":{},"hostAliases":[{"ip":"1.2.3.4",'
    '"hostnames":["a","b"]}]},"proxy":{"http":null}}',
    '{"metadata":{"labels":{"":"x"},"finalizers":[]},"spec":{"resources":{"limits":{"cpu":"1",'
    '"memory":"123456789012345678901234567890"}},"containers":[{"livenessProbe":{"httpGet":'
    '{"port":"http"}},"readinessProbe":{"httpGet":{"port":8080}}}]}}',
    '{"runnerScaleSetId":1.5,"spec":{"containers":[{"name":"\\ud83d\\ude00\\ud83d"}]}}',
    '{"spec":{"containers":[{"resources":{"limits":{"cpu":1e3,"memory":"1\\u0030"}}}]},'
    '"spec":{"containers":[{"name":"dup"}]}}',
    '{"spec":{"securityContext":{"runAsUser":9223372036854775807,"runAsGroup":-1},'
    '"terminationGracePeriodSeconds":30,"activeDeadlineSeconds":-0}}',
]

ers_docs = [
    ("realistic-spec.json", realistic_text),
    ("dump-ers-runner-spec.json", compact(ers_spec)),
] + [("quirk-%02d.json" % i, q) for i, q in enumerate(QUIRKS)]
ars_docs = [
    ("dump-ars-spec.json", compact(ars_spec)),
    ("realistic-ars-spec.json", compact(realistic_ars)),
    ("worked-ars-spec.json", compact({"githubConfigUrl": "https://github.com/o",
                                      "githubConfigSecret": "s",
                                      "template": {"spec": {"containers": [
                                          {"name": "runner", "image": "img", "env": []}]}}})),
]

write_corpus("value_decode", ers_docs + ars_docs)
write_corpus("legacy_hash", ers_docs + ars_docs)

# diff_render: ARS spec NUL ERS runner spec NUL runner-scale-set-id.
cpu_notation = json.loads(compact(realistic))
for c in cpu_notation["spec"]["containers"]:
    lim = c.setdefault("resources", {}).setdefault("limits", {})
    lim["cpu"] = "1000m"
    c["env"] = []
diff_seeds = [
    ("dump-pair", compact(ars_spec) + "\0" + compact(ers_spec) + "\0" + "7"),
    ("realistic-no-drift", compact(realistic_ars) + "\0" + realistic_text + "\0" + "7"),
    ("realistic-strict-only", compact(realistic_ars) + "\0" + compact(cpu_notation) + "\0" + "7"),
    ("realistic-vs-worked", compact(realistic_ars) + "\0" + WORKED + "\0" + "3"),
    ("no-ers-spec", compact(ars_spec)),
    ("missing-annotation", compact(ars_spec) + "\0" + compact(ers_spec) + "\0"),
    ("annotation-beyond-int64", '{"template":{}}\0{}\0' + "99999999999999999999"),
    ("template-is-a-string", '{"template":"a pod template"}\0{}\0' + "1"),
    ("quantities", '{"template":{"spec":{"containers":[{"resources":{"limits":{"cpu":"1",'
     '"memory":"1Gi"}}}]}}}\0{"runnerScaleSetId":7,"spec":{"containers":[{"resources":'
     '{"limits":{"cpu":"1000m","memory":"1024Mi"}}}]}}\0' + "7"),
]
write_corpus("diff_render", diff_seeds)

# manifest_parse: the example dump, the same as JSON, and the bad-input corpus.
manifest_seeds = [("scale-set-dump.yaml", dump_text),
                  ("scale-set-dump.json", json.dumps(dump, indent=1))]
for path in sorted(glob.glob(os.path.join(ROOT, "tests/badinput/*"))):
    name = os.path.basename(path)
    # Kubeconfigs are not manifests; the billion-laughs document is bounded by go-yaml's aliasing
    # budget (crates/kubectl-arc-core/src/go/manifest/yaml.rs) but costs time per run, which would starve the fuzzer
    # (tests/bad_input.rs covers it).
    if os.path.isdir(path) or name.startswith("kubeconfig") or name == "billion-laughs.yaml":
        continue
    with open(path, "rb") as f:
        manifest_seeds.append(("badinput-" + name, f.read()))
manifest_seeds += [
    ("anchors.yaml", "apiVersion: v1\nkind: List\nitems:\n- &a {apiVersion: actions.github.com/"
     "v1alpha1, kind: AutoscalingRunnerSet, metadata: {name: x, annotations: "
     "{runner-scale-set-id: '1'}}, spec: {template: {spec: {containers: [&c {name: r, image: i}]}}}}\n"
     "- {apiVersion: actions.github.com/v1alpha1, kind: EphemeralRunnerSet, metadata: {name: x}, "
     "spec: {ephemeralRunnerSpec: {runnerScaleSetId: 1, spec: {containers: [*c]}}}}\n"),
    ("tags-and-scalars.yaml", "--- !!map\napiVersion: v1\nkind: ConfigMap\ndata: {a: !!str 1, "
     "b: .inf, c: 0x1F, d: ~, e: 2024-01-01, f: |\n    block\n  , g: >-\n    folded}\n...\n"),
    ("small-laughs.yaml", "a: &a [x, y]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b, {<<: {k: v}}]\n"),
    ("multi-doc.yaml", "---\n---\n{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}\n---\n"
     "- 1\n"),
    # go-yaml's merge keys (in place, in order), tags, YAML 1.1 spellings and what it refuses.
    ("merges-and-refusals.yaml", "apiVersion: actions.github.com/v1alpha1\nkind: AutoscalingRunnerSet\n"
     "metadata: {name: m, annotations: {runner-scale-set-id: '1'}}\nx: &x {p: 1, q: 2}\n"
     "spec:\n  <<: [*x, {r: 3}]\n  q: 0X1F\n  template:\n    <<: *x\n    p: !!float 1_000\n"
     "    spec: {containers: [{name: r, image: !!str 1e400}]}\n---\n"
     "kind: X\na: {<<: 1, b: !!int abc, c: !!binary aGk=, d: !foo 1, ~: 1, .inf: 2}\n"
     "? [k]\n: v\ne: [yes, 0o17, +9223372036854775808, 1e400, .nan, !!null '', !!timestamp 2001-12-14]\n"),
    # A List as `kubectl get -o yaml` prints it, read as two halves when large (yaml/halves.rs):
    # the fuzz target checks each cut that joins against the whole reading.
    ("list-in-halves.yaml", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
     "  metadata: {name: a, labels: {x: yes}}\n  data:\n    k: |\n      text\n\n    l:\n    - - 1.0\n"
     "# between\n- apiVersion: actions.github.com/v1alpha1\n  kind: EphemeralRunnerSet\n"
     "  metadata:\n    name: b\n  spec: {replicas: 0x2}\n- ~\nkind: List\n"
     "metadata:\n  resourceVersion: \"\"\n"),
]
write_corpus("manifest_parse", manifest_seeds)

# quantity: raw JSON values (and pairs for Cmp) from the Go-generated table, every 20th line.
q_seeds = []
with open(os.path.join(ROOT, "tests/data/quantity/go_cases.tsv"), encoding="utf-8") as f:
    rows = [line.rstrip("\n").split("\t") for line in f if not line.startswith("#")]
for i, row in enumerate(rows):
    if i % 20 != 0 and i >= 20:
        continue
    if row[0] == "P":
        q_seeds.append(("go-case-%04d" % i, row[1]))
    elif row[0] == "C":
        q_seeds.append(("go-cmp-%04d" % i, row[1] + "\0" + row[2]))
for i, raw in enumerate(['"1"', '"1000m"', '"500m"', '"1Gi"', '"1024Mi"', "null", "0", "1e3",
                         '"1e4294967296"', '"123456789012345678901234567890"', '"0.1"', '"-5"',
                         '"8Gi"', '"1000E"', '"1.5Ei"', '" 12E-3 "']):
    q_seeds.append(("hand-%02d" % i, raw))
write_corpus("quantity", q_seeds)

# json_check_valid.
write_corpus("json_check_valid", [
    ("realistic-spec.json", realistic_text),
    ("scale-set-dump.json", json.dumps(dump)),
    ("badinput-malformed.json", read("tests/badinput/malformed.json")),
    ("scalars.json", ' [1, -0, 0.5e-3, "a\\u00e9\\/", true, false, null, 1E+2] '),
    ("surrogates.json", '["\\ud83d\\ude00", "\\ud83dx", "\\ude00\\ud83d"]'),
    ("nested.json", '{"spec": {"ephemeralRunnerSpec": {"a": [[[{}]]], "b": "\\u0030"}, "spec": 1}}'),
    ("deep.json", "[" * 200 + "]" * 200),
])

# Dictionaries: JSON keys of ARC's runner-spec types, YAML keys, quantity suffixes.
layout = json.loads(read("crates/kubectl-arc-core/src/layouts/k8s-api-v0.36.2.json"))
keys = sorted({f["json"] for t in layout["types"] if t.get("pkgPath", "").find("apimachinery/pkg/api/resource") < 0
               for f in t.get("fields", []) if f["exported"] and not f["inline"] and f["json"] != "-"})
d = os.path.join(FUZZ, "dict")
os.makedirs(d, exist_ok=True)


def esc(s):
    return s.replace("\\", "\\\\").replace('"', '\\"')


json_tokens = ['"\\"%s\\":"' % esc(k) for k in keys]
json_tokens += ['"null"', '"true"', '"false"', '"[]"', '"{}"', '"\\\\u"', '"\\"1000m\\""',
                '"\\"1Gi\\""', '"\\"2024-01-01T00:00:00Z\\""', '"\\"\\\\u0000\\""']
with open(os.path.join(d, "json.dict"), "w") as f:
    f.write("# JSON keys of ARC's runner-spec types (from crates/kubectl-arc-core/src/layouts), and JSON literals.\n")
    f.write("\n".join(json_tokens) + "\n")
yaml_tokens = ['"%s: "' % esc(k) for k in keys]
yaml_tokens += ['"---\\x0a"', '"- "', '"&a "', '"*a"', '"!!str "', '"<<: "', '"|\\x0a"', '"? "',
                '"kind: AutoscalingRunnerSet"', '"kind: EphemeralRunnerSet"', '"kind: List"',
                '"apiVersion: actions.github.com/v1alpha1"', '"runner-scale-set-id: "']
with open(os.path.join(d, "yaml.dict"), "w") as f:
    f.write("# YAML keys of ARC's runner-spec types (from crates/kubectl-arc-core/src/layouts), and YAML syntax.\n")
    f.write("\n".join(yaml_tokens) + "\n")
q_tokens = ['"%s"' % s for s in ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G",
                                 "T", "P", "E", "e", "e-", "e+", ".", "-", "+", "\\\"", "null",
                                 "2147483647", "2147483648", "4294967296", "9223372036854775807",
                                 "\\x00"]]
with open(os.path.join(d, "quantity.dict"), "w") as f:
    f.write("# resource.Quantity suffixes, signs and int32/int64 edges.\n")
    f.write("\n".join(q_tokens) + "\n")
print("seeds and dictionaries written under", FUZZ)
