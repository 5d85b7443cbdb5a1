//! Preset files: the tuning of every group, saved as RON and loaded back.
//!
//! A preset holds, per group, values by component and field, as the panel shows them:
//!
//! ```ron
//! (
//!     groups: {
//!         "All": {
//!             "MaxSpeed": {"0": 200.0},
//!             "Wander": {"circle_distance": 90.0, "circle_radius": 180.0},
//!         },
//!     },
//! )
//! ```
//!
//! Components are named by their short type path, fields by name (`"0"` for the value of a
//! newtype such as `MaxSpeed`). A preset may name fewer components and fields than the groups
//! have: only those change.
//!
//! Loading checks everything before anything changes: a missing, unreadable or malformed
//! (truncated, empty, wrong types, unknown keys) file, a component or field that is not tunable, or
//! a value outside its range gives a [`PresetError`] and the current values stay. Saving writes a temporary file beside the target and renames it over the target, so
//! the file on disk is always either the old preset or the new one, whole.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use serde::{Deserialize, Serialize};

use crate::tuning::{TunableComponents, TuningError, TuningGroups, TuningValues};

/// The tuning of every group, by group label.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    /// Each group's values, by label ("All" included).
    pub groups: BTreeMap<String, TuningValues>,
}

impl TuningGroups {
    /// The current values of every group that has some, by label (see
    /// [`TuningGroup::saved_values`](crate::tuning::TuningGroup::saved_values): a value loaded or set for a component no agent of the group
    /// carries yet is saved too, so loading a preset and saving it loses nothing).
    pub fn to_preset(&self) -> Preset {
        Preset {
            groups: self
                .groups()
                .iter()
                .map(|group| (group.label.clone(), group.saved_values()))
                .filter(|(_, values)| !values.is_empty())
                .collect(),
        }
    }

    /// Gives each group named in `preset` its values ("All" first, so named groups override it).
    /// A preset naming a group this app does not have changes nothing.
    pub fn apply_preset(&mut self, preset: &Preset) -> Result<(), UnknownGroup> {
        if let Some(label) = preset.groups.keys().find(|label| self.get(label).is_none()) {
            return Err(UnknownGroup(label.clone()));
        }
        for index in 0..self.groups().len() {
            if let Some(values) = preset.groups.get(&self.groups()[index].label) {
                self.set_values(index, values);
            }
        }
        Ok(())
    }
}

/// A preset names a group the app has not registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownGroup(pub String);

impl core::fmt::Display for UnknownGroup {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "this app has no tuning group called {:?}", self.0)
    }
}

/// Why a preset could not be loaded or saved.
#[derive(Debug)]
pub enum PresetError {
    /// The preset name is empty or has characters other than ASCII letters and digits, `-` and `_`.
    InvalidName(String),
    /// The file does not exist.
    NotFound(PathBuf),
    /// A directory (or something else that is not a file) is where the file should be.
    NotAFile(PathBuf),
    /// Reading or writing failed.
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The file is not a valid preset: truncated, empty, wrong types, unknown fields.
    Malformed {
        /// The file.
        path: PathBuf,
        /// What the parser said, with the line and column.
        message: String,
    },
    /// A value names a component or field that is not tunable, or is outside its range.
    Invalid {
        /// The file.
        path: PathBuf,
        /// The group holding the value.
        group: String,
        /// Which value, and what is wrong with it.
        error: TuningError,
    },
    /// The preset names a group this app does not have.
    UnknownGroup {
        /// The file.
        path: PathBuf,
        /// The group's label.
        group: String,
    },
}

impl fmt::Display for PresetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidName(name) => write!(
                f,
                "preset name {name:?} is not allowed: use ASCII letters, digits, '-' and '_'"
            ),
            Self::NotFound(path) => write!(f, "no preset file at {}", path.display()),
            Self::NotAFile(path) => write!(f, "{} is not a file", path.display()),
            Self::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Self::Malformed { path, message } => {
                write!(f, "{} is not a valid preset: {message}", path.display())
            }
            Self::Invalid { path, group, error } => {
                write!(f, "{}: group {group:?}: {error}", path.display())
            }
            Self::UnknownGroup { path, group } => {
                write!(
                    f,
                    "{}: this app has no tuning group {group:?}",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for PresetError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The file of preset `name` in `directory`: `directory/name.ron`. Names are limited to ASCII
/// letters, digits, `-` and `_`, so a name cannot reach outside the directory.
pub fn preset_path(directory: &Path, name: &str) -> Result<PathBuf, PresetError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if name.is_empty() || !name.chars().all(allowed) {
        return Err(PresetError::InvalidName(name.to_owned()));
    }
    Ok(directory.join(format!("{name}.ron")))
}

impl Preset {
    /// Checks that every group's values name tunable components and fields, within their ranges.
    pub fn check(&self, path: &Path, tunables: &TunableComponents) -> Result<(), PresetError> {
        for (group, values) in &self.groups {
            tunables
                .check(values)
                .map_err(|error| PresetError::Invalid {
                    path: path.to_owned(),
                    group: group.clone(),
                    error,
                })?;
        }
        Ok(())
    }

    /// Reads, parses and checks the preset at `path`.
    pub fn load(path: &Path, tunables: &TunableComponents) -> Result<Self, PresetError> {
        let text = fs::read_to_string(path).map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => PresetError::NotFound(path.to_owned()),
            _ if path.is_dir() => PresetError::NotAFile(path.to_owned()),
            _ => PresetError::Io {
                path: path.to_owned(),
                source,
            },
        })?;
        let preset: Self = ron::from_str(&text).map_err(|error| PresetError::Malformed {
            path: path.to_owned(),
            message: error.to_string(),
        })?;
        preset.check(path, tunables)?;
        Ok(preset)
    }

    /// Checks the preset and writes it to `path` atomically (a temporary file beside it, then a
    /// rename), creating the directory if needed. On any error the existing file is untouched.
    pub fn save(&self, path: &Path, tunables: &TunableComponents) -> Result<(), PresetError> {
        self.check(path, tunables)?;
        if path.exists() && !path.is_file() {
            return Err(PresetError::NotAFile(path.to_owned()));
        }
        let io_error = |source| PresetError::Io {
            path: path.to_owned(),
            source,
        };
        let text = ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .map_err(|error| io_error(io::Error::other(error)))?;
        if let Some(directory) = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
        {
            fs::create_dir_all(directory).map_err(io_error)?;
        }
        let (temporary, mut file) = temporary_beside(path).map_err(io_error)?;
        let written = (|| {
            file.write_all(text.as_bytes())?;
            file.write_all(b"\n")?;
            file.sync_all()?;
            fs::rename(&temporary, path)
        })();
        if let Err(source) = written {
            // Best effort: the temporary file may not even exist.
            let _ = fs::remove_file(&temporary);
            return Err(io_error(source));
        }
        Ok(())
    }
}

/// A new file beside `path` to write it in first: `.preset-N.tmp`, whatever the length of the
/// target's name (a name the file system just allows would be too long with more round it), with
/// the first `N` no other save, in this process or another, has open.
fn temporary_beside(path: &Path) -> io::Result<(PathBuf, fs::File)> {
    static SAVES: AtomicU32 = AtomicU32::new(0);
    let mut tries = 0;
    loop {
        let temporary = path.with_file_name(format!(
            ".preset-{}.tmp",
            SAVES.fetch_add(1, Ordering::Relaxed)
        ));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
        {
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && tries < 1000 => {
                tries += 1;
            }
            opened => return opened.map(|file| (temporary, file)),
        }
    }
}

/// Saves the current values of every group as preset `name` in `directory`; returns the file.
/// Values outside their range (a game may spawn agents with such values) are saved clamped into
/// it, as the sliders show them; values that are not finite are left out.
pub fn save_groups(
    groups: &TuningGroups,
    tunables: &TunableComponents,
    directory: &Path,
    name: &str,
) -> Result<PathBuf, PresetError> {
    let path = preset_path(directory, name)?;
    let mut preset = groups.to_preset();
    for values in preset.groups.values_mut() {
        *values = tunables.clamp(values);
    }
    preset.save(&path, tunables)?;
    Ok(path)
}

/// Loads preset `name` from `directory` into the groups; returns the file. On any error the groups
/// keep their values.
pub fn load_groups(
    groups: &mut TuningGroups,
    tunables: &TunableComponents,
    directory: &Path,
    name: &str,
) -> Result<PathBuf, PresetError> {
    let path = preset_path(directory, name)?;
    let preset = Preset::load(&path, tunables)?;
    groups
        .apply_preset(&preset)
        .map_err(|unknown| PresetError::UnknownGroup {
            path: path.clone(),
            group: unknown.0,
        })?;
    Ok(path)
}
