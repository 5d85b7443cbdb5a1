//! Obstacle avoidance.

use core::any::TypeId;

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;

use super::weight_and_switch_builders;
use crate::components::{Mass, MaxForce, MaxSpeed, Steering, Velocity, effective_limit};
use crate::formulas::Boid;
use crate::math::{
    Vector, all_round, direction_or_zero, in_plane, left_in_plane, length, position_of, sideways,
};
use crate::obstacles::{IndexedObstacle, Obstacle, ObstacleIndex, ObstacleShape};
use crate::problems::BehaviourKind;
use crate::schedule::{SteeringSchedule, SteeringSystems};
use crate::stepping::behaviour::{BehaviourAgents, step_agents};
use crate::stepping::boid;
use crate::stepping::columns::{PlaneColumn, plane_up, plane_up_of};
use crate::stepping::jobs::MIN_QUERYING_AGENTS_PER_JOB;
use crate::stepping::registry::register_behaviour;
use crate::tunable::{DISTANCE, FRACTION, Tunable, WEIGHT};

/// How many steps sideways [`way_round`] looks for free room.
const WAY_ROUND_STEPS: usize = 8;

/// The way out where an obstacle has no normal (on a wall's line, at a circle's centre, or, a
/// ground unit, right over or under an obstacle): of back the way the agent came (at rest, +X or,
/// a ground unit, a fixed way in its plane) and its two sides, the one that gains the most room
/// within `room` of `point`, the first on a tie. Backing along a wall's line, where the agent
/// already is, gains none: it then steps off the line to one side.
fn way_out(
    shape: ObstacleShape,
    position: Vector,
    point: Vector,
    heading: Vector,
    up: Option<Vector>,
    room: f32,
) -> Vector {
    let back = if heading != Vector::ZERO {
        -heading
    } else {
        up.map_or(Vector::X, |up| sideways(up, Vector::ZERO))
    };
    let left = match up {
        Some(up) => left_in_plane(back, up),
        None => sideways(back, Vector::ZERO),
    };
    let gain = |way: Vector| shape.signed_distance(position, point + way * room.max(1.0));
    [left, -left]
        .into_iter()
        .fold((back, gain(back)), |best, way| {
            let gained = gain(way);
            if gained > best.1 { (way, gained) } else { best }
        })
        .0
}

/// How far to the side of `point`, along `side`, an agent needing `room` finds itself clear of
/// every obstacle: probes in steps of [`probe_step`], up to [`WAY_ROUND_STEPS`];
/// `f32::INFINITY` when all are blocked.
fn way_round(index: &ObstacleIndex, point: Vector, side: Vector, room: f32) -> f32 {
    let step = probe_step(room);
    (1..=WAY_ROUND_STEPS)
        .map(|k| k as f32 * step)
        .find(|&distance| clearance_at(index, point + side * distance, room) >= room)
        .unwrap_or(f32::INFINITY)
}

/// The step of [`way_round`]'s probes for an agent keeping `room`: twice the room, at least 8.
fn probe_step(room: f32) -> f32 {
    (room * 2.0).max(8.0)
}

/// How far to the side [`way_round`]'s probes reach, for an agent keeping `room`.
fn probe_reach(room: f32) -> f32 {
    probe_step(room) * WAY_ROUND_STEPS as f32
}

/// How far a face of a long wall is looked along for its ends, in [`way_round`]'s reaches.
const FACE_REACHES: f32 = 64.0;

/// Whether `point` touches the obstacle `shape` at `position`, to within what rounding leaves a
/// point along a face off it, for an agent keeping `room`.
fn touches((position, shape): (Vector, ObstacleShape), point: Vector, room: f32) -> bool {
    shape.signed_distance(position, point) <= room.max(1.0) * 1e-3
}

/// How far the face of the obstacle that the agent meets at `surface` runs on from there along
/// `along` (a unit vector along the face), between `from` (where it is known to touch) and `most`:
/// the farthest point of that line still touching the shape (for a convex shape the points between
/// touch it too), to within a millionth of the span.
fn face_extent(
    obstacle: (Vector, ObstacleShape),
    surface: Vector,
    along: Vector,
    (from, most): (f32, f32),
    room: f32,
) -> f32 {
    if touches(obstacle, surface + along * most, room) {
        return most;
    }
    let (mut on, mut off) = (from, most);
    for _ in 0..20 {
        let middle = (on + off) * 0.5;
        if touches(obstacle, surface + along * middle, room) {
            on = middle;
        } else {
            off = middle;
        }
    }
    on
}

/// Which way along a long face (one that runs on beyond [`way_round`]'s reach at least one way) an
/// agent with `room` slides, from `surface`, where `along` is a unit vector along the face: an
/// agent `moving_on` (at half its top speed or more, along `heading`) the way it goes; one that
/// is not (held against the face) towards the face's nearer end, or past a nearer end out of reach
/// that is not open towards the farther one, and where neither end is open the way it goes. An end
/// is open with space past it (clear of every obstacle by the room for four and a half rooms
/// beyond it: room to go round, not a doorway it would have to squeeze into) and the line the
/// agent would slide along, `room` out along `normal`, clear (by three quarters of the room,
/// which steps of the room cannot miss) up to there or as far as the probes reach. From a place
/// where the agent is held, then, always the same way, so that its seek pulling it back towards
/// the point opposite its target cannot turn it round. `None` for a face shorter than the reach
/// both ways, an end in reach the agent would go to that is not open (a corner, a doorway), or a
/// slide line blocked: the probes square to the heading decide there, as for every other obstacle.
fn slide_along_face(
    index: &ObstacleIndex,
    obstacle: (Vector, ObstacleShape),
    (surface, normal, along): (Vector, Vector, Vector),
    (heading, moving_on): (Vector, bool),
    room: f32,
) -> Option<Vector> {
    let reach = probe_reach(room);
    let most = reach * FACE_REACHES;
    // Most faces met (circles', boxes') end within reach both ways: two signed distances say so.
    let long = [along, -along].map(|along| touches(obstacle, surface + along * reach, room));
    if long == [false, false] {
        return None;
    }
    let ends = [(along, long[0]), (-along, long[1])].map(|(along, long)| {
        let span = if long { (reach, most) } else { (0.0, reach) };
        face_extent(obstacle, surface, along, span, room)
    });
    let step = room.max(4.0);
    let slide = surface + normal * room;
    let slide_clear = |along: Vector, distance: f32| {
        (1..=(distance.min(reach) / step).ceil() as usize)
            .all(|k| clearance_at(index, slide + along * (k as f32 * step), room) >= room * 0.75)
    };
    let open_past = |along: Vector, end: f32| {
        end < most
            && [1.5, 3.0, 4.5].into_iter().all(|rooms| {
                clearance_at(index, surface + along * (end + room * rooms), room) >= room
            })
            && slide_clear(along, end + room * 4.5)
    };
    let (going, going_end) = if heading.dot(along) < 0.0 {
        (-along, ends[1])
    } else {
        (along, ends[0])
    };
    if moving_on {
        // On the way it goes: to an open end, or on while no end is in view.
        return if open_past(going, going_end) {
            Some(going)
        } else if going_end < reach {
            None
        } else {
            slide_clear(going, reach).then_some(going)
        };
    }
    let [(near, near_end), (far, far_end)] = if ends[0] <= ends[1] {
        [(along, ends[0]), (-along, ends[1])]
    } else {
        [(-along, ends[1]), (along, ends[0])]
    };
    if open_past(near, near_end) {
        Some(near)
    } else if near_end < reach {
        // A corner or a doorway in view: the probes decide.
        None
    } else if open_past(far, far_end) {
        Some(far)
    } else {
        // Neither end open, both out of reach: on the way it goes, as far as the probes see.
        slide_clear(going, reach).then_some(going)
    }
}

/// Whether `obstacle` is the only one within the probes' reach of `surface` (and the room beyond),
/// for an agent keeping `room`.
fn alone(index: &ObstacleIndex, obstacle: IndexedObstacle, surface: Vector, room: f32) -> bool {
    let reach = probe_reach(room) + room;
    let mut alone = true;
    index.for_each_near(surface - reach, surface + reach, |other| {
        alone = alone && other.entity == obstacle.entity;
    });
    alone
}

/// The way an agent held against a face (slower than half its top speed) is pushed aside: along the
/// face (square to `normal`), the way it already moves along it (by a quarter of its speed or
/// more: round the end it has slid to, where the normal turns), else towards `side`. Square to its
/// heading, the push would send it mostly back out, and a pull towards a point behind the obstacle
/// would win the sideways part back between pushes, leaving it creeping along the face.
fn held_along_face(side: Vector, normal: Vector, velocity: Vector) -> Option<Vector> {
    let along = (side - normal * side.dot(normal)).try_normalize()?;
    let sliding = velocity.dot(along);
    Some(
        if sliding < 0.0 && sliding * sliding >= velocity.length_squared() / 16.0 {
            -along
        } else {
            along
        },
    )
}

/// The sum of the outward normals at `point` of the obstacles nearer than `room` to it (at least 1
/// unit of reach), each weighted by how much nearer.
fn normal_at(index: &ObstacleIndex, point: Vector, room: f32) -> Vector {
    let reach = room.max(1.0);
    let mut normal = Vector::ZERO;
    index.for_each_near(point - reach, point + reach, |obstacle| {
        let distance = obstacle.shape.signed_distance(obstacle.position, point);
        if distance < reach {
            normal += obstacle.shape.outward_normal(obstacle.position, point) * (reach - distance);
        }
    });
    normal
}

/// The distance from `point` to the nearest obstacle within `room` of it (`room` when none is).
fn clearance_at(index: &ObstacleIndex, point: Vector, room: f32) -> f32 {
    let mut clearance = room;
    index.for_each_near(point - room, point + room, |obstacle| {
        clearance = clearance.min(obstacle.shape.signed_distance(obstacle.position, point));
    });
    clearance
}

/// The share of its largest acceleration an agent plans to stop short of an obstacle with: the
/// rest is left for the other behaviours' pull, which the force limit cuts from the same budget.
const STOPPING_SHARE: f32 = 0.8;

/// The share of an agent's acceleration that the push's own lean out along the normal, growing from
/// none where the look-ahead first touches to as much as across at contact (`1 − along` times the
/// push across), gives on average over the approach: `√2 − 1`, about 0.41.
const USUAL_LEAN: f32 = core::f32::consts::SQRT_2 - 1.0;

/// How far a push must lean out along an obstacle's outward normal, as a multiple of the push
/// across it, for an agent closing in on it at `closing` along the normal, `distance` away along
/// it, to stop short with [`STOPPING_SHARE`] of its largest `acceleration`: it needs
/// `closing² / (2 · distance)` of deceleration, a share `need` of what it has. Up to
/// [`USUAL_LEAN`] the push's usual lean gives that (zero); beyond, the push leans
/// `excess / √(1 − excess²)`, where `excess` is how far `need` is on from there to all of it;
/// infinite (straight out) once it needs all. Zero for an agent not closing in, or of unlimited
/// acceleration.
fn stopping_lean(closing: f32, distance: f32, acceleration: f32) -> f32 {
    let need = if closing > 0.0 {
        closing * closing / (2.0 * distance * STOPPING_SHARE * acceleration)
    } else {
        0.0
    };
    let excess = (need - USUAL_LEAN) / (1.0 - USUAL_LEAN);
    if excess >= 1.0 {
        f32::INFINITY
    } else if excess > 0.0 {
        excess / (1.0 - excess * excess).sqrt()
    } else {
        0.0
    }
}

/// The distance an agent at `speed` needs to stop in with [`STOPPING_SHARE`] of its largest
/// `acceleration` (zero for an unlimited one).
fn stopping_distance(speed: f32, acceleration: f32) -> f32 {
    speed * speed / (2.0 * STOPPING_SHARE * acceleration)
}

/// Whether an agent moving at `velocity` goes at half its `max_speed` or more: it then slides on the
/// way it goes along a long face, and brakes for the next obstacle ahead while too near another.
fn moving_on(velocity: Vector, max_speed: f32) -> bool {
    length(velocity) >= max_speed * 0.5
}

/// How many steps [`exit_distance`] takes along a direction before it gives up.
const EXIT_STEPS: usize = 24;

/// The shortest step [`exit_distance`] takes, for an agent keeping `room`: a twentieth of the
/// room (at least 0.05), within which it finds a way out.
fn least_exit_step(room: f32) -> f32 {
    room.max(1.0) * 0.05
}

/// Whether the move from `from` by `step` runs into an obstacle that `from` is more than `least`
/// from: through a wall, say, which no way out may take (within `least` of a face counts).
fn runs_into(index: &ObstacleIndex, from: Vector, step: Vector, least: f32) -> bool {
    let to = from + step;
    let mut blocked = false;
    index.for_each_near(from.min(to) - least, from.max(to) + least, |obstacle| {
        blocked = blocked
            || (obstacle.shape.signed_distance(obstacle.position, from) > least
                && obstacle
                    .shape
                    .first_contact(obstacle.position, from, step, least)
                    .is_some());
    });
    blocked
}

/// How far an agent keeping `room` at `point` goes along `direction` (a unit vector) to be clear
/// of every obstacle, to within [`least_exit_step`]; `f32::INFINITY` at `most`
/// or beyond, after [`EXIT_STEPS`] steps, or where the way runs into an obstacle it was not in
/// (through a wall to its far side is no way out). Each step is as long as the agent is deep in
/// the obstacles where it stands (no way out of an obstacle is shorter), so none steps past a way
/// out.
fn exit_distance(
    index: &ObstacleIndex,
    point: Vector,
    direction: Vector,
    room: f32,
    most: f32,
) -> f32 {
    let least_step = least_exit_step(room);
    let mut travelled = 0.0;
    for _ in 0..EXIT_STEPS {
        let here = point + direction * travelled;
        let depth = room - clearance_at(index, here, room);
        if depth <= 0.0 {
            return travelled;
        }
        let step = depth.max(least_step);
        if runs_into(index, here, direction * step, least_step) {
            break;
        }
        travelled += step;
        if travelled >= most {
            break;
        }
    }
    f32::INFINITY
}

/// The shortest way out for an agent keeping `room` at `point`, within `room` of obstacles, whose
/// outward normals sum to `normal` (a unit vector): `normal` where it leads straight out (out of
/// one obstacle it does); where obstacles overlap and it leads out of one into another, the
/// direction of [`all_round`] (a ground unit's: round its plane, the one at right angles to `up`)
/// with the shortest way out, `normal` on a tie.
fn shortest_way_out(
    index: &ObstacleIndex,
    point: Vector,
    normal: Vector,
    up: Option<Vector>,
    room: f32,
) -> Vector {
    let least_step = least_exit_step(room);
    let depth = room - clearance_at(index, point, room);
    let straight_out = exit_distance(index, point, normal, room, f32::INFINITY);
    if straight_out <= depth + least_step * 2.0 {
        return normal;
    }
    let mut best = (normal, straight_out);
    let mut consider = |direction: Vector| {
        let distance = exit_distance(index, point, direction, room, best.1 - least_step);
        if distance < best.1 - least_step {
            best = (direction, distance);
        }
    };
    all_round(up).for_each(&mut consider);
    best.0
}

/// Steer round [`Obstacle`](crate::obstacles::Obstacle)s, as the Collision Avoidance tutorial does,
/// and further.
///
/// The tutorial looks ahead along the velocity (`look_ahead` at full speed, shorter when slower, as
/// its demo does), tests the points `ahead` and `ahead / 2` and the agent's position against each
/// obstacle, avoids only the nearest one hit, by a force `normalise(ahead - centre) * AVOID_FORCE`,
/// and says itself that this fails at walls and corners. This crate:
/// - tests the whole look-ahead against circles and boxes exactly, and against wall segments at
///   points at most `clearance` apart (so a thin wall cannot slip between two of them), keeping
///   `clearance` (the agent's own radius) from them, and avoids the obstacle it would touch first
///   ([`ObstacleShape::first_contact`](crate::obstacles::ObstacleShape::first_contact));
/// - pushes along the obstacle's outward normal where the agent would touch it, turned aside, so
///   that a wall or a box face pushes the agent along it rather than straight back; an agent heading
///   straight at an obstacle turns to the side with more room (left on a tie), so it does not stop
///   dead in front of a wall or in a corner;
/// - along a face too long to see round (a long wall), slides the agent along it: on the way it
///   goes when it moves at half its top speed or more; when held against the face, towards the
///   face's nearer end with open space past it (not a doorway too narrow to go round into),
///   always the same way from the same place, so that a seek towards a point behind the wall,
///   which pulls the agent back towards the point opposite it, cannot hold it there (a local
///   minimum of plain steering; the README gives the figures, and a weak agent can still hover at
///   a very long wall's end: give it a path); held against an obstacle with no other within the
///   probes' reach (a lone box or wall), the way it already slides along the face, or the side the
///   probes chose, so that such a seek does not leave it creeping along the face;
/// - gets an agent that is already within `clearance` of an obstacle (spawned inside one, or pushed
///   in by others) out along the shortest way, out of obstacles that overlap too (not out of one
///   into the next), and, while it is, brakes for the next obstacle ahead too (sliding along a
///   wall into a box, or into the wedge where a wall ends inside a disc), each stop planned along
///   that obstacle's own normal;
/// - adds Reynolds' braking on demand: a force against the velocity, `braking` times the strength,
///   scaled by how near the contact is;
/// - in 3D, keeps a ground unit (`Planar`) in its plane: the normal, the
///   side it turns to and the probes for the way round all lie in the plane, so an obstacle
///   centred above or below it is gone round, not over or under.
///
/// The obstacles come from the [`ObstacleIndex`], so only those near the look-ahead cost anything.
/// Units: `look_ahead` and `clearance` are distances (the tutorial's `MAX_AVOID_AHEAD`, 50 in the
/// Queue demo and 100 in the author's hockey demo, unchanged); `strength` is a force. The Queue
/// demo's `AVOID_FORCE = 600` pixels per frame² would be 36 000 at 60 frames per second: far above
/// its `MAX_FORCE`, so that avoidance all but takes the whole force budget when it acts. The
/// default here, 3 000, does the same against the usual [`MaxForce`](crate::components::MaxForce)
/// of a few hundred and keeps the debug arrows on the screen; raise it with a larger `MaxForce`,
/// or give the agent [`SteeringCombination::Prioritised`](crate::components::SteeringCombination),
/// with which avoidance is served first whatever the strengths.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct AvoidObstacles {
    /// How far ahead the agent looks at its full speed; at lower speeds, proportionally less.
    /// Default `100.0`.
    #[reflect(@DISTANCE)]
    pub look_ahead: f32,
    /// The room the agent keeps round itself: its own radius. Default `12.0`.
    #[reflect(@DISTANCE)]
    pub clearance: f32,
    /// The avoidance force. Default `3000.0`.
    #[reflect(@Tunable::logarithmic(0.0, 100000.0))]
    pub strength: f32,
    /// Reynolds' braking, as a fraction of `strength` at contact. Default `0.0` (the tutorial's:
    /// none).
    #[reflect(@FRACTION)]
    pub braking: f32,
    /// Factor on the force. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
}

impl Default for AvoidObstacles {
    fn default() -> Self {
        Self {
            look_ahead: 100.0,
            clearance: 12.0,
            strength: 3000.0,
            braking: 0.0,
            weight: 1.0,
            enabled: true,
        }
    }
}

weight_and_switch_builders!(AvoidObstacles);

/// The obstacle an agent is about to touch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Threat {
    /// The obstacle.
    pub obstacle: IndexedObstacle,
    /// The point of the look-ahead (or the agent's position) that touches it.
    pub point: Vector,
    /// How far along the look-ahead: 0 at the agent, 1 at its end.
    pub along: f32,
}

impl AvoidObstacles {
    /// Avoidance with this look-ahead and clearance.
    pub fn new(look_ahead: f32, clearance: f32) -> Self {
        Self {
            look_ahead,
            clearance,
            ..default()
        }
    }

    /// Sets Reynolds' braking.
    pub fn with_braking(mut self, braking: f32) -> Self {
        self.braking = braking;
        self
    }

    /// Whether the behaviour acts: enabled with a weight other than zero.
    pub fn active(&self) -> bool {
        self.enabled && self.weight != 0.0
    }

    /// The clearance when it is a finite number that is not negative, else zero.
    fn room(&self) -> f32 {
        effective_limit(self.clearance)
    }

    /// An agent's largest acceleration, `MaxForce / Mass`, as [`ahead`](Self::ahead),
    /// [`threat`](Self::threat) and [`force_in`](Self::force_in) take it: infinite (no stopping
    /// to plan for) for a mass that ignores forces, or no force at all.
    pub fn largest_acceleration(mass: Mass, max_force: MaxForce) -> f32 {
        max_force
            .acceleration(mass)
            .filter(|&acceleration| acceleration > 0.0)
            .unwrap_or(f32::INFINITY)
    }

    /// How far from an agent with this `max_speed` and largest `acceleration` an obstacle can
    /// matter: its look-ahead at full speed (see [`ahead`](Self::ahead)) and the clearance (zero
    /// for values that are negative or not finite).
    pub fn reach(&self, max_speed: f32, acceleration: f32) -> f32 {
        let top_speed = effective_limit(max_speed);
        self.full_look_ahead()
            .max(stopping_distance(top_speed, acceleration))
            + self.room()
    }

    /// The look-ahead at full speed when it is a finite number that is not negative, else zero.
    fn full_look_ahead(&self) -> f32 {
        effective_limit(self.look_ahead)
    }

    /// The end of the agent's look-ahead: `look_ahead` along the velocity at full speed, less when
    /// slower, but never shorter than the distance the agent needs to stop in with most (80 %) of
    /// its largest `acceleration` (`MaxForce / Mass`; see
    /// [`largest_acceleration`](Self::largest_acceleration)), at its speed up to `MaxSpeed`, so
    /// that a heavy or weak agent sees an obstacle while it can still stop short of it; the
    /// agent's position when it stands still.
    pub fn ahead(&self, agent: &Boid, acceleration: f32) -> Vector {
        let speed = length(agent.velocity);
        if !(speed > 0.0 && speed.is_finite()) {
            return agent.position;
        }
        // `look_ahead × min(speed / max_speed, 1)` along the heading: the velocity, scaled once.
        let per_speed = if agent.max_speed > 0.0 {
            self.full_look_ahead() / agent.max_speed.max(speed)
        } else {
            self.full_look_ahead() / speed
        };
        let stopping = stopping_distance(speed.min(agent.max_speed.max(0.0)), acceleration);
        if stopping > per_speed * speed {
            agent.position + agent.velocity * (stopping / speed)
        } else {
            agent.position + agent.velocity * per_speed
        }
    }

    /// The obstacle the agent (of largest `acceleration`, as [`ahead`](Self::ahead) takes it)
    /// would touch first: one it is already within `clearance` of (the deepest), else the first
    /// the look-ahead touches, in the index's order on a tie.
    pub fn threat(&self, agent: &Boid, index: &ObstacleIndex, acceleration: f32) -> Option<Threat> {
        let (inside, ahead) = self.threats(agent, index, acceleration);
        inside.or(ahead)
    }

    /// The obstacle the agent is deepest within `clearance` of, and, of the others, the first its
    /// look-ahead touches (each in the index's order on a tie).
    fn threats(
        &self,
        agent: &Boid,
        index: &ObstacleIndex,
        acceleration: f32,
    ) -> (Option<Threat>, Option<Threat>) {
        if !(agent.position.is_finite() && agent.velocity.is_finite()) {
            return (None, None);
        }
        let room = self.room();
        let ahead = self.ahead(agent, acceleration);
        let reach = ahead - agent.position;
        let (low, high) = (
            agent.position.min(ahead) - room,
            agent.position.max(ahead) + room,
        );
        let mut inside: Option<(Threat, f32)> = None;
        let mut first_ahead: Option<Threat> = None;
        index.for_each_near(low, high, |obstacle| {
            // Most candidates are missed: the cheap contact test first.
            let Some(along) =
                obstacle
                    .shape
                    .first_contact(obstacle.position, agent.position, reach, room)
            else {
                return;
            };
            if along == 0.0 {
                // Inside already (within the clearance): deeper is more urgent.
                let here = obstacle
                    .shape
                    .signed_distance(obstacle.position, agent.position);
                let depth = here - room;
                if inside.is_none_or(|(_, deepest)| depth < deepest) {
                    let found = Threat {
                        obstacle: *obstacle,
                        point: agent.position,
                        along: 0.0,
                    };
                    inside = Some((found, depth));
                }
            } else if first_ahead.is_none_or(|first| along < first.along) {
                first_ahead = Some(Threat {
                    obstacle: *obstacle,
                    point: agent.position + reach * along,
                    along,
                });
            }
        });
        (inside.map(|(threat, _)| threat), first_ahead)
    }

    /// The unweighted avoidance force on `agent` from the obstacles in `index`: zero when nothing
    /// is in the way. For an agent of unlimited force: see [`force_in`](Self::force_in) for the
    /// stopping an agent of limited force plans.
    pub fn force(&self, agent: &Boid, index: &ObstacleIndex) -> Vector {
        self.force_in(agent, index, None, f32::INFINITY)
    }

    /// [`force`](Self::force) on an agent kept to the plane at right angles to `up` (a unit
    /// vector; in 3D a `Planar` ground unit), or on a free one (`None`):
    /// a ground unit pushed out along an obstacle's normal in its plane, turning to a side in its
    /// plane, found free by probes in its plane, so that it goes round an obstacle rather than
    /// being sent over or under it (which its plane would then take away).
    ///
    /// `acceleration` is the most the agent's velocity can change in a second, `MaxForce / Mass`
    /// ([`largest_acceleration`](Self::largest_acceleration); `f32::INFINITY` for no limit): the
    /// look-ahead reaches at least as far as the agent needs to stop in (see
    /// [`ahead`](Self::ahead)), and the push leans out along the normal at least as far as
    /// stopping short of the obstacle needs with most of it, so that an agent too weak to turn
    /// aside in time brakes instead of running into (or through) the obstacle.
    pub fn force_in(
        &self,
        agent: &Boid,
        index: &ObstacleIndex,
        up: Option<Vector>,
        acceleration: f32,
    ) -> Vector {
        // An agent may stop within half its room of an obstacle ahead (else one hugging a face,
        // the contact a hair away, would be sent straight out at the least closing speed).
        let push = |threat, allowance| self.push(agent, index, up, acceleration, threat, allowance);
        match self.threats(agent, index, acceleration) {
            // Out of an obstacle the agent is already too near and, when it moves at half its top
            // speed or more or must already brake for it, round the next one ahead, which the way
            // out must not run it into (sliding along a wall into a box, say): short of that one's
            // room, since the way out takes part of the force. Where the two pushes oppose each
            // other (a wedge, or a slot between the two narrower than the room), their sum would
            // hold the agent there: it only brakes.
            (Some(inside), ahead) => {
                let (out, _) = push(inside, 0.0);
                let Some(ahead) = ahead else {
                    return out;
                };
                let (round, braking) = push(ahead, 0.0);
                let velocity = in_plane(agent.velocity, up);
                if round.dot(out) >= 0.0 {
                    let moving_on = moving_on(velocity, agent.max_speed);
                    return if braking || moving_on {
                        out + round
                    } else {
                        out
                    };
                }
                // A wedge or a slot: only the brake, as far as stopping short of the next
                // obstacle itself (not its room, which a slot narrower than the room leaves none
                // of) needs, so that the agent neither runs into it nor stalls where it fits.
                let (round, braking) = push(ahead, self.room());
                let heading = direction_or_zero(velocity);
                if braking {
                    out + heading * round.dot(heading).min(0.0)
                } else {
                    out
                }
            }
            (None, Some(ahead)) => push(ahead, self.room() * 0.5).0,
            (None, None) => Vector::ZERO,
        }
    }

    /// The push (and brake) away from `threat`, as [`force_in`](Self::force_in) describes, and
    /// whether it leans out further than usual to stop short of the obstacle, within `allowance`
    /// of the room.
    fn push(
        &self,
        agent: &Boid,
        index: &ObstacleIndex,
        up: Option<Vector>,
        acceleration: f32,
        threat: Threat,
        allowance: f32,
    ) -> (Vector, bool) {
        let in_plane = |vector: Vector| in_plane(vector, up);
        let velocity = in_plane(agent.velocity);
        let heading = direction_or_zero(velocity);
        let IndexedObstacle {
            position, shape, ..
        } = threat.obstacle;
        // This obstacle's own outward normal at the contact, in the plane (zero where it has none).
        let own = direction_or_zero(in_plane(shape.outward_normal(position, threat.point)));
        // Out of everything within reach of the contact, the nearer the more: out of a corner, not
        // just out of one of its walls.
        let mut normal = in_plane(normal_at(index, threat.point, self.room()))
            .try_normalize()
            .unwrap_or_else(|| in_plane(shape.outward_normal(position, threat.point)));
        if up.is_some() {
            // The outward normal put into the plane is a unit vector no longer.
            normal = direction_or_zero(normal);
        }
        if normal == Vector::ZERO {
            normal = way_out(shape, position, threat.point, heading, up, self.room());
        }
        if threat.along == 0.0 {
            // Inside obstacles that overlap, the normals' sum can lead out of one into another.
            normal = shortest_way_out(index, threat.point, normal, up, self.room());
            // Where that way (in a pocket narrower than the room, along the face) does not take
            // the agent off the obstacle it is deepest near as fast as it closes in on it, out of
            // that one first, as far as stopping short of its surface needs.
            let lean = stopping_lean(
                -velocity.dot(own),
                shape.signed_distance(position, threat.point).max(0.0),
                acceleration,
            );
            if lean > 0.0 && own != Vector::ZERO {
                normal = if lean.is_finite() {
                    direction_or_zero(normal + own * lean)
                } else {
                    own
                };
            }
        }
        // Turn aside, to the side with the shorter way round (the normal's own side on a tie, then
        // the left), so that the agent slides along a wall instead of stopping in front of it;
        // back out when already too near.
        let across = normal - heading * normal.dot(heading);
        // In 3D there is no one left: the side is the one the normal leans to, across the heading;
        // a ground unit's sides are its left and right in its plane.
        let forward = if heading == Vector::ZERO {
            normal
        } else {
            heading
        };
        let left = match up {
            Some(up) => left_in_plane(forward, up),
            None => sideways(forward, across),
        };
        let room = self.room();
        // Probed from the obstacle's surface, where the agent would meet it (for a ground unit,
        // level with the contact, in its plane).
        let mut surface = shape.closest_point(position, threat.point);
        if up.is_some() {
            surface = threat.point + in_plane(surface - threat.point);
        }
        let (to_left, to_right) = (
            way_round(index, surface, left, room),
            way_round(index, surface, -left, room),
        );
        // Where the probes cannot tell the sides apart, along a face too long for them to see
        // round, slide along it (see `slide_along_face`), pushed on along it rather than turned
        // square to the heading: else a seek towards a point behind the wall, pulling the agent
        // back towards the point straight in front of it, holds it there (a local minimum).
        let along_face = direction_or_zero(left - normal * left.dot(normal));
        let moving_on = moving_on(velocity, agent.max_speed);
        let slide = if threat.along == 0.0 || along_face == Vector::ZERO || to_left != to_right {
            None
        } else {
            slide_along_face(
                index,
                (position, shape),
                (surface, normal, along_face),
                (heading, moving_on),
                room,
            )
        };
        let side = if threat.along == 0.0 {
            // Already too near: straight back out.
            Vector::ZERO
        } else if let Some(slide) = slide {
            slide
        } else {
            let side = match to_left.total_cmp(&to_right) {
                core::cmp::Ordering::Less => left,
                core::cmp::Ordering::Greater => -left,
                core::cmp::Ordering::Equal if across.dot(left) < 0.0 => -left,
                core::cmp::Ordering::Equal => left,
            };
            // Held against an obstacle with nothing else near (a convex shape: the way along
            // its face is clear), it slides along the face; near others (a doorway, a corner, a
            // field of obstacles) the probes' side, which weighs them, stands.
            if moving_on || !alone(index, threat.obstacle, surface, room) {
                side
            } else {
                held_along_face(side, normal, velocity).unwrap_or(side)
            }
        };
        // Mostly aside while the contact is far ahead, back out as well as it nears, and as far as
        // stopping short of it needs.
        // The contact is `to_contact` along the velocity, so as far along the normal as the agent
        // closes in on it over that way.
        // Stopping short of the obstacle met is measured along its own normal: near other
        // obstacles (in a wedge), the normals' sum turns away from it, and closing in along that
        // sum understates how fast the agent closes in on this one.
        let stop_along = if own == Vector::ZERO { normal } else { own };
        let closing = -velocity.dot(stop_along);
        let to_contact =
            length(in_plane(self.ahead(agent, acceleration) - agent.position)) * threat.along;
        let stopping = stopping_lean(
            closing,
            to_contact * closing / length(velocity) + allowance,
            acceleration,
        );
        let usual = 1.0 - threat.along;
        let (out, lean) = if stopping > usual {
            (stopping, stop_along)
        } else {
            (usual, normal)
        };
        let push = if out.is_finite() {
            direction_or_zero(side + lean * out)
                .try_normalize()
                .unwrap_or(lean)
        } else {
            lean
        } * self.strength;
        let brake = -heading * (self.strength * self.braking * (1.0 - threat.along));
        (push + brake, stopping > 0.0)
    }
}

/// Adds the weighted avoidance force of every agent with [`AvoidObstacles`].
pub fn apply_avoid_obstacles(
    index: Res<ObstacleIndex>,
    mut agents: BehaviourAgents<AvoidObstacles>,
    planes: Query<PlaneColumn>,
    limits: Query<(&Mass, &MaxForce)>,
    mut logged_not_dense: Local<bool>,
) {
    step_agents(
        &mut agents,
        &mut logged_not_dense,
        BehaviourKind::AVOID_OBSTACLES,
        MIN_QUERYING_AGENTS_PER_JOB,
        AvoidObstacles::active,
        |avoid, agent, entity, _: &mut ()| {
            let up = plane_up_of(&planes, entity);
            let acceleration = limits
                .get(entity)
                .map_or(f32::INFINITY, |(mass, max_force)| {
                    AvoidObstacles::largest_acceleration(*mass, *max_force)
                });
            Ok(avoid.force_in(agent, &index, up, acceleration) * avoid.weight)
        },
        |_, _, _| {},
    );
}

/// The weighted avoidance force of every agent, for the debug gizmos.
fn avoid_obstacles_forces(world: &mut World, forces: &mut Vec<(Vector, Vector)>) {
    let mut agents = world.query::<(
        &AvoidObstacles,
        &Transform,
        &Velocity,
        &MaxSpeed,
        (&Mass, &MaxForce),
        PlaneColumn,
    )>();
    let Some(index) = world.get_resource::<ObstacleIndex>() else {
        return;
    };
    for (avoid, transform, velocity, max_speed, (mass, max_force), planar) in agents.iter(world) {
        if avoid.active() {
            let agent = boid(transform, velocity, max_speed);
            let acceleration = AvoidObstacles::largest_acceleration(*mass, *max_force);
            let force = avoid.force_in(&agent, index, plane_up(planar), acceleration);
            forces.push((agent.position, force * avoid.weight));
        }
    }
}

/// Rebuilds the [`ObstacleIndex`] from the obstacles' current positions, in
/// [`SteeringSystems::Index`](crate::SteeringSystems::Index), keeping only the obstacles within
/// reach of an agent with [`AvoidObstacles`] this step (the bounding box of those agents, grown by
/// the longest look-ahead and clearance among them): obstacles nowhere near cost nothing but this
/// filter. An obstacle whose shape or position is not valid is left out, with a warning once per
/// entity.
pub fn rebuild_obstacle_index(
    mut index: ResMut<ObstacleIndex>,
    obstacles: Query<(Entity, &Obstacle, &Transform)>,
    avoiders: Query<(&Transform, &AvoidObstacles, &MaxSpeed, &Mass, &MaxForce)>,
    mut warned: Local<EntityHashSet>,
) {
    // No obstacles (most scenes without them): no pass over the agents either.
    if obstacles.is_empty() {
        return index.rebuild([]);
    }
    let reachable = avoiders
        .iter()
        .filter(|(transform, avoid, ..)| avoid.active() && transform.translation.is_finite())
        .map(|(transform, avoid, max_speed, mass, max_force)| {
            let position = position_of(transform);
            let acceleration = AvoidObstacles::largest_acceleration(*mass, *max_force);
            (position, position, avoid.reach(max_speed.0, acceleration))
        })
        .reduce(|(low, high, reach), (l, h, r)| (low.min(l), high.max(h), reach.max(r)))
        .map(|(low, high, reach)| (low - reach, high + reach));
    index.rebuild(obstacles.iter().filter_map(|(entity, obstacle, transform)| {
        let position = position_of(transform);
        if !(obstacle.shape.is_valid() && position.is_finite()) {
            if warned.insert(entity) {
                warn!(
                    "bevy_steer: obstacle {entity} has a size that is negative or not finite, or a \
                     position that is not finite ({:?} at {position}); agents do not see it",
                    obstacle.shape
                );
            }
            return None;
        }
        let (low, high) = obstacle.shape.bounds(position);
        let near = reachable.is_some_and(|(reach_low, reach_high)| {
            low.cmple(reach_high).all() && high.cmpge(reach_low).all()
        });
        near.then_some(IndexedObstacle {
            entity,
            position,
            shape: obstacle.shape,
        })
    }));
}

impl BehaviourKind {
    /// [`AvoidObstacles`].
    pub const AVOID_OBSTACLES: Self = Self::new("avoid_obstacles");
}

/// Registers [`AvoidObstacles`] and the obstacles: the [`ObstacleIndex`], rebuilt each step in
/// [`SteeringSystems::Index`].
pub(crate) fn plugin(app: &mut App) {
    app.register_type::<AvoidObstacles>()
        .register_type::<Obstacle>()
        .register_type::<ObstacleShape>()
        .init_resource::<ObstacleIndex>()
        .add_systems(
            SteeringSchedule,
            rebuild_obstacle_index.in_set(SteeringSystems::Index),
        );
    register_behaviour(
        app,
        BehaviourKind::AVOID_OBSTACLES,
        [TypeId::of::<AvoidObstacles>(); 2],
        (avoid_obstacles_forces, None),
        apply_avoid_obstacles,
    );
}

#[cfg(all(test, feature = "2d"))]
mod tests {
    use super::*;
    use crate::test_support::v;

    fn index_of(obstacles: &[(Vector, ObstacleShape)]) -> ObstacleIndex {
        let mut index = ObstacleIndex::default();
        index.rebuild(obstacles.iter().enumerate().map(|(i, &(position, shape))| {
            IndexedObstacle {
                entity: Entity::from_raw_u32(i as u32 + 1).unwrap(),
                position,
                shape,
            }
        }));
        index
    }

    fn agent(position: Vector, velocity: Vector) -> Boid {
        Boid {
            position,
            velocity,
            max_speed: 100.0,
        }
    }

    #[test]
    fn an_agent_on_a_wall_s_line_is_pushed_off_it_to_a_side() {
        // A wall from (-200, 0) to (200, 0), where the wall has no normal: at rest, and moving
        // along the line. Backing along the line gains no room; a side does.
        let index = index_of(&[(
            v(-200.0, 0.0),
            ObstacleShape::Segment { end: v(400.0, 0.0) },
        )]);
        let avoid = AvoidObstacles::default();
        for velocity in [Vector::ZERO, v(50.0, 0.0), v(-80.0, 0.0)] {
            let force = avoid.force(&agent(v(10.0, 0.0), velocity), &index);
            assert!(force.is_finite(), "{velocity}: {force}");
            assert!(
                force.y.abs() > 0.9 * force.length() && force.length() > 0.0,
                "moving {velocity}: {force}, not off the line"
            );
        }
    }

    #[test]
    fn nothing_in_the_way_gives_no_force() {
        let index = index_of(&[(v(0.0, 200.0), ObstacleShape::Circle { radius: 20.0 })]);
        let avoid = AvoidObstacles::default();
        let force = avoid.force(&agent(Vector::ZERO, v(100.0, 0.0)), &index);
        assert_eq!(force, Vector::ZERO);
        // Standing still: no look-ahead, nothing touched.
        let still = agent(v(0.0, 150.0), Vector::ZERO);
        assert_eq!(avoid.force(&still, &index), Vector::ZERO);
    }

    #[test]
    fn a_circle_off_centre_pushes_to_the_side_away_from_it() {
        // A circle 60 ahead and 10 to the left of the heading; look-ahead 100 at full speed.
        let index = index_of(&[(v(60.0, 10.0), ObstacleShape::Circle { radius: 20.0 })]);
        let avoid = AvoidObstacles::default();
        let force = avoid.force(&agent(Vector::ZERO, v(100.0, 0.0)), &index);
        assert!(force.y < 0.0, "pushed right, away from the circle: {force}");
        assert!((length(force) - 3000.0).abs() < 0.1);
    }

    #[test]
    fn half_speed_looks_half_as_far() {
        let index = index_of(&[(v(80.0, 0.0), ObstacleShape::Circle { radius: 10.0 })]);
        let avoid = AvoidObstacles::default();
        // At full speed the look-ahead (100, clearance 12) reaches the circle's edge at 70.
        assert!(
            avoid
                .threat(&agent(Vector::ZERO, v(100.0, 0.0)), &index, f32::INFINITY)
                .is_some()
        );
        // At half speed it ends at 50, short of 70 - 12.
        assert!(
            avoid
                .threat(&agent(Vector::ZERO, v(50.0, 0.0)), &index, f32::INFINITY)
                .is_none()
        );
    }

    #[test]
    fn head_on_at_a_wall_turns_aside_and_brakes_on_demand() {
        // A wall across the path from (50, -100) to (50, 100), agent heading straight at it.
        let wall = ObstacleShape::Segment { end: v(0.0, 200.0) };
        let index = index_of(&[(v(50.0, -100.0), wall)]);
        let avoid = AvoidObstacles::default();
        let boid = agent(Vector::ZERO, v(100.0, 0.0));
        let threat = avoid.threat(&boid, &index, f32::INFINITY).unwrap();
        // Nine points 100 / 9 apart (at most the clearance, 12): the fourth, at 44.4, is within 12
        // of the wall at 50.
        assert!((threat.along - 4.0 / 9.0).abs() < 1e-6, "{threat:?}");
        let force = avoid.force(&boid, &index);
        // Back along the normal and aside, 45 degrees each.
        assert!(
            force.x < 0.0 && force.y.abs() > 0.5 * force.x.abs(),
            "{force}"
        );
        let braking = avoid.with_braking(0.5).force(&boid, &index);
        assert!(
            braking.x < force.x,
            "braking pushes back harder: {braking} vs {force}"
        );
    }

    #[test]
    fn a_box_face_pushes_out_through_the_face() {
        let block = ObstacleShape::Box {
            half_size: v(20.0, 50.0),
        };
        let index = index_of(&[(v(70.0, 30.0), block)]);
        let avoid = AvoidObstacles::default();
        let force = avoid.force(&agent(Vector::ZERO, v(100.0, 0.0)), &index);
        // The face at x = 50 faces the agent; the box is mostly above: turn down.
        assert!(force.x < 0.0 && force.y < 0.0, "{force}");
    }

    #[test]
    fn an_agent_inside_gets_out_the_shortest_way() {
        let index = index_of(&[(Vector::ZERO, ObstacleShape::Circle { radius: 50.0 })]);
        let avoid = AvoidObstacles::default();
        let inside = agent(v(0.0, 40.0), v(100.0, 0.0));
        let threat = avoid.threat(&inside, &index, f32::INFINITY).unwrap();
        assert_eq!(threat.along, 0.0);
        let force = avoid.force(&inside, &index);
        assert!(force.y > 0.0, "out through the top: {force}");
        // At the very centre, standing still: still a finite push.
        let centre = agent(Vector::ZERO, Vector::ZERO);
        let force = avoid.force(&centre, &index);
        assert!(force.is_finite() && force != Vector::ZERO, "{force}");
    }

    #[test]
    fn out_of_overlapping_circles_across_the_line_of_their_centres() {
        let circle = ObstacleShape::Circle { radius: 40.0 };
        let index = index_of(&[(Vector::ZERO, circle), (v(50.0, 0.0), circle)]);
        let avoid = AvoidObstacles::default();
        // Each circle's way out leads into the other; their normals cancel at about x = 25.
        for x in [15.0, 25.0, 27.7, 35.0] {
            let force = avoid.force(&agent(v(x, 0.0), Vector::ZERO), &index);
            assert!(force.y.abs() > force.x.abs() * 2.0, "at x = {x}: {force}");
        }
        // Inside one of them only: straight out along its normal.
        let force = avoid.force(&agent(v(-20.0, 10.0), Vector::ZERO), &index);
        assert!(
            force
                .normalize()
                .abs_diff_eq(v(-20.0, 10.0).normalize(), 1e-5),
            "{force}"
        );
    }

    #[test]
    fn bad_numbers_give_no_nan() {
        let index = index_of(&[(Vector::ZERO, ObstacleShape::Circle { radius: 50.0 })]);
        for avoid in [
            AvoidObstacles::new(f32::NAN, f32::NAN),
            AvoidObstacles::new(-5.0, -5.0),
            AvoidObstacles::new(f32::INFINITY, f32::INFINITY),
        ] {
            for boid in [
                agent(v(0.0, 60.0), v(100.0, 0.0)),
                agent(v(f32::NAN, 0.0), v(100.0, 0.0)),
                agent(v(0.0, 60.0), v(f32::INFINITY, 0.0)),
                Boid {
                    max_speed: 0.0,
                    ..agent(v(-70.0, 0.0), v(10.0, 0.0))
                },
            ] {
                let force = avoid.force(&boid, &index);
                assert!(force.is_finite(), "{avoid:?} {boid:?}: {force}");
            }
        }
    }
}
