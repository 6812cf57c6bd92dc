//! `[sandbox]`: what to do where a confinement layer is unavailable.

use crate::config::SandboxConfig;
use crate::config::reader::{Problems, Section};

pub(in crate::config) fn sandbox(s: &mut Section<'_>, p: &mut Problems) -> Option<SandboxConfig> {
    let require_seccomp = s.boolean(p, "require_seccomp", true);
    let require_landlock = s.boolean(p, "require_landlock", false);
    Some(SandboxConfig {
        require_seccomp: require_seccomp?,
        require_landlock: require_landlock?,
    })
}
