//! The ARC that judges a scale set, or that an upgrade goes to: one of the released charts, or
//! `next` (ARC's master after 0.14.2), read from `--arc-version`, `--to` or the running
//! controller.
//!
//! Pure core, over [`crate::arc::release`]: `status`, `diff` and the upgrade plan
//! ([`crate::arc::upgrade`]) name the release they judge by with it.

use crate::arc::release::{ArcRelease, VersionCheck, is_version_allowed};

/// The `build.Version` the next release is taken to have: ARC's master after 0.14.2
/// (`../shared/arc/README.md`, "The next release") has no tag yet, and a release with its changes
/// (the set named like its scale set, the revision fields) is a new minor.
pub const NEXT_VERSION: &str = "0.15.0";

/// The release an upgrade goes to: a released chart, or `next` (ARC's master after 0.14); also
/// the release that judges a scale set in `diff` and `status` (`--arc-version`).
#[derive(Debug, Clone, Copy)]
pub enum Target {
    Release(&'static ArcRelease),
    Next,
}

impl Target {
    /// `next`, or a release as [`crate::arc::release::release`] reads it.
    pub fn parse(s: &str) -> Option<Target> {
        if s == "next" {
            return Some(Target::Next);
        }
        crate::arc::release::release(s).map(Target::Release)
    }

    /// The released ARC, or `None` for `next`.
    pub fn release(&self) -> Option<&'static ArcRelease> {
        match self {
            Target::Release(r) => Some(r),
            Target::Next => None,
        }
    }

    /// How its controllers turn a runner-spec change into new runners: `next` is the revision era
    /// (ARC PR #4638, [`crate::arc::release::Mechanism::ActionableRevision`]).
    pub fn mechanism(&self) -> crate::arc::release::Mechanism {
        match self {
            Target::Release(r) => r.mechanism,
            Target::Next => crate::arc::release::Mechanism::ActionableRevision,
        }
    }

    /// `0.14.2`, or `next`.
    pub fn name(&self) -> &'static str {
        match self {
            Target::Release(r) => r.version,
            Target::Next => "next",
        }
    }

    /// The `app.kubernetes.io/version` its scale-set chart sets (its `appVersion`).
    pub fn label(&self) -> &'static str {
        match self {
            Target::Release(r) => r.version,
            Target::Next => NEXT_VERSION,
        }
    }

    /// Its controller's version check ([`ArcRelease::version_check`]); `next` calls
    /// `v1alpha1.IsVersionAllowed` as 0.12.0 on do (autoscalingrunnerset_controller.go at master
    /// 2ee6b3b8), its `build.Version` taken as [`NEXT_VERSION`].
    pub fn version_check(&self, label: Option<&str>) -> VersionCheck {
        match self {
            Target::Release(r) => r.version_check(label),
            Target::Next => VersionCheck {
                release: "next",
                label: label.map(str::to_string),
                allowed: is_version_allowed(label.unwrap_or(""), NEXT_VERSION),
                rule: "ARC's master keeps a scale set labelled with its own major.minor (v1alpha1.IsVersionAllowed at 2ee6b3b8), the next release's build.Version taken as 0.15.0",
            },
        }
    }
}
