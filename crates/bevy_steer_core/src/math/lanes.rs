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

use super::{DIMENSIONS, Vector};

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

/// Four [`Vector`]s, each axis's components on the lanes of one `Vec4`: `axes[0]` the x
/// components, `axes[1]` the y (and in 3D `axes[2]` the z).
#[derive(Clone, Copy, Debug)]
pub(crate) struct VectorLanes {
    pub(crate) axes: [Vec4; DIMENSIONS],
}

impl VectorLanes {
    pub(crate) const ZERO: Self = Self {
        axes: [Vec4::ZERO; DIMENSIONS],
    };

    /// Each axis's lanes from `axis(0)`, `axis(1)`...
    #[inline]
    fn from_axes(axis: impl FnMut(usize) -> Vec4) -> Self {
        Self {
            axes: core::array::from_fn(axis),
        }
    }

    /// The four vectors `vector(0)` to `vector(3)`.
    #[inline]
    pub(crate) fn from_fn(vector: impl Fn(usize) -> Vector) -> Self {
        let vectors = [vector(0), vector(1), vector(2), vector(3)];
        Self::from_axes(|axis| Vec4::from_array(vectors.map(|vector| vector[axis])))
    }

    /// `vector` on every lane.
    #[inline]
    pub(crate) fn splat(vector: Vector) -> Self {
        Self::from_axes(|axis| Vec4::splat(vector[axis]))
    }

    /// The vector on `lane`.
    #[inline]
    pub(crate) fn lane(self, lane: usize) -> Vector {
        Vector::from_array(self.axes.map(|axis| axis[lane]))
    }

    /// Each axis's four components.
    #[inline]
    pub(crate) fn to_arrays(self) -> [[f32; LANES]; DIMENSIONS] {
        self.axes.map(|axis| axis.to_array())
    }

    #[inline]
    pub(crate) fn scaled(self, factor: Vec4) -> Self {
        Self::from_axes(|axis| self.axes[axis] * factor)
    }

    #[inline]
    pub(crate) fn minus(self, other: Self) -> Self {
        Self::from_axes(|axis| self.axes[axis] - other.axes[axis])
    }

    #[inline]
    pub(crate) fn plus(self, other: Self) -> Self {
        Self::from_axes(|axis| self.axes[axis] + other.axes[axis])
    }

    /// Each vector negated.
    #[inline]
    pub(crate) fn negated(self) -> Self {
        Self::from_axes(|axis| -self.axes[axis])
    }

    /// Each vector divided by its lane of `divisor`.
    #[inline]
    pub(crate) fn divided(self, divisor: Vec4) -> Self {
        Self::from_axes(|axis| self.axes[axis] / divisor)
    }

    /// Each lane's dot product with `other`'s, in `Vector::dot`'s order (x first).
    #[inline]
    pub(crate) fn dot(self, other: Self) -> Vec4 {
        let mut sum = self.axes[0] * other.axes[0];
        for axis in 1..DIMENSIONS {
            sum += self.axes[axis] * other.axes[axis];
        }
        sum
    }

    /// `x * x + y * y` (`+ z * z`), as `Vector::length_squared` computes it.
    #[inline]
    pub(crate) fn length_squared(self) -> Vec4 {
        self.dot(self)
    }

    #[inline]
    pub(crate) fn is_zero(self) -> BVec4A {
        self.axes.iter().fold(BVec4A::splat(true), |zero, axis| {
            zero & axis.cmpeq(Vec4::ZERO)
        })
    }

    #[inline]
    pub(crate) fn is_finite(self) -> BVec4A {
        self.axes.iter().fold(BVec4A::splat(true), |finite, axis| {
            finite & axis.is_finite_mask()
        })
    }

    #[inline]
    pub(crate) fn select(mask: BVec4A, if_true: Self, if_false: Self) -> Self {
        Self::from_axes(|axis| Vec4::select(mask, if_true.axes[axis], if_false.axes[axis]))
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
    let shortened = VectorLanes::from_axes(|axis| vector.axes[axis] / length * max);
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
