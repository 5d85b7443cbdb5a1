//! Every steering formula of the crate as a pure function, callable without an ECS: the tutorials'
//! formulas and Reynolds', for tests, tools and behaviours of your own.
//!
//! Each lives with what uses it (the shared ones in [`formulas`](crate::formulas), the math in
//! [`math`](crate::math), path geometry in [`geometry`](crate::geometry), each behaviour's own in
//! its file of [`behaviours`](crate::behaviours)); this module gathers them in one place.
//!
//! Units are per second: positions in world units, velocities in units per second, forces in units
//! per second squared for a mass of 1. The [crate docs](crate) say how the tutorials' per-frame
//! figures map to these.
//!
//! With finite inputs whose differences do not overflow, every function returns finite values: a
//! zero-length direction (an agent at rest, a target at the agent's own position) never divides by
//! zero. Non-finite inputs may give non-finite outputs; the systems check for that and drop the force.

pub use crate::behaviours::flocking::{
    alignment, alignment_from_velocities, cohesion, separation, separation_by_distance,
    separation_from_offsets, steer_to_heading,
};
pub use crate::behaviours::follow_leader::ahead_and_behind;
pub use crate::behaviours::follow_path::{arrival_gain, arrive, next_node, path_target};
pub use crate::behaviours::wander::{
    next_wander_angle, point_in_area, wander_circle, wander_displacement_direction,
};
pub use crate::formulas::{
    Boid, TUTORIAL_FRAME_RATE, VectorSum, evade, evade_within, flee, half_angle_cos,
    in_field_of_view, integrate_velocity, is_valid_mass, mean, predict_position,
    predict_position_within, pursue, pursue_within, seek, within_range,
};
pub use crate::geometry::path::{
    PathProjection, closest_point_on_segment, path_length, point_along_path, project_onto_path,
};
pub use crate::math::angles::sin_cos;
pub use crate::math::{direction_or_zero, truncate};
