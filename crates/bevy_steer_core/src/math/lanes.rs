//! Vectors on SIMD lanes, one agent a lane: the type the fast paths (wander, integration, facing,
//! flocking) step four agents with (the flocking scan as many as the CPU's registers hold: see
//! [`wide`](super::wide)), and the scalar functions of [`math`](super) for it.
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

use bevy::math::Vec4;

use super::wide::{LaneMask, Lanes};
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

/// [`Lanes::COUNT`] [`Vector`]s (four by default), each axis's components on the lanes of one
/// [`Lanes`]: `axes[0]` the x components, `axes[1]` the y (and in 3D `axes[2]` the z).
#[derive(Clone, Copy, Debug)]
pub(crate) struct VectorLanes<L = Vec4> {
    pub(crate) axes: [L; DIMENSIONS],
}

impl<L: Lanes> VectorLanes<L> {
    pub(crate) const ZERO: Self = Self {
        axes: [L::ZERO; DIMENSIONS],
    };

    /// Each axis's lanes from `axis(0)`, `axis(1)`...
    #[inline(always)]
    fn from_axes(mut axis: impl FnMut(usize) -> L) -> Self {
        // A loop rather than `array::from_fn`, whose closure calls were left as calls.
        let mut axes = [L::ZERO; DIMENSIONS];
        for (index, value) in axes.iter_mut().enumerate() {
            *value = axis(index);
        }
        Self { axes }
    }

    /// The vectors `vector(0)`, `vector(1)`..., one a lane.
    #[inline(always)]
    pub(crate) fn from_fn(vector: impl Fn(usize) -> Vector) -> Self {
        Self::from_axes(|axis| L::from_fn(|lane| vector(lane)[axis]))
    }

    /// `vector` on every lane.
    #[inline(always)]
    pub(crate) fn splat(vector: Vector) -> Self {
        Self::from_axes(|axis| L::splat(vector[axis]))
    }

    /// The vector on `lane`.
    #[inline(always)]
    pub(crate) fn lane(self, lane: usize) -> Vector {
        let mut vector = Vector::ZERO;
        for (axis, lanes) in self.axes.into_iter().enumerate() {
            vector[axis] = lanes.lane(lane);
        }
        vector
    }

    #[inline(always)]
    pub(crate) fn scaled(self, factor: L) -> Self {
        let mut axes = self.axes;
        for axis in &mut axes {
            *axis = *axis * factor;
        }
        Self { axes }
    }

    #[inline(always)]
    pub(crate) fn minus(self, other: Self) -> Self {
        let mut axes = self.axes;
        for (axis, other) in axes.iter_mut().zip(other.axes) {
            *axis = *axis - other;
        }
        Self { axes }
    }

    #[inline(always)]
    pub(crate) fn plus(self, other: Self) -> Self {
        let mut axes = self.axes;
        for (axis, other) in axes.iter_mut().zip(other.axes) {
            *axis += other;
        }
        Self { axes }
    }

    /// Each vector negated.
    #[inline(always)]
    pub(crate) fn negated(self) -> Self {
        let mut axes = self.axes;
        for axis in &mut axes {
            *axis = -*axis;
        }
        Self { axes }
    }

    /// Each vector divided by its lane of `divisor`.
    #[inline(always)]
    pub(crate) fn divided(self, divisor: L) -> Self {
        let mut axes = self.axes;
        for axis in &mut axes {
            *axis = *axis / divisor;
        }
        Self { axes }
    }

    /// Each lane's dot product with `other`'s, in `Vector::dot`'s order (x first).
    #[inline(always)]
    pub(crate) fn dot(self, other: Self) -> L {
        let mut sum = self.axes[0] * other.axes[0];
        for axis in 1..DIMENSIONS {
            sum += self.axes[axis] * other.axes[axis];
        }
        sum
    }

    /// `x * x + y * y` (`+ z * z`), as `Vector::length_squared` computes it.
    #[inline(always)]
    pub(crate) fn length_squared(self) -> L {
        self.dot(self)
    }

    #[inline(always)]
    pub(crate) fn is_zero(self) -> L::Mask {
        self.axes.iter().fold(L::Mask::splat(true), |zero, axis| {
            zero & axis.cmpeq(L::ZERO)
        })
    }

    #[inline(always)]
    pub(crate) fn is_finite(self) -> L::Mask {
        self.axes.iter().fold(L::Mask::splat(true), |finite, axis| {
            finite & axis.is_finite_mask()
        })
    }

    #[inline(always)]
    pub(crate) fn select(mask: L::Mask, if_true: Self, if_false: Self) -> Self {
        let mut axes = if_false.axes;
        for (axis, chosen) in axes.iter_mut().zip(if_true.axes) {
            *axis = L::select(mask, chosen, *axis);
        }
        Self { axes }
    }
}

/// [`truncate`](super::truncate) for the lanes where it needs no special case (a squared length that is normal,
/// or a zero vector), with those lanes marked. `max` must not be negative.
#[inline(always)]
pub(crate) fn truncate<L: Lanes>(vector: VectorLanes<L>, max: L) -> (VectorLanes<L>, L::Mask) {
    let squared = vector.length_squared();
    let length = squared.sqrt();
    let shortened = vector.divided(length).scaled(max);
    let common = squared.is_normal_mask() | vector.is_zero();
    (
        VectorLanes::select(length.cmple(max), vector, shortened),
        common,
    )
}

/// [`direction_or_zero`](super::direction_or_zero) for the lanes where it needs no special case (a squared length
/// that is normal, or a zero vector), with those lanes marked.
#[inline(always)]
pub(crate) fn direction_or_zero<L: Lanes>(vector: VectorLanes<L>) -> (VectorLanes<L>, L::Mask) {
    let squared = vector.length_squared();
    let zero = vector.is_zero();
    let unit = vector.scaled(squared.sqrt().recip());
    (
        VectorLanes::select(zero, VectorLanes::ZERO, unit),
        squared.is_normal_mask() | zero,
    )
}
