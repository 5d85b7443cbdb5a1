//! A live tuning panel for [bevy_steer](https://crates.io/crates/bevy_steer), built on
//! [bevy_egui](https://crates.io/crates/bevy_egui).
//!
//! A slider for every tunable field of every behaviour the agents carry (built-in or your own, found
//! by reflection: see [`tuning`]) and for max speed, max force and mass, applied to the running
//! agents at once; one set per group of agents (each marked by a component you register) plus
//! "All"; presets saved to and loaded from RON files; a read-out of the agent count and the
//! simulation step's time.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_steer_core::prelude::*;
#![doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::prelude::*;")]
//!
//! #[derive(Component)]
//! struct Prey;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, SteeringPlugin::default(), SteeringEguiPlugin::default()))
//!     .add_tuning_group::<Prey>("Prey")
//!     .run();
//! ```
//!
//! Clicks and drags on the panel should not reach the game: give your pointer systems the run
//! condition `not(egui_wants_any_pointer_input)`, and where agents follow the cursor, read
//! [`EguiWantsInput`](bevy_egui::input::EguiWantsInput) so that a cursor over the panel is not a
//! place to go (both re-exported in the prelude).

pub mod panel;
pub mod preset;
pub mod tuning;

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::{EguiPlugin, EguiPrimaryContextPass};

use crate::panel::{PanelState, PresetDirectory, tuning_panel};
use crate::tuning::SteeringTuningPlugin;

/// Adds the tuning panel (and [`EguiPlugin`] if the app has none yet).
pub struct SteeringEguiPlugin {
    /// Where presets are saved and loaded. Default `assets/presets`, relative to the working
    /// directory.
    pub preset_directory: PathBuf,
    /// The preset name the panel starts with. Default `default`.
    pub preset_name: String,
}

impl Default for SteeringEguiPlugin {
    fn default() -> Self {
        Self {
            preset_directory: PathBuf::from("assets/presets"),
            preset_name: "default".to_owned(),
        }
    }
}

impl SteeringEguiPlugin {
    /// Saves and loads presets in `directory`.
    pub fn with_preset_directory(directory: impl Into<PathBuf>) -> Self {
        Self {
            preset_directory: directory.into(),
            ..default()
        }
    }

    /// Starts the panel with preset `name` in its preset field.
    pub fn with_preset_name(mut self, name: impl Into<String>) -> Self {
        self.preset_name = name.into();
        self
    }
}

impl Plugin for SteeringEguiPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<EguiPlugin>() {
            app.add_plugins(EguiPlugin::default());
        }
        app.add_plugins(SteeringTuningPlugin)
            .insert_resource(PresetDirectory(self.preset_directory.clone()))
            .insert_resource(PanelState {
                preset_name: self.preset_name.clone(),
                ..default()
            })
            .add_systems(EguiPrimaryContextPass, tuning_panel);
    }
}

/// The plugins, the group registration and what says whether the pointer is the panel's.
pub mod prelude {
    pub use crate::SteeringEguiPlugin;
    pub use crate::preset::{Preset, PresetError};
    pub use crate::tuning::{
        SteeringTuningPlugin, TunableComponents, TuningGroupAppExt, TuningGroups, TuningValues,
    };
    pub use bevy_egui::input::{EguiWantsInput, egui_wants_any_pointer_input};
}
