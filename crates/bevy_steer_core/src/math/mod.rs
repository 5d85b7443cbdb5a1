//! The vector types and the arithmetic every other module builds on: the one place the dimension
//! is chosen.
//!
//! Everything dimension-specific about the types lives in [`dim2`] (the vector, direction and
//! rotation types of the 2D build, and how a position is read from and written to a `Transform`);
//! the rest of the crate names [`Vector`], [`Direction`], [`position_of`] and [`set_position`]
//! instead. The other 2D-only pieces are each in a file of their own: [`angles`] here, the wander
//! circle (`behaviours::wander::circle`), facing ([`facing`](crate::facing)) and the obstacle shapes
//! ([`geometry::shapes`](crate::geometry::shapes)).
//!
//! The functions here are exact for vectors so short or so long that their squared length
//! underflows or overflows, and never divide by zero.

pub mod angles;
pub mod dim2;
pub(crate) mod grid;
pub(crate) mod lanes;

pub use dim2::{
    Direction, Vector, WideVector, narrow, position_of, set_position, translation_of, widen,
};

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
    let scale = v.abs().max_element();
    if scale > 0.0 && scale.is_finite() {
        (v / scale).normalize()
    } else {
        Vector::ZERO
    }
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
    use crate::test_support::assert_close;

    #[test]
    fn truncate_shortens_only_long_vectors() {
        assert_close(truncate(Vector::new(3.0, 4.0), 10.0), Vector::new(3.0, 4.0));
        assert_close(truncate(Vector::new(3.0, 4.0), 2.5), Vector::new(1.5, 2.0));
        assert_close(truncate(Vector::new(3.0, 4.0), -1.0), Vector::ZERO);
        assert_close(truncate(Vector::new(3.0, 4.0), f32::NAN), Vector::ZERO);
        let huge = truncate(Vector::new(f32::MAX, f32::MAX), 2.0);
        assert_close(huge, Vector::splat(2.0_f32.sqrt()));
    }
}
