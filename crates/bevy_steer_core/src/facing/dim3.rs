//! Facing in 3D: the model's forward axis along the heading, its up axis leaning to the world's up
//! without flipping where the heading passes through the vertical.

use bevy::prelude::*;

use crate::math::{Vector, direction_or_zero};

/// How strongly the model's up is pulled to the world's each step, against its last up.
const RIGHTING: f32 = 0.1;

/// Turns the agent so that its `local_forward` axis points along its velocity and its `local_up`
/// axis leans to `up`.
///
/// The model's up goes to the world's `up` as far as the heading allows: each step it turns from
/// where it was towards `up` (a few degrees at most), more the more level the heading, so that a heading through the
/// vertical (a loop, a climb) carries the last up on instead of flipping the model round. A ground
/// unit ([`Planar`](crate::planar::Planar)) keeps a level heading, so it only ever turns about
/// `up` (yaw). An agent at rest keeps its last orientation.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct FaceVelocity {
    /// The axis of the model, in its own space, that should point along the velocity. Default
    /// -Z, Bevy's forward.
    pub local_forward: Dir3,
    /// The axis of the model, in its own space, that should point up. Default +Y. Only its part
    /// at right angles to `local_forward` counts.
    pub local_up: Dir3,
    /// The world's up, which the model's up leans to. Default +Y.
    pub up: Dir3,
}

impl Default for FaceVelocity {
    /// Faces along local -Z with local +Y up, in a Y-up world: the convention of Bevy's
    /// `Transform::looking_to`.
    fn default() -> Self {
        Self {
            local_forward: Dir3::NEG_Z,
            local_up: Dir3::Y,
            up: Dir3::Y,
        }
    }
}

impl FaceVelocity {
    /// Faces along the given local axis, with local +Y up.
    pub fn new(local_forward: Dir3) -> Self {
        Self {
            local_forward,
            ..default()
        }
    }

    /// The model's up axis, in its own space.
    pub fn with_local_up(mut self, local_up: Dir3) -> Self {
        self.local_up = local_up;
        self
    }

    /// The world's up.
    pub fn with_up(mut self, up: Dir3) -> Self {
        self.up = up;
        self
    }

    /// The rotation that points `local_forward` along `velocity`, turning from the rotation
    /// `before` (the model's up carries on from it where the heading is vertical); `None` for a
    /// zero or non-finite velocity.
    #[inline]
    pub fn rotation_for(self, velocity: Vector, before: Quat) -> Option<Quat> {
        let heading = direction_or_zero(velocity);
        if heading == Vector::ZERO {
            return None;
        }
        let local = basis(*self.local_forward, *self.local_up);
        let up_before = before * local.y_axis;
        // The world's up counts for as much as the heading is level (nothing when vertical), and
        // a tenth of the last up's weight at most: the model rights itself over several steps, a
        // few degrees a step, rather than rolling at once.
        let level = 1.0 - heading.dot(*self.up).powi(2);
        let hint = if up_before.is_finite() {
            up_before + *self.up * (RIGHTING * level)
        } else {
            *self.up
        };
        let world = basis(heading, hint);
        let rotation = Quat::from_mat3(&(world * local.transpose())).normalize();
        rotation.is_finite().then_some(rotation)
    }

    /// The rotation after a step that left the agent moving at `velocity`, from `before`.
    #[inline]
    pub(crate) fn turn(self, velocity: Vector, before: Quat) -> Option<Quat> {
        self.rotation_for(velocity, before)
    }
}

/// The right-handed orthonormal basis whose first axis is `forward` (a unit vector) and whose
/// second is `up`'s part at right angles to it (or any right angle, where `up` has none).
fn basis(forward: Vector, up: Vector) -> Mat3 {
    let up = crate::math::sideways(forward, up);
    Mat3::from_cols(forward, up, forward.cross(up))
}

/// The 3D build steps no agent's facing on SIMD lanes: there are no lanes' turns.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Turns {}

impl Turns {
    #[inline]
    pub(crate) fn lane(self, _lane: usize) -> Option<Quat> {
        match self {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn angle_between(a: Quat, b: Quat) -> f32 {
        a.angle_between(b)
    }

    #[test]
    fn forward_goes_onto_the_heading_and_up_stays_up_when_level() {
        let face = FaceVelocity::default();
        for heading in [Vec3::X, Vec3::NEG_Z, Vec3::new(1.0, 0.0, 1.0).normalize()] {
            let rotation = face.rotation_for(heading * 7.0, Quat::IDENTITY).unwrap();
            assert!((rotation * Vec3::NEG_Z).abs_diff_eq(heading, 1e-5));
            assert!((rotation * Vec3::Y).abs_diff_eq(Vec3::Y, 1e-5));
        }
        assert_eq!(face.rotation_for(Vec3::ZERO, Quat::IDENTITY), None);
        assert_eq!(face.rotation_for(Vec3::NAN, Quat::IDENTITY), None);
    }

    #[test]
    fn a_loop_through_the_vertical_never_flips_the_model() {
        // A vertical loop in the XY plane, a degree a step: through straight up and straight down.
        let face = FaceVelocity::default();
        let mut rotation = face.rotation_for(Vec3::X, Quat::IDENTITY).unwrap();
        for step in 0..=720 {
            let angle = (step as f32).to_radians();
            let heading = Vec3::new(angle.cos(), angle.sin(), 0.0);
            let next = face.rotation_for(heading * 10.0, rotation).unwrap();
            assert!((next * Vec3::NEG_Z).abs_diff_eq(heading, 1e-4), "{step}");
            assert!(
                angle_between(rotation, next) < 0.2,
                "step {step}: turned {} rad",
                angle_between(rotation, next)
            );
            rotation = next;
        }
    }

    #[test]
    fn a_model_pointing_up_gets_its_forward_onto_the_heading() {
        // A cone modelled along +Y, its "up" +Z.
        let face = FaceVelocity::new(Dir3::Y).with_local_up(Dir3::Z);
        let rotation = face
            .rotation_for(Vec3::new(0.0, 0.0, -3.0), Quat::IDENTITY)
            .unwrap();
        assert!((rotation * Vec3::Y).abs_diff_eq(Vec3::NEG_Z, 1e-5));
    }
}
