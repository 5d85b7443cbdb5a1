//! Queue: brake behind the agent ahead.

use bevy::prelude::*;

use core::marker::PhantomData;

use super::weight_and_switch_builders;
use crate::components::{Mass, MaxForce, MaxSpeed, Steering, SteeringCombination, Velocity};
use crate::formulas::{TUTORIAL_FRAME_RATE, integrate_velocity};
use crate::math::{
    Vector, across, direction_or_zero, distance_across, in_plane, length, position_of,
};
use crate::problems::{BehaviourKind, Problem, ReportedProblems};
use crate::schedule::{SteeringSchedule, SteeringSystems};
use crate::spatial::Neighbours;
use crate::stepping::columns::{PlaneColumn, plane_up_of};
use crate::tunable::{DISTANCE, FRACTION, Tunable, WEIGHT};

/// Queue, as the Queue tutorial builds it: when another agent is just ahead (in front of the agent,
/// within 45 degrees of its heading, and within `radius` of the point `ahead_distance` along the
/// heading), brake: add `-(steering so far) * brake -
/// velocity`; and when such an agent is within `radius` of the agent itself, also cut the velocity
/// to `hard_stop` of itself per tutorial frame (1/60 s, so the same per second at any step rate).
/// (The tutorial tests the first agent it finds near the look-ahead point; any of them within
/// `radius` counts here, so that in a packed line the one just in front stops the agent whatever
/// the order agents are found in.)
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
/// look-ahead point), so that an agent at rest does not stop the agents behind it for good.
///
/// With a personal space (below), the brake is a walker's in a crowd rather than the tutorial's,
/// because the personal space already keeps agents apart and the tutorial's brake, applied to
/// everyone near a door, stops the crowd (Reynolds' doorway brakes only for a neighbour near, in
/// front and slower):
/// - the agent's front is where this step would take it (the velocity integration would give),
///   not the velocity left by the jostle of the crowd;
/// - it waits only for an agent in its way (nearer its line of travel than `min_distance`) that it
///   closes in on fast enough to have to brake now to stop short of its personal space with half
///   its force: the room left is at most `closing² · mass / max_force` plus a tenth of a second
///   of the closing speed;
/// - the brake and the hard stop act only along the line to that agent, on the speed it closes in
///   at, so that the agent still slides sideways, into a doorway beside the agent ahead;
/// - it does not wait for an oncoming agent (one whose velocity has a part against the agent's
///   heading): passing one is left to separation, avoidance and the personal space below;
/// - two agents each within 45 degrees of the other's heading (converging from both sides along a
///   wall towards a door, or head-on while still at rest) do not both wait, which would stop
///   both: the one further along their shared heading (the sum of their headings) goes first, or
///   on a tie (side by side) the lesser entity; only the other brakes;
/// - it gives way: an agent moving towards another that comes at it (at more than a quarter of
///   the agent's own [`MaxSpeed`] along the line between them) and is not going its way (its
///   heading more than 45 degrees off), the lesser entity of the two going first, keeps twice its
///   personal space from it: it closes in no faster than the other recedes plus 10 per second
///   for each unit of distance beyond that, and backs off (at most at its own speed) when nearer.
///   The personal space alone splits the room between two agents evenly, and two walkers
///   pressing into a doorway from both sides, or meeting in it, then hold each other at its
///   mouth, neither able to get in; the one giving way lets the other through.
///
/// None of these choices depends on the order agents are visited in (the other agents' positions
/// and velocities are the spatial index's, taken at the start of the step, and each choice is a
/// maximum or a minimum), so runs stay reproducible at any thread count.
///
/// Without a personal space, queue brakes as the tutorial's does: the brake is then all that keeps
/// agents apart. The defaults are the tutorial demo's (`MAX_QUEUE_AHEAD = 30`, `MAX_QUEUE_RADIUS = 30`,
/// brake 0.8, hard stop 0.3); distances are the same in this crate's units.
///
/// Personal space, off by default (`min_distance = 0.0`: the tutorial's queue, which brakes but can
/// still be carried into the agent ahead by the forces it does not cancel): with a `min_distance`
/// above zero, queue also never lets the step's velocity carry the agent towards another agent with
/// the marker faster than would use up half the room between them beyond `min_distance`
/// ([`keep_apart`](Self::keep_apart)). When that limits the velocity, queue settles the step
/// itself: it works out the velocity integration would give (the steering truncated to
/// [`MaxForce`], over [`Mass`], capped at [`MaxSpeed`]), limits it, writes it to [`Velocity`] and
/// clears [`Steering`]; so it does when the agent gives way (above), the stricter of the two
/// limits applying. Two agents that both keep the same `min_distance` therefore never come
/// closer than it (to rounding): discs of radius `r` with a `min_distance` of at least `2 r` never
/// overlap. An agent without it (or with a smaller one) may still walk into another's space, and
/// agents already closer than `min_distance` are only kept from coming closer still. Like the
/// brake, it acts only while queue is enabled with a weight other than zero and a valid `radius`,
/// and not in a step whose brake is not finite (which is reported). The promise holds among the
/// agents of one marker: an agent queued under two markers is limited by each in turn, and the
/// second may undo part of the first's limit.
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
    /// Personal space: how near, centre to centre, the agent's own velocity may never carry it to
    /// another agent with the marker (see above). Default `0.0`: none, the tutorial's. A value
    /// that is not a finite number above zero also means none.
    #[reflect(@DISTANCE)]
    pub min_distance: f32,
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
            min_distance: 0.0,
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
    /// far, given the position of the agent ahead (of several, the nearest to it), if any: the
    /// force to add and the factor on the velocity, for a step of `dt` seconds.
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

    /// What queueing does, with a personal space, to an agent at `position` moving at `velocity`
    /// with `steering` summed so far, behind the agent ahead at `agent_ahead`: the brake and the
    /// hard stop of [`brake`](Self::brake), but only along the line to the agent ahead (the parts
    /// of the steering and of the velocity that carry the agent towards it), so that the agent
    /// still slides sideways, round it or into a doorway beside it. Returns the force to add and
    /// the velocity kept. An agent ahead on `position` itself gives no line: nothing changes.
    pub fn yield_to(
        &self,
        position: Vector,
        velocity: Vector,
        steering: Vector,
        agent_ahead: Vector,
        ahead_velocity: Vector,
        dt: f32,
    ) -> (Vector, Vector) {
        let towards = direction_or_zero(agent_ahead - position);
        let along = |vector: Vector| towards * vector.dot(towards).max(0.0);
        let closing = along(velocity - ahead_velocity);
        let force = (-along(steering) * self.brake - closing) * self.weight;
        let kept = if agent_ahead.distance(position) <= self.radius {
            let factor = self
                .hard_stop
                .clamp(0.0, 1.0)
                .powf(dt * TUTORIAL_FRAME_RATE);
            velocity - closing * (1.0 - factor)
        } else {
            velocity
        };
        (force, kept)
    }

    /// Sets the personal space, [`min_distance`](Self::min_distance).
    pub fn with_min_distance(mut self, min_distance: f32) -> Self {
        self.min_distance = min_distance;
        self
    }

    /// The personal space when it is a finite number above zero, else `None` (none kept).
    pub fn personal_space(&self) -> Option<f32> {
        (self.min_distance > 0.0 && self.min_distance.is_finite()).then_some(self.min_distance)
    }

    /// The velocity that keeps the personal space: `velocity` for a step of `dt` seconds of an
    /// agent at `position`, limited so that towards each of `others` (entities and positions) it
    /// closes at most half the room between them beyond
    /// [`min_distance`](Self::min_distance) (none when they are already that close), the other
    /// half being the other agent's. `None` when `velocity` already keeps it (or there is no
    /// personal space, or `dt`, `position` or `velocity` is not finite, or `dt` is not above
    /// zero).
    ///
    /// The limit towards each agent is a half-plane of velocities. The one the velocity crosses
    /// furthest (ties to the lesser entity) takes off the velocity's excess along it, up to four
    /// times, so that the agent slides past instead of stopping; then, should
    /// the velocity still cross some limit, it is scaled down to the strictest. Each choice is a
    /// maximum or a minimum, so the result does not depend on the order of `others`, and it is
    /// never faster than `velocity`. An agent on `position` itself gives no direction and is
    /// passed over.
    pub fn keep_apart(
        &self,
        position: Vector,
        velocity: Vector,
        others: &[(Entity, Vector)],
        dt: f32,
    ) -> Option<Vector> {
        let space = self.personal_space()?;
        if !(dt > 0.0 && dt.is_finite() && position.is_finite() && velocity.is_finite()) {
            return None;
        }
        // Per other agent: the unit direction to it and the speed towards it allowed.
        let limits = others.iter().filter_map(|&(entity, other)| {
            let offset = other - position;
            let distance = length(offset);
            (distance > 0.0 && distance.is_finite()).then(|| {
                (
                    entity,
                    offset / distance,
                    (distance - space).max(0.0) / (2.0 * dt),
                )
            })
        });
        let kept = limit_approach(velocity, limits);
        (kept != velocity).then_some(kept)
    }
}

/// The velocity `velocity` limited by `limits` (per other agent: its entity, the unit direction
/// to it, and the speed towards it allowed, which may be below zero: move away at that speed).
/// The limit the velocity crosses furthest (ties to the lesser entity) takes off the velocity's
/// excess along it, up to [`KEEP_APART_ROUNDS`] times, so that the agent slides past instead of
/// stopping; then, should the velocity still cross some limit (counted from zero for those below
/// it), it is scaled down to the strictest, and it is never left faster than `velocity`. Each
/// choice is a maximum or a minimum, so the result does not depend on the order of `limits`.
fn limit_approach(
    velocity: Vector,
    limits: impl Iterator<Item = (Entity, Vector, f32)> + Clone,
) -> Vector {
    let mut kept = velocity;
    for _ in 0..KEEP_APART_ROUNDS {
        let mut worst: Option<(f32, Entity, Vector)> = None;
        for (entity, direction, allowed) in limits.clone() {
            let excess = kept.dot(direction) - allowed;
            if excess > 0.0
                && worst.is_none_or(|(most, most_entity, _)| {
                    excess > most || (excess == most && entity < most_entity)
                })
            {
                worst = Some((excess, entity, direction));
            }
        }
        let Some((excess, _, direction)) = worst else {
            break;
        };
        kept -= direction * excess;
    }
    let scale = limits.fold(1.0_f32, |scale, (_, direction, allowed)| {
        let towards = kept.dot(direction);
        let allowed = allowed.max(0.0);
        if towards > allowed {
            scale.min(allowed / towards)
        } else {
            scale
        }
    });
    kept *= scale;
    let (speed, most) = (length(kept), length(velocity));
    if speed > most {
        kept *= most / speed;
    }
    kept
}

/// How many times [`Queue::keep_apart`] takes the excess off the velocity along the limit it
/// crosses furthest, before scaling it down to the rest.
const KEEP_APART_ROUNDS: usize = 4;

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
            (&Mass, &MaxSpeed, &MaxForce, Option<&SteeringCombination>),
            &mut ReportedProblems,
        ),
        With<M>,
    >,
    planes: Query<PlaneColumn>,
    mut near: Local<Vec<(Entity, Vector, f32)>>,
) {
    let Some(index) = agents_ahead.index() else {
        return;
    };
    let dt = time.delta_secs();
    for (entity, mut queue, transform, mut velocity, mut steering, limits, mut problems) in
        &mut agents
    {
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
        let position = position_of(transform);
        let space = queue.personal_space();
        let spaced = space.is_some();
        let (mass, max_speed, max_force, combination) = limits;
        // With a personal space, the agent's front is where this step would take it (the
        // velocity integration would give): a slow agent's own velocity is mostly the jostle of
        // the crowd, and braking for whoever that points at stops a crowd at a door.
        // A ground unit's force and velocity are put in its plane before the step (see
        // `keep_in_plane`): the part out of it would otherwise take its share of `MaxForce` here.
        // Only the personal space predicts the step, so only it looks the plane up.
        let up = if spaced {
            plane_up_of(&planes, entity)
        } else {
            None
        };
        let integrate = |velocity, steering| {
            integrate_velocity(
                in_plane(velocity, up),
                in_plane(steering, up),
                mass.0,
                max_speed.effective(),
                max_force.effective(),
                dt,
            )
        };
        let moving = if spaced {
            integrate(velocity.0, steering.0)
        } else {
            velocity.0
        };
        // How fast the agent can brake (none for a mass that ignores forces).
        let stopping = max_force.acceleration(*mass).unwrap_or(0.0);
        let heading = direction_or_zero(moving);
        let ahead = position + heading * queue.ahead_distance;
        // The agent ahead: the one nearest the look-ahead point among those in front, within
        // 45 degrees of the heading (an agent at rest has no front and waits for nobody), ties to
        // the lesser entity. With a personal space, only one the agent must brake for now to stop
        // short of it (see `Queue`), and not one that goes first.
        let mut agent_ahead: Option<(f32, Entity, Vector, Vector)> = None;
        // And, without a personal space, of those the nearest to the agent itself: the hard
        // stop's test.
        let mut nearest: Option<(f32, Entity, Vector)> = None;
        index.for_each_within(ahead, queue.radius, |other| {
            let offset = other.position - position;
            if other.entity == entity
                || !in_front(offset, heading)
                || space.is_some_and(|space| {
                    !in_the_way(offset, heading, space)
                        || !must_brake(offset, moving - other.velocity, space, stopping)
                })
                || (spaced && oncoming(heading, other.velocity))
                || (spaced
                    && goes_first(
                        entity,
                        heading,
                        other.entity,
                        direction_or_zero(other.velocity),
                        offset,
                    ))
            {
                return;
            }
            let distance = other.position.distance_squared(ahead);
            if agent_ahead.is_none_or(|(best, best_entity, ..)| {
                distance < best || (distance == best && other.entity < best_entity)
            }) {
                agent_ahead = Some((distance, other.entity, other.position, other.velocity));
            }
            let distance = offset.length_squared();
            if !spaced
                && nearest.is_none_or(|(best, best_entity, _)| {
                    distance < best || (distance == best && other.entity < best_entity)
                })
            {
                nearest = Some((distance, other.entity, other.position));
            }
        });
        let ahead_velocity = agent_ahead.map_or(Vector::ZERO, |(.., velocity)| velocity);
        let agent_ahead = agent_ahead.map(|(_, _, position, _)| position);
        let (force, kept) = match (agent_ahead, spaced) {
            (Some(other), true) => {
                queue.yield_to(position, velocity.0, steering.0, other, ahead_velocity, dt)
            }
            _ => {
                let nearest = nearest.map(|(_, _, position)| position);
                let (force, kept) = queue.brake(position, velocity.0, steering.0, nearest, dt);
                (force, velocity.0 * kept)
            }
        };
        if !(force.is_finite() && kept.is_finite()) {
            report(Problem::NonFiniteForce(Queue::KIND));
            continue;
        }
        if agent_ahead.is_some() {
            // Prioritised, the brake comes last and gets what is left of the budget.
            let budget = SteeringCombination::budget(combination, *max_force);
            let force = SteeringCombination::fit(force, steering.0, budget);
            steering.0 += force;
            velocity.0 = kept;
            queue.last_brake = force;
        }
        let Some(space) = queue.personal_space() else {
            continue;
        };
        // The velocity integration would give (`moving`, unless the brake changed the step), and
        // the agents it could carry this one too near.
        let settled = if agent_ahead.is_some() {
            integrate(velocity.0, steering.0)
        } else {
            moving
        };
        if !(dt > 0.0 && dt.is_finite() && position.is_finite() && settled.is_finite()) {
            continue;
        }
        // Per agent near: the room it leaves this one, half the room beyond the personal space
        // (the other half is the other's); and, giving way to an agent it converges with that
        // goes first, it keeps further off (see `Queue`).
        let speed = length(settled);
        let reach = space * GIVE_WAY_SPACE + 2.0 * speed * dt;
        let heading = direction_or_zero(settled);
        near.clear();
        index.for_each_within(position, reach, |other| {
            let offset = other.position - position;
            let distance = length(offset);
            if other.entity == entity || !(distance > 0.0 && distance.is_finite()) {
                return;
            }
            let direction = offset / distance;
            let mut allowed = (distance - space).max(0.0) / (2.0 * dt);
            if gives_way(
                max_speed.effective(),
                entity,
                heading,
                other.entity,
                other.velocity,
                direction,
            ) {
                let receding = other.velocity.dot(direction).max(0.0);
                let keep = receding + (distance - space * GIVE_WAY_SPACE) * GIVE_WAY_RATE;
                allowed = allowed.min(keep.max(-speed));
            }
            // A ground unit moves in its plane: its speed towards another off the plane (a unit
            // on a hill, a flyer) is its speed along the line's part in the plane, times that
            // part's length. Limited out of the plane, it would be projected back into it faster
            // than allowed. (Towards one level with it, the line is left to the bit.)
            let (direction, allowed) = match up {
                Some(up) if direction.dot(up) != 0.0 => {
                    let in_plane = across(direction, up);
                    let along = length(in_plane);
                    if along < 1e-3 {
                        // Straight above or below: moving in the plane cannot bring it nearer.
                        return;
                    }
                    (in_plane / along, allowed / along)
                }
                _ => (direction, allowed),
            };
            near.push((other.entity, direction, allowed));
        });
        let kept = limit_approach(settled, near.iter().copied());
        if kept != settled {
            velocity.0 = kept;
            // A steering that is not finite is left for integration to report (it applies none
            // of it, so the velocity stays the one kept here).
            if steering.0.is_finite() {
                steering.0 = Vector::ZERO;
            }
        }
    }
}

/// Giving way: the least speed, as a share of the agent's own top speed, at which another must
/// come at it to be given way to (an agent at rest, jostled by the crowd, is not).
const GIVE_WAY_MIN_SPEED: f32 = 0.25;

/// Giving way: how far, as a multiple of the personal space, an agent keeps from one it gives
/// way to.
const GIVE_WAY_SPACE: f32 = 2.0;

/// Giving way: how fast an agent closes the distance to the space it keeps from one it gives way
/// to (or opens it, when nearer), per unit of distance, per second.
const GIVE_WAY_RATE: f32 = 10.0;

/// Whether an agent heading along `heading` (a unit vector, or zero), of top speed `max_speed`,
/// gives way to `other`, in `direction` (a unit vector) from it and moving at `other_velocity`:
/// it moves towards the other (within 90 degrees of its heading), the other comes at it (at more
/// than [`GIVE_WAY_MIN_SPEED`] of `max_speed` along the line between them) and is not going its
/// way (its heading more than 45 degrees from this one's: an agent ahead going the same way is
/// queued behind, not given way to), and the other goes first: it is the lesser entity. Only the
/// greater of two entities ever gives way, so two agents never both do.
fn gives_way(
    max_speed: f32,
    agent: Entity,
    heading: Vector,
    other: Entity,
    other_velocity: Vector,
    direction: Vector,
) -> bool {
    other < agent
        && heading.dot(direction) > 0.0
        && -other_velocity.dot(direction) > GIVE_WAY_MIN_SPEED * max_speed
        && direction_or_zero(other_velocity).dot(heading) <= core::f32::consts::FRAC_1_SQRT_2
}

/// Whether an agent at `offset` from another heading along `heading` (a unit vector, or zero) is
/// in front of it: within 45 degrees of its heading. Nothing is in front of an agent at rest.
fn in_front(offset: Vector, heading: Vector) -> bool {
    offset.dot(heading) > length(offset) * core::f32::consts::FRAC_1_SQRT_2
}

/// Whether another agent moving at `velocity` comes towards an agent heading along `heading`
/// rather than going its way: its velocity has a part against the heading. With a personal
/// space, queue does not brake for it (see `Queue`). An agent at rest is not oncoming.
fn oncoming(heading: Vector, velocity: Vector) -> bool {
    velocity.dot(heading) < 0.0
}

/// Whether another agent at `offset` stands in the way of an agent heading along `heading` (a unit
/// vector) that keeps a personal space of `space`: nearer its line of travel than that.
fn in_the_way(offset: Vector, heading: Vector, space: f32) -> bool {
    distance_across(offset, heading) < space
}

/// Whether an agent closing in on another at `offset` at `relative` velocity (its own less the
/// other's), keeping a personal space of `space`, must brake now to stop short of it with half of
/// its `acceleration`: the room left beyond the space is no more than its stopping distance,
/// `closing² / acceleration`, plus [`BRAKE_REACTION`] seconds of the closing speed. Never for an
/// agent that does not close in.
fn must_brake(offset: Vector, relative: Vector, space: f32, acceleration: f32) -> bool {
    let distance = length(offset);
    if distance.is_nan() || distance <= 0.0 {
        return false;
    }
    let closing = relative.dot(offset) / distance;
    let room = distance - space;
    closing > 0.0
        && (acceleration <= 0.0
            || room <= closing * closing / acceleration + closing * BRAKE_REACTION)
}

/// With a personal space, how long before it would have to brake with half its force an agent
/// starts braking for the agent ahead, in seconds.
const BRAKE_REACTION: f32 = 0.1;

/// The tie-break of two queueing agents each in front of the other (converging head-on or from
/// the sides): whether `agent`, heading along `heading`, goes first rather than wait for `other`,
/// heading along `other_heading`, at `offset` from it. The one further along their shared heading
/// (the sum of both) goes first; where neither is (head-on, or side by side), the lesser entity
/// does. Only the other waits, so the two never brake each other to a standstill. An agent that is
/// not in front of the other never goes first.
pub(crate) fn goes_first(
    agent: Entity,
    heading: Vector,
    other: Entity,
    other_heading: Vector,
    offset: Vector,
) -> bool {
    if !(in_front(offset, heading) && in_front(-offset, other_heading)) {
        return false;
    }
    let shared = direction_or_zero(heading + other_heading);
    // How far the other is ahead along the shared heading, next to how far apart they are.
    let lead = offset.dot(shared);
    if lead.abs() > 1e-3 * length(offset) {
        lead < 0.0
    } else {
        agent < other
    }
}

impl BehaviourKind {
    /// [`Queue`].
    pub const QUEUE: Self = Self::new("queue");
}

/// Remembers that [`SteeringAppExt::add_queue`] was called for marker `M`, so that a second call
/// does not brake the agents twice.
#[derive(Resource)]
struct QueueAdded<M: Component>(PhantomData<fn() -> M>);

/// Queues the agents with marker `M` that have [`Queue`], in [`SteeringSystems::Queue`], once
/// whatever the number of calls: what
/// [`add_queue`](crate::plugin::SteeringAppExt::add_queue) does.
pub(crate) fn add_queue<M: Component>(app: &mut App) {
    if app.world().contains_resource::<QueueAdded<M>>() {
        return;
    }
    app.insert_resource(QueueAdded::<M>(PhantomData))
        .add_systems(
            SteeringSchedule,
            apply_queue::<M>.in_set(SteeringSystems::Queue),
        );
}

/// Registers [`Queue`] (each marker's queue is added by [`add_queue`]).
pub(crate) fn plugin(app: &mut App) {
    app.register_type::<Queue>();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::v;

    const DT: f32 = 1.0 / 60.0;

    fn entity(index: u32) -> Entity {
        Entity::from_raw_u32(index + 1).unwrap()
    }

    fn spaced(min_distance: f32) -> Queue {
        Queue::default().with_min_distance(min_distance)
    }

    #[test]
    fn no_personal_space_by_default_or_for_bad_values() {
        let velocity = v(120.0, 0.0);
        let others = [(entity(0), v(1.0, 0.0))];
        assert_eq!(Queue::default().min_distance, 0.0);
        for min_distance in [0.0, -10.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let queue = spaced(min_distance);
            assert_eq!(queue.personal_space(), None, "{min_distance}");
            assert_eq!(queue.keep_apart(Vector::ZERO, velocity, &others, DT), None);
        }
    }

    #[test]
    fn the_approach_is_limited_to_half_the_room_left() {
        let queue = spaced(10.0);
        // 12 apart: 2 of room, 1 of it this agent's in a step of 1/60 s, so 60 a second.
        let others = [(entity(0), v(12.0, 0.0))];
        let kept = queue.keep_apart(Vector::ZERO, v(120.0, 0.0), &others, DT);
        assert!(kept.unwrap().abs_diff_eq(v(60.0, 0.0), 1e-3), "{kept:?}");
        // Heading at it aslant: only the part towards it is cut, the agent slides past.
        let kept = queue.keep_apart(Vector::ZERO, v(120.0, 90.0), &others, DT);
        assert!(kept.unwrap().abs_diff_eq(v(60.0, 90.0), 1e-3), "{kept:?}");
        // Already within the space: no approach at all.
        let close = [(entity(0), v(8.0, 0.0))];
        let kept = queue.keep_apart(Vector::ZERO, v(120.0, 0.0), &close, DT);
        assert!(kept.unwrap().x.abs() < 1e-3, "{kept:?}");
    }

    #[test]
    fn moving_away_or_slowly_enough_is_left_alone() {
        let queue = spaced(10.0);
        let others = [(entity(0), v(12.0, 0.0))];
        for velocity in [v(-120.0, 0.0), v(0.0, 120.0), v(50.0, 0.0)] {
            assert_eq!(queue.keep_apart(Vector::ZERO, velocity, &others, DT), None);
        }
    }

    #[test]
    fn bad_steps_and_an_agent_on_the_spot_are_safe() {
        let queue = spaced(10.0);
        let others = [(entity(0), v(12.0, 0.0))];
        let velocity = v(120.0, 0.0);
        for dt in [0.0, -DT, f32::NAN, f32::INFINITY] {
            assert_eq!(queue.keep_apart(Vector::ZERO, velocity, &others, dt), None);
        }
        let nan = v(f32::NAN, 0.0);
        assert_eq!(queue.keep_apart(Vector::ZERO, nan, &others, DT), None);
        assert_eq!(queue.keep_apart(nan, velocity, &others, DT), None);
        let on_the_spot = [(entity(0), Vector::ZERO)];
        assert_eq!(
            queue.keep_apart(Vector::ZERO, velocity, &on_the_spot, DT),
            None
        );
        assert_eq!(queue.keep_apart(Vector::ZERO, velocity, &[], DT), None);
    }

    #[test]
    fn the_order_of_the_others_does_not_matter() {
        let queue = spaced(10.0);
        let mut others = vec![
            (entity(0), v(11.0, 3.0)),
            (entity(1), v(10.5, -4.0)),
            (entity(2), v(3.0, 11.0)),
            (entity(3), v(-12.0, 0.5)),
        ];
        let velocity = v(150.0, 40.0);
        let first = queue
            .keep_apart(Vector::ZERO, velocity, &others, DT)
            .unwrap();
        assert!(length(first) <= length(velocity));
        for _ in 0..others.len() {
            others.rotate_left(1);
            let again = queue.keep_apart(Vector::ZERO, velocity, &others, DT);
            assert_eq!(again, Some(first), "bit for bit");
            others.reverse();
            let again = queue.keep_apart(Vector::ZERO, velocity, &others, DT);
            assert_eq!(again, Some(first), "bit for bit");
        }
    }

    #[test]
    fn two_agents_rushing_at_each_other_stop_at_the_distance() {
        let queue = spaced(10.0);
        let mut a = (entity(0), v(-30.0, 0.0), v(300.0, 20.0));
        let mut b = (entity(1), v(30.0, 1.0), v(-300.0, 0.0));
        let mut closest = f32::INFINITY;
        for _ in 0..120 {
            let velocity_a = queue.keep_apart(a.1, a.2, &[(b.0, b.1)], DT).unwrap_or(a.2);
            let velocity_b = queue.keep_apart(b.1, b.2, &[(a.0, a.1)], DT).unwrap_or(b.2);
            a.1 += velocity_a * DT;
            b.1 += velocity_b * DT;
            closest = closest.min(a.1.distance(b.1));
        }
        assert!(closest >= 10.0 - 1e-3, "came {closest} apart");
        assert!(closest < 10.5, "stopped early, {closest} apart");
    }

    #[test]
    fn yielding_brakes_only_along_the_line_to_the_agent_ahead() {
        let queue = spaced(16.0);
        // The agent ahead straight up; moving up and right, steered up and right.
        let (force, kept) = queue.yield_to(
            Vector::ZERO,
            v(30.0, 40.0),
            v(100.0, 200.0),
            v(0.0, 20.0),
            v(0.0, 10.0),
            DT,
        );
        // Along y: -(200 · 0.8) - (40 - 10) closing; nothing along x.
        assert!(force.abs_diff_eq(v(0.0, -190.0), 1e-3), "{force}");
        // Within the radius: the closing 30 cut to 30 · 0.3, the sideways 30 kept.
        assert!(kept.abs_diff_eq(v(30.0, 10.0 + 9.0), 1e-3), "{kept}");
        // Moving away from it: nothing.
        let (force, kept) = queue.yield_to(
            Vector::ZERO,
            v(0.0, -40.0),
            v(0.0, -100.0),
            v(0.0, 20.0),
            Vector::ZERO,
            DT,
        );
        assert_eq!((force, kept), (Vector::ZERO, v(0.0, -40.0)));
    }

    #[test]
    fn of_two_converging_agents_exactly_one_goes_first() {
        let (a, b) = (entity(0), entity(1));
        let up = v(0.0, 1.0);
        let diagonal = |x: f32, y: f32| v(x, y).normalize();
        // From the sides towards a door on +x: b is further along the shared heading (+x).
        let offset = v(2.0, 30.0);
        let (ha, hb) = (diagonal(1.0, 2.0), diagonal(1.0, -2.0));
        assert!(!goes_first(a, ha, b, hb, offset));
        assert!(goes_first(b, hb, a, ha, -offset));
        // Head-on: the lesser entity, and only it.
        let a_first = goes_first(a, up, b, -up, v(0.0, 20.0));
        let b_first = goes_first(b, -up, a, up, v(0.0, -20.0));
        assert_eq!((a_first, b_first), (a < b, b < a));
        // Not converging (b ahead, going the same way): nobody goes first, a waits.
        assert!(!goes_first(a, up, b, up, v(0.0, 20.0)));
        // At rest: no front.
        assert!(!goes_first(a, up, b, Vector::ZERO, v(0.0, 20.0)));
    }

    #[test]
    fn oncoming_agents_are_not_waited_for() {
        let up = v(0.0, 1.0);
        assert!(oncoming(up, v(10.0, -30.0)));
        // Going the same way, across, or at rest: waited for (when in the way).
        for velocity in [v(10.0, 30.0), v(30.0, 0.0), Vector::ZERO] {
            assert!(!oncoming(up, velocity), "{velocity}");
        }
    }

    #[test]
    fn only_the_greater_entity_gives_way_and_only_to_an_agent_coming_at_it() {
        let (a, b) = (entity(0), entity(1));
        let (first, other) = if a < b { (a, b) } else { (b, a) };
        let right = v(1.0, 0.0);
        // Head-on, the other 1 unit away along +x, coming at 30 a second (top speed 60).
        let coming = v(-30.0, 0.0);
        assert!(gives_way(60.0, other, right, first, coming, right));
        assert!(!gives_way(60.0, first, right, other, coming, right));
        // From the sides (the other's heading 90 degrees off, coming at it): gives way.
        let up_right = v(1.0, 1.0).normalize();
        let up_left = v(-20.0, 20.0);
        assert!(gives_way(60.0, other, up_right, first, up_left, right));
        // Going its way (within 45 degrees), jostled at rest, coming too slowly, or behind it:
        // not.
        for (heading, velocity, direction) in [
            (right, v(-3.0, 0.0), right),
            (right, v(-10.0, 0.0), right),
            (right, v(30.0, 10.0), right),
            (right, v(30.0, 0.0), -right),
            (Vector::ZERO, coming, right),
        ] {
            assert!(
                !gives_way(60.0, other, heading, first, velocity, direction),
                "{heading} {velocity} {direction}"
            );
        }
    }

    #[test]
    fn a_limit_below_zero_backs_off_no_faster_than_the_velocity() {
        let (a, b) = (entity(0), entity(1));
        // Moving at 40 towards +x, told to move away from +x at 30: backs off at 30.
        let kept = limit_approach(v(40.0, 0.0), [(a, Vector::X, -30.0)].into_iter());
        assert!(kept.abs_diff_eq(v(-30.0, 0.0), 1e-4), "{kept}");
        // Aslant: the sideways part is kept, and the speed never grows.
        let velocity = v(30.0, 40.0);
        let kept = limit_approach(velocity, [(a, Vector::X, -30.0)].into_iter());
        assert!(length(kept) <= length(velocity) + 1e-4, "{kept}");
        assert!(kept.x < 0.0 && kept.y > 0.0, "{kept}");
        // Squeezed between two limits it cannot meet: stopped along them, never pushed through
        // either.
        let limits = [(a, Vector::X, -30.0), (b, -Vector::X, 0.0)];
        let kept = limit_approach(v(40.0, 0.0), limits.into_iter());
        assert!(kept.x <= 1e-4 && -kept.x <= 1e-4 + 30.0, "{kept}");
        let reversed = limit_approach(v(40.0, 0.0), limits.into_iter().rev());
        assert_eq!(kept, reversed, "bit for bit");
    }

    #[test]
    fn an_agent_brakes_only_when_it_must_to_stop_short() {
        // 40 apart, space 16: 24 of room. Closing at 60 with 600 to brake: 6 + 6 < 24, not yet.
        let offset = v(40.0, 0.0);
        assert!(!must_brake(offset, v(60.0, 0.0), 16.0, 600.0));
        // Closing at 120: 24 + 12 > 24, now.
        assert!(must_brake(offset, v(120.0, 0.0), 16.0, 600.0));
        // Not closing, or no direction: never.
        assert!(!must_brake(offset, v(-120.0, 0.0), 16.0, 600.0));
        assert!(!must_brake(Vector::ZERO, v(120.0, 0.0), 16.0, 600.0));
        assert!(!must_brake(v(f32::NAN, 0.0), Vector::X, 16.0, 600.0));
        // No force to brake with: whenever closing.
        assert!(must_brake(offset, v(1.0, 0.0), 16.0, 0.0));
    }
}
