//! Facing: turns an agent so that a chosen axis of its sprite or mesh points along its velocity.
//!
//! In 2D ([`FaceVelocity`] of the 2D build) a turn about the z axis, four agents at a time on SIMD
//! lanes. In 3D the model's forward axis goes onto the heading and its up axis leans to the world's
//! up as far as the heading allows, carrying on from the model's last up where the heading is
//! vertical, so that it never flips.

#[cfg(feature = "2d")]
mod dim2;
#[cfg(feature = "3d")]
mod dim3;

#[cfg(feature = "2d")]
pub use dim2::FaceVelocity;
#[cfg(feature = "2d")]
pub(crate) use dim2::face_velocity_lanes;
#[cfg(feature = "3d")]
pub use dim3::FaceVelocity;
#[cfg(feature = "3d")]
pub(crate) use dim3::Turns;
