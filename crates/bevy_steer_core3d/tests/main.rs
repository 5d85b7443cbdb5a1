//! `bevy_steer_core3d`'s integration tests, built as one binary: the 3D build's own (`dim3.rs`) and
//! those of `bevy_steer_core` that mean the same in 3D, compiled again by this build (their
//! `common::steer` is this crate).

#[path = "../../bevy_steer_core/tests/common/mod.rs"]
mod common;

mod dim3;

#[path = "../../bevy_steer_core/tests/api.rs"]
mod api;
#[path = "../../bevy_steer_core/tests/bad_input.rs"]
mod bad_input;
#[path = "../../bevy_steer_core/tests/behaviours.rs"]
mod behaviours;
#[path = "../../bevy_steer_core/tests/churn.rs"]
mod churn;
#[path = "../../bevy_steer_core/tests/flocking.rs"]
mod flocking;
#[path = "../../bevy_steer_core/tests/obstacles.rs"]
mod obstacles;
#[path = "../../bevy_steer_core/tests/path_following.rs"]
mod path_following;
#[path = "../../bevy_steer_core/tests/path_overlaps.rs"]
mod path_overlaps;
#[path = "../../bevy_steer_core/tests/path_scenes.rs"]
mod path_scenes;
#[path = "../../bevy_steer_core/tests/queue_door.rs"]
mod queue_door;
#[path = "../../bevy_steer_core/tests/queue_doors.rs"]
mod queue_doors;
#[path = "../../bevy_steer_core/tests/step_rates.rs"]
mod step_rates;
