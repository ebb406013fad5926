//! The pure core: what kubectl-arc shares with ARC's Go controller.
//!
//! Everything here takes data and returns data: no I/O, no clock, no tokio. Each shared rule names
//! the Go function it mirrors, and differential tests compare it with the Go oracle (tests/oracle).

pub mod arc;
pub mod desired;
pub mod drift;
pub mod equality;
pub mod gotime;
pub mod gourl;
pub mod goyaml;
pub mod json;
pub mod layout;
pub mod legacy_hash;
pub mod marshal;
pub mod migrate;
pub mod names;
pub mod pairing;
pub mod quantity;
pub mod recycle_loop;
pub mod revision;
pub mod runners;
pub mod selector;
pub mod status;
pub mod value;
