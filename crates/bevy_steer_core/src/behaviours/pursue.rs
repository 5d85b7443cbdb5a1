//! Pursuit.

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

/// Pursue an entity: seek where it will be, predicted from its `Velocity` (a target without one is
/// pursued where it stands).
///
/// The prediction looks `distance / MaxSpeed` seconds ahead, as in the tutorial, capped at
/// `max_prediction` seconds when that is set. The default has no target and idles.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct Pursue {
    /// The entity to catch; `None` idles.
    #[entities]
    pub target: Option<Entity>,
    /// The longest look-ahead, in seconds; `None` (the default) is the tutorial's, uncapped.
    pub max_prediction: Option<f32>,
    /// Factor on the force. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
}

impl Default for Pursue {
    fn default() -> Self {
        Self {
            target: None,
            max_prediction: None,
            weight: 1.0,
            enabled: true,
        }
    }
}

impl Pursue {
    /// Pursue `target`.
    pub fn new(target: Entity) -> Self {
        Self {
            target: Some(target),
            ..default()
        }
    }

    /// Caps the prediction at `seconds`.
    pub fn with_max_prediction(mut self, seconds: f32) -> Self {
        self.max_prediction = Some(seconds);
        self
    }
}

weight_and_switch_builders!(Pursue);

impl SteeringBehaviour for Pursue {
    const NAME: &'static str = "pursuit";

    weight_and_switch_accessors!();

    fn force(
        &self,
        agent: &Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vector, NoTarget> {
        let target = target_state(self.target, lookup)?;
        Ok(formulas::pursue_within(
            agent,
            target.position,
            target.velocity,
            self.max_prediction,
        ))
    }

    fn forget_target(&mut self) {
        self.target = None;
    }
}

impl BehaviourKind {
    /// [`Pursue`].
    pub const PURSUE: Self = Self::of::<Pursue>();
}
