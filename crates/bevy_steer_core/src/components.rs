//! The agent's physical state and limits: what the integration step reads and writes.
//!
//! Position is the entity's [`Transform`] translation (read with
//! [`position_of`](crate::math::position_of)); nothing here duplicates it.
//! Agents are expected to be top-level entities, so that `Transform` is their world position.

use bevy::prelude::*;

pub use crate::facing::FaceVelocity;
use crate::formulas::is_valid_mass;
use crate::math::{Vector, length, truncate};
use crate::problems::ReportedProblems;
use crate::tunable::{FORCE, SPEED, Tunable};

/// Velocity in world units per second.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct Velocity(pub Vector);

/// Mass of the agent: the accumulated steering force is divided by it. Default `1.0`.
///
/// In seconds: the time a unit force takes to change the velocity by one unit. A mass shorter
/// than the step takes each step's force whole, no more (see
/// [`integrate_velocity`](crate::formulas::integrate_velocity)).
///
/// A mass that is not a positive finite number makes the agent ignore steering forces: it coasts at
/// its current velocity and [`Problem::InvalidMass`](crate::problems::Problem::InvalidMass) is logged
/// once.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct Mass(#[reflect(@Tunable::logarithmic(0.01, 100.0))] pub f32);

impl Default for Mass {
    fn default() -> Self {
        Self(1.0)
    }
}

impl Mass {
    /// `1 / mass`, or zero when the mass is not a positive finite number (forces are then ignored).
    pub fn inverse(self) -> f32 {
        if self.is_valid() { 1.0 / self.0 } else { 0.0 }
    }

    /// Whether the mass is a positive finite number.
    pub fn is_valid(self) -> bool {
        is_valid_mass(self.0)
    }
}

/// Speed limit in world units per second. Default `180.0` (the tutorials' 3 pixels per frame at 60
/// frames per second).
///
/// A value that is negative or not finite is treated as `0.0` (the agent stands still) and
/// [`Problem::InvalidMaxSpeed`](crate::problems::Problem::InvalidMaxSpeed) is logged once.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct MaxSpeed(#[reflect(@SPEED)] pub f32);

impl Default for MaxSpeed {
    fn default() -> Self {
        Self(180.0)
    }
}

/// Limit on the length of the accumulated steering force, in world units per second squared for a
/// mass of 1. Default `600.0`.
///
/// A value that is negative or not finite is treated as `0.0` (the agent coasts) and
/// [`Problem::InvalidMaxForce`](crate::problems::Problem::InvalidMaxForce) is logged once.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct MaxForce(#[reflect(@FORCE)] pub f32);

impl Default for MaxForce {
    fn default() -> Self {
        Self(600.0)
    }
}

/// A limit as the systems use it: the value when it is finite and not negative, otherwise zero.
pub(crate) fn effective_limit(limit: f32) -> f32 {
    if limit >= 0.0 && limit.is_finite() {
        limit
    } else {
        0.0
    }
}

impl MaxSpeed {
    /// The limit the systems apply: the value, or `0.0` when it is negative or not finite.
    pub fn effective(self) -> f32 {
        effective_limit(self.0)
    }
}

impl MaxForce {
    /// The limit the systems apply: the value, or `0.0` when it is negative or not finite.
    pub fn effective(self) -> f32 {
        effective_limit(self.0)
    }

    /// The largest acceleration this force gives an agent of `mass`: the
    /// [`effective`](Self::effective) limit over the mass; `None` for a mass that ignores forces
    /// (see [`Mass::is_valid`]).
    pub fn acceleration(self, mass: Mass) -> Option<f32> {
        mass.is_valid().then(|| self.effective() / mass.0)
    }
}

/// The steering force accumulated during the current step.
///
/// Behaviour systems add their weighted forces into it; the integration system truncates it to
/// [`MaxForce`], divides it by [`Mass`], applies it and clears it. (A
/// [`Queue`](crate::behaviours::Queue) with a personal space may settle an agent's step itself:
/// it then writes the agent's [`Velocity`] and clears its steering before integration.) Custom
/// behaviours add to it in
/// [`SteeringSystems::CustomForces`](crate::plugin::SteeringSystems::CustomForces).
///
/// Adding `Steering` (or any behaviour component, which requires it) makes an entity an agent: it
/// brings [`Velocity`], [`Mass`], [`MaxSpeed`], [`MaxForce`] and a [`Transform`].
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Transform, Velocity, Mass, MaxSpeed, MaxForce, ReportedProblems)]
pub struct Steering(pub Vector);

/// How an agent's behaviours' forces are combined into its [`Steering`]. Without this component:
/// [`WeightedSum`](Self::WeightedSum).
///
/// Behaviours add their forces in priority order, the order their systems run in: obstacle
/// avoidance, containment, path following, then wander, seek, flee, pursue, evade, leader
/// following, then your own behaviours and the neighbour behaviours in registration order, and the
/// queue's brake last. The result is the same whatever the thread count.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[reflect(Component, Default, Debug, PartialEq, Hash, Clone)]
pub enum SteeringCombination {
    /// The weighted forces add up; integration truncates the sum to [`MaxForce`] (the tutorials'
    /// movement manager). A strong force can be drowned by the sum of the others.
    #[default]
    WeightedSum,
    /// Reynolds' prioritised allocation: each behaviour in priority order gets what is left of the
    /// [`MaxForce`] budget (the budget less the length of the forces added so far), its force
    /// shortened to fit; once the budget is spent, lower priorities add nothing. So avoidance wins
    /// when it needs the whole force, and the others share what it leaves.
    Prioritised,
}

impl SteeringCombination {
    /// The force budget a behaviour's force must fit in for an agent with this combination and
    /// `max_force`: `None` for a weighted sum.
    pub fn budget(combination: Option<&Self>, max_force: MaxForce) -> Option<f32> {
        matches!(combination, Some(Self::Prioritised)).then(|| max_force.effective())
    }

    /// `force` as it may be added to `steering` (the forces added so far) within `budget` (from
    /// [`budget`](Self::budget)): whole without one, else shortened to what is left of it, and
    /// nothing once it is spent.
    #[inline(always)]
    pub fn fit(force: Vector, steering: Vector, budget: Option<f32>) -> Vector {
        match budget {
            None => force,
            Some(budget) => truncate(force, budget - length(steering)),
        }
    }
}
