// Each facade's documentation is its own README: `bevy_steer`'s, or `bevy_steer3d`'s, which compiles
// this source too (`src/..` through its `src` link would name the root package's).
#![doc = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use bevy_steer_core as core;
pub use bevy_steer_core::{
    FlockingPlugin, SteeringAppExt, SteeringBehaviours, SteeringPlugin, SteeringSchedule,
    SteeringStepStats, SteeringSystems, Vector, behaviours, components, events, facing, forces,
    formulas, geometry, integration, math, obstacles, plugin, problems, rng, schedule, spatial,
    stepping, systems, targets, tunable,
};

#[cfg(feature = "debug")]
#[cfg_attr(docsrs, doc(cfg(feature = "debug")))]
pub use bevy_steer_debug as debug;

#[cfg(feature = "egui")]
#[cfg_attr(docsrs, doc(cfg(feature = "egui")))]
pub use bevy_steer_egui as egui;

#[cfg(feature = "interpolation")]
#[cfg_attr(docsrs, doc(cfg(feature = "interpolation")))]
pub mod interpolation;

/// Everything needed to add the plugins and spawn agents.
pub mod prelude {
    pub use bevy_steer_core::prelude::*;

    #[cfg(feature = "debug")]
    pub use bevy_steer_debug::prelude::*;

    #[cfg(feature = "egui")]
    pub use bevy_steer_egui::prelude::*;

    #[cfg(feature = "interpolation")]
    pub use crate::interpolation::SteeringInterpolationPlugin;
    #[cfg(feature = "interpolation")]
    pub use bevy_transform_interpolation::prelude::{
        RotationInterpolation, TransformInterpolation, TransformInterpolationPlugin,
        TranslationInterpolation,
    };
}
