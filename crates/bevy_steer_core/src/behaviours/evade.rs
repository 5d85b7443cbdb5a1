//! Evade, optionally only within a panic distance.

use bevy::prelude::*;

use super::{
    NoTarget, SteeringBehaviour, TargetState, target_state, weight_and_switch_accessors,
    weight_and_switch_builders,
};
use crate::components::Steering;
use crate::formulas::{self, Boid};
use crate::math::Vector;
use crate::problems::BehaviourKind;
use crate::tunable::WEIGHT;

/// Evade an entity: flee where it will be, predicted from its `Velocity` (a pursuer without one is
/// fled where it stands).
///
/// With a `panic_distance`, only while the pursuer is within that distance; with a
/// `max_prediction`, the look-ahead is capped at that many seconds (OpenSteer caps evasion's
/// prediction). The defaults are the tutorial's: always, uncapped. The default has no target and
/// idles.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct Evade {
    /// The entity to escape; `None` idles.
    #[entities]
    pub target: Option<Entity>,
    /// Evade only while the pursuer is at most this far; `None` evades at any distance. A
    /// negative or NaN distance never evades. Default `None`.
    pub panic_distance: Option<f32>,
    /// The longest look-ahead, in seconds; `None` (the default) is the tutorial's, uncapped.
    pub max_prediction: Option<f32>,
    /// Factor on the force. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
}

impl Default for Evade {
    fn default() -> Self {
        Self {
            target: None,
            panic_distance: None,
            max_prediction: None,
            weight: 1.0,
            enabled: true,
        }
    }
}

impl Evade {
    /// Evade `target`.
    pub fn new(target: Entity) -> Self {
        Self {
            target: Some(target),
            ..default()
        }
    }

    /// Evades only while the pursuer is within `panic_distance`.
    pub fn with_panic_distance(mut self, panic_distance: f32) -> Self {
        self.panic_distance = Some(panic_distance);
        self
    }

    /// Caps the prediction at `seconds`.
    pub fn with_max_prediction(mut self, seconds: f32) -> Self {
        self.max_prediction = Some(seconds);
        self
    }
}

weight_and_switch_builders!(Evade);

impl SteeringBehaviour for Evade {
    const NAME: &'static str = "evade";

    weight_and_switch_accessors!();

    fn force(
        &self,
        agent: &Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vector, NoTarget> {
        let pursuer = target_state(self.target, lookup)?;
        if !formulas::within_range(agent.position, pursuer.position, self.panic_distance) {
            return Ok(Vector::ZERO);
        }
        Ok(formulas::evade_within(
            agent,
            pursuer.position,
            pursuer.velocity,
            self.max_prediction,
        ))
    }

    fn forget_target(&mut self) {
        self.target = None;
    }
}

impl BehaviourKind {
    /// [`Evade`].
    pub const EVADE: Self = Self::of::<Evade>();
}
