//! The wander angle: how it drifts from step to step, and (in 2D) the circle's displacement
//! direction from it. In 3D the angle serves ground units (`Planar`),
//! whose circle lies in their plane; see `sphere.rs` for flight.

use core::f32::consts::{PI, TAU};

use bevy::prelude::*;

use crate::formulas::TUTORIAL_FRAME_RATE;
#[cfg(feature = "2d")]
use crate::math::angles::sin_cos;
#[cfg(feature = "2d")]
use crate::math::{Vector, direction_or_zero};

/// Which way the wander angle is measured.
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[reflect(Default, Debug, PartialEq, Hash, Clone)]
pub enum WanderFrame {
    /// From world +X, as the tutorial's `setAngle` does. The displacement keeps a world direction
    /// while the angle drifts, so turns are long and sweeping.
    #[default]
    World,
    /// From the agent's heading, as Reynolds places it: the displacement turns with the agent, so
    /// an angle near zero means "straight on" and turns stay gentle whatever the heading.
    Heading,
}

/// The unit direction of the wander displacement for `angle`.
#[cfg(feature = "2d")]
///
/// In [`WanderFrame::World`] (the tutorial's `setAngle`) the angle is measured from world +X; in
/// [`WanderFrame::Heading`] (Reynolds) from the velocity's direction. An agent at rest has no
/// heading, so there both frames agree.
#[inline]
pub fn wander_displacement_direction(angle: f32, frame: WanderFrame, velocity: Vector) -> Vector {
    let (sin, cos) = sin_cos(angle);
    let world = Vector::new(cos, sin);
    match frame {
        WanderFrame::World => world,
        WanderFrame::Heading => match direction_or_zero(velocity) {
            Vector::ZERO => world,
            heading => heading.rotate(world),
        },
    }
}

/// The tutorial's `wanderAngle += Math.random() * ANGLE_CHANGE - ANGLE_CHANGE * .5`, with `random`
/// in `[0, 1)`, for a step of `dt` seconds.
///
/// The tutorial changes the angle once per frame. So that the angle wanders as much per second at
/// any step rate, the change is scaled by `sqrt(dt * TUTORIAL_FRAME_RATE)` (a random walk's spread
/// grows with the square root of the number of steps): at 60 steps per second it is the tutorial's.
/// The result is wrapped into `[-PI, PI)`. A change that comes out non-finite leaves the angle as it
/// was.
#[inline]
pub fn next_wander_angle(angle: f32, angle_change: f32, random: f32, dt: f32) -> f32 {
    let step_scale = (dt * TUTORIAL_FRAME_RATE).max(0.0).sqrt();
    let next = angle + (random - 0.5) * angle_change * step_scale;
    if (-PI..PI).contains(&next) {
        return next;
    }
    // Most of the other steps cross the boundary once: the remainder of the general case is a
    // slow library call.
    let wrapped_once = next - TAU.copysign(next);
    if (-PI..PI).contains(&wrapped_once) {
        wrapped_once
    } else if next.is_finite() {
        (next + PI).rem_euclid(TAU) - PI
    } else {
        angle
    }
}

#[cfg(all(test, feature = "2d"))]
mod tests {
    use super::*;
    use crate::behaviours::wander::wander_circle;
    use crate::test_support::assert_close;
    use core::f32::consts::FRAC_PI_2;

    #[test]
    fn wander_force_is_circle_centre_plus_displacement() {
        // circleCenter = normalize((0, 2)) * 6 = (0, 6); displacement at angle 0 = (8, 0).
        let velocity = Vec2::new(0.0, 2.0);
        let direction = wander_displacement_direction(0.0, WanderFrame::World, velocity);
        assert_close(
            wander_circle(velocity, 6.0, 8.0, direction),
            Vec2::new(8.0, 6.0),
        );
    }

    #[test]
    fn heading_frame_measures_the_angle_from_the_velocity() {
        // Heading +Y; angle +90 degrees from it points at -X.
        let velocity = Vec2::new(0.0, 5.0);
        let direction = wander_displacement_direction(FRAC_PI_2, WanderFrame::Heading, velocity);
        assert_close(direction, Vec2::new(-1.0, 0.0));
        let world = wander_displacement_direction(FRAC_PI_2, WanderFrame::World, velocity);
        assert_close(world, Vec2::new(0.0, 1.0));
    }

    #[test]
    fn wander_at_rest_is_the_displacement_alone() {
        let direction = wander_displacement_direction(PI, WanderFrame::Heading, Vec2::ZERO);
        assert_close(
            wander_circle(Vec2::ZERO, 6.0, 8.0, direction),
            Vec2::new(-8.0, 0.0),
        );
    }

    #[test]
    fn wander_angle_changes_by_at_most_half_the_angle_change_per_tutorial_frame() {
        let dt = 1.0 / TUTORIAL_FRAME_RATE;
        assert!((next_wander_angle(0.0, 1.0, 0.0, dt) + 0.5).abs() < 1e-6);
        assert!((next_wander_angle(0.0, 1.0, 0.5, dt)).abs() < 1e-6);
        assert!((next_wander_angle(0.0, 1.0, 1.0, dt) - 0.5).abs() < 1e-6);
        // Four times the step: twice the change.
        assert!((next_wander_angle(0.0, 1.0, 1.0, 4.0 * dt) - 1.0).abs() < 1e-5);
        // No time, no change; wraps into [-PI, PI).
        assert_eq!(next_wander_angle(0.25, 1.0, 0.9, 0.0), 0.25);
        assert!((next_wander_angle(PI - 0.1, 1.0, 1.0, dt) - (-PI + 0.4)).abs() < 1e-5);
        assert!((next_wander_angle(-PI + 0.1, 1.0, 0.0, dt) - (PI - 0.4)).abs() < 1e-5);
        // More than one turn: 10 radians is 10 - 4 PI.
        let turned = next_wander_angle(0.0, 20.0, 1.0, dt);
        assert!((turned - (10.0 - 2.0 * TAU)).abs() < 1e-5, "{turned}");
        for (angle, random) in [(PI - 1e-7, 1.0), (-PI, 0.0), (3.0, 0.999_999_9)] {
            assert!((-PI..PI).contains(&next_wander_angle(angle, 1.0, random, dt)));
        }
        assert_eq!(next_wander_angle(0.3, f32::NAN, 0.9, dt), 0.3);
    }
}
