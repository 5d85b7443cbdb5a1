//! Four wanderers at once on SIMD lanes, with the bits of the scalar path.

use bevy::math::Vec4;

use crate::math::Vector;
use crate::math::angles::{in_quadrant, nearest_quadrant, reduced_sin_cos, sin_cos_is_polynomial};
use crate::math::lanes::{VectorLanes, direction_or_zero};

/// Four wanderers' circle-method forces with the angle in the world frame ([`wander_circle`](super::wander_circle) of
/// [`wander_displacement_direction`](super::wander_displacement_direction)); `None` when any of the
/// four needs one of the scalar path's special cases (an angle too large for the polynomial sine,
/// a velocity whose squared length under- or overflows).
#[inline]
pub(crate) fn wander_circle_lanes(
    velocity: VectorLanes,
    [circle_distance, circle_radius, angle]: [Vec4; 3],
) -> Option<VectorLanes> {
    let angles = angle.to_array();
    if !angles.into_iter().all(sin_cos_is_polynomial) {
        return None;
    }
    let quadrants = angles.map(nearest_quadrant);
    let (sin, cos) = reduced_sin_cos(angle, Vec4::from_array(quadrants.map(|q| q as f32)));
    let displacement = VectorLanes::from_fn(|lane| {
        let (sin, cos) = in_quadrant(quadrants[lane], sin[lane], cos[lane]);
        Vector::new(cos, sin)
    });
    let (heading, common) = direction_or_zero(velocity);
    common.all().then_some(
        heading
            .scaled(circle_distance)
            .plus(displacement.scaled(circle_radius)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::wander::{WanderFrame, wander_circle, wander_displacement_direction};
    use crate::math::lanes::{LANES, lanes_of};
    use crate::test_support::vector;
    use bevy::math::Vec2;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Ordinary wanderers take the fast path, and it gives the scalar path's bits.
        #[test]
        fn wander_lanes_give_the_scalar_paths_bits(
            velocities in prop::array::uniform4(vector(300.0)),
            circles in prop::array::uniform4((0.0f32..200.0, 0.0f32..400.0, -8192.0f32..8192.0)),
        ) {
            let column = |field: fn(&(f32, f32, f32)) -> f32| lanes_of(&circles, 0, field);
            let fast = wander_circle_lanes(
                VectorLanes::from_fn(|lane| velocities[lane]),
                [column(|circle| circle.0), column(|circle| circle.1), column(|circle| circle.2)],
            );
            prop_assert!(fast.is_some());
            let fast = fast.unwrap();
            for lane in 0..LANES {
                let (distance, radius, angle) = circles[lane];
                let velocity = velocities[lane];
                let direction =
                    wander_displacement_direction(angle, WanderFrame::World, velocity);
                let scalar = wander_circle(velocity, distance, radius, direction);
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
        let moving = VectorLanes::from_fn(|lane| Vec2::new(lane as f32, 60.0));
        assert!(wander_circle_lanes(moving, circles(3.0)).is_some());
        assert!(wander_circle_lanes(VectorLanes::from_fn(|_| Vec2::ZERO), circles(3.0)).is_some());
        assert!(wander_circle_lanes(moving, circles(f32::NAN)).is_none());
        assert!(wander_circle_lanes(moving, circles(1e4)).is_none());
        let creeping = VectorLanes::from_fn(|lane| Vec2::new(1e-25 * lane as f32, 0.0));
        assert!(wander_circle_lanes(creeping, circles(3.0)).is_none());
    }
}
