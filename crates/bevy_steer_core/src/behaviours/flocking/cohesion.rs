//! Cohesion: move toward the neighbours' centre.

use bevy::prelude::*;

use crate::behaviours::{
    NeighbourBehaviour, neighbourhood_accessors, neighbourhood_builders, weight_and_switch_builders,
};
use crate::components::Steering;
use crate::formulas::{self, Boid};
use crate::math::{Vector, direction_or_zero, truncate};
use crate::problems::BehaviourKind;
use crate::spatial::Neighbour;
use crate::tunable::{ANGLE, DISTANCE, FORCE, WEIGHT};

/// Cohesion: steer toward the centre of the neighbours within `radius`.
///
/// The rule is the flocking article's (toward the neighbours' centre), applied as Reynolds steers:
/// seek the centre with arrival within `radius`, the force at most `strength` long, so that the
/// group closes in without swinging through its centre and back.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct Cohesion {
    /// Neighbours within this distance count. Default `60.0`.
    #[reflect(@DISTANCE)]
    pub radius: f32,
    /// The whole angle of view, in radians, centred on the heading. Default a full turn.
    #[reflect(@ANGLE)]
    pub field_of_view: f32,
    /// The largest force, in units per second² for a mass of 1. Default `150.0`.
    #[reflect(@FORCE)]
    pub strength: f32,
    /// Factor on the force. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
}

impl Default for Cohesion {
    fn default() -> Self {
        Self {
            radius: 60.0,
            field_of_view: core::f32::consts::TAU,
            strength: 150.0,
            weight: 1.0,
            enabled: true,
        }
    }
}

impl Cohesion {
    /// Cohesion with the neighbours within `radius`, with the default strength.
    pub fn new(radius: f32) -> Self {
        Self {
            radius,
            ..default()
        }
    }

    /// The unweighted force from the sum of the neighbours' positions: what the flocking system's
    /// lanes add up.
    pub(crate) fn force_from_positions(
        &self,
        agent: &Boid,
        positions: formulas::VectorSum,
    ) -> Vector {
        positions.mean().map_or(Vector::ZERO, |centre| {
            truncate(formulas::seek(agent, centre, self.radius), self.strength)
        })
    }
}

weight_and_switch_builders!(Cohesion);
neighbourhood_builders!(Cohesion);

impl NeighbourBehaviour for Cohesion {
    const NAME: &'static str = "cohesion";

    neighbourhood_accessors!();

    fn force(&self, agent: &Boid, neighbours: &[Neighbour]) -> Vector {
        self.force_from_positions(
            agent,
            formulas::VectorSum::of(neighbours.iter().map(|neighbour| neighbour.position)),
        )
    }
}

/// Cohesion: toward the neighbours' centre, unit length. Zero with no neighbour or when the agent
/// is at their centre.
#[inline]
pub fn cohesion(position: Vector, neighbours: impl IntoIterator<Item = Vector>) -> Vector {
    formulas::mean(neighbours).map_or(Vector::ZERO, |centre| direction_or_zero(centre - position))
}

impl BehaviourKind {
    /// [`Cohesion`].
    pub const COHESION: Self = Self::of_neighbour::<Cohesion>();
}
