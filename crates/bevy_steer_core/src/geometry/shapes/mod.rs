//! Obstacle shapes, with the distances, normals and first contacts that obstacle avoidance and
//! containment steer by: in 2D discs, axis-aligned boxes and wall segments; in 3D spheres, boxes
//! (axis-aligned or rotated) and walls (rectangles of no thickness).

#[cfg(feature = "2d")]
mod dim2;
#[cfg(feature = "3d")]
mod dim3;

#[cfg(feature = "2d")]
pub use dim2::ObstacleShape;
#[cfg(feature = "3d")]
pub use dim3::ObstacleShape;

use crate::math::{Vector, direction_or_zero, length};

impl ObstacleShape {
    /// The unit direction out of the shape placed at `position`, at `point`: away from its closest
    /// point, and for a point inside a box, a disc or a sphere, out through the nearest face. Zero
    /// for a point on a wall or on a surface (within the rounding of the coordinates). At a disc's
    /// or sphere's centre, where every way out is as short, `+X`: towards the point
    /// [`closest_point`](Self::closest_point) takes there.
    pub fn outward_normal(self, position: Vector, point: Vector) -> Vector {
        let closest = self.closest_point(position, point);
        let offset = point - closest;
        // A point on a wall's line comes out a rounding error to one side of it or along it,
        // whose direction means nothing.
        let scale = 1.0 + point.abs().max_element().max(position.abs().max_element());
        if length(offset) <= 16.0 * f32::EPSILON * scale {
            return Vector::ZERO;
        }
        let away = direction_or_zero(offset);
        if self.signed_distance(position, point) < 0.0 {
            -away
        } else {
            away
        }
    }
}

/// How far `offset` (from the box's centre) is outside the box of `half_size`: negative inside.
fn box_signed_distance(half_size: Vector, offset: Vector) -> f32 {
    let outside = offset.abs() - half_size;
    outside.max(Vector::ZERO).length() + outside.max_element().min(0.0)
}

/// The most points [`sampled_first_contact`] divides a move into: `room` apart for any move up to
/// 65 536 times as long as the room (a cap, so that a room of almost nothing costs no more).
const MOST_SAMPLES: f32 = 65_536.0;

/// Where along the move from `from` by `reach` (0 to 1) a body keeping `room` first comes nearer
/// than `room` to a surface of no thickness (a wall), whose distance from a point is `distance`:
/// tested at points at most `room` apart along a move up to [`MOST_SAMPLES`] times as long, so
/// that the wall cannot slip between two of them, those within `window` only (the part of the
/// move, 0 to 1, inside the wall's bounding box grown by `room`: none outside it is within `room`). A point found so lies a little inside
/// the room kept, where the corner's other walls count for the push out (see `AvoidObstacles`).
fn sampled_first_contact(
    distance: impl Fn(Vector) -> f32,
    from: Vector,
    reach: Vector,
    room: f32,
    window: Option<(f32, f32)>,
) -> Option<f32> {
    let (enter, leave) = window?;
    let samples = (reach.length() / room).ceil();
    let samples = if samples.is_finite() {
        samples.clamp(1.0, MOST_SAMPLES)
    } else {
        1.0
    };
    // A sample either side of the window, which rounding may have narrowed (both within 0 to 1).
    let first = (enter * samples).floor() as u32;
    let last = (leave * samples).ceil() as u32;
    (first..=last)
        .map(|sample| sample as f32 / samples)
        .find(|&along| distance(from + reach * along) < room)
}

/// The part of the move from `from` by `reach` (0 to 1) inside the box of `half_size` centred on
/// the origin, `None` when it misses: the slabs of all axes at once (a zero component of `reach`
/// gives infinite bounds, or NaN where `from` lies on a face, which `min` / `max` skip).
fn box_window(half_size: Vector, from: Vector, reach: Vector) -> Option<(f32, f32)> {
    let inverse = Vector::ONE / reach;
    let low = (-half_size - from) * inverse;
    let high = (half_size - from) * inverse;
    let enter = low.min(high).max_element().max(0.0);
    let leave = low.max(high).min_element().min(1.0);
    (enter <= leave).then_some((enter, leave))
}

/// Where along the move by `reach` (0 to 1) from `offset` (from the centre of a disc or a sphere
/// of `radius`) a body keeping `room` first touches it: exact, `Some(0.0)` when already touching.
fn round_first_contact(radius: f32, offset: Vector, reach: Vector, room: f32) -> Option<f32> {
    let touching = radius + room;
    let c = offset.length_squared() - touching * touching;
    if c <= 0.0 {
        return Some(0.0);
    }
    let a = reach.length_squared();
    let b = offset.dot(reach);
    let discriminant = b * b - a * c;
    if a == 0.0 || discriminant < 0.0 {
        return None;
    }
    let along = (-b - discriminant.sqrt()) / a;
    (0.0..=1.0).contains(&along).then_some(along)
}
