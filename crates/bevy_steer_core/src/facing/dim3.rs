//! Facing in 3D: the model's forward axis along the heading, its up axis leaning to the world's up
//! without flipping where the heading passes through the vertical.

use core::f32::consts::{FRAC_PI_2, FRAC_PI_3};

use bevy::prelude::*;

use crate::math::{Vector, across, direction_or_zero, length, non_negative};
use crate::tunable::Tunable;

/// How strongly the model's up is pulled to the world's each step, against its last up.
const RIGHTING: f32 = 0.1;

/// Turns the agent so that its `local_forward` axis points along its velocity and its `local_up`
/// axis leans to `up`.
///
/// The model's up goes to the world's `up` as far as the heading allows: each step it turns from
/// where it was towards `up` (a few degrees at most), more the more level the heading, so that a heading through the
/// vertical (a loop, a climb) carries the last up on instead of flipping the model round. A ground
/// unit ([`Planar`](crate::planar::Planar)) keeps a level heading and stands upright on its plane
/// from its first step on (this component's `up` and banking are not used for it), so it only ever
/// turns about its plane's up (yaw). An agent at rest keeps its last orientation.
///
/// It is turned by the integration step, with the agents: an entity needs
/// [`Steering`](crate::components::Steering) (which every behaviour brings) for it to count.
///
/// Banking (off by default, `bank` zero) rolls the model into its turns, as an aircraft or a bird
/// does: the up it leans to is tipped towards the turn's centre by `bank` radians per unit of the
/// step's sideways (centripetal) acceleration, at most `max_bank`. It is reached by the same few
/// degrees a step as the righting, which smooths a jittery acceleration out, and counts for nothing
/// where the heading is vertical, so the model still never flips. A `bank` that is negative or not
/// finite counts as zero; a `max_bank` that is not finite or not positive as no banking, and it is
/// held to a right angle.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct FaceVelocity {
    /// The axis of the model, in its own space, that should point along the velocity. Default
    /// -Z, Bevy's forward.
    pub local_forward: Dir3,
    /// The axis of the model, in its own space, that should point up. Default +Y. Only its part
    /// at right angles to `local_forward` counts.
    pub local_up: Dir3,
    /// The world's up, which the model's up leans to. Default +Y. A ground unit
    /// ([`Planar`](crate::planar::Planar)) stands upright on its plane instead.
    pub up: Dir3,
    /// How far the model rolls into a turn, in radians per unit of sideways acceleration (world
    /// units per second squared). Default `0.0`: no banking. `0.005` rolls an agent turning at
    /// 180 units per second on a circle of radius 300 by about 0.5 radians. A ground unit
    /// ([`Planar`](crate::planar::Planar)) does not bank.
    #[reflect(@Tunable::linear(0.0, 0.02))]
    pub bank: f32,
    /// The most the model rolls, in radians. Default `FRAC_PI_3` (60 degrees).
    #[reflect(@Tunable::linear(0.0, FRAC_PI_2))]
    pub max_bank: f32,
}

impl Default for FaceVelocity {
    /// Faces along local -Z with local +Y up, in a Y-up world: the convention of Bevy's
    /// `Transform::looking_to`.
    fn default() -> Self {
        Self {
            local_forward: Dir3::NEG_Z,
            local_up: Dir3::Y,
            up: Dir3::Y,
            bank: 0.0,
            max_bank: FRAC_PI_3,
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

    /// Banks into turns: `bank` radians of roll per unit of sideways acceleration, at most
    /// `max_bank` radians.
    pub fn with_bank(mut self, bank: f32, max_bank: f32) -> Self {
        self.bank = bank;
        self.max_bank = max_bank;
        self
    }

    /// The rotation that points `local_forward` along `velocity`, turning from the rotation
    /// `before` (the model's up carries on from it where the heading is vertical); `None` for a
    /// zero or non-finite velocity. No banking: see
    /// [`banked_rotation_for`](Self::banked_rotation_for).
    #[inline]
    pub fn rotation_for(self, velocity: Vector, before: Quat) -> Option<Quat> {
        self.banked_rotation_for(velocity, Vector::ZERO, before)
    }

    /// [`rotation_for`](Self::rotation_for) of an agent accelerating at `acceleration`: with
    /// banking on, the up the model leans to is tipped towards the turn's centre by the roll the
    /// acceleration's part across the heading asks for.
    #[inline]
    pub fn banked_rotation_for(
        self,
        velocity: Vector,
        acceleration: Vector,
        before: Quat,
    ) -> Option<Quat> {
        let heading = direction_or_zero(velocity);
        if heading == Vector::ZERO {
            return None;
        }
        let local = self.local_basis();
        let up_before = before * local.y_axis;
        // The world's up (tipped into the turn) counts for as much as the heading is level
        // (nothing when vertical), and a tenth of the last up's weight at most: the model rights
        // itself, and banks, over several steps, a few degrees a step, rather than rolling at once.
        let level = 1.0 - heading.dot(*self.up).powi(2);
        let leaning_to = self.banked_up(heading, acceleration);
        let hint = if up_before.is_finite() {
            let pull = leaning_to * (RIGHTING * level);
            // Upside down to the bit, the pull is straight against the last up and only shortens
            // it: the model would never right itself. It rolls to its left as well, and the pull
            // takes it on round from there.
            let against = direction_or_zero(across(up_before, heading))
                .dot(direction_or_zero(across(pull, heading)))
                < -0.999_999;
            let roll = if against {
                direction_or_zero(heading.cross(up_before)) * length(pull)
            } else {
                Vector::ZERO
            };
            up_before + pull + roll
        } else {
            *self.up
        };
        rotation_onto(local, heading, hint)
    }

    /// The model's own axes: `local_forward`, `local_up`'s part at right angles to it, and the
    /// third.
    #[inline]
    fn local_basis(self) -> Mat3 {
        basis(*self.local_forward, *self.local_up)
    }

    /// The up the model leans to, heading along `heading` (a unit vector) and accelerating at
    /// `acceleration`: the world's up, rolled about the heading towards the acceleration's part
    /// across it by `bank` radians per unit of it, at most `max_bank`.
    #[inline]
    fn banked_up(self, heading: Vector, acceleration: Vector) -> Vector {
        let bank = non_negative(self.bank);
        let max_bank = non_negative(self.max_bank).min(FRAC_PI_2);
        if bank == 0.0 || max_bank == 0.0 {
            return *self.up;
        }
        let sideways = acceleration - heading * acceleration.dot(heading);
        // An acceleration that is not finite (a step that overflowed) rolls nothing.
        let roll = (bank * length(sideways)).min(max_bank);
        if roll == 0.0 || !sideways.is_finite() {
            return *self.up;
        }
        *self.up * roll.cos() + direction_or_zero(sideways) * roll.sin()
    }

    /// The rotation after a step of `dt` seconds that took the agent from moving at `previous` to
    /// moving at `velocity`, from `before`. A ground unit (`plane_up`, its plane's up) stands
    /// upright on its plane and does not bank: it only ever turns about that up.
    #[inline]
    pub(crate) fn turn(
        self,
        velocity: Vector,
        previous: Vector,
        dt: f32,
        before: Quat,
        plane_up: Option<Vector>,
    ) -> Option<Quat> {
        if let Some(up) = plane_up {
            // A ground unit's heading lies in its plane, at right angles to `up`: it stands
            // upright on it at once, as its forward goes onto the heading at once.
            let heading = direction_or_zero(velocity);
            return (heading != Vector::ZERO)
                .then(|| rotation_onto(self.local_basis(), heading, up))
                .flatten();
        }
        let acceleration = if self.bank != 0.0 && dt > 0.0 {
            (velocity - previous) / dt
        } else {
            Vector::ZERO
        };
        self.banked_rotation_for(velocity, acceleration, before)
    }
}

/// The rotation that takes the model's axes `local` onto the world's basis of `heading` (a unit
/// vector) and `up` (see [`basis`]); `None` where it is not finite.
#[inline]
fn rotation_onto(local: Mat3, heading: Vector, up: Vector) -> Option<Quat> {
    let rotation = Quat::from_mat3(&(basis(heading, up) * local.transpose())).normalize();
    rotation.is_finite().then_some(rotation)
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
    use core::f32::consts::FRAC_PI_3;

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

    /// Steps of a sixtieth of a second, as the tests' apps take.
    const DT: f32 = 1.0 / 60.0;

    #[test]
    fn a_loop_through_the_vertical_never_flips_the_model() {
        // A vertical loop in the XY plane, a degree a step at 600 a second: through straight up
        // and straight down. Banking on, it asks for more than the largest roll all the way.
        for face in [
            FaceVelocity::default(),
            FaceVelocity::default().with_bank(0.005, FRAC_PI_3),
        ] {
            let mut rotation = face.rotation_for(Vec3::X, Quat::IDENTITY).unwrap();
            let mut previous = Vec3::X * 600.0;
            for step in 0..=720 {
                let angle = (step as f32).to_radians();
                let heading = Vec3::new(angle.cos(), angle.sin(), 0.0);
                let velocity = heading * 600.0;
                let next = face.turn(velocity, previous, DT, rotation, None).unwrap();
                assert!((next * Vec3::NEG_Z).abs_diff_eq(heading, 1e-4), "{step}");
                assert!(
                    angle_between(rotation, next) < 0.2,
                    "{face:?} step {step}: turned {} rad",
                    angle_between(rotation, next)
                );
                (rotation, previous) = (next, velocity);
            }
        }
    }

    #[test]
    fn a_model_upside_down_to_the_bit_rights_itself() {
        let face = FaceVelocity::default();
        let velocity = Vec3::X * 150.0;
        let mut rotation = Transform::default()
            .looking_to(Vec3::X, Vec3::NEG_Y)
            .rotation;
        for step in 0..600 {
            let next = face.turn(velocity, velocity, DT, rotation, None).unwrap();
            assert!(angle_between(rotation, next) < 0.2, "step {step}");
            rotation = next;
        }
        assert!((rotation * Vec3::NEG_Z).abs_diff_eq(Vec3::X, 1e-4));
        assert!(
            (rotation * Vec3::Y).abs_diff_eq(Vec3::Y, 1e-3),
            "{}",
            rotation * Vec3::Y
        );
    }

    /// The model's roll: the angle between its up and the world's +Y.
    fn roll(rotation: Quat) -> f32 {
        (rotation * Vec3::Y).angle_between(Vec3::Y)
    }

    #[test]
    fn a_steady_level_circle_banks_towards_the_centre() {
        // 180 a second round a circle of radius 300: 108 of centripetal acceleration, which
        // 0.005 per unit turns into 0.54 radians of roll.
        let (speed, radius) = (180.0, 300.0);
        let face = FaceVelocity::default().with_bank(0.005, FRAC_PI_3);
        let at = |step: u32| {
            let angle = step as f32 * DT * speed / radius;
            let position = Vec3::new(angle.cos(), 0.0, angle.sin()) * radius;
            let velocity = Vec3::new(-angle.sin(), 0.0, angle.cos()) * speed;
            (position, velocity)
        };
        let mut rotation = face.rotation_for(at(0).1, Quat::IDENTITY).unwrap();
        let mut rolls = Vec::new();
        for step in 1..=600 {
            let (position, velocity) = at(step);
            rotation = face
                .turn(velocity, at(step - 1).1, DT, rotation, None)
                .unwrap();
            let towards_centre = (rotation * Vec3::Y).dot(-position);
            assert!(
                step < 10 || towards_centre > 0.0,
                "step {step}: banked outwards"
            );
            rolls.push(roll(rotation));
        }
        let expected = 0.005 * speed * speed / radius;
        // Settled after a second, and steady: no jitter.
        let settled = &rolls[60..];
        let (low, high) = settled
            .iter()
            .fold((f32::INFINITY, 0.0_f32), |(low, high), &r| {
                (low.min(r), high.max(r))
            });
        println!("roll settled between {low} and {high} rad; expected {expected}");
        assert!((low - expected).abs() < 0.02 && (high - expected).abs() < 0.02);
        let jitter = settled
            .windows(2)
            .map(|pair| (pair[1] - pair[0]).abs())
            .fold(0.0, f32::max);
        println!("largest change of roll in a step {jitter}");
        assert!(jitter < 1e-3, "the roll changed by {jitter} in a step");
        // A tighter turn is held to the largest roll.
        let hard = FaceVelocity::default().with_bank(0.05, 0.3);
        let mut rotation = Quat::IDENTITY;
        for step in 1..=300 {
            rotation = hard
                .turn(at(step).1, at(step - 1).1, DT, rotation, None)
                .unwrap();
        }
        assert!((roll(rotation) - 0.3).abs() < 0.02, "{}", roll(rotation));
    }

    #[test]
    fn straight_flight_does_not_roll_and_bad_banks_are_safe() {
        let heading = Vec3::new(1.0, 0.2, -0.5).normalize();
        let mut rotation = Quat::IDENTITY;
        for face in [
            FaceVelocity::default().with_bank(0.01, FRAC_PI_3),
            FaceVelocity::default().with_bank(f32::NAN, f32::INFINITY),
            FaceVelocity::default().with_bank(f32::INFINITY, f32::NAN),
            FaceVelocity::default().with_bank(-1.0, 1.0),
        ] {
            // Speeding up along a straight line: acceleration, none of it sideways.
            for step in 1..=120 {
                let (velocity, previous) = (heading * step as f32, heading * (step - 1) as f32);
                rotation = face.turn(velocity, previous, DT, rotation, None).unwrap();
                assert!(rotation.is_finite());
            }
            let level = FaceVelocity::default()
                .rotation_for(heading, Quat::IDENTITY)
                .unwrap();
            assert!(rotation.angle_between(level) < 1e-3, "{face:?}: {rotation}");
        }
        // An acceleration that is not finite, or no time step, gives no roll and no NaN.
        let face = FaceVelocity::default().with_bank(0.01, FRAC_PI_3);
        for (previous, dt) in [(Vec3::NAN, DT), (Vec3::splat(f32::MAX), DT), (Vec3::Z, 0.0)] {
            let rotation = face
                .turn(Vec3::X, previous, dt, Quat::IDENTITY, None)
                .unwrap();
            assert!(
                rotation.is_finite() && roll(rotation) < 1e-3,
                "{previous} {dt}"
            );
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
