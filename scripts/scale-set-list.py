#!/usr/bin/env python3
"""Print one JSON List of N copies of the shipped example's scale set and its EphemeralRunnerSet
(examples/scale-set-dump.yaml), with unique names, uids and labels, in one namespace: the input
of the `status -f` / `diff -f` scaling rows (scripts/bench-status.sh files).

    scripts/scale-set-list.py 1000 > /tmp/sets-1000.json
"""
import copy, json, os, sys

import yaml

n = int(sys.argv[1])
example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "scale-set-dump.yaml")
items = yaml.safe_load(open(example))["items"]
old = items[0]["metadata"]["name"]
out = []
for i in range(n):
    name = f"{old}-{i:05d}"
    for item in copy.deepcopy(items):
        meta = item["metadata"]
        meta["name"] = name
        for key in ("annotations", "labels"):
            for k, v in (meta.get(key) or {}).items():
                if v == old:
                    meta[key][k] = name
        for ref in meta.get("ownerReferences") or []:
            ref["name"] = name
            ref["uid"] = f"{ref['uid'][:-5]}{i:05d}"
        out.append(item)
json.dump({"apiVersion": "v1", "kind": "List", "items": out}, sys.stdout)
