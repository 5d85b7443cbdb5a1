//! Leader following.

use bevy::prelude::*;

use super::{
    NoTarget, SteeringBehaviour, TargetState, target_state, weight_and_switch_accessors,
    weight_and_switch_builders,
};
use crate::components::Steering;
use crate::formulas::{self, Boid};
use crate::math::{Vector, direction_or_zero};
use crate::problems::BehaviourKind;
use crate::tunable::{DISTANCE, Tunable, WEIGHT};

/// Follow a leader, as the Leader Following tutorial does: arrive at a point `behind_distance`
/// behind the leader, and evade the leader (the force times `evade_scale`) while standing within
/// `sight_radius` of the point as far ahead of it, or of the leader itself: out of its way.
///
/// The tutorial's third part, keeping apart from the other followers, is [`Separation`]: give the
/// followers one, registered for their marker (for instance with
/// [`FlockingPlugin`](crate::plugin::FlockingPlugin)). The defaults are the tutorial demo's
/// (`LEADER_BEHIND_DIST = 50`, `LEADER_SIGHT_RADIUS = 30`, arrival's slowing radius 50, evade
/// ×1.8); distances are the same in this crate's units. With no leader (`None`, the default) it
/// idles; a leader that is despawned is forgotten and announced with
/// [`TargetLost`](crate::events::TargetLost); an agent that is its own leader gets no force.
///
/// [`Separation`]: super::Separation
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct FollowLeader {
    /// The leader; `None` idles.
    #[entities]
    pub leader: Option<Entity>,
    /// How far behind the leader followers gather. Default `50.0`.
    #[reflect(@DISTANCE)]
    pub behind_distance: f32,
    /// Within this distance of the leader, or of the point as far ahead of it, a follower is in the
    /// leader's way and evades it. Default `30.0`.
    #[reflect(@DISTANCE)]
    pub sight_radius: f32,
    /// The slowing radius of the arrival behind the leader. Default `50.0`.
    #[reflect(@DISTANCE)]
    pub slowing_radius: f32,
    /// Factor on the evasion when in the leader's way. Default `1.8`.
    #[reflect(@Tunable::linear(0.0, 10.0))]
    pub evade_scale: f32,
    /// Factor on the force. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
}

impl Default for FollowLeader {
    fn default() -> Self {
        Self {
            leader: None,
            behind_distance: 50.0,
            sight_radius: 30.0,
            slowing_radius: 50.0,
            evade_scale: 1.8,
            weight: 1.0,
            enabled: true,
        }
    }
}

impl FollowLeader {
    /// Follow `leader` with the tutorial's distances.
    pub fn new(leader: Entity) -> Self {
        Self {
            leader: Some(leader),
            ..default()
        }
    }
}

weight_and_switch_builders!(FollowLeader);

impl SteeringBehaviour for FollowLeader {
    const NAME: &'static str = "follow leader";

    weight_and_switch_accessors!();

    fn force(
        &self,
        agent: &Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vector, NoTarget> {
        let leader = target_state(self.leader, lookup)?;
        let (ahead, behind) =
            ahead_and_behind(leader.position, leader.velocity, self.behind_distance);
        let mut force = formulas::seek(agent, behind, self.slowing_radius);
        let in_the_way = agent.position.distance(ahead) <= self.sight_radius
            || agent.position.distance(leader.position) <= self.sight_radius;
        if in_the_way {
            force += formulas::evade(agent, leader.position, leader.velocity) * self.evade_scale;
        }
        Ok(force)
    }

    fn forget_target(&mut self) {
        self.leader = None;
    }
}

/// The Leader Following tutorial's two points: `distance` ahead of the leader along its heading
/// (where a follower is in its way) and `distance` behind it (where followers gather). A leader at
/// rest has no heading: both are its position.
#[inline]
pub fn ahead_and_behind(
    leader_position: Vector,
    leader_velocity: Vector,
    distance: f32,
) -> (Vector, Vector) {
    let offset = direction_or_zero(leader_velocity) * distance;
    (leader_position + offset, leader_position - offset)
}

impl BehaviourKind {
    /// [`FollowLeader`].
    pub const FOLLOW_LEADER: Self = Self::of::<FollowLeader>();
}
