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

/// How [`Cohesion`] moves toward the neighbours' centre.
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[reflect(Default, Debug, PartialEq, Hash, Clone)]
pub enum CohesionMethod {
    /// Seek the centre with arrival within `radius`: slower the closer the centre is, so the group
    /// closes in with less swing through its centre than with [`Seek`](Self::Seek), though not
    /// none: as for [`Seek`](crate::behaviours::Seek)'s arrival, an agent drawn alone to a centre
    /// goes past it unless `radius` is at least `4 × mass × max_speed` at weight 1 (720 for the
    /// default agent);
    /// in a flock, separation holds the agents apart before they meet.
    #[default]
    Arrival,
    /// Reynolds' classic boids: seek the centre at full speed, however close it is.
    Seek,
}

/// Cohesion: steer toward the centre of the neighbours within `radius`.
///
/// The rule is the flocking article's (toward the neighbours' centre), applied as Reynolds steers:
/// seek the centre (with arrival within `radius` by default, at full speed with
/// [`CohesionMethod::Seek`]), the force at most `strength` long. There is no force without a
/// neighbour.
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
    /// Seek the centre with arrival (the default) or at full speed.
    pub method: CohesionMethod,
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
            method: CohesionMethod::Arrival,
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

    /// Sets the method.
    pub fn with_method(mut self, method: CohesionMethod) -> Self {
        self.method = method;
        self
    }

    /// The radius within which the seek of the centre slows down: zero (plain seek) for
    /// [`CohesionMethod::Seek`].
    pub(crate) fn slowing_radius(&self) -> f32 {
        match self.method {
            CohesionMethod::Arrival => self.radius,
            CohesionMethod::Seek => 0.0,
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
            truncate(
                formulas::seek(agent, centre, self.slowing_radius()),
                self.strength,
            )
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
