//! Facing in 2D: a turn about the z axis, for one agent or four on SIMD lanes with the same bits.

use bevy::math::{BVec4A, Vec4};
use bevy::prelude::*;

use crate::math::Vector;
use crate::math::lanes::VectorLanes;

/// Turns the agent about the z axis so that its `local_forward` axis points along its velocity.
///
/// An agent at rest keeps its last orientation.
///
/// It is turned by the integration step, with the agents: an entity needs
/// [`Steering`](crate::components::Steering) (which every behaviour brings) for it to count.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct FaceVelocity {
    /// The axis of the sprite or mesh, in its own space, that should point along the velocity.
    pub local_forward: Dir2,
}

impl Default for FaceVelocity {
    /// Faces along local +X.
    fn default() -> Self {
        Self {
            local_forward: Dir2::X,
        }
    }
}

impl FaceVelocity {
    /// Faces along the given local axis (for instance [`Dir2::Y`] for a sprite drawn pointing up).
    pub fn new(local_forward: Dir2) -> Self {
        Self { local_forward }
    }

    /// The rotation that points `local_forward` along `velocity`, or `None` for a zero velocity.
    #[inline]
    pub fn rotation_for(self, velocity: Vector) -> Option<Quat> {
        let heading = Dir2::new(velocity).ok()?;
        let forward = *self.local_forward;
        // The half-angle quaternion about z from the full angle's cosine and sine, with no
        // trigonometry: (0, 0, sin, 1 + cos) normalised, except near half a turn, where both parts
        // vanish into rounding and the half-angle formulas are the accurate ones.
        let (cos, sin) = (forward.dot(*heading), forward.perp_dot(*heading));
        let (half_sin, half_cos) = if cos > -0.5 {
            (sin, 1.0 + cos)
        } else {
            let half_sin = ((1.0 - cos) * 0.5).sqrt().copysign(sin);
            (half_sin, sin / (2.0 * half_sin))
        };
        Some(Quat::from_xyzw(0.0, 0.0, half_sin, half_cos).normalize())
    }

    /// The rotation after a step that left the agent moving at `velocity`; in 2D that depends on
    /// neither the velocity nor the rotation before (3D banks by the one and carries the other on).
    #[inline]
    pub(crate) fn turn(
        self,
        velocity: Vector,
        _previous: Vector,
        _dt: f32,
        _before: Quat,
        _plane_up: Option<Vector>,
    ) -> Option<Quat> {
        self.rotation_for(velocity)
    }
}

/// The rotations [`face_velocity_lanes`] gives: for each lane, a turn about z, or none for an agent at
/// rest.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Turns {
    /// The quaternions' z and w (x and y are zero).
    z: Vec4,
    w: Vec4,
    moving: BVec4A,
}

impl Turns {
    /// The rotation on `lane`, or `None` when that agent is at rest.
    #[inline]
    pub(crate) fn lane(self, lane: usize) -> Option<Quat> {
        self.moving
            .test(lane)
            .then(|| Quat::from_xyzw(0.0, 0.0, self.z[lane], self.w[lane]))
    }
}

/// [`FaceVelocity::rotation_for`] for four agents, whose `local_forward` axes are `forward`.
#[inline]
pub(crate) fn face_velocity_lanes(forward: VectorLanes, velocity: VectorLanes) -> Turns {
    // `Dir2::new`: the velocity over its length, when that is positive and finite.
    let length = velocity.length_squared().sqrt();
    let moving = length.is_finite_mask() & length.cmpgt(Vec4::ZERO);
    let heading = velocity.divided(length);
    let ([forward_x, forward_y], [heading_x, heading_y]) = (forward.axes, heading.axes);
    let cos = forward_x * heading_x + forward_y * heading_y;
    let sin = forward_x * heading_y - forward_y * heading_x;
    // Both of `rotation_for`'s formulas, then a pick: which one an agent needs depends on its
    // heading, a branch that would mispredict.
    let far_half_sin = ((1.0 - cos) * 0.5).sqrt().copysign(sin);
    let far_half_cos = sin / (2.0 * far_half_sin);
    let near = cos.cmpgt(Vec4::splat(-0.5));
    let half_sin = Vec4::select(near, sin, far_half_sin);
    let half_cos = Vec4::select(near, 1.0 + cos, far_half_cos);
    // `Quat::normalize`, whose x and y are zero.
    let norm = (half_sin * half_sin + half_cos * half_cos).sqrt();
    Turns {
        z: half_sin / norm,
        w: half_cos / norm,
        moving,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::vector;
    use core::f32::consts::PI;
    use proptest::prelude::*;

    const LANES: usize = crate::math::lanes::LANES;

    #[test]
    fn facing_velocity_turns_the_forward_axis_onto_the_heading() {
        for forward in [Dir2::X, Dir2::Y, Dir2::from_xy(-0.6, 0.8).unwrap()] {
            let face = FaceVelocity::new(forward);
            for step in 0..3600 {
                let heading = Vec2::from_angle(step as f32 * 0.1_f32.to_radians());
                let rotation = face.rotation_for(heading * 5.0).unwrap();
                let turned = (rotation * forward.extend(0.0)).truncate();
                assert!(
                    turned.abs_diff_eq(heading, 1e-5),
                    "{forward:?} to {heading}: {turned}"
                );
                assert!(rotation.is_normalized());
            }
        }
        assert_eq!(FaceVelocity::default().rotation_for(Vec2::ZERO), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The lanes' turns have the bits of `FaceVelocity::rotation_for`, at rest too.
        #[test]
        fn turns_give_the_scalar_paths_bits(
            forwards in prop::array::uniform4(-PI..PI),
            velocities in prop::array::uniform4(prop_oneof![
                vector(300.0),
                Just(Vec2::ZERO),
                (-PI..PI).prop_map(|angle| Vec2::from_angle(angle) * 1e-30),
            ]),
        ) {
            let facing = forwards.map(|angle| FaceVelocity::new(Dir2::from_xy(angle.cos(), angle.sin()).unwrap()));
            let turns = face_velocity_lanes(
                VectorLanes::from_fn(|lane| *facing[lane].local_forward),
                VectorLanes::from_fn(|lane| velocities[lane]),
            );
            for lane in 0..LANES {
                let bits = |turn: Option<Quat>| turn.map(|turn| turn.to_array().map(f32::to_bits));
                prop_assert_eq!(bits(turns.lane(lane)), bits(facing[lane].rotation_for(velocities[lane])));
            }
        }
    }
}
