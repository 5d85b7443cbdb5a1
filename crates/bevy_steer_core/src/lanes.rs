//! The wander force, the integration step and the turn of [`FaceVelocity`] for four agents at once,
//! on SIMD lanes.
//!
//! One agent's update is a chain of dependent square roots, divisions and polynomial terms; four
//! agents on the lanes of one `Vec4` run four chains for the price of one. This is the fast path
//! for the common case only: [`wander_circle`] and [`integrate`] answer `None` when any lane needs
//! one of the scalar path's special cases (a squared length that under- or overflows, an invalid
//! mass or limit, a value that is not finite, an angle too large for the polynomial sine), and the
//! caller then steps those agents with the scalar functions of [`forces`].
//!
//! Every lane does the operations of the scalar path, in the same order, each correctly rounded
//! and without fused multiply-adds, so a lane's result has the same bits as the scalar path's: an
//! agent moves the same whichever path steps it.

use core::ops::Range;

use bevy::math::{BVec4A, Quat, Vec2, Vec4};

use crate::forces;

#[cfg(doc)]
use crate::components::FaceVelocity;

/// How many agents one call steps.
pub(crate) const LANES: usize = 4;

/// The rows `0..len` in groups of [`LANES`], each with its first row; only the last group may be
/// short, and a short group cannot go on the lanes.
pub(crate) fn groups(len: usize) -> impl Iterator<Item = (usize, Range<usize>)> {
    (0..len)
        .step_by(LANES)
        .map(move |start| (start, start..(start + LANES).min(len)))
}

/// `value` of the [`LANES`] items of `column` from `start` on, one per lane.
#[inline]
pub(crate) fn lanes_of<T>(column: &[T], start: usize, value: impl Fn(&T) -> f32) -> Vec4 {
    Vec4::from_array(core::array::from_fn(|lane| value(&column[start + lane])))
}

/// Four `Vec2`s, their x components on the lanes of one `Vec4` and their y on another.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vec2x4 {
    x: Vec4,
    y: Vec4,
}

impl Vec2x4 {
    const ZERO: Self = Self {
        x: Vec4::ZERO,
        y: Vec4::ZERO,
    };

    /// The four vectors `vector(0)` to `vector(3)`.
    #[inline]
    pub(crate) fn from_fn(vector: impl Fn(usize) -> Vec2) -> Self {
        let [a, b, c, d] = [vector(0), vector(1), vector(2), vector(3)];
        Self {
            x: Vec4::new(a.x, b.x, c.x, d.x),
            y: Vec4::new(a.y, b.y, c.y, d.y),
        }
    }

    /// The vector on `lane`.
    #[inline]
    pub(crate) fn lane(self, lane: usize) -> Vec2 {
        Vec2::new(self.x[lane], self.y[lane])
    }

    #[inline]
    fn scaled(self, factor: Vec4) -> Self {
        Self {
            x: self.x * factor,
            y: self.y * factor,
        }
    }

    #[inline]
    fn plus(self, other: Self) -> Self {
        Self {
            x: self.x + other.x,
            y: self.y + other.y,
        }
    }

    /// `x * x + y * y`, as `Vec2::length_squared` computes it.
    #[inline]
    fn length_squared(self) -> Vec4 {
        self.x * self.x + self.y * self.y
    }

    #[inline]
    fn is_zero(self) -> BVec4A {
        self.x.cmpeq(Vec4::ZERO) & self.y.cmpeq(Vec4::ZERO)
    }

    #[inline]
    fn is_finite(self) -> BVec4A {
        self.x.is_finite_mask() & self.y.is_finite_mask()
    }

    #[inline]
    fn select(mask: BVec4A, if_true: Self, if_false: Self) -> Self {
        Self {
            x: Vec4::select(mask, if_true.x, if_false.x),
            y: Vec4::select(mask, if_true.y, if_false.y),
        }
    }
}

/// Lanes whose value is a normal `f32` (not zero, subnormal, infinite or NaN), for values that are
/// not negative.
#[inline]
fn is_normal(value: Vec4) -> BVec4A {
    value.cmpge(Vec4::splat(f32::MIN_POSITIVE)) & value.cmplt(Vec4::INFINITY)
}

/// `forces::truncate` for the lanes where it needs no special case (a squared length that is normal,
/// or a zero vector), with those lanes marked. `max` must not be negative.
#[inline]
fn truncate(vector: Vec2x4, max: Vec4) -> (Vec2x4, BVec4A) {
    let squared = vector.length_squared();
    let length = squared.sqrt();
    let shortened = Vec2x4 {
        x: vector.x / length * max,
        y: vector.y / length * max,
    };
    let common = is_normal(squared) | vector.is_zero();
    (Vec2x4::select(length.cmple(max), vector, shortened), common)
}

/// Four wanderers' circle-method forces with the angle in the world frame
/// ([`forces::wander_circle`] of [`forces::wander_displacement_direction`]); `None` when any of the
/// four needs the scalar path (see the [module docs](self)).
#[inline]
pub(crate) fn wander_circle(
    velocity: Vec2x4,
    [circle_distance, circle_radius, angle]: [Vec4; 3],
) -> Option<Vec2x4> {
    let angles = angle.to_array();
    if !angles.into_iter().all(forces::sin_cos_is_polynomial) {
        return None;
    }
    let quadrants = angles.map(forces::nearest_quadrant);
    let (sin, cos) = forces::reduced_sin_cos(angle, Vec4::from_array(quadrants.map(|q| q as f32)));
    let displacement = Vec2x4::from_fn(|lane| {
        let (sin, cos) = forces::in_quadrant(quadrants[lane], sin[lane], cos[lane]);
        Vec2::new(cos, sin)
    });
    // `forces::direction_or_zero`.
    let squared = velocity.length_squared();
    let is_zero = velocity.is_zero();
    let heading = Vec2x4::select(
        is_zero,
        Vec2x4::ZERO,
        velocity.scaled(squared.sqrt().recip()),
    );
    let common = is_normal(squared) | is_zero;
    common.all().then_some(
        heading
            .scaled(circle_distance)
            .plus(displacement.scaled(circle_radius)),
    )
}

/// Four agents' new velocities and positions after a step of `dt` seconds, as
/// [`forces::integrate_velocity`] and `position + velocity * dt` give them; `None` when any of the
/// four needs the scalar path (see the [module docs](self)).
#[inline]
pub(crate) fn integrate(
    velocity: Vec2x4,
    position: Vec2x4,
    force: Vec2x4,
    [mass, max_speed, max_force]: [Vec4; 3],
    dt: f32,
) -> Option<(Vec2x4, Vec2x4)> {
    let is_limit = |limit: Vec4| limit.cmpge(Vec4::ZERO) & limit.cmplt(Vec4::INFINITY);
    let (force, force_common) = truncate(force, max_force);
    let step_per_mass = Vec4::splat(dt) / mass;
    let change = force.scaled(step_per_mass);
    // The scalar path leaves the velocity as it is when the truncated force is zero.
    let moved = Vec2x4::select(force.is_zero(), velocity, velocity.plus(change));
    let (new_velocity, speed_common) = truncate(moved, max_speed);
    let new_position = position.plus(new_velocity.scaled(Vec4::splat(dt)));
    let common = is_limit(max_speed)
        & is_limit(max_force)
        & mass.cmpgt(Vec4::ZERO)
        & mass.cmplt(Vec4::INFINITY)
        & is_normal(step_per_mass)
        & force_common
        & velocity.is_finite()
        & change.is_finite()
        & moved.is_finite()
        & speed_common
        & new_position.is_finite();
    common.all().then_some((new_velocity, new_position))
}

/// The rotations [`face_velocity`] gives: for each lane, a turn about z, or none for an agent at
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
pub(crate) fn face_velocity(forward: Vec2x4, velocity: Vec2x4) -> Turns {
    // `Dir2::new`: the velocity over its length, when that is positive and finite.
    let length = velocity.length_squared().sqrt();
    let moving = length.is_finite_mask() & length.cmpgt(Vec4::ZERO);
    let heading = Vec2x4 {
        x: velocity.x / length,
        y: velocity.y / length,
    };
    let cos = forward.x * heading.x + forward.y * heading.y;
    let sin = forward.x * heading.y - forward.y * heading.x;
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
    use crate::behaviours::WanderFrame;
    use crate::components::FaceVelocity;
    use crate::forces::{integrate_velocity, wander_circle as scalar_wander_circle};
    use bevy::math::Dir2;
    use core::f32::consts::PI;
    use proptest::prelude::*;

    const DT: f32 = 1.0 / 60.0;

    /// The scalar path's velocities and positions for four agents.
    fn scalar(
        velocities: [Vec2; 4],
        positions: [Vec2; 4],
        forces: [Vec2; 4],
        limits: [[f32; 3]; 4],
    ) -> [(Vec2, Vec2); 4] {
        core::array::from_fn(|lane| {
            let [mass, max_speed, max_force] = limits[lane];
            let velocity = integrate_velocity(
                velocities[lane],
                forces[lane],
                mass,
                max_speed,
                max_force,
                DT,
            );
            (velocity, positions[lane] + velocity * DT)
        })
    }

    fn lanes(
        velocities: [Vec2; 4],
        positions: [Vec2; 4],
        forces: [Vec2; 4],
        limits: [[f32; 3]; 4],
    ) -> Option<[(Vec2, Vec2); 4]> {
        let limit = |index: usize| Vec4::from_array(limits.map(|limit| limit[index]));
        let (velocity, position) = integrate(
            Vec2x4::from_fn(|lane| velocities[lane]),
            Vec2x4::from_fn(|lane| positions[lane]),
            Vec2x4::from_fn(|lane| forces[lane]),
            [limit(0), limit(1), limit(2)],
            DT,
        )?;
        Some(core::array::from_fn(|lane| {
            (velocity.lane(lane), position.lane(lane))
        }))
    }

    fn bits(results: [(Vec2, Vec2); 4]) -> [[u32; 4]; 4] {
        results.map(|(velocity, position)| {
            [velocity.x, velocity.y, position.x, position.y].map(f32::to_bits)
        })
    }

    fn vector(range: f32) -> impl Strategy<Value = Vec2> {
        (-range..range, -range..range).prop_map(|(x, y)| Vec2::new(x, y))
    }

    fn limits() -> impl Strategy<Value = [f32; 3]> {
        (0.05f32..50.0, 0.0f32..400.0, 0.0f32..1000.0)
            .prop_map(|(mass, max_speed, max_force)| [mass, max_speed, max_force])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Ordinary agents take the fast path, and it gives the scalar path's bits.
        #[test]
        fn lanes_give_the_scalar_paths_bits(
            velocities in prop::array::uniform4(vector(300.0)),
            positions in prop::array::uniform4(vector(1e5)),
            forces in prop::array::uniform4(vector(2000.0)),
            limits in prop::array::uniform4(limits()),
        ) {
            let fast = lanes(velocities, positions, forces, limits);
            prop_assert!(fast.is_some());
            let fast = fast.unwrap();
            prop_assert_eq!(bits(fast), bits(scalar(velocities, positions, forces, limits)));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Ordinary wanderers take the fast path, and it gives the scalar path's bits.
        #[test]
        fn wander_lanes_give_the_scalar_paths_bits(
            velocities in prop::array::uniform4(vector(300.0)),
            circles in prop::array::uniform4((0.0f32..200.0, 0.0f32..400.0, -8192.0f32..8192.0)),
        ) {
            let column = |field: fn(&(f32, f32, f32)) -> f32| lanes_of(&circles, 0, field);
            let fast = wander_circle(
                Vec2x4::from_fn(|lane| velocities[lane]),
                [column(|circle| circle.0), column(|circle| circle.1), column(|circle| circle.2)],
            );
            prop_assert!(fast.is_some());
            let fast = fast.unwrap();
            for lane in 0..LANES {
                let (distance, radius, angle) = circles[lane];
                let velocity = velocities[lane];
                let direction =
                    forces::wander_displacement_direction(angle, WanderFrame::World, velocity);
                let scalar = scalar_wander_circle(velocity, distance, radius, direction);
                prop_assert_eq!(fast.lane(lane).to_array().map(f32::to_bits), scalar.to_array().map(f32::to_bits));
            }
        }
    }

    #[test]
    fn wanderers_needing_a_special_case_are_left_to_the_scalar_path() {
        let circles = |angle: f32| {
            [
                Vec4::splat(90.0),
                Vec4::splat(180.0),
                Vec4::new(0.0, 1.0, 2.0, angle),
            ]
        };
        let moving = Vec2x4::from_fn(|lane| Vec2::new(lane as f32, 60.0));
        assert!(wander_circle(moving, circles(3.0)).is_some());
        assert!(wander_circle(Vec2x4::from_fn(|_| Vec2::ZERO), circles(3.0)).is_some());
        assert!(wander_circle(moving, circles(f32::NAN)).is_none());
        assert!(wander_circle(moving, circles(1e4)).is_none());
        let creeping = Vec2x4::from_fn(|lane| Vec2::new(1e-25 * lane as f32, 0.0));
        assert!(wander_circle(creeping, circles(3.0)).is_none());
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
            let turns = face_velocity(
                Vec2x4::from_fn(|lane| *facing[lane].local_forward),
                Vec2x4::from_fn(|lane| velocities[lane]),
            );
            for lane in 0..LANES {
                let bits = |turn: Option<Quat>| turn.map(|turn| turn.to_array().map(f32::to_bits));
                prop_assert_eq!(bits(turns.lane(lane)), bits(facing[lane].rotation_for(velocities[lane])));
            }
        }
    }

    #[test]
    fn zero_forces_and_velocities_take_the_fast_path() {
        let zero = [Vec2::ZERO; 4];
        let limits = [[1.0, 180.0, 600.0]; 4];
        let positions = [Vec2::new(3.0, -4.0); 4];
        let fast = lanes(zero, positions, zero, limits).unwrap();
        assert_eq!(bits(fast), bits(scalar(zero, positions, zero, limits)));
    }

    #[test]
    fn special_cases_are_left_to_the_scalar_path() {
        let ordinary = || {
            (
                [Vec2::new(10.0, 0.0); 4],
                [Vec2::ZERO; 4],
                [Vec2::new(0.0, 50.0); 4],
                [[1.0, 180.0, 600.0]; 4],
            )
        };
        let (velocities, positions, forces, limits) = ordinary();
        assert!(lanes(velocities, positions, forces, limits).is_some());
        let cases: [&dyn Fn(&mut ([Vec2; 4], [Vec2; 4], [Vec2; 4], [[f32; 3]; 4])); 9] = [
            &|agents| agents.3[1][0] = 0.0,
            &|agents| agents.3[2][0] = f32::NAN,
            &|agents| agents.3[3][1] = -1.0,
            &|agents| agents.3[0][2] = f32::INFINITY,
            &|agents| agents.2[1] = Vec2::new(1e-30, 0.0),
            &|agents| agents.2[2] = Vec2::new(f32::MAX, 0.0),
            &|agents| agents.0[3] = Vec2::new(f32::NAN, 0.0),
            &|agents| agents.1[0] = Vec2::new(f32::INFINITY, 0.0),
            &|agents| agents.3[1][0] = 1e38,
        ];
        for (index, case) in cases.iter().enumerate() {
            let mut agents = ordinary();
            case(&mut agents);
            let (velocities, positions, forces, limits) = agents;
            assert!(
                lanes(velocities, positions, forces, limits).is_none(),
                "case {index}"
            );
        }
    }
}
