//! `bevy_steer_egui`'s integration tests, built as one binary (each file a binary of its own linked
//! Bevy and egui again).

mod presets;
mod tuning;
