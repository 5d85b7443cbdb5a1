#![doc = include_str!("../README.md")]

pub use bevy_steer_core as core;
pub use bevy_steer_core::{
    SteeringPlugin, SteeringSystems, behaviours, components, forces, problems, rng,
};

#[cfg(feature = "debug")]
pub use bevy_steer_debug as debug;

#[cfg(feature = "egui")]
pub use bevy_steer_egui as egui;

/// Everything needed to add the plugins and spawn agents.
pub mod prelude {
    pub use bevy_steer_core::prelude::*;

    #[cfg(feature = "debug")]
    pub use bevy_steer_debug::prelude::*;

    #[cfg(feature = "egui")]
    pub use bevy_steer_egui::prelude::*;
}
