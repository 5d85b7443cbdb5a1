//! Behaviour components, one file each: each makes its system add a weighted force into
//! [`Steering`](crate::components::Steering).
//!
//! Every behaviour requires `Steering`, which brings the rest of an agent, so spawning
//! `(Transform::from_xyz(x, y, 0.0), Wander::default())` makes a working wanderer. Several behaviours
//! on one entity add up (the movement manager): `Seek` and `Flee` together seek one point while
//! fleeing another. Each has a `weight` (default `1.0`) to blend them; a negative weight reverses the
//! behaviour. Each has an `enabled` switch (default `true`): a behaviour that is disabled, or whose
//! weight is exactly zero, is off for that step without changing the entity's archetype and without
//! losing its tuning: its force is not computed, its target is not looked up (so a missing target
//! is not reported) and [`Wander`]'s random state does not move on.
//!
//! A behaviour with no target (`None`, every targeted behaviour's default) idles: no force, no
//! warning.
//!
//! Each behaviour is a file (or a folder, for wander and flocking) holding everything about it: its
//! component, its force, its SIMD path where it has one, its system, its registration (a
//! `plugin` function that [`SteeringPlugin`](crate::SteeringPlugin) adds, one line each, in
//! priority order) and its tests. The stepping, weights, switches and bad-input handling they share
//! are in [`stepping`](crate::stepping).
//!
//! Your own behaviours implement [`SteeringBehaviour`] and are registered with
//! [`SteeringAppExt::add_steering_behaviour`](crate::plugin::SteeringAppExt::add_steering_behaviour):
//! they get the same parallel stepping, weights, switches, bad-input checks, events and gizmos as
//! the built-in ones.

pub(crate) mod avoid_obstacles;
pub(crate) mod containment;
pub(crate) mod evade;
pub(crate) mod flee;
pub(crate) mod flocking;
pub(crate) mod follow_leader;
pub(crate) mod follow_path;
pub(crate) mod pursue;
pub(crate) mod queue;
pub(crate) mod seek;
pub(crate) mod wander;

pub use avoid_obstacles::{AvoidObstacles, Threat, apply_avoid_obstacles, rebuild_obstacle_index};
pub use containment::Containment;
pub use evade::Evade;
pub use flee::Flee;
pub use flocking::{
    Alignment, AlignmentMethod, Cohesion, CohesionMethod, FlockScratch, FlockingPlugin, Separation,
    SeparationMethod, apply_flocking,
};
pub use follow_leader::FollowLeader;
pub use follow_path::{FollowPath, Path, PathMethod, PathMode, advance_paths};
pub use pursue::Pursue;
pub use queue::{Queue, apply_queue};
pub use seek::Seek;
pub use wander::{Wander, WanderArea, WanderFrame, WanderMethod, apply_wander};

pub use crate::stepping::{NeighbourBehaviour, SteeringBehaviour};
pub use crate::targets::{NoTarget, Target, TargetState, target_state};

use crate::problems::BehaviourKind;

impl BehaviourKind {
    /// The built-in behaviours that act on every agent that has them, in the order their systems
    /// add forces, which is also their priority order: the order
    /// [`SteeringPlugin`](crate::SteeringPlugin) adds their plugins in. (The neighbour behaviours
    /// are registered per marker.)
    pub const BUILT_IN: [Self; 9] = [
        Self::AVOID_OBSTACLES,
        Self::CONTAINMENT,
        Self::FOLLOW_PATH,
        Self::WANDER,
        Self::SEEK,
        Self::FLEE,
        Self::PURSUE,
        Self::EVADE,
        Self::FOLLOW_LEADER,
    ];
}

/// The builders every built-in behaviour has for its `weight` and `enabled` fields.
macro_rules! weight_and_switch_builders {
    ($behaviour:ty) => {
        impl $behaviour {
            /// Sets the weight.
            pub fn with_weight(mut self, weight: f32) -> Self {
                self.weight = weight;
                self
            }

            /// Switches the behaviour on or off, keeping its weight and parameters.
            pub fn with_enabled(mut self, enabled: bool) -> Self {
                self.enabled = enabled;
                self
            }
        }
    };
}
pub(crate) use weight_and_switch_builders;

/// The builders every built-in neighbour behaviour has for its `strength` and `field_of_view`.
macro_rules! neighbourhood_builders {
    ($behaviour:ty) => {
        impl $behaviour {
            /// Sets the strength.
            pub fn with_strength(mut self, strength: f32) -> Self {
                self.strength = strength;
                self
            }

            /// Sets the field of view: the whole angle, in radians, centred on the heading.
            pub fn with_field_of_view(mut self, field_of_view: f32) -> Self {
                self.field_of_view = field_of_view;
                self
            }
        }
    };
}
pub(crate) use neighbourhood_builders;

/// The `weight` and `enabled` accessors of a behaviour trait impl, read from the fields of those
/// names.
macro_rules! weight_and_switch_accessors {
    () => {
        fn weight(&self) -> f32 {
            self.weight
        }

        fn enabled(&self) -> bool {
            self.enabled
        }
    };
}
pub(crate) use weight_and_switch_accessors;

/// The accessors of a [`NeighbourBehaviour`] impl, read from the fields of the same names.
macro_rules! neighbourhood_accessors {
    () => {
        crate::behaviours::weight_and_switch_accessors!();

        fn radius(&self) -> f32 {
            self.radius
        }

        fn field_of_view(&self) -> f32 {
            self.field_of_view
        }
    };
}
pub(crate) use neighbourhood_accessors;
