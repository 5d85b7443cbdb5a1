//! `bevy_steer_core`'s integration tests, a module per file, built as one binary: each file linked
//! as a binary of its own carried a copy of Bevy (about 110 MB apiece, both builds together about
//! 3 GB), and a clean CI run filled its disk. `invariants.rs` stays a binary of its own: it checks
//! every warning a scene logs, and the log is the process's. `bevy_steer_core3d` builds the files
//! that mean the same in 3D into its own binary (its `tests/main.rs`).

mod common;

mod api;
mod bad_input;
mod behaviours;
mod churn;
mod fidelity;
mod flocking;
mod obstacles;
mod path_following;
mod path_overlaps;
mod path_scenes;
mod queue_door;
mod queue_doors;
mod scenes;
mod step_rates;
