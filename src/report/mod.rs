//! What an operation found and how the run went, below both the operations that make it and the
//! renderers that write it (issue 21): `ops` returns these types and decides the [`Outcome`],
//! `render` only reads them. Each command's report types live in its module here; the exit-code
//! rule is one type for every command.

pub(crate) mod bump;
pub mod diff;
pub mod display;
pub(crate) mod fleet;
pub(crate) mod migrate;
pub(crate) mod repair;
pub(crate) mod rollout;
pub(crate) mod status;
pub(crate) mod upgrade;

/// Exit code: success, or nothing to report (like `kubectl diff` with no differences).
pub(crate) const EXIT_OK: u8 = 0;
/// Exit code: drift found / some objects failed (like `kubectl diff` with differences).
pub(crate) const EXIT_DRIFT: u8 = 1;
/// Exit code: usage or runtime error.
pub const EXIT_ERROR: u8 = 2;

/// How a run went, as its exit code tells it: the README's one table, the same in every command.
/// Ordered from best to worst, so the outcome of many objects is the worst of theirs
/// (`outcomes.max()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) enum Outcome {
    /// 0: nothing to report, or everything done.
    #[default]
    Clean,
    /// 1: semantic drift (diff), or `--wait` did not see what it waited for.
    Drift,
    /// 2: an error, or an object that could not be processed (the others still were).
    Failed,
}

impl Outcome {
    /// The process exit code: 0, 1 or 2, like `kubectl diff`.
    pub(crate) fn code(self) -> u8 {
        match self {
            Outcome::Clean => EXIT_OK,
            Outcome::Drift => EXIT_DRIFT,
            Outcome::Failed => EXIT_ERROR,
        }
    }
}

/// Name the first `few` of many things, and count the rest: an error about 400 sets stays a line.
pub(crate) fn name_a_few(things: &[String], few: usize) -> String {
    if things.len() <= few {
        return things.join("; ");
    }
    format!(
        "{}; and {} more",
        things[..few].join("; "),
        things.len() - few
    )
}
