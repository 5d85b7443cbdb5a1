//! Wander in 3D: for flyers, Reynolds' sphere (a displacement on the sphere ahead of the agent,
//! nudged by a random step each tick); for ground units, the circle in their plane.

use crate::formulas::TUTORIAL_FRAME_RATE;
use crate::math::angles::sin_cos;
use crate::math::{Vector, direction_or_zero, sideways};

use super::WanderFrame;

/// The unit direction of a flyer's wander displacement, `displacement` (a unit vector) read in
/// `frame`: as it is in [`WanderFrame::World`]; in [`WanderFrame::Heading`], turned by the
/// shortest turn from `carried_heading` (the unit heading it was last carried with) onto the
/// heading, or, before it was ever carried (`carried_heading` zero), with its x axis turned onto
/// the heading (so `+X` is "straight on"). An agent at rest has no heading: the displacement as
/// it is.
#[inline]
pub fn wander_displacement_direction(
    displacement: Vector,
    frame: WanderFrame,
    velocity: Vector,
    carried_heading: Vector,
) -> Vector {
    match frame {
        WanderFrame::World => displacement,
        WanderFrame::Heading => match direction_or_zero(velocity) {
            Vector::ZERO => displacement,
            heading if heading == carried_heading => displacement,
            heading => {
                let from = match carried_heading {
                    Vector::ZERO => Vector::X,
                    carried => carried,
                };
                bevy::math::Quat::from_rotation_arc(from, heading) * displacement
            }
        },
    }
}

/// The unit direction of a ground unit's wander displacement for `angle`, in the plane at right
/// angles to `up` (a unit vector): measured from the plane's x axis (world +X, or where that lies
/// along `up`, a fixed other direction) about `up` in [`WanderFrame::World`], from the heading in
/// [`WanderFrame::Heading`].
#[inline]
pub fn wander_direction_in_plane(
    angle: f32,
    frame: WanderFrame,
    velocity: Vector,
    up: Vector,
) -> Vector {
    let (sin, cos) = sin_cos(angle);
    let heading = direction_or_zero(crate::math::across(velocity, up));
    let x_axis = match frame {
        WanderFrame::Heading if heading != Vector::ZERO => heading,
        _ => sideways(up, Vector::X),
    };
    x_axis * cos + up.cross(x_axis) * sin
}

/// A flyer's wander displacement after a step of `dt` seconds: `displacement` nudged by `random`
/// (three numbers in `[0, 1)`) times `angle_change` about its centre, and put back on the unit
/// sphere.
///
/// Each component of the nudge is at most `angle_change / 2` per tutorial frame, as the 2D angle
/// changes, and it is scaled by `sqrt(dt * TUTORIAL_FRAME_RATE)` so that the displacement
/// wanders as far per second at any step rate. A displacement that is zero or not finite, or a
/// nudge that comes out so, starts again from +X.
#[inline]
pub fn next_wander_displacement(
    displacement: Vector,
    angle_change: f32,
    random: Vector,
    dt: f32,
) -> Vector {
    let step_scale = (dt * TUTORIAL_FRAME_RATE).max(0.0).sqrt();
    let nudged = displacement + (random - 0.5) * (angle_change * step_scale);
    match direction_or_zero(nudged) {
        Vector::ZERO => match direction_or_zero(displacement) {
            Vector::ZERO => Vector::X,
            unit => unit,
        },
        unit => unit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_frame_turns_straight_on_onto_the_heading() {
        let velocity = Vector::new(0.0, 0.0, -5.0);
        let direction =
            wander_displacement_direction(Vector::X, WanderFrame::Heading, velocity, Vector::ZERO);
        assert!(direction.abs_diff_eq(Vector::NEG_Z, 1e-6), "{direction}");
        assert_eq!(
            wander_displacement_direction(Vector::Y, WanderFrame::World, velocity, Vector::ZERO),
            Vector::Y
        );
        // Once carried, it turns by the heading's turn since: straight on stays straight on, and
        // a heading reversed about the vertical takes the displacement round with it.
        let carried =
            wander_displacement_direction(Vector::Z, WanderFrame::Heading, velocity, Vector::NEG_Z);
        assert!(carried.abs_diff_eq(Vector::Z, 1e-6), "{carried}");
        let turned = wander_displacement_direction(
            Vector::X,
            WanderFrame::Heading,
            Vector::NEG_X,
            Vector::Z,
        );
        assert!(turned.abs_diff_eq(Vector::Z, 1e-6), "{turned}");
    }

    #[test]
    fn the_circle_in_the_plane_is_at_right_angles_to_up() {
        for angle in [0.0, 1.0, -2.5] {
            let direction =
                wander_direction_in_plane(angle, WanderFrame::World, Vector::X, Vector::Y);
            assert!(direction.y.abs() < 1e-6 && (direction.length() - 1.0).abs() < 1e-5);
        }
        let ahead = wander_direction_in_plane(
            0.0,
            WanderFrame::Heading,
            Vector::new(0.0, 3.0, 4.0),
            Vector::Y,
        );
        assert!(ahead.abs_diff_eq(Vector::Z, 1e-6), "{ahead}");
    }

    #[test]
    fn the_displacement_stays_on_the_sphere_and_survives_bad_numbers() {
        let mut displacement = Vector::X;
        for step in 0..1000 {
            let random = Vector::new(
                (step as f32 * 0.37).fract(),
                (step as f32 * 0.61).fract(),
                (step as f32 * 0.13).fract(),
            );
            displacement = next_wander_displacement(displacement, 1.0, random, 1.0 / 60.0);
            assert!((displacement.length() - 1.0).abs() < 1e-5);
        }
        assert_eq!(
            next_wander_displacement(Vector::NAN, 1.0, Vector::splat(0.5), 0.1),
            Vector::X
        );
        assert_eq!(
            next_wander_displacement(Vector::Y, f32::NAN, Vector::splat(0.5), 0.1),
            Vector::Y
        );
    }
}
