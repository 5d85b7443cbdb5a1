//! Alignment: head the way the neighbours head.

use bevy::prelude::*;

use crate::behaviours::{
    NeighbourBehaviour, neighbourhood_accessors, neighbourhood_builders, weight_and_switch_builders,
};
use crate::components::Steering;
use crate::formulas::Boid;
use crate::math::{Vector, direction_or_zero, truncate};
use crate::problems::BehaviourKind;
use crate::spatial::Neighbour;
use crate::tunable::{ANGLE, DISTANCE, FORCE, WEIGHT};

/// Alignment: steer toward the mean heading of the neighbours within `radius`.
///
/// The rule is the flocking article's (the direction of the neighbours' mean velocity), applied as
/// Reynolds steers: the desired velocity along it at `MaxSpeed`, minus the velocity, at most
/// `strength` long, so that headings settle instead of swinging past each other.
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

    /// The unweighted force from the sum of the neighbours' velocities: what the flocking system's
    /// lanes add up.
    pub(crate) fn force_from_velocities(&self, agent: &Boid, sum_of_velocities: Vector) -> Vector {
        steer_to_heading(
            agent,
            alignment_from_velocities(sum_of_velocities),
            self.strength,
        )
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
            neighbours.iter().map(|neighbour| neighbour.velocity).sum(),
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
