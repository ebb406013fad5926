#!/usr/bin/env python3
"""Print one JSON List of N copies of the shipped example's scale set and its EphemeralRunnerSet
(examples/scale-set-dump.yaml), with unique names, uids and labels, in one namespace: the input
of the `status -f` / `diff -f` scaling rows (scripts/bench-status.sh files). With RUNNERS, each
set also gets RUNNERS of the example's EphemeralRunners (cycled: busy, idle, idle, pending), owned
by it: the input of scripts/bench-impact.sh.

    scripts/scale-set-list.py 1000 > /tmp/sets-1000.json
    scripts/scale-set-list.py 10000 5 > /tmp/sets-and-runners.json
"""
import copy, json, os, sys

import yaml

n = int(sys.argv[1])
per_set = int(sys.argv[2]) if len(sys.argv) > 2 else 0
example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "scale-set-dump.yaml")
items = yaml.safe_load(open(example))["items"]
sets, runners = items[:2], items[2:]
old = items[0]["metadata"]["name"]
out = []
for i in range(n):
    name = f"{old}-{i:05d}"
    for item in copy.deepcopy(sets):
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
    for k in range(per_set):
        r = copy.deepcopy(runners[k % len(runners)])
        meta = r["metadata"]
        meta["name"] = f"{name}-runner-{k}"
        meta["uid"] = f"{meta['uid'][:-10]}{i:05d}{k:05d}"
        for ref in meta["ownerReferences"]:
            ref["name"] = name
        out.append(r)
json.dump({"apiVersion": "v1", "kind": "List", "items": out}, sys.stdout)
