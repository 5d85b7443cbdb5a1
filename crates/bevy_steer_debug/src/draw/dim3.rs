//! Drawing in 3D: circles become spheres.

use bevy::prelude::*;
use bevy_steer_core::Vector;
use bevy_steer_core::obstacles::ObstacleShape;
use bevy_steer_core::planar::Planar;

use crate::SteeringGizmos;

type Canvas<'w, 's> = Gizmos<'w, 's, SteeringGizmos>;

pub(crate) fn line(gizmos: &mut Canvas, start: Vector, end: Vector, color: Color) {
    gizmos.line(start, end, color);
}

pub(crate) fn arrow(gizmos: &mut Canvas, start: Vector, end: Vector, color: Color) {
    gizmos.arrow(start, end, color).with_tip_length(6.0);
}

/// A sphere of `radius` round `centre` (three great circles).
pub(crate) fn circle(gizmos: &mut Canvas, centre: Vector, radius: f32, color: Color) {
    gizmos.sphere(Isometry3d::from_translation(centre), radius, color);
}

/// What a wanderer's figure lies in: a ground unit's plane ([`Planar`]), or all three dimensions.
pub(crate) type WanderPlane = Option<&'static Planar>;

/// The up of the plane a wanderer's figure lies in: a ground unit's (+Y for an `up` that is not a
/// unit vector, as the steering step takes it), `None` for a flyer.
pub(crate) fn wander_up(planar: Option<&Planar>) -> Option<Vector> {
    planar.map(|planar| planar.effective_up())
}

/// A wanderer's circle of `radius` round `centre`: a ground unit's in its plane (at right angles to
/// `up`), a flyer's a sphere.
pub(crate) fn wander_circle(
    gizmos: &mut Canvas,
    centre: Vector,
    radius: f32,
    up: Option<Vector>,
    color: Color,
) {
    match up {
        // The gizmo's circle lies in its isometry's XY plane.
        Some(up) => {
            let rotation = Quat::from_rotation_arc(Vec3::Z, up);
            gizmos.circle(Isometry3d::new(centre, rotation), radius, color);
        }
        None => circle(gizmos, centre, radius, color),
    }
}

/// The outline of `shape` placed at `position`.
pub(crate) fn outline(gizmos: &mut Canvas, position: Vector, shape: ObstacleShape, color: Color) {
    match shape {
        ObstacleShape::Sphere { radius } => circle(gizmos, position, radius, color),
        ObstacleShape::Box { half_size } => {
            gizmos.cube(
                Transform::from_translation(position).with_scale(half_size * 2.0),
                color,
            );
        }
        ObstacleShape::RotatedBox {
            half_size,
            rotation,
        } => {
            gizmos.cube(
                Transform::from_translation(position)
                    .with_rotation(rotation.normalize())
                    .with_scale(half_size * 2.0),
                color,
            );
        }
        ObstacleShape::Plane { normal } => {
            // Unbounded: a square of it round its point, and its normal.
            let Ok(normal) = Dir3::new(normal) else {
                return;
            };
            let rotation = Quat::from_rotation_arc(Vec3::Z, *normal);
            gizmos.rect(
                Isometry3d::new(position, rotation),
                Vec2::splat(PLANE_DRAWN_SIZE),
                color,
            );
            arrow(gizmos, position, position + *normal * 40.0, color);
        }
    }
}

/// The width of the square drawn of an (unbounded) plane obstacle.
const PLANE_DRAWN_SIZE: f32 = 400.0;
