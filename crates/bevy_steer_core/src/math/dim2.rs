//! The 2D build's types: positions, velocities and forces are [`Vec2`]s in the XY plane of the
//! world, read from and written to the x and y of a `Transform`'s translation (its z is left to
//! the game, for drawing order).

use bevy::math::{DVec2, Dir2, Vec2, Vec3};
use bevy::transform::components::Transform;

/// The vector type of positions, velocities and forces.
pub type Vector = Vec2;

/// A unit vector of [`Vector`]'s dimension.
pub type Direction = Dir2;

/// [`Vector`] in `f64`, for the few sums that must not overflow.
pub type WideVector = DVec2;

/// `vector` in `f64`.
#[inline]
pub fn widen(vector: Vector) -> WideVector {
    vector.as_dvec2()
}

/// `vector` rounded to `f32`.
#[inline]
pub fn narrow(vector: WideVector) -> Vector {
    vector.as_vec2()
}

/// An agent's position: its `Transform`'s translation in the plane.
#[inline]
pub fn position_of(transform: &Transform) -> Vector {
    transform.translation.truncate()
}

/// Moves `transform` to `position` in the plane, keeping its z.
#[inline]
pub fn set_position(transform: &mut Transform, position: Vector) {
    transform.translation.x = position.x;
    transform.translation.y = position.y;
}

/// The translation of a `Transform` at `position`, at z = 0.
#[inline]
pub fn translation_of(position: Vector) -> Vec3 {
    position.extend(0.0)
}

/// The part of `offset` across `heading` (a unit vector): `offset` less its component along it.
#[inline]
pub fn across(offset: Vector, heading: Vector) -> Vector {
    let side = heading.perp();
    side * offset.dot(side)
}

/// How far `offset` lies from the line through the origin along `heading` (a unit vector).
#[inline]
pub fn distance_across(offset: Vector, heading: Vector) -> f32 {
    offset.perp_dot(heading).abs()
}

/// A unit vector at right angles to `heading` (a unit vector, or zero): its left, `heading`
/// turned a quarter turn anticlockwise. (`towards` says which way in 3D, where there is no one
/// left; 2D ignores it.)
#[inline]
pub fn sideways(heading: Vector, _towards: Vector) -> Vector {
    heading.perp()
}

/// The left of `heading` in the plane (`up` is the 3D build's; 2D has one plane): `heading`
/// turned a quarter turn anticlockwise.
#[inline]
pub fn left_in_plane(heading: Vector, _up: Vector) -> Vector {
    heading.perp()
}

/// Unit vectors spread all round, for searches by direction: sixteen round the circle, from +X
/// anticlockwise (`up`, a 3D ground unit's plane, is the 3D build's).
pub fn all_round(_up: Option<Vector>) -> impl Iterator<Item = Vector> {
    (0..16).map(|k| Vector::from_angle(k as f32 * core::f32::consts::TAU / 16.0))
}
