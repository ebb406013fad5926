//! Seeded generators of runner-spec JSON for differential tests against the Go oracle.
//!
//! Each case starts from the realistic gha-runner-scale-set spec the oracle benchmarks on and
//! applies random mutations of the kinds that matter to ARC: nil vs empty collections at every
//! depth, quantities in every notation, pointers to empty structs, int-or-string ports,
//! timestamps in other zones, unknown and wrong-case keys, reordered keys, and real changes.

use serde_json::{Map, Value, json};

/// splitmix64: small, seeded, reproducible.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The seed for a test run: `KUBECTL_ARC_SEED` to reproduce a failure, else a fixed default.
pub fn seed() -> u64 {
    std::env::var("KUBECTL_ARC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x005e_eda1_1ce5)
}

pub fn realistic_spec() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/oracle/testdata/realistic-spec.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).expect("realistic spec")).unwrap()
}

/// A quantity in a random notation: mostly strings, sometimes JSON numbers.
pub fn quantity(rng: &mut Rng) -> Value {
    const FORMS: &[&str] = &[
        "0",
        "00",
        "0.0",
        "0m",
        "1",
        "01",
        "+1",
        "-1",
        "1.0",
        "1.5",
        "0.1",
        "0.5",
        "500m",
        "1000m",
        "100m",
        "2",
        "250m",
        "1e3",
        "1E3",
        "1e-3",
        "1.5e3",
        "2e0",
        "1k",
        "1000",
        "1.5k",
        "100M",
        "1Ki",
        "1024",
        "1Mi",
        "1024Ki",
        "1Gi",
        "1024Mi",
        "1.5Gi",
        "1536Mi",
        "8Gi",
        "4Gi",
        "2048Ki",
        "20Gi",
        "1Ti",
        "1Ei",
        "8Ei",
        "16Ei",
        "0.1n",
        "-0.1n",
        "1n",
        "1u",
        "123456789012345678901",
        "0.0000000000",
        "9223372036854775807",
        "9223372036854775808",
        "1.000000001",
        "7Pi",
        "999999999999999999",
        "1e18",
        "1e19",
        "12345678901234567890m",
        " 1 ",
        "3.14159",
        "2.5Mi",
        "0.5Gi",
        "1P",
        "1T",
        "1G",
        "1M",
        "1E",
        "64Mi",
        "128974848",
        "129e6",
        "129M",
        "123Mi",
    ];
    match rng.below(12) {
        0 => json!(rng.below(5000) as i64),
        1 => json!(rng.pick(&[0.5, 1.5, 0.25, 2.0, 1e3, 1e-3])),
        _ => json!(*rng.pick(FORMS)),
    }
}

/// Spellings of one number each: a strict comparison tells them apart, Semantic does not.
const SAME_QUANTITY: &[&[&str]] = &[
    &["1", "1000m", "1.0", "+1", "01", "1e0", "0.001k", "1000000u"],
    &["500m", "0.5", "0.50", "5e-1", "500000u"],
    &["1Gi", "1024Mi", "1048576Ki", "1073741824"],
    &["4Gi", "4096Mi", "4294967296"],
    &["1.5Gi", "1536Mi"],
    &["100M", "1e8", "100000k", "0.1G"],
    &["0", "0m", "0.0", "00", "0Gi", "0e3"],
];

/// The same quantity in another notation (or, rarely, a number from another class).
pub fn equivalent_quantity(rng: &mut Rng, current: &Value) -> Value {
    let text = current
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| current.to_string());
    let class = SAME_QUANTITY
        .iter()
        .find(|c| c.contains(&text.as_str()))
        .copied()
        .unwrap_or_else(|| *rng.pick(SAME_QUANTITY));
    json!(*rng.pick(class))
}

/// A random empty-ish value for a slice field: absent, null or [].
fn empty_list(rng: &mut Rng) -> Option<Value> {
    match rng.below(3) {
        0 => None,
        1 => Some(Value::Null),
        _ => Some(json!([])),
    }
}

fn empty_map(rng: &mut Rng) -> Option<Value> {
    match rng.below(3) {
        0 => None,
        1 => Some(Value::Null),
        _ => Some(json!({})),
    }
}

fn set(obj: &mut Value, key: &str, v: Option<Value>) {
    if let Some(m) = obj.as_object_mut() {
        match v {
            Some(v) => {
                m.insert(key.to_string(), v);
            }
            None => {
                m.shift_remove(key);
            }
        }
    }
}

fn containers(spec: &mut Value) -> Vec<&mut Value> {
    let mut out = Vec::new();
    if let Some(pod) = spec.get_mut("spec").and_then(Value::as_object_mut) {
        for (key, v) in pod.iter_mut() {
            if let ("containers" | "initContainers", Value::Array(cs)) = (key.as_str(), v) {
                out.extend(cs.iter_mut());
            }
        }
    }
    out
}

/// One of the spec's containers (init or not) picked by `rng`; None, drawing nothing, when there
/// is none.
fn any_container<'a>(rng: &mut Rng, spec: &'a mut Value) -> Option<&'a mut Value> {
    let mut cs = containers(spec);
    if cs.is_empty() {
        return None;
    }
    let n = rng.below(cs.len());
    Some(cs.swap_remove(n))
}

/// Apply one mutation that only a strict comparison sees (or none at all): nil vs empty,
/// another notation of the same quantity, reordered, unknown or wrong-case keys.
pub fn mutate_strict_only(rng: &mut Rng, spec: &mut Value) {
    match rng.below(6) {
        0 => mutate_kind(rng, spec, 0),
        1 => mutate_kind(rng, spec, 1),
        2 => mutate_kind(rng, spec, 2),
        3 => {
            let Some(c) = any_container(rng, spec) else {
                return;
            };
            let side = *rng.pick(&["limits", "requests"]);
            if let Some(Value::Object(m)) = c.get_mut("resources").and_then(|r| r.get_mut(side)) {
                let keys: Vec<String> = m.keys().cloned().collect();
                if let Some(k) = keys.get(rng.below(keys.len().max(1))) {
                    let q = equivalent_quantity(rng, &m[k]);
                    m.insert(k.clone(), q);
                }
            }
        }
        4 => mutate_kind(rng, spec, 11),
        _ => mutate_kind(rng, spec, 12),
    }
}

/// A mutation that Go's decoder rejects (a field of the wrong JSON type).
pub fn mutate_invalid(rng: &mut Rng, spec: &mut Value) {
    match rng.below(5) {
        0 => set(spec, "runnerScaleSetId", Some(json!("3"))),
        1 => set(spec, "runnerScaleSetId", Some(json!(1.5))),
        2 => set(&mut spec["spec"], "containers", Some(json!({"name": "x"}))),
        3 => {
            let mut cs = containers(spec);
            if let Some(c) = cs.first_mut() {
                c["name"] = json!(5);
            }
        }
        _ => {
            let mut cs = containers(spec);
            if let Some(c) = cs.first_mut() {
                c["resources"] = json!({"limits": {"cpu": "lots"}});
            }
        }
    }
}

/// Apply one random mutation in place.
pub fn mutate(rng: &mut Rng, spec: &mut Value) {
    let kind = rng.below(17);
    // Timestamps make Go's hash process-dependent: keep them rarer.
    let kind = if kind == 10 && !rng.chance(30) {
        12
    } else {
        kind
    };
    mutate_kind(rng, spec, kind)
}

fn mutate_kind(rng: &mut Rng, spec: &mut Value, kind: usize) {
    match kind {
        // nil vs empty slices inside a container
        0 => {
            let Some(c) = any_container(rng, spec) else {
                return;
            };
            let key = *rng.pick(&[
                "env",
                "command",
                "args",
                "ports",
                "volumeMounts",
                "envFrom",
                "volumeDevices",
            ]);
            let v = empty_list(rng);
            set(c, key, v);
        }
        // nil vs empty at pod level and in metadata
        1 => {
            let key = *rng.pick(&[
                "volumes",
                "tolerations",
                "imagePullSecrets",
                "initContainers",
                "hostAliases",
                "readinessGates",
            ]);
            let v = empty_list(rng);
            set(&mut spec["spec"], key, v);
        }
        2 => {
            let which = rng.below(4);
            let v = empty_map(rng);
            match which {
                0 => set(&mut spec["spec"], "nodeSelector", v),
                1 => set(&mut spec["metadata"], "labels", v),
                2 => set(&mut spec["metadata"], "annotations", v),
                _ => set(&mut spec["spec"], "overhead", v),
            }
        }
        // quantities in resources
        3 | 4 => {
            let Some(c) = any_container(rng, spec) else {
                return;
            };
            let side = *rng.pick(&["limits", "requests"]);
            let res = *rng.pick(&["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu"]);
            let q = quantity(rng);
            if !c["resources"].is_object() {
                c["resources"] = json!({});
            }
            if rng.chance(10) {
                let v = empty_map(rng);
                set(&mut c["resources"], side, v);
            } else {
                if !c["resources"][side].is_object() {
                    c["resources"][side] = json!({});
                }
                c["resources"][side][res] = q;
            }
        }
        // quantities elsewhere: emptyDir sizeLimit, divisor, PVC storage
        5 => {
            let q = quantity(rng);
            if let Some(Value::Array(vols)) = spec["spec"].get_mut("volumes")
                && let Some(v) = vols.iter_mut().find(|v| v.get("emptyDir").is_some())
            {
                if rng.chance(30) {
                    v["emptyDir"] = json!({});
                } else {
                    v["emptyDir"]["sizeLimit"] = q;
                }
            }
        }
        6 => {
            let q = quantity(rng);
            let mut cs = containers(spec);
            if let Some(c) = cs.first_mut() {
                c["env"] = json!([{"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": q}}}]);
            }
        }
        // pointers to empty structs vs nil
        7 => {
            let which = rng.below(6);
            let v = match rng.below(3) {
                0 => None,
                1 => Some(Value::Null),
                _ => Some(json!({})),
            };
            match which {
                0 => set(spec, "proxy", v),
                1 => set(spec, "githubServerTLS", v),
                2 => set(spec, "vaultConfig", v),
                3 => set(spec, "ephemeralRunnerConfigSecretMetadata", v),
                4 => set(&mut spec["spec"], "securityContext", v),
                _ => {
                    let mut cs = containers(spec);
                    if let Some(c) = cs.first_mut() {
                        set(c, "securityContext", v)
                    }
                }
            }
        }
        8 => {
            let v = match rng.below(4) {
                0 => None,
                1 => Some(json!(false)),
                2 => Some(json!(true)),
                _ => Some(Value::Null),
            };
            set(&mut spec["spec"], "automountServiceAccountToken", v);
        }
        // int-or-string ports
        9 => {
            let port = match rng.below(4) {
                0 => json!(8080),
                1 => json!("8080"),
                2 => json!("http"),
                _ => Value::Null,
            };
            let mut cs = containers(spec);
            if let Some(c) = cs.first_mut() {
                c["livenessProbe"] = json!({"httpGet": {"path": "/healthz", "port": port}});
            }
        }
        // timestamps
        10 => {
            let t = *rng.pick(&[
                "2024-01-01T00:00:00Z",
                "2024-01-01T01:00:00+01:00",
                "2023-12-31T19:00:00-05:00",
                "2024-01-01T00:00:00.5Z",
                "0001-01-01T00:00:00Z",
            ]);
            let v = if rng.chance(30) {
                Value::Null
            } else {
                json!(t)
            };
            set(&mut spec["metadata"], "creationTimestamp", Some(v));
        }
        // unknown and wrong-case keys
        11 => {
            let mut cs = containers(spec);
            if let Some(c) = cs.first_mut() {
                let key = *rng.pick(&["Image", "bogus", "IMAGE", "imagepullpolicy", "x-extra"]);
                set(c, key, Some(json!({"nested": [1, "two", null]})));
            }
            if rng.chance(50) {
                set(spec, "unknownTopLevel", Some(json!(42)));
            }
        }
        // reordered keys
        12 => reorder(rng, spec),
        // real changes
        13 => {
            let mut cs = containers(spec);
            if let Some(c) = cs.first_mut() {
                c["image"] = json!(format!(
                    "ghcr.io/actions/actions-runner:2.{}.0",
                    300 + rng.below(40)
                ));
            }
        }
        14 => {
            let mut cs = containers(spec);
            if let Some(c) = cs.first_mut() {
                let v = format!("v{}", rng.below(3));
                if let Some(Value::Array(env)) = c.get_mut("env") {
                    env.push(json!({"name": "EXTRA", "value": v}));
                } else {
                    c["env"] = json!([{"name": "EXTRA", "value": v}]);
                }
            }
        }
        15 => {
            if let Some(Value::Array(vols)) = spec["spec"].get_mut("volumes") {
                match rng.below(3) {
                    0 => {
                        vols.pop();
                    }
                    1 => vols.push(json!({"name": "cache", "hostPath": {"path": "/var/cache", "type": "DirectoryOrCreate"}})),
                    _ => vols.push(json!({"name": "secret", "secret": {"secretName": "s", "defaultMode": 384, "items": []}})),
                }
            }
        }
        _ => {
            let id = rng.below(3) as i64;
            set(spec, "runnerScaleSetId", Some(json!(id)));
        }
    }
}

/// Shuffle the keys of a random object somewhere in the document.
fn reorder(rng: &mut Rng, v: &mut Value) {
    if let Value::Object(m) = v {
        let mut entries: Vec<(String, Value)> = std::mem::take(m).into_iter().collect();
        for i in (1..entries.len()).rev() {
            let j = rng.below(i + 1);
            entries.swap(i, j);
        }
        let mut out = Map::new();
        for (k, mut v) in entries {
            if rng.chance(40) {
                reorder(rng, &mut v);
            }
            out.insert(k, v);
        }
        *m = out;
    } else if let Value::Array(items) = v {
        for item in items {
            if rng.chance(40) {
                reorder(rng, item);
            }
        }
    }
}

/// A pair of specs: a random start, and a copy of it with further mutations.
pub fn pair(rng: &mut Rng, base: &Value) -> (String, String) {
    let mut a = base.clone();
    for _ in 0..rng.below(5) {
        mutate(rng, &mut a);
    }
    let mut b = a.clone();
    match rng.below(100) {
        // Half the pairs differ only in ways Semantic equality ignores (or not at all).
        0..=49 => {
            for _ in 0..rng.below(4) {
                mutate_strict_only(rng, &mut b);
            }
        }
        50..=51 => mutate_invalid(rng, &mut b),
        _ => {
            for _ in 0..1 + rng.below(3) {
                mutate(rng, &mut b);
            }
        }
    }
    let text = |v: &Value, rng: &mut Rng| {
        if rng.chance(20) {
            serde_json::to_string_pretty(v).unwrap()
        } else {
            serde_json::to_string(v).unwrap()
        }
    };
    (text(&a, rng), text(&b, rng))
}

/// Quantities Go writes in another form (`Quantity.MarshalJSON` writes the canonical one and
/// the input was not cached): each makes an integrity-hash-era ARC loop.
const NON_CANONICAL_QUANTITIES: &[&str] = &[
    "1000m", "0.5", "1.5Gi", "1024Mi", "4000m", "2000m", "0.25", "1.0", "1000", "2048Ki", "0.5Gi",
    "100000k", "1.5e3", "0m", "00", "0.1",
];

/// Quantities Go writes exactly as they decoded (canonical, or cached as written).
const KEPT_QUANTITIES: &[&str] = &[
    "8Gi", "8192Mi", "4", "500m", "1e3", "1", "2Gi", "128Mi", "1k", "0", "1E3", "1536Mi", "100M",
    "+1", "01", "1e6",
];

/// Marks a JSON string that [`round_trip_template`] turns into the bare number it holds, so that
/// number literals like `1e3` reach Go as written (serde_json would print `1000.0`).
const NUMBER_MARK: &str = "#number#";

/// A quantity for a round-trip case: a non-canonical or a kept notation, as a string or (where
/// it is one) a JSON number.
fn round_trip_quantity(rng: &mut Rng) -> Value {
    let text = if rng.chance(50) {
        *rng.pick(NON_CANONICAL_QUANTITIES)
    } else {
        *rng.pick(KEPT_QUANTITIES)
    };
    // A manifest's `cpu: 0.5` or `cpu: 1000` reaches the API server as a JSON number.
    let is_json_number = serde_json::from_str::<Value>(text).is_ok_and(|v| v.is_number());
    if is_json_number && rng.chance(30) {
        json!(format!("{NUMBER_MARK}{text}"))
    } else {
        json!(text)
    }
}

/// Apply one change of the kinds that decide the integrity-hash recycle loop: empty lists and maps
/// under `omitempty` (and without it), non-canonical and kept quantities at every kind of place,
/// pointers to empty structs, file modes, times, a `resourceFieldRef` with and without `divisor`,
/// int-or-string ports, and map keys that need quoting in a path.
pub fn mutate_round_trip(rng: &mut Rng, spec: &mut Value) {
    if !spec["spec"].is_object() {
        spec["spec"] = json!({"containers": [{"name": "runner", "image": "img"}]});
    }
    match rng.below(16) {
        // Lists inside a container: omitempty ones and `[]` vs absent vs null.
        0 => {
            let Some(c) = any_container(rng, spec) else {
                return;
            };
            let key = *rng.pick(&[
                "env",
                "args",
                "command",
                "ports",
                "volumeMounts",
                "envFrom",
                "volumeDevices",
                "resizePolicy",
            ]);
            let v = empty_list(rng);
            set(c, key, v);
        }
        // Lists of the pod spec.
        1 => {
            let key = *rng.pick(&[
                "tolerations",
                "imagePullSecrets",
                "schedulingGates",
                "volumes",
                "initContainers",
                "hostAliases",
                "readinessGates",
                "topologySpreadConstraints",
                "resourceClaims",
                "ephemeralContainers",
            ]);
            let v = empty_list(rng);
            set(&mut spec["spec"], key, v);
        }
        // Maps.
        2 => {
            let v = empty_map(rng);
            match rng.below(6) {
                0 => set(&mut spec["spec"], "nodeSelector", v),
                1 => {
                    if !spec["metadata"].is_object() {
                        spec["metadata"] = json!({});
                    }
                    set(&mut spec["metadata"], "labels", v)
                }
                2 => {
                    if !spec["metadata"].is_object() {
                        spec["metadata"] = json!({});
                    }
                    set(&mut spec["metadata"], "annotations", v)
                }
                3 => set(&mut spec["spec"], "overhead", v),
                _ => {
                    let Some(c) = any_container(rng, spec) else {
                        return;
                    };
                    if !c["resources"].is_object() {
                        c["resources"] = json!({});
                    }
                    let side = *rng.pick(&["limits", "requests"]);
                    set(&mut c["resources"], side, v);
                }
            }
        }
        // Quantities in container resources, some under names that need quoting.
        3 | 4 => {
            let Some(c) = any_container(rng, spec) else {
                return;
            };
            let side = *rng.pick(&["limits", "requests"]);
            let res = *rng.pick(&["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu"]);
            let q = round_trip_quantity(rng);
            if !c["resources"].is_object() {
                c["resources"] = json!({});
            }
            if !c["resources"][side].is_object() {
                c["resources"][side] = json!({});
            }
            c["resources"][side][res] = q;
        }
        // A pointer quantity (emptyDir sizeLimit) and the pod overhead.
        5 => {
            let q = round_trip_quantity(rng);
            if rng.chance(50) {
                let vols = &mut spec["spec"]["volumes"];
                if !vols.is_array() {
                    *vols = json!([]);
                }
                let vols = vols.as_array_mut().unwrap();
                vols.push(json!({"name": format!("scratch{}", vols.len()), "emptyDir": {"medium": "Memory", "sizeLimit": q}}));
            } else {
                spec["spec"]["overhead"] = json!({"cpu": q});
            }
        }
        // resourceFieldRef: the absent divisor is the zero Quantity, written as "0".
        6 => {
            let Some(c) = any_container(rng, spec) else {
                return;
            };
            let mut selector = json!({"resource": "limits.memory"});
            match rng.below(3) {
                0 => {}
                1 => selector["divisor"] = round_trip_quantity(rng),
                _ => selector["divisor"] = json!(*rng.pick(&["1Mi", "1", "0", "1m"])),
            }
            let var = json!({"name": "MEM", "valueFrom": {"resourceFieldRef": selector}});
            match c.get_mut("env") {
                Some(Value::Array(env)) => env.push(var),
                _ => c["env"] = json!([var]),
            }
        }
        // Pointers to empty structs (kept) and false booleans behind pointers.
        7 => {
            let which = rng.below(4);
            match which {
                0 => set(&mut spec["spec"], "securityContext", Some(json!({}))),
                1 => {
                    if let Some(c) = any_container(rng, spec) {
                        set(c, "securityContext", Some(json!({})))
                    }
                }
                2 => set(spec, "proxy", Some(json!({}))),
                _ => set(
                    &mut spec["spec"],
                    "automountServiceAccountToken",
                    Some(json!(false)),
                ),
            }
        }
        // File modes (0644 in YAML is 420 in JSON) and items without omitempty trouble.
        8 => {
            let vols = &mut spec["spec"]["volumes"];
            if !vols.is_array() {
                *vols = json!([]);
            }
            let vols = vols.as_array_mut().unwrap();
            let mode = *rng.pick(&[420, 493, 256, 0o600, 511]);
            let items = match rng.below(3) {
                0 => json!([]),
                1 => json!([{"key": "k", "path": "p", "mode": mode}]),
                _ => Value::Null,
            };
            vols.push(json!({"name": format!("cfg{}", vols.len()), "configMap": {"name": "c", "defaultMode": mode, "items": items}}));
        }
        // Times: fractions are dropped, the zero instant is left out, offsets become UTC.
        9 => {
            let t = *rng.pick(&[
                "2024-01-01T00:00:00Z",
                "2024-01-01T00:00:00.5Z",
                "2024-01-01T01:00:00.000000001+01:00",
                "2023-12-31T19:00:00-05:00",
                "0001-01-01T00:00:00Z",
                "9999-12-31T23:30:00-01:00",
            ]);
            if !spec["metadata"].is_object() {
                spec["metadata"] = json!({});
            }
            spec["metadata"]["creationTimestamp"] = json!(t);
        }
        // Lists deeper down, with and without omitempty.
        10 => {
            let affinity = match rng.below(3) {
                0 => {
                    json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}})
                }
                1 => {
                    json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [], "matchFields": null}]}}})
                }
                _ => {
                    json!({"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {"topologyKey": "k", "namespaces": [], "labelSelector": {"matchLabels": {}}}}]}})
                }
            };
            spec["spec"]["affinity"] = affinity;
        }
        11 => {
            let Some(c) = any_container(rng, spec) else {
                return;
            };
            c["livenessProbe"] = match rng.below(3) {
                0 => json!({"exec": {"command": []}}),
                1 => json!({"httpGet": {"path": "/", "port": "http", "httpHeaders": []}}),
                _ => json!({"tcpSocket": {"port": 8080}, "periodSeconds": 0}),
            };
        }
        // Int-or-string ports.
        12 => {
            let Some(c) = any_container(rng, spec) else {
                return;
            };
            let port = match rng.below(4) {
                0 => json!(8080),
                1 => json!("8080"),
                2 => json!("http"),
                _ => Value::Null,
            };
            c["readinessProbe"] = json!({"httpGet": {"port": port}});
        }
        // Keys that need quoting in a path.
        13 => {
            if !spec["metadata"].is_object() {
                spec["metadata"] = json!({});
            }
            let key = *rng.pick(&["app.kubernetes.io/name", "a b", "x", "", "é", "q\"uote"]);
            spec["metadata"]["labels"] = json!({key: "v"});
            if rng.chance(50) {
                spec["spec"]["nodeSelector"] = json!({key: ""});
            }
        }
        // Empty scalars and strings that stay.
        14 => {
            if let Some(c) = any_container(rng, spec) {
                c["env"] = json!([{"name": "EMPTY", "value": ""}, {"name": "HTML", "value": "<a&b>\u{2028}"}]);
            }
        }
        // An empty-string-keyed resource list and a downward API volume.
        _ => {
            let vols = &mut spec["spec"]["volumes"];
            if !vols.is_array() {
                *vols = json!([]);
            }
            let vols = vols.as_array_mut().unwrap();
            let item = if rng.chance(50) {
                json!({"path": "cpu", "resourceFieldRef": {"containerName": "runner", "resource": "limits.cpu"}})
            } else {
                json!({"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}})
            };
            vols.push(
                json!({"name": format!("podinfo{}", vols.len()), "downwardAPI": {"items": [item]}}),
            );
        }
    }
}

/// A runner template for round-trip tests: the realistic spec with general mutations, then
/// round-trip changes (often several, to combine triggers and non-triggers), sometimes from an
/// almost empty spec.
pub fn round_trip_template(rng: &mut Rng, base: &Value) -> String {
    let mut spec = if rng.chance(15) {
        json!({"githubConfigUrl": "https://github.com/o", "spec": {"containers": [{"name": "runner", "image": "img"}]}})
    } else {
        base.clone()
    };
    for _ in 0..rng.below(3) {
        mutate(rng, &mut spec);
    }
    // A third of the templates get no round-trip change at all beyond the general mutations.
    if !rng.chance(33) {
        for _ in 0..1 + rng.below(4) {
            mutate_round_trip(rng, &mut spec);
        }
    }
    let mut text = if rng.chance(20) {
        serde_json::to_string_pretty(&spec).unwrap()
    } else {
        serde_json::to_string(&spec).unwrap()
    };
    for number in NON_CANONICAL_QUANTITIES.iter().chain(KEPT_QUANTITIES) {
        text = text.replace(&format!("\"{NUMBER_MARK}{number}\""), number);
    }
    text
}
