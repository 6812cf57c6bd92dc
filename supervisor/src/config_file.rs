//! Which configuration file rypsok reads (design §13.1; REQ-CFG-001): the
//! one named by `--config` or `RYPSOK_CONFIG`, else the first that exists of
//! the user's (`$XDG_CONFIG_HOME/rypsok/rypsok.toml`, by default under
//! `~/.config`) and the system's (`/etc/rypsok/rypsok.toml`, where the
//! Debian package installs one). Without any, the defaults apply. `check`
//! and the `started` log line say which was read, so an operator never
//! edits a file that has no effect.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The system-wide file, installed by the packages.
pub(crate) const SYSTEM_FILE: &str = "/etc/rypsok/rypsok.toml";

/// The file's place below a configuration folder.
const BELOW_CONFIG_HOME: &str = "rypsok/rypsok.toml";

/// The configuration file chosen, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Chosen {
    /// Named by `--config` or `RYPSOK_CONFIG`: read even if it is missing,
    /// so that a wrong name is an error rather than the defaults.
    Named(PathBuf),
    /// Found in the search order.
    Found(PathBuf),
    /// No file: the defaults apply.
    Defaults,
}

impl Chosen {
    /// The file to read, if any.
    pub(crate) fn path(&self) -> Option<&Path> {
        match self {
            Self::Named(p) | Self::Found(p) => Some(p),
            Self::Defaults => None,
        }
    }

    /// How `check` and the log name the choice.
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Named(p) | Self::Found(p) => p.display().to_string(),
            Self::Defaults => "none (the defaults apply)".to_owned(),
        }
    }
}

/// The files searched when none is named, in order: the user's, then the
/// system's. `env` reads one environment variable.
pub(crate) fn search_order(env: impl Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    // A relative XDG_CONFIG_HOME is invalid and ignored (XDG Base
    // Directory specification).
    let config_home = env("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            env("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".config"))
        });
    config_home
        .map(|dir| dir.join(BELOW_CONFIG_HOME))
        .into_iter()
        .chain([PathBuf::from(SYSTEM_FILE)])
        .collect()
}

/// Chooses the file: the named one, else the first of the search order
/// that `exists`.
pub(crate) fn choose(
    named: Option<&Path>,
    env: impl Fn(&str) -> Option<OsString>,
    exists: impl Fn(&Path) -> bool,
) -> Chosen {
    if let Some(path) = named {
        return Chosen::Named(path.to_owned());
    }
    search_order(env)
        .into_iter()
        .find(|p| exists(p))
        .map_or(Chosen::Defaults, Chosen::Found)
}

/// Chooses the file for this process: its environment and file system.
pub(crate) fn choose_here(named: Option<&Path>) -> Chosen {
    choose(named, |name| std::env::var_os(name), Path::is_file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    // Verifies: REQ-CFG-001 (the search order: XDG_CONFIG_HOME, else ~/.config, then /etc)
    #[test]
    fn searches_the_users_folder_then_the_systems() {
        assert_eq!(
            search_order(env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/home/u")])),
            [
                PathBuf::from("/x/rypsok/rypsok.toml"),
                PathBuf::from(SYSTEM_FILE)
            ]
        );
        assert_eq!(
            search_order(env(&[("XDG_CONFIG_HOME", "relative"), ("HOME", "/home/u")])),
            [
                PathBuf::from("/home/u/.config/rypsok/rypsok.toml"),
                PathBuf::from(SYSTEM_FILE)
            ]
        );
        assert_eq!(search_order(env(&[])), [PathBuf::from(SYSTEM_FILE)]);
    }

    // Verifies: REQ-CFG-001 (a named file wins even when missing; else the first that exists; else the defaults)
    #[test]
    fn a_named_file_wins_then_the_first_that_exists() {
        let vars = [("HOME", "/home/u")];
        assert_eq!(
            choose(Some(Path::new("/n.toml")), env(&vars), |_| true),
            Chosen::Named(PathBuf::from("/n.toml"))
        );
        assert_eq!(
            choose(None, env(&vars), |_| true),
            Chosen::Found(PathBuf::from("/home/u/.config/rypsok/rypsok.toml"))
        );
        assert_eq!(
            choose(None, env(&vars), |p| p == Path::new(SYSTEM_FILE)),
            Chosen::Found(PathBuf::from(SYSTEM_FILE))
        );
        assert_eq!(choose(None, env(&vars), |_| false), Chosen::Defaults);
    }
}
