//! Queue: brake behind the agent ahead.

use bevy::prelude::*;

use super::weight_and_switch_builders;
use crate::Vector;
use crate::components::{Steering, Velocity};
use crate::forces::{self, TUTORIAL_FRAME_RATE};
use crate::problems::{BehaviourKind, Problem, ReportedProblems};
use crate::spatial::Neighbours;
use crate::tunable::{DISTANCE, FRACTION, Tunable, WEIGHT};

/// Queue, as the Queue tutorial builds it: when another agent is just ahead (in front of the agent,
/// within 45 degrees of its heading, and within `radius` of the point `ahead_distance` along the
/// heading), brake: add `-(steering so far) * brake -
/// velocity`; and when that agent is within `radius` of the agent itself, also cut the velocity
/// to `hard_stop` of itself per tutorial frame (1/60 s, so the same per second at any step rate).
/// A crowd through a doorway then forms a line instead of a pile.
///
/// The brake cancels the forces already summed in the step, so queue runs after every other
/// behaviour and force: in [`SteeringSystems::Queue`](crate::plugin::SteeringSystems::Queue),
/// just before integration. Register it for the agents with a marker with
/// [`add_queue`](crate::plugin::SteeringAppExt::add_queue); the agents ahead are those with the
/// marker. The tutorial's v4 adds separation after the brake; here a
/// [`Separation`](super::Separation) is summed before queue brakes, so 80% of it is cancelled while
/// an agent brakes: give queueing agents a stronger separation. Waiting only for agents within 45
/// degrees of the heading is a departure from the tutorial (which waits for any agent near the
/// look-ahead point), so that two agents converging side by side, or an agent at rest, do not stop
/// each other for good. The defaults are the tutorial demo's (`MAX_QUEUE_AHEAD = 30`, `MAX_QUEUE_RADIUS = 30`,
/// brake 0.8, hard stop 0.3); distances are the same in this crate's units.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct Queue {
    /// How far ahead, along the heading, the agent looks. Default `30.0`.
    #[reflect(@DISTANCE)]
    pub ahead_distance: f32,
    /// How near that point (or the agent) another agent must be to count. Default `30.0`.
    #[reflect(@DISTANCE)]
    pub radius: f32,
    /// The share of the step's other forces the brake cancels. Default `0.8`.
    #[reflect(@Tunable::linear(0.0, 2.0))]
    pub brake: f32,
    /// The velocity kept per tutorial frame when the agent ahead is within `radius`. Default `0.3`.
    #[reflect(@FRACTION)]
    pub hard_stop: f32,
    /// Factor on the brake. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
    /// State, written each step: the brake force added in the last step, zero when the agent did
    /// not brake (what the debug gizmos draw).
    pub last_brake: Vector,
}

impl Default for Queue {
    fn default() -> Self {
        Self {
            ahead_distance: 30.0,
            radius: 30.0,
            brake: 0.8,
            hard_stop: 0.3,
            weight: 1.0,
            enabled: true,
            last_brake: Vector::ZERO,
        }
    }
}

weight_and_switch_builders!(Queue);

impl Queue {
    /// The kind its problems are reported under.
    pub const KIND: BehaviourKind = BehaviourKind::QUEUE;

    /// What queueing does to an agent at `position` moving at `velocity`, with `steering` summed so
    /// far, given the position of the agent ahead, if any: the force to add and the factor on the
    /// velocity, for a step of `dt` seconds.
    pub fn brake(
        &self,
        position: Vector,
        velocity: Vector,
        steering: Vector,
        agent_ahead: Option<Vector>,
        dt: f32,
    ) -> (Vector, f32) {
        let Some(agent_ahead) = agent_ahead else {
            return (Vector::ZERO, 1.0);
        };
        let force = (-steering * self.brake - velocity) * self.weight;
        let kept = if agent_ahead.distance(position) <= self.radius {
            self.hard_stop
                .clamp(0.0, 1.0)
                .powf(dt * TUTORIAL_FRAME_RATE)
        } else {
            1.0
        };
        (force, kept)
    }
}

/// Queues the agents with marker `M` behind the agent ahead of them: the system
/// [`add_queue`](crate::plugin::SteeringAppExt::add_queue) schedules.
pub fn apply_queue<M: Component>(
    time: Res<Time>,
    agents_ahead: Neighbours<M>,
    mut agents: Query<
        (
            Entity,
            &mut Queue,
            &Transform,
            &mut Velocity,
            &mut Steering,
            &mut ReportedProblems,
        ),
        With<M>,
    >,
) {
    let Some(index) = agents_ahead.index() else {
        return;
    };
    let dt = time.delta_secs();
    for (entity, mut queue, transform, mut velocity, mut steering, mut problems) in &mut agents {
        // Steering state, like the steering itself: no change ticks for it.
        let queue = queue.bypass_change_detection();
        queue.last_brake = Vector::ZERO;
        if !queue.enabled || queue.weight == 0.0 {
            continue;
        }
        let mut report = |problem| {
            if problems.bypass_change_detection().report(entity, problem) {
                problems.set_changed();
            }
        };
        if !(queue.radius > 0.0 && queue.radius.is_finite()) {
            report(Problem::InvalidRadius(Queue::KIND));
            continue;
        }
        let position = transform.translation.truncate();
        let heading = forces::direction_or_zero(velocity.0);
        let ahead = position + heading * queue.ahead_distance;
        // The agent ahead: the one nearest the look-ahead point among those in front, within
        // 45 degrees of the heading (an agent at rest has no front and waits for nobody; two agents
        // converging side by side do not wait for each other for ever), ties to the lesser entity.
        let mut agent_ahead: Option<(f32, Entity, Vector)> = None;
        index.for_each_within(ahead, queue.radius, |other| {
            let offset = other.position - position;
            if other.entity == entity
                || offset.dot(heading) <= offset.length() * core::f32::consts::FRAC_1_SQRT_2
            {
                return;
            }
            let distance = other.position.distance_squared(ahead);
            if agent_ahead.is_none_or(|(best, best_entity, _)| {
                distance < best || (distance == best && other.entity < best_entity)
            }) {
                agent_ahead = Some((distance, other.entity, other.position));
            }
        });
        let agent_ahead = agent_ahead.map(|(.., position)| position);
        let (force, kept) = queue.brake(position, velocity.0, steering.0, agent_ahead, dt);
        if !(force.is_finite() && kept.is_finite()) {
            report(Problem::NonFiniteForce(Queue::KIND));
            continue;
        }
        if agent_ahead.is_some() {
            steering.0 += force;
            velocity.0 *= kept;
            queue.last_brake = force;
        }
    }
}
