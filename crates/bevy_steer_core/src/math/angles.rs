//! Angles (2D only): a fast, portable sine and cosine for the wander angle, for one angle or four
//! on SIMD lanes with the same bits.

use core::ops::{Add, Mul, Sub};

/// `(sin(angle), cos(angle))`, to within 2e-7, in a few multiplications: the wander angle's
/// direction is the one transcendental function an agent needs each step, and the standard
/// library's is several times slower.
///
/// The same arithmetic on every platform, so trajectories do not depend on the C library either.
/// Angles beyond +-8192 radians, where reducing by pi / 2 in `f32` loses precision (the limit
/// Cephes uses), and non-finite angles use the standard library.
#[inline]
pub fn sin_cos(angle: f32) -> (f32, f32) {
    if !sin_cos_is_polynomial(angle) {
        return angle.sin_cos();
    }
    let quadrant = nearest_quadrant(angle);
    let (sin, cos) = reduced_sin_cos(angle, quadrant as f32);
    in_quadrant(quadrant, sin, cos)
}

/// Whether [`sin_cos`] computes the angle itself (false for NaN and beyond 8192 radians, which it
/// leaves to the standard library).
#[inline]
pub(crate) fn sin_cos_is_polynomial(angle: f32) -> bool {
    angle.abs() <= 8192.0
}

/// The multiple of pi / 2 nearest to `angle`, which must be no more than 8192 radians from zero.
#[inline]
pub(crate) fn nearest_quadrant(angle: f32) -> i32 {
    let quadrant = angle * core::f32::consts::FRAC_2_PI;
    // Round half away from zero with a truncating cast, which needs no rounding instruction.
    (quadrant + 0.5_f32.copysign(quadrant)) as i32
}

/// The sine and cosine of `angle - quadrant * pi / 2`, for one angle (`f32`) or four (`Vec4`, with
/// the same bits on every lane as one angle gives): Cody and Waite's reduction by pi / 2 split in
/// three parts (from Cephes' `sinf`), then Cephes' minimax polynomials on [-pi / 4, pi / 4].
#[inline]
pub(crate) fn reduced_sin_cos<T>(angle: T, quadrant: T) -> (T, T)
where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T> + Mul<f32, Output = T>,
    f32: Add<T, Output = T> + Sub<T, Output = T> + Mul<T, Output = T>,
{
    const PIO2_HIGH: f32 = 1.570_312_5;
    const PIO2_MIDDLE: f32 = 4.837_513e-4;
    const PIO2_LOW: f32 = 7.549_79e-8;
    let k = quadrant;
    let r = ((angle - k * PIO2_HIGH) - k * PIO2_MIDDLE) - k * PIO2_LOW;
    let r2 = r * r;
    let sin = r + r * r2 * (-1.666_665_5e-1 + r2 * (8.332_161e-3 + r2 * -1.951_529_6e-4));
    let cos =
        1.0 - 0.5 * r2 + r2 * r2 * (4.166_664_6e-2 + r2 * (-1.388_731_6e-3 + r2 * 2.443_315_7e-5));
    (sin, cos)
}

/// The sine and cosine of an angle from those of its remainder after `quadrant` quarter turns.
#[inline]
pub(crate) fn in_quadrant(quadrant: i32, sin: f32, cos: f32) -> (f32, f32) {
    // The quadrant's swap and signs by bit operations, not a `match`: agents' angles are random, so
    // a branch on the quadrant would be mispredicted most of the time. Odd quadrants swap sine and
    // cosine; quadrants 2 and 3 negate the sine, quadrants 1 and 2 the cosine.
    let swap = 0_u32.wrapping_sub((quadrant & 1) as u32);
    let (sin, cos) = (sin.to_bits(), cos.to_bits());
    let sin_sign = ((quadrant & 2) as u32) << 30;
    let cos_sign = ((quadrant.wrapping_add(1) & 2) as u32) << 30;
    (
        f32::from_bits(((sin & !swap) | (cos & swap)) ^ sin_sign),
        f32::from_bits(((cos & !swap) | (sin & swap)) ^ cos_sign),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::f32::consts::{FRAC_PI_2, PI};

    #[test]
    fn sin_cos_agrees_with_the_standard_library() {
        let mut worst = 0.0_f32;
        for step in -2_000_000..=2_000_000 {
            let angle = step as f32 * 4.0e-3;
            let (sin, cos) = sin_cos(angle);
            worst = worst
                .max((sin - angle.sin()).abs())
                .max((cos - angle.cos()).abs());
        }
        assert!(worst <= 2.0e-7, "worst error {worst}");
        for angle in [0.0, -0.0, PI, -PI, FRAC_PI_2, 8192.0, -8192.0, 1.0e5, 3.0e7] {
            let (sin, cos) = sin_cos(angle);
            assert!((sin - angle.sin()).abs() <= 1.0e-6, "sin {angle}");
            assert!((cos - angle.cos()).abs() <= 1.0e-6, "cos {angle}");
        }
        assert!(sin_cos(f32::NAN).0.is_nan() && sin_cos(f32::INFINITY).1.is_nan());
    }
}
