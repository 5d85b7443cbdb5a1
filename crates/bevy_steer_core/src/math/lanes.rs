//! Four vectors at once on SIMD lanes: the type the fast paths (wander, integration, facing,
//! flocking) step four agents with, and the scalar functions of [`math`](super) for it.
//!
//! One agent's update is a chain of dependent square roots, divisions and polynomial terms; four
//! agents on the lanes of one `Vec4` run four chains for the price of one. The fast paths are for
//! the common case only: each answers which lanes need one of the scalar path's special cases (a
//! squared length that under- or overflows, a value that is not finite), and the caller steps those
//! agents with the scalar functions.
//!
//! Every lane does the operations of the scalar path, in the same order, each correctly rounded
//! and without fused multiply-adds, so a lane's result has the same bits as the scalar path's: an
//! agent moves the same whichever path steps it.

use core::ops::Range;

use bevy::math::{BVec4A, Vec4};

use super::Vector;

/// How many agents one call steps.
pub(crate) const LANES: usize = 4;

/// The rows `0..len` in groups of [`LANES`], each with its first row; only the last group may be
/// short, and a short group cannot go on the lanes.
pub(crate) fn groups(len: usize) -> impl Iterator<Item = (usize, Range<usize>)> {
    (0..len)
        .step_by(LANES)
        .map(move |start| (start, start..(start + LANES).min(len)))
}

/// `value` of the [`LANES`] items of `column` from `start` on, one per lane.
#[inline]
pub(crate) fn lanes_of<T>(column: &[T], start: usize, value: impl Fn(&T) -> f32) -> Vec4 {
    Vec4::from_array(core::array::from_fn(|lane| value(&column[start + lane])))
}

/// Four [`Vector`]s, their x components on the lanes of one `Vec4` and their y on another.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VectorLanes {
    pub(crate) x: Vec4,
    pub(crate) y: Vec4,
}

impl VectorLanes {
    pub(crate) const ZERO: Self = Self {
        x: Vec4::ZERO,
        y: Vec4::ZERO,
    };

    /// The four vectors `vector(0)` to `vector(3)`.
    #[inline]
    pub(crate) fn from_fn(vector: impl Fn(usize) -> Vector) -> Self {
        let [a, b, c, d] = [vector(0), vector(1), vector(2), vector(3)];
        Self {
            x: Vec4::new(a.x, b.x, c.x, d.x),
            y: Vec4::new(a.y, b.y, c.y, d.y),
        }
    }

    /// `vector` on every lane.
    #[inline]
    pub(crate) fn splat(vector: Vector) -> Self {
        Self {
            x: Vec4::splat(vector.x),
            y: Vec4::splat(vector.y),
        }
    }

    /// The vector on `lane`.
    #[inline]
    pub(crate) fn lane(self, lane: usize) -> Vector {
        Vector::new(self.x[lane], self.y[lane])
    }

    #[inline]
    pub(crate) fn scaled(self, factor: Vec4) -> Self {
        Self {
            x: self.x * factor,
            y: self.y * factor,
        }
    }

    #[inline]
    pub(crate) fn minus(self, other: Self) -> Self {
        Self {
            x: self.x - other.x,
            y: self.y - other.y,
        }
    }

    #[inline]
    pub(crate) fn plus(self, other: Self) -> Self {
        Self {
            x: self.x + other.x,
            y: self.y + other.y,
        }
    }

    /// Each vector negated.
    #[inline]
    pub(crate) fn negated(self) -> Self {
        Self {
            x: -self.x,
            y: -self.y,
        }
    }

    /// Each vector divided by its lane of `divisor`.
    #[inline]
    pub(crate) fn divided(self, divisor: Vec4) -> Self {
        Self {
            x: self.x / divisor,
            y: self.y / divisor,
        }
    }

    /// `x * x + y * y`, as `Vector::length_squared` computes it.
    #[inline]
    pub(crate) fn length_squared(self) -> Vec4 {
        self.x * self.x + self.y * self.y
    }

    #[inline]
    pub(crate) fn is_zero(self) -> BVec4A {
        self.x.cmpeq(Vec4::ZERO) & self.y.cmpeq(Vec4::ZERO)
    }

    #[inline]
    pub(crate) fn is_finite(self) -> BVec4A {
        self.x.is_finite_mask() & self.y.is_finite_mask()
    }

    #[inline]
    pub(crate) fn select(mask: BVec4A, if_true: Self, if_false: Self) -> Self {
        Self {
            x: Vec4::select(mask, if_true.x, if_false.x),
            y: Vec4::select(mask, if_true.y, if_false.y),
        }
    }
}

/// Lanes whose value is a normal `f32` (not zero, subnormal, infinite or NaN), for values that are
/// not negative.
#[inline]
pub(crate) fn is_normal(value: Vec4) -> BVec4A {
    value.cmpge(Vec4::splat(f32::MIN_POSITIVE)) & value.cmplt(Vec4::INFINITY)
}

/// [`truncate`](super::truncate) for the lanes where it needs no special case (a squared length that is normal,
/// or a zero vector), with those lanes marked. `max` must not be negative.
#[inline]
pub(crate) fn truncate(vector: VectorLanes, max: Vec4) -> (VectorLanes, BVec4A) {
    let squared = vector.length_squared();
    let length = squared.sqrt();
    let shortened = VectorLanes {
        x: vector.x / length * max,
        y: vector.y / length * max,
    };
    let common = is_normal(squared) | vector.is_zero();
    (
        VectorLanes::select(length.cmple(max), vector, shortened),
        common,
    )
}

/// [`direction_or_zero`](super::direction_or_zero) for the lanes where it needs no special case (a squared length that
/// is normal, or a zero vector), with those lanes marked.
#[inline]
pub(crate) fn direction_or_zero(vector: VectorLanes) -> (VectorLanes, BVec4A) {
    let squared = vector.length_squared();
    let zero = vector.is_zero();
    let unit = vector.scaled(squared.sqrt().recip());
    (
        VectorLanes::select(zero, VectorLanes::ZERO, unit),
        is_normal(squared) | zero,
    )
}
