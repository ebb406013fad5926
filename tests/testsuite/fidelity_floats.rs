//! Differential test of Go's float formatting (issue 15, class 5): `strconv.FormatFloat(f, 'g',
//! -1, 64)` ([`go_format_g`]) and encoding/json's float encoding ([`go_float`]: 'f' or 'e' by
//! exponent range) against the oracle's `formatFloat`, on random bits, exact ties between two
//! shortest candidates, powers of two (an uneven rounding interval), short decimals and
//! subnormals.

use crate::common::oracle::Oracle;
use crate::common::specgen::{self, Rng};
use kubectl_arc::core::goyaml::{go_float, go_format_g};
use serde_json::{Value, json};

const CASES: usize = 20_000;

fn float_case(rng: &mut Rng) -> f64 {
    match rng.below(6) {
        0 => f64::from_bits(rng.next()),
        // k + m/2^j near 2^50..2^53: ties between two 17-digit candidates.
        1 => {
            let k = (1u64 << (50 + rng.below(3))) + (rng.next() % 1_000_000);
            k as f64 + (rng.below(4) as f64) * 0.25
        }
        // Powers of two and their neighbours.
        2 => {
            let p = 2f64.powi(rng.below(2000) as i32 - 1000);
            let bits = p
                .to_bits()
                .wrapping_add(rng.below(3) as u64)
                .wrapping_sub(1);
            f64::from_bits(bits)
        }
        // Short decimals in every range.
        3 => {
            let mantissa = rng.below(100_000) as f64;
            mantissa * 10f64.powi(rng.below(60) as i32 - 30)
        }
        // Subnormals.
        4 => f64::from_bits(rng.next() % (1u64 << 52)),
        // Integers around 2^63 and 2^64.
        _ => (rng.next() >> rng.below(12)) as f64,
    }
}

#[test]
fn float_formatting_agrees_with_go() {
    let mut oracle = Oracle::spawn("v0.36");
    let seed = specgen::seed() ^ 0x0f10_a705;
    let mut rng = Rng::new(seed);
    let mut floats: Vec<f64> = (0..CASES).map(|_| float_case(&mut rng)).collect();
    floats.extend([
        f64::from_bits(0x4310_0000_0000_0001),
        0.0,
        -0.0,
        5e-324,
        f64::MAX,
        1e21,
        1e-7,
    ]);
    let answers = oracle.ask_all(
        &floats
            .iter()
            .map(|f| json!({"op": "formatFloat", "bits": format!("{:x}", f.to_bits())}))
            .collect::<Vec<_>>(),
    );
    let mut checked = 0;
    for (f, go) in floats.iter().zip(&answers) {
        let ctx = || format!("seed {seed} bits {:#x} ({f:e}): Go {go}", f.to_bits());
        assert_eq!(go_format_g(*f), go["g"].as_str().unwrap(), "{}", ctx());
        match go.get("json").and_then(Value::as_str) {
            Some(j) => assert_eq!(go_float(*f), j, "{}", ctx()),
            None => assert!(!f.is_finite(), "{}", ctx()),
        }
        checked += 1;
    }
    eprintln!("floats: {checked} formatted as strconv 'g' and encoding/json do ({checked} agree)");
}
