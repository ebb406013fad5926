//! `resource.Quantity` as Go decodes it: `Quantity::from_json` on the raw JSON value, then every
//! way the value is printed (String, MarshalJSON, go-spew) and compared (`Cmp`).
//!
//! Input: one raw JSON value, optionally NUL and a second one to compare with.
#![no_main]

use std::cmp::Ordering;

use libfuzzer_sys::fuzz_target;

use kubectl_arc_core::quantity::Quantity;

fn exercise(q: &Quantity) {
    let _ = q.canonical_string();
    let _ = q.canonicalize();
    let _ = q.marshal_json();
    let _ = q.to_string();
    let _ = q.spew();
    let _ = (q.is_zero(), q.sign());
    assert_eq!(q.go_cmp(q), Ordering::Equal);
    let mut copy = q.clone();
    let s = copy.go_string().to_string();
    assert_eq!(s, q.canonical_string());
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (a, b) = match text.split_once('\0') {
        Some((a, b)) => (a, Some(b)),
        None => (text, None),
    };
    let qa = Quantity::from_json(a);
    match &qa {
        Ok(q) => exercise(q),
        Err(e) => {
            let _ = (e.to_string(), e.go_message());
        }
    }
    // ParseQuantity itself, on the text as written.
    if let Ok(q) = Quantity::parse(a) {
        exercise(&q);
    }
    if let (Ok(qa), Some(Ok(qb))) = (&qa, b.map(Quantity::from_json)) {
        exercise(&qb);
        let _ = qa.go_cmp_checked(&qb);
        assert_eq!(qa.go_cmp(&qb), qb.go_cmp(qa).reverse(), "{a} vs {b:?}");
    }
});
