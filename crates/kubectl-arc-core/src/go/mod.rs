//! The Go mirror: what Go's libraries, Kubernetes' apimachinery and the API server do to ARC's
//! objects, each module naming the Go code it mirrors, step for step.
//!
//! Nothing here names ARC's rules ([`crate::arc`]): the rules are built on the mirror, never the
//! reverse (tests/hermetic/layers.rs). Every file here is a Go mirror for
//! tests/hermetic/function_length.rs (150 lines a function, against 100 elsewhere).

pub mod defaulting;
pub mod equality;
pub mod gotime;
pub mod gourl;
pub mod goyaml;
pub mod json;
pub mod layout;
pub mod legacy_hash;
pub mod manifest;
pub mod marshal;
pub mod names;
pub mod params;
pub mod quantity;
pub mod selector;
pub mod spelling;
pub mod value;
pub mod written;
