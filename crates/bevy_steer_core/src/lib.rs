//! The headless simulation of [bevy_steer](https://crates.io/crates/bevy_steer): Craig Reynolds'
//! steering behaviours as Bevy components and systems.
//!
//! Each behaviour ([`Seek`](behaviours::Seek) with arrival, [`Flee`](behaviours::Flee),
//! [`Wander`](behaviours::Wander), [`Pursue`](behaviours::Pursue), [`Evade`](behaviours::Evade))
//! computes a force; the forces are summed into [`Steering`](components::Steering), truncated to
//! [`MaxForce`](components::MaxForce), divided by [`Mass`](components::Mass) and added to
//! [`Velocity`](components::Velocity), which is truncated to [`MaxSpeed`](components::MaxSpeed);
//! the `Transform` then moves by the velocity. [`SteeringPlugin`] schedules it all.
//!
//! ```
//! use bevy::prelude::*;
#![doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::prelude::*;")]
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, SteeringPlugin::default()));
//! // Wander requires everything else an agent needs.
//! app.world_mut().spawn((Transform::from_xyz(0.0, 0.0, 0.0), Wander::default()));
//! ```
//!
//! # Units, and the tutorials' numbers
//!
//! The tutorials this crate follows work per frame with no time step: speeds are pixels per frame
//! and every frame does `velocity += truncate(force, max_force) / mass`. This crate works per second
//! on Bevy's clock: speeds in units per second, forces in units per second squared for a mass of 1,
//! and each step does `velocity += truncate(force, max_force) / mass * dt`. Forces such as seek's
//! `desired - velocity` keep the tutorials' formulas. Reading the tutorials at 60 frames per second,
//! their figures map exactly (the same trajectory, step for step, at 60 steps per second) as:
//!
//! | tutorial figure | here |
//! | --- | --- |
//! | speeds (`MAX_VELOCITY`, pixels per frame) | × 60 (units per second) |
//! | forces (`MAX_FORCE`, `CIRCLE_DISTANCE`, `CIRCLE_RADIUS`) | × 60 |
//! | `mass` | ÷ 60 (in seconds: the time a unit force takes to change the velocity by one unit) |
//! | distances (`slowingRadius`, ranges) | unchanged |
//! | `ANGLE_CHANGE` (radians per frame) | unchanged; scaled to other step lengths by [`forces::next_wander_angle`] |
//!
//! A tutorial prey with `MAX_VELOCITY = 3`, `mass = 20` is here `MaxSpeed(180.0)`,
//! `Mass(1.0 / 3.0)`. The mapping holds for tutorial masses of 1 and more: below that
//! (`dt / mass > 1`), a step takes the force whole rather than overshoot it (see
//! [`forces::integrate_velocity`]). The default `Mass(1.0)` is a tutorial mass of 60: an agent
//! that answers a change of desired velocity over about a second.
//!
//! # Bad input
//!
//! No input makes a system panic or spread a NaN. Each rejected input has a documented, safe
//! outcome and is logged once per entity: see [`problems::Problem`].
//!
//! # Determinism
//!
//! Wander draws from a per-agent [`SteeringRng`](rng::SteeringRng) seeded from the global
//! [`SteeringSeed`](rng::SteeringSeed) and the entity, and every system writes only the agent it
//! visits. The same seed and the same spawn order give bit-identical trajectories on every run,
//! whatever the thread count.

#[cfg(all(feature = "2d", feature = "3d"))]
compile_error!(
    "bevy_steer: choose one dimension: depend on bevy_steer_core (2D) or bevy_steer_core3d (3D), \
     not on one crate with both the `2d` and the `3d` feature"
);
#[cfg(not(any(feature = "2d", feature = "3d")))]
compile_error!(
    "bevy_steer: no dimension chosen: depend on bevy_steer_core (2D) or bevy_steer_core3d (3D), \
     or enable the `2d` or the `3d` feature"
);

pub mod behaviours;
pub mod components;
pub mod events;
pub mod facing;
pub mod forces;
pub mod formulas;
pub mod geometry;
pub mod integration;
pub mod math;
pub mod obstacles;
#[cfg(feature = "3d")]
pub mod planar;
pub mod plugin;
pub mod problems;
pub mod rng;
pub mod schedule;
pub mod spatial;
pub mod stepping;
pub mod systems;
pub mod targets;
mod tasks;
#[cfg(test)]
mod test_support;
pub mod tunable;

pub use math::Vector;
pub use plugin::{
    FlockingPlugin, SteeringAppExt, SteeringBehaviours, SteeringPlugin, SteeringSchedule,
    SteeringStepStats, SteeringSystems,
};

/// Everything needed to add the plugin, spawn agents and write behaviours of your own.
pub mod prelude {
    pub use crate::Vector;
    pub use crate::behaviours::{
        Alignment, AlignmentMethod, AvoidObstacles, Cohesion, CohesionMethod, Containment, Evade,
        Flee, FollowLeader, FollowPath, NeighbourBehaviour, NoTarget, Path, PathMethod, PathMode,
        Pursue, Queue, Seek, Separation, SeparationMethod, SteeringBehaviour, Target, TargetState,
        Wander, WanderFrame, WanderMethod, target_state,
    };
    pub use crate::components::{
        Mass, MaxForce, MaxSpeed, Steering, SteeringCombination, Velocity,
    };
    pub use crate::events::{Arrived, TargetLost};
    pub use crate::facing::FaceVelocity;
    pub use crate::obstacles::{Obstacle, ObstacleIndex, ObstacleShape};
    #[cfg(feature = "3d")]
    pub use crate::planar::Planar;
    pub use crate::plugin::{
        FlockingPlugin, SteeringAppExt, SteeringBehaviours, SteeringPlugin, SteeringSchedule,
        SteeringStepStats, SteeringSystems,
    };
    pub use crate::problems::{BehaviourKind, Problem, ReportedProblems};
    pub use crate::rng::{SteeringRng, SteeringSeed};
    pub use crate::spatial::{Neighbour, Neighbours, SpatialIndex, SpatialIndexPlugin};
    pub use crate::tunable::Tunable;
}
