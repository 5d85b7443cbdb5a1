//! Flee, optionally only within a panic distance.

use bevy::prelude::*;

use super::{
    NoTarget, SteeringBehaviour, Target, TargetState, weight_and_switch_accessors,
    weight_and_switch_builders,
};
use crate::components::Steering;
use crate::formulas::{self, Boid};
use crate::math::Vector;
use crate::problems::BehaviourKind;
use crate::tunable::WEIGHT;

/// Flee a target: full speed directly away from it.
///
/// With a `panic_distance`, only while the target is within that distance (Reynolds' and
/// OpenSteer's panic distance); without one (the default, as in the tutorial), at any distance.
/// The default has no target and idles.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct Flee {
    /// What to run from; `None` idles.
    #[entities]
    pub target: Option<Target>,
    /// Flee only while the target is at most this far; `None` flees at any distance. A negative
    /// or NaN distance never flees. Default `None`.
    pub panic_distance: Option<f32>,
    /// Factor on the force. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
}

impl Default for Flee {
    fn default() -> Self {
        Self {
            target: None,
            panic_distance: None,
            weight: 1.0,
            enabled: true,
        }
    }
}

impl Flee {
    /// Flee `target` (a `Vec2` point or an `Entity`).
    pub fn new(target: impl Into<Target>) -> Self {
        Self {
            target: Some(target.into()),
            ..default()
        }
    }

    /// Flees only while the target is within `panic_distance`.
    pub fn with_panic_distance(mut self, panic_distance: f32) -> Self {
        self.panic_distance = Some(panic_distance);
        self
    }
}

weight_and_switch_builders!(Flee);

impl SteeringBehaviour for Flee {
    const NAME: &'static str = "flee";

    weight_and_switch_accessors!();

    fn force(
        &self,
        agent: &Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vector, NoTarget> {
        let threat = self.target.ok_or(NoTarget::Unset)?.position(lookup)?;
        Ok(
            if formulas::within_range(agent.position, threat, self.panic_distance) {
                formulas::flee(agent, threat)
            } else {
                Vector::ZERO
            },
        )
    }

    fn forget_target(&mut self) {
        self.target = None;
    }
}

impl BehaviourKind {
    /// [`Flee`].
    pub const FLEE: Self = Self::of::<Flee>();
}
