//! The vector types and the arithmetic every other module builds on: the one place the dimension
//! is chosen.
//!
//! Everything dimension-specific about the types lives in `dim2` (the 2D build) or `dim3` (the 3D
//! build): the vector and direction types, how a position is read from and written to a
//! `Transform`, and the few operations whose formula depends on the dimension ([`across`],
//! [`sideways`], [`left_in_plane`], [`all_round`]). The rest of the crate names [`Vector`], [`Direction`], [`position_of`] and
//! [`set_position`] instead. The other dimension-specific pieces are each a pair of files chosen
//! by the build: the wander circle or sphere (`behaviours::wander`), facing
//! ([`facing`](crate::facing)) and the obstacle shapes ([`geometry::shapes`](crate::geometry::shapes)).
//!
//! The functions here are exact for vectors so short or so long that their squared length
//! underflows or overflows, and never divide by zero.

pub mod angles;
#[cfg(feature = "2d")]
pub mod dim2;
#[cfg(feature = "3d")]
pub mod dim3;
pub(crate) mod grid;
pub(crate) mod lanes;
pub(crate) mod wide;

#[cfg(feature = "2d")]
pub use dim2::{
    Direction, Vector, WideVector, across, all_round, distance_across, left_in_plane, narrow,
    position_of, set_position, sideways, translation_of, widen,
};
#[cfg(feature = "3d")]
pub use dim3::{
    Direction, Vector, WideVector, across, all_round, distance_across, left_in_plane, narrow,
    position_of, set_position, sideways, translation_of, widen,
};

/// How many axes [`Vector`] has.
pub const DIMENSIONS: usize = if cfg!(feature = "3d") { 3 } else { 2 };

/// The length of `v`, right to rounding even where its square underflows (below about 1e-19) or
/// overflows (above about 1.8e19).
#[inline]
pub(crate) fn length(v: Vector) -> f32 {
    let squared = v.length_squared();
    if squared.is_normal() {
        return squared.sqrt();
    }
    let scale = v.abs().max_element();
    if scale > 0.0 && scale.is_finite() {
        scale * (v / scale).length()
    } else {
        scale
    }
}

/// Unit vector along `v`; zero when `v` is zero or not finite. Exact even for vectors so short or
/// so long that their squared length underflows or overflows.
#[inline]
pub fn direction_or_zero(v: Vector) -> Vector {
    let squared = v.length_squared();
    if squared.is_normal() {
        // One division, not one per component.
        return v * squared.sqrt().recip();
    }
    // The largest component passes a NaN one by (`max` ignores NaN): ask the whole vector.
    let scale = v.abs().max_element();
    if scale > 0.0 && v.is_finite() {
        (v / scale).normalize()
    } else {
        Vector::ZERO
    }
}

/// A ground unit's view of `vector` (one kept to the plane at right angles to `up`, a unit
/// vector): its part in the plane. A free agent's (`None`; every agent in 2D) is the vector
/// itself, untouched to the bit.
#[inline]
pub(crate) fn in_plane(vector: Vector, up: Option<Vector>) -> Vector {
    up.map_or(vector, |up| vector - up * vector.dot(up))
}

/// The tutorials' `truncate`: `v` shortened to at most `max` long. A negative or NaN `max` counts
/// as zero.
#[inline]
pub fn truncate(v: Vector, max: f32) -> Vector {
    let max = max.max(0.0);
    let length = length(v);
    if !length.is_finite() {
        return if length <= max {
            v
        } else {
            direction_or_zero(v) * max
        };
    }
    // Both candidates first, then a pick rather than a branch: an agent near its limit is
    // truncated one step and not the next, which a branch would mispredict half the time. Not
    // `v * (max / length)`: that ratio may be subnormal, with too few digits.
    let shortened = v / length * max;
    if length <= max { v } else { shortened }
}

/// `value` when finite and not negative, else `0.0`.
pub(crate) fn non_negative(value: f32) -> f32 {
    if value >= 0.0 && value.is_finite() {
        value
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{assert_close, v};

    #[test]
    fn truncate_shortens_only_long_vectors() {
        assert_close(truncate(v(3.0, 4.0), 10.0), v(3.0, 4.0));
        assert_close(truncate(v(3.0, 4.0), 2.5), v(1.5, 2.0));
        assert_close(truncate(v(3.0, 4.0), -1.0), Vector::ZERO);
        assert_close(truncate(v(3.0, 4.0), f32::NAN), Vector::ZERO);
        let huge = truncate(v(f32::MAX, f32::MAX), 2.0);
        assert_close(huge, v(2.0_f32.sqrt(), 2.0_f32.sqrt()));
    }

    #[test]
    fn a_vector_with_one_component_not_finite_has_no_direction() {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            assert_eq!(direction_or_zero(v(bad, 1.0)), Vector::ZERO);
            assert_eq!(direction_or_zero(v(1e-30, bad)), Vector::ZERO);
        }
        assert_close(direction_or_zero(v(1e-30, 0.0)), v(1.0, 0.0));
        assert_close(direction_or_zero(v(f32::MAX, 0.0)), v(1.0, 0.0));
    }
}
