//! The crate's systems, gathered in one place: each lives with what it steps (the shared stepping
//! in [`stepping`](crate::stepping), each behaviour's own in its file of
//! [`behaviours`](crate::behaviours), the integration step in [`integration`](crate::integration)).
//! [`apply_neighbour_behaviour`] steps one neighbour behaviour alone, for an app that schedules its
//! own; [`add_neighbour_behaviour`](crate::plugin::SteeringAppExt::add_neighbour_behaviour)
//! schedules one system for each run of neighbour behaviours registered for a marker one after
//! another, which walks the index once per agent for all of them.
//!
//! Each system visits agents in parallel; every agent reads the others' state as it was before the
//! step and writes only its own, so the result does not depend on thread count or visiting order.

pub use crate::behaviours::{
    FlockScratch, advance_paths, apply_avoid_obstacles, apply_flocking, apply_queue, apply_wander,
    rebuild_obstacle_index,
};
pub use crate::integration::integrate;
pub use crate::spatial::rebuild_spatial_index;
pub use crate::stepping::{
    LostTargets, TargetQuery, announce_lost_targets, apply_behaviour, apply_neighbour_behaviour,
    boid, lookup_target,
};
