//! ARC's legacy integrity hash (`integrity_hash`) and the go-spew text behind it (`spew`), on
//! decoded EphemeralRunnerSpecs and on desired specs built from decoded AutoscalingRunnerSetSpecs.
//!
//! Two independent checks: the hash must be FNV-32a of the spew text (the jump-table shortcut must
//! hash exactly the bytes it prints), and ARC's shipped layout (which prints through its cached
//! plan of fixed texts) must print exactly what a private copy of it prints piece by piece.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;

use kubectl_arc_core::desired::desired_runner_spec;
use kubectl_arc_core::layout::Layout;
use kubectl_arc_core::legacy_hash::{integrity_hash, spew};
use kubectl_arc_core::value::{Value, decode};

mod fnv;

/// ARC's pin, loaded again: not the shipped object, so it has no plan.
static COPY: LazyLock<Layout> = LazyLock::new(|| {
    Layout::from_json(include_str!("../../crates/kubectl-arc-core/src/layouts/k8s-api-v0.36.2.json")).unwrap()
});

fn check(planned: &Value, plain: &Value) {
    let arc = Layout::arc();
    let copy = &*COPY;
    let text = spew(arc, planned);
    let hash = integrity_hash(arc, planned);
    match (&text, &hash) {
        (Ok(text), Ok(hash)) => {
            assert_eq!(*hash, fnv::fnv_safe_encoded(text.as_bytes()), "{text}");
            assert_eq!(spew(copy, plain).as_ref(), Ok(text));
            assert_eq!(integrity_hash(copy, plain).as_ref(), Ok(hash));
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b);
            assert!(spew(copy, plain).is_err());
            assert!(integrity_hash(copy, plain).is_err());
        }
        _ => panic!("spew {text:?} and hash {hash:?} disagree"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let arc = Layout::arc();
    let copy = &*COPY;
    // An EphemeralRunnerSet's stored spec.
    if let Ok(planned) = decode(arc, arc.ephemeral_runner_spec, text) {
        let plain = decode(copy, copy.ephemeral_runner_spec, text).unwrap();
        check(&planned, &plain);
    }
    // The desired spec ARC builds from an AutoscalingRunnerSet.
    if let Ok(planned) = desired_runner_spec(arc, text, Some("7")) {
        let plain = desired_runner_spec(copy, text, Some("7")).unwrap();
        check(&planned, &plain);
    }
});
