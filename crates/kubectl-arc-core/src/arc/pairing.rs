//! Which EphemeralRunnerSet belongs to an AutoscalingRunnerSet, found as ARC's controller finds it.
//!
//! Pure core. Mirrors ARC's `(*AutoscalingRunnerSetReconciler).listEphemeralRunnerSets`
//! (controllers/actions.github.com/autoscalingrunnerset_controller.go): the sets are listed through
//! a field index on the name of their controller owner reference of kind AutoscalingRunnerSet, and
//! `EphemeralRunnerSets.latest()` is the one with the newest `creationTimestamp` (`sort.Slice` by
//! `After`); the others are `old()` and are deleted. Every ARC release up to 0.14.x creates the set
//! with `generateName: <ars>-` and replaces it on a spec change, so a cluster or a dump can hold
//! several; later releases use the AutoscalingRunnerSet's own name.
//!
//! Where no set carries a controller owner reference (hand-made dumps, objects stripped of their
//! metadata), ARC's labels `actions.github.com/scale-set-name` and `-namespace` pair them, and
//! last the same name.

/// ARC's label with the scale set's name on the sets it makes (`LabelKeyGitHubScaleSetName`).
pub const LABEL_SCALE_SET_NAME: &str = "actions.github.com/scale-set-name";
/// ARC's label with the scale set's namespace (`LabelKeyGitHubScaleSetNamespace`).
pub const LABEL_SCALE_SET_NAMESPACE: &str = "actions.github.com/scale-set-namespace";

/// What the pairing needs of an AutoscalingRunnerSet.
#[derive(Debug, Clone, Copy)]
pub struct ScaleSet<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    /// Known for live objects, absent for a render.
    pub uid: Option<&'a str>,
}

/// What the pairing needs of an EphemeralRunnerSet.
#[derive(Debug, Clone, Copy)]
pub struct RunnerSet<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    /// The controller owner reference: (apiVersion, kind, name, uid).
    pub owner: Option<(&'a str, &'a str, &'a str, &'a str)>,
    pub label_name: Option<&'a str>,
    pub label_namespace: Option<&'a str>,
    /// RFC 3339, as the API server writes it.
    pub creation_timestamp: Option<&'a str>,
    pub deleting: bool,
}

/// How a set was found to belong to its scale set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "PascalCase")]
pub enum PairedBy {
    /// Its controller owner reference carries the AutoscalingRunnerSet's uid.
    OwnerUid,
    /// Its controller owner reference names the AutoscalingRunnerSet (kind and name).
    OwnerName,
    /// ARC's scale-set name and namespace labels.
    Labels,
    /// The same name (no owner reference, no labels).
    Name,
}

/// The sets of one scale set: the one ARC uses, and the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pairing {
    /// Index of the set ARC uses (`latest()`).
    pub chosen: usize,
    pub by: PairedBy,
    /// Indexes of the other sets of the same scale set (`old()`: ARC deletes them), newest first.
    pub replaced: Vec<usize>,
    /// Two sets share the newest creation time: ARC's `sort.Slice` may pick either.
    pub ambiguous: bool,
}

impl Pairing {
    /// The next release's choice: `AutoscalingRunnerSetReconciler.Reconcile` (2ee6b3b8, ARC
    /// #4516) gets the set by the scale set's own name, whichever is newest, so the set named
    /// `scale_set` among those paired (`name_of` an index) becomes the chosen one and the others
    /// stay beside it; unchanged when none is named so.
    pub fn named_like(mut self, scale_set: &str, name_of: impl Fn(usize) -> String) -> Pairing {
        let Some(at) = self.replaced.iter().position(|&i| name_of(i) == scale_set) else {
            return self;
        };
        let own = self.replaced.remove(at);
        self.replaced.insert(0, self.chosen);
        self.chosen = own;
        self.ambiguous = false;
        self
    }
}

/// Whether an owner reference points at an AutoscalingRunnerSet of ARC's group.
fn owned_by_scale_set(api_version: &str, kind: &str) -> bool {
    kind == "AutoscalingRunnerSet" && api_version.split('/').next() == Some(crate::arc::GROUP)
}

/// One pairing rule: whether a set belongs to the scale set by it.
type Rule<'r> = dyn Fn(&RunnerSet<'_>) -> bool + 'r;

/// Find the sets of `scale_set` among `sets` (any namespace; only its own counts).
pub fn pair(scale_set: ScaleSet<'_>, sets: &[RunnerSet<'_>]) -> Option<Pairing> {
    let same_ns = |s: &&RunnerSet<'_>| s.namespace == scale_set.namespace;
    let owned = |by_uid: bool| {
        move |s: &RunnerSet<'_>| match s.owner {
            Some((api_version, kind, name, uid)) if owned_by_scale_set(api_version, kind) => {
                if by_uid {
                    scale_set.uid.is_some_and(|u| !uid.is_empty() && u == uid)
                } else {
                    name == scale_set.name
                }
            }
            _ => false,
        }
    };
    let rules: [(PairedBy, &Rule<'_>); 4] = [
        (PairedBy::OwnerUid, &owned(true)),
        (PairedBy::OwnerName, &owned(false)),
        (PairedBy::Labels, &|s: &RunnerSet<'_>| {
            s.owner.is_none()
                && s.label_name == Some(scale_set.name)
                && s.label_namespace.is_none_or(|ns| ns == scale_set.namespace)
        }),
        (PairedBy::Name, &|s: &RunnerSet<'_>| {
            s.owner.is_none() && s.label_name.is_none() && s.name == scale_set.name
        }),
    ];
    for (by, matches) in rules {
        let mut found: Vec<usize> = sets
            .iter()
            .enumerate()
            .filter(|(_, s)| same_ns(s) && matches(s))
            .map(|(i, _)| i)
            .collect();
        if found.is_empty() {
            continue;
        }
        // Newest first, as `latest()` sorts; among equals, the one not being deleted, then by name
        // so that the answer is at least stable.
        found.sort_by(|&a, &b| {
            let (a, b) = (&sets[a], &sets[b]);
            b.creation_timestamp
                .cmp(&a.creation_timestamp)
                .then(a.deleting.cmp(&b.deleting))
                .then(a.name.cmp(b.name))
        });
        let ambiguous = found.len() > 1
            && sets[found[0]].creation_timestamp == sets[found[1]].creation_timestamp;
        return Some(Pairing {
            chosen: found[0],
            by,
            replaced: found[1..].to_vec(),
            ambiguous,
        });
    }
    None
}

/// The sets indexed once by what [`pair`] matches them on (controller owner uid and name, ARC's
/// scale-set name label, their own name, each within a namespace), so that pairing many scale sets
/// costs each the few sets that could be theirs instead of all of them. [`Index::pair`] answers
/// exactly as [`pair`] over all the sets.
pub struct Index<'s, 'a> {
    sets: &'s [RunnerSet<'a>],
    /// (namespace, a uid or name a rule matches on) → the sets, in their order.
    by: std::collections::HashMap<(&'a str, &'a str), Vec<usize>>,
}

impl<'s, 'a> Index<'s, 'a> {
    pub fn new(sets: &'s [RunnerSet<'a>]) -> Self {
        let mut by: std::collections::HashMap<(&'a str, &'a str), Vec<usize>> =
            std::collections::HashMap::new();
        for (i, s) in sets.iter().enumerate() {
            let mut keys: [Option<&'a str>; 2] = [None, None];
            match s.owner {
                Some((api_version, kind, name, uid)) => {
                    if owned_by_scale_set(api_version, kind) {
                        keys = [Some(name), (!uid.is_empty()).then_some(uid)];
                    }
                }
                None => keys = [Some(s.label_name.unwrap_or(s.name)), None],
            }
            for key in keys.into_iter().flatten() {
                let list = by.entry((s.namespace, key)).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
        Index { sets, by }
    }

    /// [`pair`] over the indexed sets, looking only at those that could match.
    pub fn pair(&self, scale_set: ScaleSet<'_>) -> Option<Pairing> {
        let mut candidates: Vec<usize> = [Some(scale_set.name), scale_set.uid]
            .into_iter()
            .flatten()
            .filter_map(|key| self.by.get(&(scale_set.namespace, key)))
            .flatten()
            .copied()
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        let subset: Vec<RunnerSet<'a>> = candidates.iter().map(|&i| self.sets[i]).collect();
        let p = pair(scale_set, &subset)?;
        Some(Pairing {
            chosen: candidates[p.chosen],
            replaced: p.replaced.iter().map(|&i| candidates[i]).collect(),
            ..p
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARS: ScaleSet<'static> = ScaleSet {
        namespace: "arc",
        name: "linux",
        uid: Some("u-1"),
    };

    fn set(name: &'static str, created: &'static str) -> RunnerSet<'static> {
        RunnerSet {
            namespace: "arc",
            name,
            owner: Some((
                "actions.github.com/v1alpha1",
                "AutoscalingRunnerSet",
                "linux",
                "u-1",
            )),
            label_name: Some("linux"),
            label_namespace: Some("arc"),
            creation_timestamp: Some(created),
            deleting: false,
        }
    }

    #[test]
    fn generated_names_pair_by_owner_and_the_newest_is_used() {
        let old = RunnerSet {
            deleting: true,
            ..set("linux-x7k2p", "2026-01-01T00:00:00Z")
        };
        let new = set("linux-9fzqd", "2026-01-02T00:00:00Z");
        let other = RunnerSet {
            owner: Some((
                "actions.github.com/v1alpha1",
                "AutoscalingRunnerSet",
                "gpu",
                "u-2",
            )),
            ..set("gpu-abcde", "2026-01-03T00:00:00Z")
        };
        let p = pair(ARS, &[old, other, new]).unwrap();
        assert_eq!(
            p,
            Pairing {
                chosen: 2,
                by: PairedBy::OwnerUid,
                replaced: vec![0],
                ambiguous: false
            }
        );
        // A render has no uid: the owner's name pairs.
        let render = ScaleSet { uid: None, ..ARS };
        assert_eq!(pair(render, &[old, new]).unwrap().by, PairedBy::OwnerName);
    }

    #[test]
    fn labels_then_name_when_there_is_no_owner() {
        let labelled = RunnerSet {
            owner: None,
            ..set("whatever", "2026-01-01T00:00:00Z")
        };
        assert_eq!(pair(ARS, &[labelled]).unwrap().by, PairedBy::Labels);
        let bare = RunnerSet {
            owner: None,
            label_name: None,
            label_namespace: None,
            ..set("linux", "2026-01-01T00:00:00Z")
        };
        assert_eq!(pair(ARS, &[bare]).unwrap().by, PairedBy::Name);
        let elsewhere = RunnerSet {
            namespace: "other",
            ..bare
        };
        assert_eq!(pair(ARS, &[elsewhere]), None);
        // A set owned by another scale set is never taken for this one's, even by name.
        let foreign = RunnerSet {
            owner: Some((
                "actions.github.com/v1alpha1",
                "AutoscalingRunnerSet",
                "gpu",
                "u-2",
            )),
            ..set("linux", "2026-01-01T00:00:00Z")
        };
        assert_eq!(pair(ARS, &[foreign]), None);
    }

    #[test]
    fn equal_creation_times_are_ambiguous() {
        let a = set("linux-aaaaa", "2026-01-01T00:00:00Z");
        let b = set("linux-bbbbb", "2026-01-01T00:00:00Z");
        let p = pair(ARS, &[b, a]).unwrap();
        assert!(p.ambiguous);
        assert_eq!(p.chosen, 1, "stable by name");
    }

    /// The index answers as `pair` over every set, for every scale set, on sets drawn from every
    /// shape a rule looks at (owners by uid and name, foreign owners, labels, bare names, other
    /// namespaces, equal creation times).
    #[test]
    fn the_index_pairs_exactly_as_pair_over_all_sets() {
        const NS: [&str; 2] = ["arc", "other"];
        const NAMES: [&str; 4] = ["linux", "gpu", "linux-x7k2p", "u-1"];
        const UIDS: [&str; 3] = ["u-1", "u-2", ""];
        const TIMES: [&str; 3] = [
            "2026-01-01T00:00:00Z",
            "2026-01-02T00:00:00Z",
            "2026-01-02T00:00:00Z",
        ];
        let mut decided_by = std::collections::BTreeSet::new();
        let mut next = crate::xorshift(0x2545_f491_4f6c_dd1du64);
        // Many small lists, so that every rule is the one that decides in some of them (in a
        // long list an owner by uid or name nearly always decides first).
        for trial in 0..3_000 {
            let len = next(7);
            let mut sets = Vec::new();
            for _ in 0..len {
                let owner = match next(5) {
                    0 | 1 => None,
                    2 => Some(("apps/v1", "Deployment", NAMES[next(4)], UIDS[next(3)])),
                    _ => Some((
                        "actions.github.com/v1alpha1",
                        "AutoscalingRunnerSet",
                        NAMES[next(4)],
                        UIDS[next(3)],
                    )),
                };
                sets.push(RunnerSet {
                    namespace: NS[next(2)],
                    name: NAMES[next(4)],
                    owner,
                    label_name: (next(3) > 0).then(|| NAMES[next(4)]),
                    label_namespace: [None, Some("arc"), Some("other")][next(3)],
                    creation_timestamp: (next(5) > 0).then(|| TIMES[next(3)]),
                    deleting: next(4) == 0,
                });
            }
            let index = Index::new(&sets);
            for namespace in NS {
                for name in NAMES {
                    for uid in [None, Some("u-1"), Some("u-2"), Some("")] {
                        let scale_set = ScaleSet {
                            namespace,
                            name,
                            uid,
                        };
                        let want = pair(scale_set, &sets);
                        if let Some(p) = &want {
                            decided_by.insert(format!("{:?}", p.by));
                        }
                        assert_eq!(
                            index.pair(scale_set),
                            want,
                            "trial {trial}: {scale_set:?} over {sets:?}"
                        );
                    }
                }
            }
        }
        assert_eq!(
            decided_by.len(),
            4,
            "every rule decided some: {decided_by:?}"
        );
    }

    /// The next release uses the set named like its scale set even when a 0.14 set
    /// (`<scale set>-xxxxx`) is newer (ARC #4516).
    #[test]
    fn the_next_release_takes_the_set_named_like_its_scale_set() {
        let names = ["runners", "runners-x7k2p"];
        let p = Pairing {
            chosen: 1,
            by: PairedBy::OwnerUid,
            replaced: vec![0],
            ambiguous: true,
        };
        let named = p.clone().named_like("runners", |i| names[i].to_string());
        assert_eq!(
            (named.chosen, named.replaced, named.ambiguous),
            (0, vec![1], false)
        );
        let unchanged = p.named_like("other", |i| names[i].to_string());
        assert_eq!((unchanged.chosen, unchanged.replaced), (1, vec![0]));
    }
}
