//! Helpers the unit tests of several modules share.

use crate::formulas::Boid;
use crate::math::{DIMENSIONS, Vector};
use proptest::prelude::*;

pub(crate) const EPSILON: f32 = 1e-4;

pub(crate) fn assert_close(actual: Vector, expected: Vector) {
    assert!(
        actual.abs_diff_eq(expected, EPSILON),
        "expected {expected}, got {actual}"
    );
}

pub(crate) fn boid(position: Vector, velocity: Vector, max_speed: f32) -> Boid {
    Boid {
        position,
        velocity,
        max_speed,
    }
}

/// The vector `(x, y)`: in 3D, at z = 0, so that a 2D scene runs unchanged in the XY plane.
pub(crate) fn v(x: f32, y: f32) -> Vector {
    #[cfg(feature = "2d")]
    return Vector::new(x, y);
    #[cfg(feature = "3d")]
    return Vector::new(x, y, 0.0);
}

/// An L: 100 units right, then 100 up. Length 200 open, 200 + 100·√2 closed.
pub(crate) fn l_shape() -> Vec<Vector> {
    vec![v(0.0, 0.0), v(100.0, 0.0), v(100.0, 100.0)]
}

/// A square of side 100, counter-clockwise from the origin: length 300 open, 400 closed.
pub(crate) fn square() -> Vec<Vector> {
    vec![v(0.0, 0.0), v(100.0, 0.0), v(100.0, 100.0), v(0.0, 100.0)]
}

/// Vectors with every component in `-range..range`.
pub(crate) fn vector(range: f32) -> impl Strategy<Value = Vector> {
    prop::array::uniform::<_, DIMENSIONS>(-range..range).prop_map(Vector::from_array)
}
