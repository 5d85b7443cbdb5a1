//! Ranges for live tuning, declared beside the fields they bound.
//!
//! A numeric field of a reflected component carries its range as a custom reflection attribute:
//!
//! ```
//! use bevy::prelude::*;
#![doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::tunable::Tunable;")]
//!
//! #[derive(Component, Reflect, Default)]
//! #[reflect(Component, Default)]
//! struct Orbit {
//!     #[reflect(@Tunable::logarithmic(1.0, 1000.0))]
//!     radius: f32,
//!     #[reflect(@Tunable::linear(-10.0, 10.0))]
//!     weight: f32,
//! }
//! ```
//!
//! Tools read it through the type registry: the tuning panel of `bevy_steer_egui` shows a slider
//! for every such `f32` field of every registered component the agents carry, and checks preset
//! files against the ranges. Nothing in the simulation reads it: a value outside the range still
//! works (the behaviours document what they do with zero, negative or non-finite values).

use core::ops::RangeInclusive;

use bevy::prelude::*;

/// The range a numeric field is tuned in, and how a slider spreads it.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, PartialEq, Clone)]
pub struct Tunable {
    /// The smallest value allowed.
    pub min: f32,
    /// The largest value allowed.
    pub max: f32,
    /// Whether a slider spreads the range logarithmically (for ranges spanning orders of
    /// magnitude, such as speeds and distances).
    pub logarithmic: bool,
}

impl Tunable {
    /// A range shown on an even scale.
    pub const fn linear(min: f32, max: f32) -> Self {
        Self {
            min,
            max,
            logarithmic: false,
        }
    }

    /// A range shown on a logarithmic scale.
    pub const fn logarithmic(min: f32, max: f32) -> Self {
        Self {
            min,
            max,
            logarithmic: true,
        }
    }

    /// `min..=max`.
    pub fn range(&self) -> RangeInclusive<f32> {
        self.min..=self.max
    }

    /// `value` brought into the range, without panicking on a range of its own making: a bound
    /// that is NaN counts for nothing, and a reversed range (`min` above `max`) gives `max`.
    pub fn clamp(&self, value: f32) -> f32 {
        value.max(self.min).min(self.max)
    }

    /// Whether `value` is in the range (NaN never is).
    pub fn contains(&self, value: f32) -> bool {
        self.range().contains(&value)
    }
}

/// The range of every behaviour's `weight`: a negative weight reverses a behaviour.
pub const WEIGHT: Tunable = Tunable::linear(-10.0, 10.0);
/// The range of distances and radii, in world units.
pub const DISTANCE: Tunable = Tunable::logarithmic(0.0, 2000.0);
/// The range of speeds, in world units per second.
pub const SPEED: Tunable = Tunable::logarithmic(0.0, 2000.0);
/// The range of forces (the neighbour behaviours' strengths, `MaxForce`), in units per second².
pub const FORCE: Tunable = Tunable::logarithmic(0.0, 10000.0);
/// The range of angles, in radians: up to a full turn.
pub const ANGLE: Tunable = Tunable::linear(0.0, core::f32::consts::TAU);
/// The range of factors between zero and one.
pub const FRACTION: Tunable = Tunable::linear(0.0, 1.0);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamp_fits_a_value_into_any_range_without_panicking() {
        assert_eq!(WEIGHT.clamp(12.0), 10.0);
        assert_eq!(WEIGHT.clamp(-3.0), -3.0);
        assert_eq!(Tunable::linear(10.0, 0.0).clamp(5.0), 0.0);
        assert_eq!(Tunable::linear(f32::NAN, 1.0).clamp(0.5), 0.5);
        assert_eq!(Tunable::linear(0.0, f32::NAN).clamp(-2.0), 0.0);
        assert_eq!(Tunable::logarithmic(0.0, f32::INFINITY).clamp(1e30), 1e30);
    }
}
