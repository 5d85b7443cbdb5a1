//! Alignment: head the way the neighbours head.

use bevy::prelude::*;

use crate::behaviours::{
    NeighbourBehaviour, neighbourhood_accessors, neighbourhood_builders, weight_and_switch_builders,
};
use crate::components::Steering;
use crate::formulas::{Boid, VectorSum};
use crate::math::{Vector, direction_or_zero, truncate};
use crate::problems::BehaviourKind;
use crate::spatial::Neighbour;
use crate::tunable::{ANGLE, DISTANCE, FORCE, WEIGHT};

/// How [`Alignment`] matches its neighbours.
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[reflect(Default, Debug, PartialEq, Hash, Clone)]
pub enum AlignmentMethod {
    /// The flocking article's: head the way the neighbours head (the direction of their mean
    /// velocity) at full speed, whatever their speed.
    #[default]
    Heading,
    /// Reynolds' classic boids: match the neighbours' mean velocity, speed as well as heading (the
    /// desired velocity is their mean velocity).
    MeanVelocity,
}

/// Alignment: steer toward the mean heading (or velocity) of the neighbours within `radius`.
///
/// With [`AlignmentMethod::Heading`] (the default) the rule is the flocking article's (the
/// direction of the neighbours' mean velocity), applied as Reynolds steers: the desired velocity
/// along it at `MaxSpeed`, minus the velocity, at most `strength` long, so that headings settle
/// instead of swinging past each other. With [`AlignmentMethod::MeanVelocity`] the desired
/// velocity is the neighbours' mean velocity itself (Reynolds' classic form), the force again at
/// most `strength` long. Either way there is no force without a neighbour.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct Alignment {
    /// Neighbours within this distance count. Default `60.0`.
    #[reflect(@DISTANCE)]
    pub radius: f32,
    /// The whole angle of view, in radians, centred on the heading. Default a full turn.
    #[reflect(@ANGLE)]
    pub field_of_view: f32,
    /// The largest force, in units per second² for a mass of 1. Default `200.0`.
    #[reflect(@FORCE)]
    pub strength: f32,
    /// Factor on the force. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Match the heading (the default) or the mean velocity.
    pub method: AlignmentMethod,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
}

impl Default for Alignment {
    fn default() -> Self {
        Self {
            radius: 60.0,
            field_of_view: core::f32::consts::TAU,
            strength: 200.0,
            weight: 1.0,
            method: AlignmentMethod::Heading,
            enabled: true,
        }
    }
}

impl Alignment {
    /// Alignment with the neighbours within `radius`, with the default strength.
    pub fn new(radius: f32) -> Self {
        Self {
            radius,
            ..default()
        }
    }

    /// Sets the method.
    pub fn with_method(mut self, method: AlignmentMethod) -> Self {
        self.method = method;
        self
    }

    /// The unweighted force from the sum of the neighbours' velocities (and their count): what the
    /// flocking system's lanes add up.
    pub(crate) fn force_from_velocities(&self, agent: &Boid, velocities: VectorSum) -> Vector {
        match self.method {
            AlignmentMethod::Heading => steer_to_heading(
                agent,
                alignment_from_velocities(velocities.sum),
                self.strength,
            ),
            AlignmentMethod::MeanVelocity => velocities.mean().map_or(Vector::ZERO, |mean| {
                truncate(mean - agent.velocity, self.strength)
            }),
        }
    }
}

weight_and_switch_builders!(Alignment);
neighbourhood_builders!(Alignment);

impl NeighbourBehaviour for Alignment {
    const NAME: &'static str = "alignment";

    neighbourhood_accessors!();

    fn force(&self, agent: &Boid, neighbours: &[Neighbour]) -> Vector {
        self.force_from_velocities(
            agent,
            VectorSum::of(neighbours.iter().map(|neighbour| neighbour.velocity)),
        )
    }
}

/// Alignment as the flocking article writes it: the direction of the neighbours' mean velocity
/// (that of their sum, which is what is normalised), unit length. Zero with no neighbour or when
/// their velocities cancel out.
#[inline]
pub fn alignment(neighbour_velocities: impl IntoIterator<Item = Vector>) -> Vector {
    alignment_from_velocities(neighbour_velocities.into_iter().sum())
}

/// [`alignment`] from the sum of the neighbours' velocities.
#[inline]
pub fn alignment_from_velocities(sum_of_velocities: Vector) -> Vector {
    direction_or_zero(sum_of_velocities)
}

/// Alignment as a steering force (Reynolds'): the desired velocity along the neighbours' mean
/// heading at full speed, minus the velocity, at most `strength` long. Zero when there is no
/// heading to match.
#[inline]
pub fn steer_to_heading(boid: &Boid, heading: Vector, strength: f32) -> Vector {
    if heading == Vector::ZERO {
        return Vector::ZERO;
    }
    truncate(heading * boid.max_speed - boid.velocity, strength)
}

impl BehaviourKind {
    /// [`Alignment`].
    pub const ALIGNMENT: Self = Self::of_neighbour::<Alignment>();
}
