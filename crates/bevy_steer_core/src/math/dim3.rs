//! The 3D build's types: positions, velocities and forces are [`Vec3`]s, the whole translation of
//! a `Transform`.
//!
//! Ground units keep to a plane through [`Planar`](crate::planar::Planar); flyers use all three
//! axes.

use bevy::math::{DVec3, Dir3, Vec3};
use bevy::transform::components::Transform;

/// The vector type of positions, velocities and forces.
pub type Vector = Vec3;

/// A unit vector of [`Vector`]'s dimension.
pub type Direction = Dir3;

/// [`Vector`] in `f64`, for the few sums that must not overflow.
pub type WideVector = DVec3;

/// `vector` in `f64`.
#[inline]
pub fn widen(vector: Vector) -> WideVector {
    vector.as_dvec3()
}

/// `vector` rounded to `f32`.
#[inline]
pub fn narrow(vector: WideVector) -> Vector {
    vector.as_vec3()
}

/// An agent's position: its `Transform`'s translation.
#[inline]
pub fn position_of(transform: &Transform) -> Vector {
    transform.translation
}

/// Moves `transform` to `position`.
#[inline]
pub fn set_position(transform: &mut Transform, position: Vector) {
    transform.translation = position;
}

/// The translation of a `Transform` at `position`.
#[inline]
pub fn translation_of(position: Vector) -> Vec3 {
    position
}

/// The part of `offset` across `heading` (a unit vector): `offset` less its component along it.
#[inline]
pub fn across(offset: Vector, heading: Vector) -> Vector {
    offset - heading * offset.dot(heading)
}

/// How far `offset` lies from the line through the origin along `heading` (a unit vector).
#[inline]
pub fn distance_across(offset: Vector, heading: Vector) -> f32 {
    offset.cross(heading).length()
}

/// A unit vector at right angles to `heading` (a unit vector, or zero): the direction of
/// `towards` across it, or, where `towards` lies along it (within rounding: its part across is
/// under a millionth of its length), any right angle (a fixed choice, so that it is
/// deterministic).
#[inline]
pub fn sideways(heading: Vector, towards: Vector) -> Vector {
    if heading == Vector::ZERO {
        return super::direction_or_zero(towards);
    }
    let side = across(towards, heading);
    // What rounding leaves of a vector along a diagonal heading points anywhere, even along the
    // heading itself.
    if super::length(side) <= 1e-6 * super::length(towards) {
        return heading.any_orthonormal_vector();
    }
    match super::direction_or_zero(side) {
        Vector::ZERO => heading.any_orthonormal_vector(),
        side => side,
    }
}

/// The left of `heading` in the plane at right angles to `up` (both unit vectors, at right
/// angles): `up × heading`, zero where they are not at right angles.
#[inline]
pub fn left_in_plane(heading: Vector, up: Vector) -> Vector {
    super::direction_or_zero(up.cross(heading))
}

/// Unit vectors spread all round, for searches by direction: the 26 from a cube's centre through
/// its faces, edges and corners, in a fixed order; with `up` (a unit vector: a ground unit's
/// plane), sixteen round the plane at right angles to it.
pub fn all_round(up: Option<Vector>) -> impl Iterator<Item = Vector> {
    let cube = up.is_none().then(|| {
        (0..27).filter(|&k| k != 13).map(|k: i32| {
            Vec3::new(
                (k % 3 - 1) as f32,
                (k / 3 % 3 - 1) as f32,
                (k / 9 - 1) as f32,
            )
            .normalize()
        })
    });
    let plane = up.map(|up| {
        let ahead = sideways(up, Vector::ZERO);
        let left = left_in_plane(ahead, up);
        (0..16).map(move |k| {
            let (sin, cos) = (k as f32 * core::f32::consts::TAU / 16.0).sin_cos();
            ahead * cos + left * sin
        })
    });
    cube.into_iter()
        .flatten()
        .chain(plane.into_iter().flatten())
}
