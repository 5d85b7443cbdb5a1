//! Drawing in the XY plane.

use bevy::prelude::*;
use bevy_steer_core::Vector;
use bevy_steer_core::obstacles::ObstacleShape;

use crate::SteeringGizmos;

type Canvas<'w, 's> = Gizmos<'w, 's, SteeringGizmos>;

pub(crate) fn line(gizmos: &mut Canvas, start: Vector, end: Vector, color: Color) {
    gizmos.line_2d(start, end, color);
}

pub(crate) fn arrow(gizmos: &mut Canvas, start: Vector, end: Vector, color: Color) {
    gizmos.arrow_2d(start, end, color).with_tip_length(6.0);
}

/// A circle of `radius` round `centre`.
pub(crate) fn circle(gizmos: &mut Canvas, centre: Vector, radius: f32, color: Color) {
    gizmos.circle_2d(centre, radius, color);
}

/// What a wanderer's figure lies in: the plane, for every agent in 2D.
pub(crate) type WanderPlane = ();

/// The up of the plane a wanderer's figure lies in: none to read in 2D.
pub(crate) fn wander_up(_plane: ()) -> Option<Vector> {
    None
}

/// A wanderer's circle of `radius` round `centre`.
pub(crate) fn wander_circle(
    gizmos: &mut Canvas,
    centre: Vector,
    radius: f32,
    _up: Option<Vector>,
    color: Color,
) {
    circle(gizmos, centre, radius, color);
}

/// The outline of `shape` placed at `position`.
pub(crate) fn outline(gizmos: &mut Canvas, position: Vector, shape: ObstacleShape, color: Color) {
    match shape {
        ObstacleShape::Circle { radius } => {
            gizmos.circle_2d(position, radius, color);
        }
        ObstacleShape::Box { half_size } => {
            gizmos.rect_2d(position, half_size * 2.0, color);
        }
        ObstacleShape::Segment { end } => {
            gizmos.line_2d(position, position + end, color);
        }
    }
}
