//! Separation: keep apart from the neighbours.

use bevy::prelude::*;

use crate::behaviours::{
    NeighbourBehaviour, neighbourhood_accessors, neighbourhood_builders, weight_and_switch_builders,
};
use crate::components::Steering;
use crate::formulas::Boid;
use crate::math::{Vector, direction_or_zero, length};
use crate::problems::BehaviourKind;
use crate::spatial::Neighbour;
use crate::tunable::{ANGLE, DISTANCE, FORCE, WEIGHT};

/// How [`Separation`] weighs its neighbours.
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[reflect(Default, Debug, PartialEq, Hash, Clone)]
pub enum SeparationMethod {
    /// The tutorials' (flocking, Leader Following, Queue): away from the mean offset of the
    /// neighbours, at full strength whatever their distance.
    #[default]
    Mean,
    /// Reynolds': each neighbour pushes by `radius / distance` times the strength, so the closest
    /// push hardest, and the pushes add up.
    ByDistance,
}

/// Separation: steer away from the neighbours within `radius`, so a crowd keeps apart.
///
/// The force is `strength` along the away direction ([`SeparationMethod`] says how it is
/// computed). The tutorials' `MAX_SEPARATION = 2.0` pixels per frame² is a strength of `120.0` at
/// 60 frames per second.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct Separation {
    /// Neighbours within this distance push. Default `30.0` (the Queue demo's `SEPARATION_RADIUS`).
    #[reflect(@DISTANCE)]
    pub radius: f32,
    /// The whole angle of view, in radians, centred on the heading. Default a full turn.
    #[reflect(@ANGLE)]
    pub field_of_view: f32,
    /// The force at full push, in units per second² for a mass of 1. Default `300.0`.
    #[reflect(@FORCE)]
    pub strength: f32,
    /// Mean (the tutorials') or by distance (Reynolds'). Default `Mean`.
    pub method: SeparationMethod,
    /// Factor on the force. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
}

impl Default for Separation {
    fn default() -> Self {
        Self {
            radius: 30.0,
            field_of_view: core::f32::consts::TAU,
            strength: 300.0,
            method: SeparationMethod::Mean,
            weight: 1.0,
            enabled: true,
        }
    }
}

impl Separation {
    /// Separation from the neighbours within `radius`, with the default strength.
    pub fn new(radius: f32) -> Self {
        Self {
            radius,
            ..default()
        }
    }

    /// Sets the method.
    pub fn with_method(mut self, method: SeparationMethod) -> Self {
        self.method = method;
        self
    }

    /// The unweighted [`SeparationMethod::Mean`] force from the sum of the neighbours' offsets
    /// (`neighbour - agent`): what the flocking system's lanes add up.
    pub(crate) fn force_from_offsets(&self, sum_of_offsets: Vector) -> Vector {
        separation_from_offsets(sum_of_offsets) * self.strength
    }

    /// The unweighted [`SeparationMethod::ByDistance`] force from the sum of the neighbours'
    /// pushes ([`separation_by_distance`]): what the flocking system's lanes add up.
    pub(crate) fn force_from_pushes(&self, sum_of_pushes: Vector) -> Vector {
        sum_of_pushes * self.strength
    }
}

weight_and_switch_builders!(Separation);
neighbourhood_builders!(Separation);

impl NeighbourBehaviour for Separation {
    const NAME: &'static str = "separation";

    neighbourhood_accessors!();

    fn force(&self, agent: &Boid, neighbours: &[Neighbour]) -> Vector {
        let positions = neighbours.iter().map(|neighbour| neighbour.position);
        match self.method {
            SeparationMethod::Mean => {
                self.force_from_offsets(positions.map(|position| position - agent.position).sum())
            }
            SeparationMethod::ByDistance => self.force_from_pushes(separation_by_distance(
                agent.position,
                self.radius,
                positions,
            )),
        }
    }
}

/// Separation as the flocking article, Leader Following and Queue write it: away from the mean
/// offset of the neighbours at `neighbours`, unit length. Zero with no neighbour, or when they
/// surround the agent evenly (or sit on it).
///
/// The direction of the mean is that of the sum, which is what is normalised: one division fewer.
#[inline]
pub fn separation(position: Vector, neighbours: impl IntoIterator<Item = Vector>) -> Vector {
    separation_from_offsets(
        neighbours
            .into_iter()
            .map(|neighbour| neighbour - position)
            .sum(),
    )
}

/// [`separation`] from the sum of the neighbours' offsets (`neighbour - position`).
#[inline]
pub fn separation_from_offsets(sum_of_offsets: Vector) -> Vector {
    direction_or_zero(-sum_of_offsets)
}

/// Separation as Reynolds defines it: each neighbour pushes the agent straight away from it, by
/// `radius / distance` (1 at the edge of the neighbourhood, more the closer it is), and the pushes
/// add up. A neighbour on the agent's own point has no "away" and pushes nothing (so agents spawned
/// on one point stay together until something else moves them apart).
#[inline]
pub fn separation_by_distance(
    position: Vector,
    radius: f32,
    neighbours: impl IntoIterator<Item = Vector>,
) -> Vector {
    neighbours
        .into_iter()
        .map(|neighbour| {
            let away = position - neighbour;
            let squared = away.length_squared();
            if squared.is_normal() {
                // `radius / distance` along the way away is `away / distance² × radius`: one
                // division, no square root. `1 / distance²` is finite for every normal square.
                away * squared.recip() * radius
            } else {
                // A square that underflows or overflows: direction first, then the factor.
                let distance = length(away);
                if distance > 0.0 {
                    direction_or_zero(away) * (radius / distance)
                } else {
                    Vector::ZERO
                }
            }
        })
        .sum()
}

impl BehaviourKind {
    /// [`Separation`].
    pub const SEPARATION: Self = Self::of_neighbour::<Separation>();
}
