#!/usr/bin/env python3
"""Write one JSON List of N copies of the shipped example's scale set and its set, all in one
namespace (arc-runners), named arc-runner-set-0 ... : the shape of diff's pairing cost (issue 21,
point 5). Usage: scripts/gen-one-namespace.py N OUT.json"""
import copy, json, sys

import yaml

n, out = int(sys.argv[1]), sys.argv[2]
with open("examples/scale-set-dump.yaml") as f:
    dump = yaml.safe_load(f)
ars, ers = dump["items"][:2]  # the scale set and its set (the example's runners are left out)
items = []
for i in range(n):
    name = f"arc-runner-set-{i}"
    a = copy.deepcopy(ars)
    a["metadata"]["name"] = name
    a["metadata"]["uid"] = f"00000000-0000-4000-8000-{i:012d}"
    e = copy.deepcopy(ers)
    e["metadata"]["name"] = f"{name}-x7k2p"
    for ref in e["metadata"].get("ownerReferences", []):
        ref["name"] = name
        ref["uid"] = a["metadata"]["uid"]
    labels = e["metadata"].setdefault("labels", {})
    labels["actions.github.com/scale-set-name"] = name
    items += [a, e]
with open(out, "w") as f:
    json.dump({"apiVersion": "v1", "kind": "List", "items": items}, f, indent=2)
