//! Path following: [`FollowPath`], along a [`Path`], and [`advance_paths`], which moves the
//! followers on from node to node. What the tutorial does and where the crate goes further is on
//! [`FollowPath`], where the public docs show it.

use bevy::prelude::*;

use super::{
    NoTarget, SteeringBehaviour, TargetState, weight_and_switch_accessors,
    weight_and_switch_builders,
};
use crate::components::{Mass, MaxForce, Steering, Velocity};
use crate::formulas::{self, Boid, is_valid_mass};
use crate::geometry::path::{
    PathProjection, path_length, point_along_path, project_onto_path, segment, segment_projections,
};
use crate::math::{Vector, direction_or_zero, length, non_negative, position_of, sideways};
use crate::problems::BehaviourKind;
use crate::schedule::{SteeringSchedule, SteeringSystems};
use crate::stepping::behaviour::behaviour_plugin;
use crate::tunable::{DISTANCE, Tunable, WEIGHT};

/// A path: nodes joined by straight segments (its spine), with a radius around them.
///
/// Fill it from a pathfinder's output with [`Path::new`], `collect()` or `From`:
///
/// ```
#[doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::prelude::*;")]
///
/// let waypoints = [Vector::ZERO, Vector::X * 100.0, Vector::X * 100.0 + Vector::Y * 80.0];
/// let path: Path = waypoints.into_iter().collect();
/// assert_eq!(path.radius, Path::DEFAULT_RADIUS);
/// assert_eq!(Path::new(waypoints, 30.0).points.len(), 3);
/// ```
#[derive(Reflect, Clone, Debug, PartialEq)]
#[reflect(Default, Debug, PartialEq, Clone)]
pub struct Path {
    /// The nodes, in the order they are followed. An empty path gives no force.
    pub points: Vec<Vector>,
    /// How close to a node counts as reached (the tutorial's method), and how far from the spine
    /// a follower may stray before it is steered back (Reynolds' method). Default
    /// [`Path::DEFAULT_RADIUS`].
    ///
    /// A radius that is zero, negative or not finite counts as `0.0`: only standing exactly on a
    /// node reaches it, and Reynolds' method steers back at any distance from the spine. With the
    /// tutorial's method such a path's first node (which has no segment leading to it to be
    /// passed) is in practice never reached: the follower circles it; give it a radius.
    ///
    /// Its range is declared for tools, but the tuning panel reads only a component's own
    /// top-level `f32` fields, so this nested field gets no slider.
    #[reflect(@DISTANCE)]
    pub radius: f32,
}

impl Default for Path {
    /// No nodes, the default radius.
    fn default() -> Self {
        Self {
            points: Vec::new(),
            radius: Self::DEFAULT_RADIUS,
        }
    }
}

impl Path {
    /// The radius of a path made with `collect()` or `From`: `20.0` units.
    pub const DEFAULT_RADIUS: f32 = 20.0;

    /// A path through `points`, in order, with `radius`.
    pub fn new(points: impl IntoIterator<Item = Vector>, radius: f32) -> Self {
        Self {
            points: points.into_iter().collect(),
            radius,
        }
    }

    /// Sets the radius.
    pub fn with_radius(mut self, radius: f32) -> Self {
        self.radius = radius;
        self
    }
}

impl FromIterator<Vector> for Path {
    /// A path through the points, with [`Path::DEFAULT_RADIUS`].
    fn from_iter<I: IntoIterator<Item = Vector>>(points: I) -> Self {
        Self::new(points, Self::DEFAULT_RADIUS)
    }
}

impl From<Vec<Vector>> for Path {
    /// A path through the points, with [`Path::DEFAULT_RADIUS`].
    fn from(points: Vec<Vector>) -> Self {
        Self::new(points, Self::DEFAULT_RADIUS)
    }
}

impl<const N: usize> From<[Vector; N]> for Path {
    /// A path through the points, with [`Path::DEFAULT_RADIUS`].
    fn from(points: [Vector; N]) -> Self {
        Self::new(points, Self::DEFAULT_RADIUS)
    }
}

/// What a follower does at the ends of its [`Path`].
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[reflect(Default, Debug, PartialEq, Hash, Clone)]
pub enum PathMode {
    /// Stop at the last node, arriving there at rest.
    #[default]
    OneWay,
    /// After the last node, go on to the first: the path is closed by a segment from the last
    /// node back to the first.
    Loop,
    /// Patrol: reverse at either end (the tutorial's "patrol").
    PingPong,
}

/// How [`FollowPath`] steers along its path.
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[reflect(Default, Debug, PartialEq, Hash, Clone)]
pub enum PathMethod {
    /// The tutorial's: seek the current node at full speed, and move on to the next once within
    /// the path's radius of it, or once past it: when the follower has drawn level with it
    /// (beyond the line through the node square to the segment that leads to it), still moves the
    /// way that segment goes (its velocity has a part along it), and is within the path's radius
    /// plus [`passing_reach`](FollowPath::passing_reach). A follower that misses a node, even one
    /// already turning back towards it (a heavy agent swung wide of a bend), goes on to the next
    /// instead of circling back to it. A node missed by more than that, or one the follower
    /// drew level with while moving against the path (pushed back past it), is turned back to.
    #[default]
    Tutorial,
    /// Reynolds': project the follower onto the spine and steer towards the point a look-ahead
    /// further along, at a speed its bends allow. The look-ahead follows from the follower's speed
    /// and limits: its turning radius at its speed, `speed² · mass / max_force`, plus the distance
    /// it covers in the time it takes to answer ([`RESPONSE_TIME`](FollowPath::RESPONSE_TIME)), at least the path's radius
    /// and at least 1 (plus [`prediction`](FollowPath::prediction) seconds of its speed and
    /// [`lookahead`](FollowPath::lookahead), both zero by default).
    ///
    /// Bends: each node ahead is given the radius of the tightest arc that turns its corner
    /// within the path's radius (and within half of each segment beside it), and a speed that
    /// turns that arc with [`BEND_FORCE_SHARE`](FollowPath::BEND_FORCE_SHARE) of the force, `√(share · max_force / mass ·
    /// radius)`. The follower slows so that it can brake to that speed by the node with half its
    /// force: a bend it can turn at full speed costs no speed; one it cannot (a hairpin, a sharp
    /// corner on a narrow path, a heavy agent) is taken slower, rather than left. The speed never
    /// drops below what turns within half the path's radius, so the follower keeps moving. A
    /// patrol's ends count as hairpins. The force asks for the desired velocity within
    /// [`RESPONSE_TIME`](FollowPath::RESPONSE_TIME), scaled by the mass, so the follower holds its line with the force it has.
    ///
    /// The projection is onto the nearest point of the spine, as Reynolds' is, but for a
    /// follower within the path's radius of more than one part of it (a path that crosses or
    /// doubles back on itself, a hairpin whose legs are close): it keeps to the part it is on, a
    /// segment that runs the way it moves, the first from the segment of
    /// [`current`](FollowPath::current) on, so that it goes over an overlap as many times as the
    /// path does and carries straight on through a crossing. A follower within the radius of no
    /// segment of its part of the path steers for that part's nearest point, or the whole
    /// spine's where that is nearer by more than its look-ahead and the radius (a follower moved,
    /// or given a new path). A ground unit (3D, `Planar`) measures its distance to the
    /// spine in 3D, so it may not come within the radius of an end far off its plane that it
    /// must turn at: give such paths nodes at the units' height.
    Reynolds,
}

/// Reynolds' path following: the time in which the force asks the follower to reach its desired
/// speed, in seconds (as far as [`MaxForce`] allows); [`FollowPath::RESPONSE_TIME`].
const RESPONSE_TIME: f32 = 0.15;

/// Reynolds' path following: the share of the agent's force that the speed allowed on a bend
/// asks of it to turn; [`FollowPath::BEND_FORCE_SHARE`].
const BEND_FORCE_SHARE: f32 = 0.8;

/// The acceleration assumed when the follower's limits are not known (not finite or not above
/// zero): the default agent's, `600.0` over a mass of `1.0`.
const DEFAULT_ACCELERATION: f32 = 600.0;

/// Follow a [`Path`], as the Path Following tutorial does, or as Reynolds does.
///
/// The tutorial keeps an index of the node being sought: seek it, and once within the path's
/// radius of it, move on to the next; a one-way path stops advancing at its last node, a patrol
/// reverses at either end. That is [`PathMethod::Tutorial`], the default. The crate goes further
/// in two ways:
///
/// - [`PathMethod::Reynolds`] is the method the tutorial calls itself a simplification of
///   (red3d.com, path following): project the agent onto the path's spine and steer for a point a
///   little further along it. Here the look-ahead follows from the agent's speed and turning
///   radius, and the agent slows for bends it cannot turn at full speed (see
///   [`PathMethod::Reynolds`]), so that it stays within the radius.
/// - The tutorial's method also counts a node as passed once the agent has gone by it (see
///   [`PathMethod::Tutorial`]), so that a follower that misses a node by a few units does not
///   circle back to it.
/// - The last node of a one-way path (and the only node of a one-node path) is *arrived* at, so
///   that the follower comes to rest there instead of overshooting it and coming back (the
///   complaint users of other libraries make): see [`arrive`], and for the slowing radius this
///   takes, [`slowing_radius`](Self::slowing_radius).
///
/// The node index (and a patrol's direction) is state that changes as the agent moves, while
/// [`SteeringBehaviour::force`] only reads: [`advance_paths`] moves it on in
/// [`SteeringSystems::Decide`](crate::plugin::SteeringSystems::Decide), before the forces are
/// computed, and the force is a pure function of the path, that state and the agent. The
/// geometry is in plain functions usable without an ECS:
/// [`closest_point_on_segment`](crate::geometry::path::closest_point_on_segment),
/// [`project_onto_path`], [`path_target`], [`next_node`].
///
/// Units, as in the rest of the crate (see the [crate docs](crate)): the tutorial's distances
/// (node positions, the path radius, the slowing radius) are unchanged. Reynolds' prediction is
/// in seconds (the tutorial has none). Both methods read the agent's
/// [`Mass`](crate::components::Mass) and [`MaxForce`] (copied into
/// [`mass`](Self::mass) and [`max_force`](Self::max_force) by [`advance_paths`]).
///
/// `current` and `forward` are the follower's progress: [`advance_paths`] updates them each step
/// (only while the behaviour is [active](SteeringBehaviour::active)). Set them to start elsewhere
/// on the path; a `current` past the last node counts as the last node. Give the follower a new
/// path with `current: 0` to start it over.
///
/// With the tutorial's method, intermediate nodes are sought without arrival (as the tutorial
/// does), so a follower goes through them at full speed. The last node of a one-way path, and the
/// only node of a one-node path, is arrived at with [`arrive`]: with the tutorial's
/// method once the agent is within the slowing radius of it along the path (by way of the node
/// sought and the nodes after it; it steers for the node sought, as slowly as arrival asks for
/// at what is left of the path), with Reynolds' once it is within the slowing radius (or the
/// look-ahead, if longer) of it along the path.
///
/// Bad input: an empty path gives no force (the behaviour idles, as one with no target does); a
/// path with a non-finite point gives no force and is reported as
/// [`Problem::NonFiniteTarget`](crate::problems::Problem::NonFiniteTarget); a path radius that
/// is zero, negative or not finite counts as zero (see [`Path::radius`]); a negative or not finite
/// prediction or lookahead counts as zero; a slowing radius that is not positive is plain seek, as
/// for [`Seek`](super::Seek); limits that are not finite and above zero count as the default
/// agent's.
///
/// ```
/// use bevy::prelude::*;
#[doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::prelude::*;")]
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, SteeringPlugin::default()));
/// let path = Path::new([Vector::ZERO, Vector::X * 200.0, (Vector::X + Vector::Y) * 200.0], 20.0);
/// app.world_mut().spawn((
///     Transform::default(),
///     FollowPath::new(path).with_mode(PathMode::PingPong),
/// ));
/// ```
#[derive(Component, Reflect, Clone, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct FollowPath {
    /// The path. Default empty: no force.
    pub path: Path,
    /// What happens at the ends. Default [`PathMode::OneWay`].
    pub mode: PathMode,
    /// How the follower steers. Default [`PathMethod::Tutorial`].
    pub method: PathMethod,
    /// The slowing radius of the arrival at the last node of a one-way path. Default `100.0`, as
    /// [`Seek`](super::Seek)'s. The follower needs room to brake, about
    /// `max_speed² · mass / (2 · max_force)` (27 units for the default agent), and comes to rest
    /// without going past the node from a slowing radius of `0.4 × max_speed` (72 for the default
    /// agent, where [`arrival_gain`] reaches its cap) and a mass of 1 or less; with a shorter
    /// radius it goes past by a few units (the default agent by about 3 with a radius of 30).
    #[reflect(@DISTANCE)]
    pub slowing_radius: f32,
    /// Reynolds' method: seconds of the follower's speed added to its look-ahead. Default `0.0`:
    /// the look-ahead follows from speed and turning radius alone (see [`PathMethod::Reynolds`]);
    /// more cuts corners wider and smooths a jagged path.
    #[reflect(@Tunable::linear(0.0, 5.0))]
    pub prediction: f32,
    /// Reynolds' method: a distance added to the follower's look-ahead. Default `0.0` (see
    /// [`prediction`](Self::prediction)).
    #[reflect(@DISTANCE)]
    pub lookahead: f32,
    /// Factor on the force. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
    /// State: the node being sought (tutorial's method), or the node at the end of the segment
    /// the agent is on in its direction of travel (Reynolds' method, which reads it to keep to
    /// that part of a path that overlaps itself). Default `0`.
    pub current: usize,
    /// State: with [`PathMode::PingPong`], whether the follower goes from the first node towards
    /// the last (`true`) or back. Ignored by the other modes. Default `true`.
    pub forward: bool,
    /// State: the agent's [`Mass`](crate::components::Mass), copied by [`advance_paths`] each
    /// step (the force function sees only position, velocity and speed limit). Default `1.0`.
    pub mass: f32,
    /// State: the agent's [`MaxForce`], copied by [`advance_paths`] each step. Default `600.0`.
    pub max_force: f32,
}

impl Default for FollowPath {
    fn default() -> Self {
        Self {
            path: Path::default(),
            mode: PathMode::default(),
            method: PathMethod::default(),
            slowing_radius: 100.0,
            prediction: 0.0,
            lookahead: 0.0,
            weight: 1.0,
            enabled: true,
            current: 0,
            forward: true,
            mass: 1.0,
            max_force: DEFAULT_ACCELERATION,
        }
    }
}

impl FollowPath {
    /// Reynolds' method: the time in which the force asks the follower to reach its desired
    /// speed, in seconds (as far as [`MaxForce`] allows), and the time whose distance at its
    /// speed is added to its look-ahead: `0.15`.
    pub const RESPONSE_TIME: f32 = RESPONSE_TIME;

    /// Reynolds' method: the share of the agent's force that the speed allowed on a bend asks of
    /// it to turn, leaving the rest to correct its line: `0.8`.
    pub const BEND_FORCE_SHARE: f32 = BEND_FORCE_SHARE;

    /// Follow `path` one way with the tutorial's method, from its first node.
    pub fn new(path: impl Into<Path>) -> Self {
        Self {
            path: path.into(),
            ..default()
        }
    }

    /// Sets what happens at the ends.
    pub fn with_mode(mut self, mode: PathMode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets how the follower steers.
    pub fn with_method(mut self, method: PathMethod) -> Self {
        self.method = method;
        self
    }

    /// Sets the slowing radius of the arrival at the end.
    pub fn with_slowing_radius(mut self, slowing_radius: f32) -> Self {
        self.slowing_radius = slowing_radius;
        self
    }

    /// Moves [`current`](Self::current) and [`forward`](Self::forward) on for an agent at rest
    /// at `position`: [`advance_moving`](Self::advance_moving) with no velocity.
    pub fn advance(&mut self, position: Vector) -> bool {
        self.advance_moving(position, Vector::ZERO)
    }

    /// Moves [`current`](Self::current) and [`forward`](Self::forward) on for an agent at
    /// `position` moving at `velocity`, as [`advance_paths`] does each step; returns whether
    /// either changed.
    ///
    /// With the tutorial's method, a node reached gives way to the next, and that one to the next
    /// if it is reached too, up to one fewer than the path has nodes per call (so that a path
    /// sampled finer than a step's travel is followed at the same speed at any step rate):
    /// reached within the path's radius, or passed (see [`PathMethod::Tutorial`]: the agent is
    /// beyond the line through the node square to the segment that leads to it, moving the way
    /// that segment goes, and within the radius plus its [`passing_reach`](Self::passing_reach)). The first
    /// node of a one-way path or a loop's first lap has no segment leading to it: only the radius
    /// counts. With Reynolds' method, `current` becomes the node ahead on the segment the agent
    /// is on (see [`PathMethod::Reynolds`]: where the path comes near itself, the one it keeps
    /// to), and a patrol reverses once the agent's projection on the spine is within the path's
    /// radius of the end it heads for. An empty path, a path with a non-finite point or a
    /// non-finite position changes nothing; a `current` past the last node is clamped to it.
    pub fn advance_moving(&mut self, position: Vector, velocity: Vector) -> bool {
        let points = &self.path.points;
        let Some(last) = points.len().checked_sub(1) else {
            return false;
        };
        if !position.is_finite() || !points.iter().all(|point| point.is_finite()) {
            return false;
        }
        let radius = effective_radius(self.path.radius);
        let mut current = self.current.min(last);
        let mut forward = self.forward;
        match self.method {
            PathMethod::Tutorial => {
                let gives_way = |current: usize, forward: bool| {
                    let node = points[current];
                    let distance = position.distance(node);
                    let passed = || {
                        let Some(previous) =
                            previous_node(self.mode, points.len(), current, forward)
                        else {
                            return false;
                        };
                        let (offset, incoming) = (position - node, node - points[previous]);
                        velocity.is_finite()
                            && offset.dot(incoming) > 0.0
                            && incoming.dot(velocity) > 0.0
                            && distance <= radius + self.passing_reach(length(velocity))
                    };
                    distance <= radius || passed()
                };
                // Every node reached or passed gives way in the same call: nodes closer together
                // than a step's travel held the follower to one a step, so that its speed on a
                // finely sampled path depended on the step rate.
                for _ in 0..last.max(1) {
                    if !gives_way(current, forward) {
                        break;
                    }
                    let next = next_node(self.mode, points.len(), current, forward);
                    if next == (current, forward) {
                        break;
                    }
                    (current, forward) = next;
                }
            }
            PathMethod::Reynolds => {
                let closed = self.mode == PathMode::Loop;
                if let Some(projection) = self.spine_projection(position, velocity) {
                    if self.mode == PathMode::PingPong && last > 0 {
                        let total = path_length(points, false);
                        let remaining = if forward {
                            total - projection.distance_along
                        } else {
                            projection.distance_along
                        };
                        if remaining <= radius {
                            forward = !forward;
                        }
                    }
                    let ahead = self.mode != PathMode::PingPong || forward;
                    current = match (ahead, closed) {
                        _ if last == 0 => 0,
                        (true, true) => (projection.segment + 1) % points.len(),
                        (true, false) => (projection.segment + 1).min(last),
                        (false, _) => projection.segment,
                    };
                }
            }
        }
        let changed = (current, forward) != (self.current, self.forward);
        self.current = current;
        self.forward = forward;
        changed
    }

    /// Reynolds' method: where an agent at `position` moving at `velocity` is on the spine: the
    /// spine's nearest point, as Reynolds' projection, but kept to the part of the path the agent
    /// is on where the path comes near itself (see [`PathMethod::Reynolds`]).
    ///
    /// The part it is on is the segment it was last on ([`current`](Self::current) says which) and
    /// those within its look-ahead and the path's radius of it along the spine. Of those, the
    /// segments within the radius of the agent are taken first: the ones that run the way it
    /// moves before the others, then the first from the segment it was on in its direction of
    /// travel. Within the radius of none of them (swung wide of a bend, pushed off), it takes the
    /// nearest of them, unless another part of the path is nearer by more than that reach (the
    /// agent was moved, or given a new path).
    fn spine_projection(&self, position: Vector, velocity: Vector) -> Option<PathProjection> {
        let points = self.path.points.as_slice();
        let closed = self.mode == PathMode::Loop;
        if points.len() < 2 {
            return project_onto_path(points, closed, position);
        }
        let radius = effective_radius(self.path.radius);
        let segments = if closed {
            points.len()
        } else {
            points.len() - 1
        };
        let forward = self.mode != PathMode::PingPong || self.forward;
        // The segment the agent was last on: the one that leads to `current` going forward, the
        // one from it going back.
        let current = self.current.min(points.len() - 1);
        let on = match (forward, closed) {
            (true, true) => (current + segments - 1) % segments,
            (true, false) => current.saturating_sub(1),
            (false, _) => current.min(segments - 1),
        };
        // The spine's nearest point (the first on a tie, as `project_onto_path`'s) and the point
        // of the segment it was on.
        let (mut nearest, mut base) = (None::<PathProjection>, None);
        for projection in segment_projections(points, closed, position) {
            if nearest.is_none_or(|nearest| projection.distance < nearest.distance) {
                nearest = Some(projection);
            }
            if projection.segment == on {
                base = Some(projection);
            }
        }
        let (nearest, base) = (nearest?, base?);
        // Read only on a loop, where distances along the spine wrap round.
        let total = if closed {
            path_length(points, true)
        } else {
            0.0
        };
        let reach = self.lookahead_at(length(velocity)) + radius;
        let near_base = |projection: &PathProjection| {
            let apart = (projection.distance_along - base.distance_along).abs();
            let apart = if closed {
                apart.min(total - apart)
            } else {
                apart
            };
            apart <= reach
        };
        // How many segments on from the one it was on, in its direction of travel; behind it last.
        let onward = |index: usize| match (forward, closed) {
            (true, true) => (index + segments - on) % segments,
            (true, false) if index >= on => index - on,
            (false, _) if index <= on => on - index,
            _ => segments + index.abs_diff(on),
        };
        let against = |projection: &PathProjection| {
            let (start, end) = segment(points, closed, projection.segment);
            let travel = if forward { end - start } else { start - end };
            travel.dot(velocity) <= 0.0
        };
        // Of the part of the path it is on: the segment it keeps to, and the nearest point.
        let (mut kept, mut closest) = (None, base);
        for projection in segment_projections(points, closed, position).filter(near_base) {
            if projection.distance < closest.distance {
                closest = projection;
            }
            if projection.distance <= radius {
                let key = (against(&projection), onward(projection.segment));
                if kept.is_none_or(|(kept_key, _)| key < kept_key) {
                    kept = Some((key, projection));
                }
            }
        }
        Some(match kept {
            Some((_, projection)) => projection,
            None if closest.distance <= nearest.distance + reach => closest,
            None => nearest,
        })
    }

    fn tutorial_force(&self, agent: &Boid, points: &[Vector]) -> Vector {
        let last = points.len() - 1;
        let current = self.current.min(last);
        let target = points[current];
        if last == 0 || (self.mode == PathMode::OneWay && current == last) {
            return arrive(agent, target, self.slowing_radius);
        }
        if self.mode == PathMode::OneWay
            && let Some(remaining) = self.left_to_the_end(agent.position, &points[current..])
        {
            // The arrival at the last node starts within the slowing radius of it along the
            // path, not once it is the node sought: on a path of short segments that is a path's
            // radius from the end, too late to stop. Towards the node sought, as slow as arrival
            // asks for at what is left of the path.
            let speed = agent.max_speed * remaining / self.slowing_radius;
            return (direction_or_zero(target - agent.position) * speed - agent.velocity)
                * arrival_gain(agent.max_speed, self.slowing_radius);
        }
        formulas::seek(agent, target, 0.0)
    }

    /// How far an agent at `position` has left to go along a one-way path, by way of `ahead`
    /// (the node sought, then the nodes after it, to the last), when that is within the slowing
    /// radius (a finite one above zero); else `None`.
    fn left_to_the_end(&self, position: Vector, ahead: &[Vector]) -> Option<f32> {
        let slowing_radius = self.slowing_radius;
        let end = *ahead.last()?;
        // No way to the end is shorter than the straight line: most steps end here.
        if !(slowing_radius > 0.0 && slowing_radius.is_finite())
            || position.distance(end) >= slowing_radius
        {
            return None;
        }
        let mut left = position.distance(ahead[0]);
        for pair in ahead.windows(2) {
            if left >= slowing_radius {
                return None;
            }
            left += pair[0].distance(pair[1]);
        }
        (left < slowing_radius).then_some(left)
    }

    /// The agent's largest acceleration, [`max_force`](Self::max_force) over
    /// [`mass`](Self::mass); the default agent's (`600.0`) when either is not finite and above zero.
    pub fn acceleration(&self) -> f32 {
        let acceleration = self.max_force / self.mass;
        if self.max_force > 0.0 && self.mass > 0.0 && acceleration > 0.0 && acceleration.is_finite()
        {
            acceleration
        } else {
            DEFAULT_ACCELERATION
        }
    }

    /// The diameter of the circle the agent turns at `speed` with all its force:
    /// `2 · speed² / acceleration`. Zero for a speed that is not finite.
    pub fn turning_diameter(&self, speed: f32) -> f32 {
        let diameter = 2.0 * speed * speed / self.acceleration();
        if diameter.is_finite() { diameter } else { 0.0 }
    }

    /// The agent's [`mass`](Self::mass) when it is a positive finite number, else the default
    /// agent's, `1.0`.
    fn effective_mass(&self) -> f32 {
        if is_valid_mass(self.mass) {
            self.mass
        } else {
            1.0
        }
    }

    /// The tutorial's method: how far beyond the path's radius a node the agent moves away from
    /// still counts as passed, at `speed`: twice the distance it covers while it answers a seek,
    /// `2 · speed · max(mass, speed / acceleration)` (seek's force, desired minus current velocity,
    /// turns an agent of mass `m` in about `m` seconds). Zero for a speed that is not finite.
    pub fn passing_reach(&self, speed: f32) -> f32 {
        let mass = self.effective_mass();
        let reach = 2.0 * speed * mass.max(speed / self.acceleration());
        if reach.is_finite() { reach } else { 0.0 }
    }

    /// Reynolds' method: how far along the spine beyond the agent's projection it steers for, at
    /// `speed`: its turning radius plus the distance it covers in [`RESPONSE_TIME`](FollowPath::RESPONSE_TIME), at least the
    /// path's radius and at least 1 (so that a follower at rest on the spine of a path of radius
    /// 0 still has a point ahead to go for), plus [`prediction`](Self::prediction) seconds of
    /// speed and [`lookahead`](Self::lookahead).
    pub fn lookahead_at(&self, speed: f32) -> f32 {
        let speed = non_negative(speed);
        let automatic = (self.turning_diameter(speed) * 0.5 + speed * RESPONSE_TIME)
            .max(effective_radius(self.path.radius))
            .max(1.0);
        let extra = non_negative(self.prediction) * speed + non_negative(self.lookahead);
        let lookahead = automatic + extra;
        if lookahead.is_finite() {
            lookahead
        } else {
            automatic
        }
    }

    fn reynolds_force(&self, agent: &Boid, points: &[Vector]) -> Result<Vector, NoTarget> {
        let last = points.len() - 1;
        if last == 0 {
            return Ok(arrive(agent, points[0], self.slowing_radius));
        }
        let speed = length(agent.velocity);
        let lookahead = self.lookahead_at(speed);
        let own = self
            .spine_projection(agent.position, agent.velocity)
            .ok_or(NoTarget::Unset)?;
        if self.mode == PathMode::OneWay {
            // The last stretch, measured from where the agent is: arrive at the end.
            let remaining = path_length(points, false) - own.distance_along;
            let stretch = non_negative(self.slowing_radius).max(lookahead);
            if remaining <= stretch {
                return Ok(arrive(agent, points[last], self.slowing_radius));
            }
        }
        let forward = self.mode != PathMode::PingPong || self.forward;
        let (target, _) = path_target(points, self.mode, forward, own.distance_along, lookahead)
            .ok_or(NoTarget::NonFinite)?;
        let speed_limit = bend_speed(
            points,
            self.mode,
            forward,
            own.distance_along,
            effective_radius(self.path.radius),
            self.acceleration(),
            agent.max_speed,
        );
        let mass = self.effective_mass();
        Ok(pursue_point(agent, target, speed_limit) * mass)
    }
}

/// Pure pursuit of `target` at `speed_limit`: the acceleration that turns an agent onto the arc
/// through `target` tangent to its heading (`2 · speed² · sin(angle to target) / distance`,
/// square to the heading), and brings its speed to `speed_limit` in [`RESPONSE_TIME`](FollowPath::RESPONSE_TIME) (along
/// the heading, slower while the target is off it). An agent at rest (or nearly), or with the
/// target behind it, asks for the velocity towards the target within [`RESPONSE_TIME`](FollowPath::RESPONSE_TIME): it brakes
/// as it turns round.
fn pursue_point(agent: &Boid, target: Vector, speed_limit: f32) -> Vector {
    let offset = target - agent.position;
    let speed = length(agent.velocity);
    let distance = length(offset);
    let seek =
        |offset: Vector| (direction_or_zero(offset) * speed_limit - agent.velocity) / RESPONSE_TIME;
    if speed < 1e-3 * speed_limit.max(1.0) || !(distance > 0.0 && distance.is_finite()) {
        return seek(offset);
    }
    let heading = agent.velocity / speed;
    let cos = offset.dot(heading) / distance;
    if cos < 0.0 {
        return seek(offset);
    }
    let side = sideways(heading, offset);
    let lateral = 2.0 * speed * speed * offset.dot(side) / (distance * distance);
    // Slow down while the target is far off the heading, to turn round on a smaller circle.
    let wanted = speed_limit * (0.5 + 0.5 * cos);
    let along = (wanted - speed) / RESPONSE_TIME;
    side * lateral + heading * along
}

/// The node sought before `current` on a path of `len` nodes, travelled in the direction
/// `forward` (read only by [`PathMode::PingPong`]): `None` where there is none (the first node of
/// a one-way path or a patrol going forward, the last of a patrol going back).
fn previous_node(mode: PathMode, len: usize, current: usize, forward: bool) -> Option<usize> {
    let last = len.checked_sub(1).filter(|&last| last > 0)?;
    let current = current.min(last);
    match mode {
        PathMode::Loop => Some((current + len - 1) % len),
        PathMode::OneWay => current.checked_sub(1),
        PathMode::PingPong if forward => current.checked_sub(1),
        PathMode::PingPong => (current < last).then_some(current + 1),
    }
}

/// The bend at node `index` of `points` travelled in `mode`: the radius of the tightest arc that
/// turns its corner within `radius` of the node and within half of each segment beside it, and
/// how far before (and after) the node that arc starts (ends). `None` where there is no bend: a
/// straight node, the ends of an open path (but a patrol's ends are hairpins, radius zero), a
/// segment of zero length.
fn bend_at(points: &[Vector], mode: PathMode, index: usize, radius: f32) -> Option<(f32, f32)> {
    let len = points.len();
    let last = len - 1;
    let closed = mode == PathMode::Loop;
    let (before, after) = if closed {
        ((index + len - 1) % len, (index + 1) % len)
    } else if index == 0 || index == last {
        return (mode == PathMode::PingPong).then_some((0.0, 0.0));
    } else {
        (index - 1, index + 1)
    };
    let (incoming, outgoing) = (
        points[index] - points[before],
        points[after] - points[index],
    );
    let (into, out_of) = (length(incoming), length(outgoing));
    if !(into > 0.0 && out_of > 0.0) {
        return None;
    }
    let cos = (incoming / into).dot(outgoing / out_of).clamp(-1.0, 1.0);
    // Half the angle turned.
    let half_cos = ((1.0 + cos) * 0.5).sqrt();
    let half_sin = ((1.0 - cos) * 0.5).sqrt();
    if half_sin <= 1e-4 {
        return None;
    }
    // An arc of radius R tangent to both segments passes R · (1 / cos - 1) inside the node, and
    // touches them R · tan from it (half the turn's angle).
    let within_radius = radius * half_cos * (1.0 + half_cos) / (half_sin * half_sin);
    let within_segments = 0.5 * into.min(out_of) * half_cos / half_sin;
    let bend = within_radius.min(within_segments);
    Some((bend, bend * half_sin / half_cos.max(1e-6)))
}

/// Reynolds' path following: the speed at which a follower `distance_along` the spine of
/// `points`, travelling in `mode` (backwards for a patrol not going `forward`) with a path
/// `radius`, can still turn every bend ahead: each node's bend (the tightest arc within the
/// radius and half of each segment beside it) asks for at most `√(BEND_FORCE_SHARE ·
/// acceleration · bend radius)`, and the follower must be able to brake to that by the start of
/// the bend with half its `acceleration`. Never below the speed that turns within half the
/// radius, `√(acceleration · radius / 2)` (at least `√(acceleration / 2)`), nor above
/// `max_speed`. Bad input (not finite, negative, a path shorter than two nodes) gives
/// `max_speed` (zero when that is bad).
pub(crate) fn bend_speed(
    points: &[Vector],
    mode: PathMode,
    forward: bool,
    distance_along: f32,
    radius: f32,
    acceleration: f32,
    max_speed: f32,
) -> f32 {
    let max_speed = non_negative(max_speed);
    let acceleration = non_negative(acceleration);
    let closed = mode == PathMode::Loop;
    let total = path_length(points, closed);
    if points.len() < 2
        || acceleration == 0.0
        || !distance_along.is_finite()
        || !(total > 0.0 && total.is_finite())
    {
        return max_speed;
    }
    let radius = non_negative(radius);
    let along = distance_along.clamp(0.0, total);
    let forward = forward || mode == PathMode::OneWay;
    let floor = (acceleration * radius.max(1.0) * 0.5).sqrt().min(max_speed);
    // Braking from full speed to rest with half the acceleration takes `max_speed² /
    // acceleration`: bends further ahead do not matter yet.
    let window = max_speed * max_speed / acceleration;
    let mut limit = max_speed;
    let mut node_along = 0.0;
    for index in 0..points.len() {
        if let Some((bend, tangent)) = bend_at(points, mode, index, radius) {
            let ahead = if closed {
                let ahead = (node_along - along).rem_euclid(total);
                // Still in the bend just passed.
                if ahead > total - tangent { 0.0 } else { ahead }
            } else if forward {
                node_along - along
            } else {
                along - node_along
            };
            if ahead >= -tangent && ahead <= window + tangent {
                let room = (ahead - tangent).max(0.0);
                let at_bend = (BEND_FORCE_SHARE * acceleration * bend).sqrt().max(floor);
                let allowed = (at_bend * at_bend + acceleration * room).sqrt();
                limit = limit.min(allowed);
            }
        }
        if index + 1 < points.len() {
            node_along += points[index].distance(points[index + 1]);
        }
    }
    if limit.is_finite() { limit } else { max_speed }
}

weight_and_switch_builders!(FollowPath);

impl SteeringBehaviour for FollowPath {
    const NAME: &'static str = "follow path";

    weight_and_switch_accessors!();

    fn force(
        &self,
        agent: &Boid,
        _lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vector, NoTarget> {
        let points = self.path.points.as_slice();
        if points.is_empty() {
            return Err(NoTarget::Unset);
        }
        if !points.iter().all(|point| point.is_finite()) {
            return Err(NoTarget::NonFinite);
        }
        match self.method {
            PathMethod::Tutorial => Ok(self.tutorial_force(agent, points)),
            PathMethod::Reynolds => self.reynolds_force(agent, points),
        }
    }

    // No entity target to forget.
    fn forget_target(&mut self) {}
}

/// Moves every active [`FollowPath`]'s progress on from its agent's position (see
/// [`FollowPath::advance`]): the system [`SteeringPlugin`](crate::SteeringPlugin) runs in
/// [`SteeringSystems::Decide`](crate::plugin::SteeringSystems::Decide). Each agent writes only its
/// own component, in parallel; a component is marked changed only when its progress changed.
///
/// A game system in the same set that hands out paths can be ordered `.before(advance_paths)` so
/// that a new path is advanced in the same step.
pub fn advance_paths(
    mut followers: Query<(&mut FollowPath, &Transform, &Velocity, &Mass, &MaxForce)>,
) {
    followers
        .par_iter_mut()
        .for_each(|(mut follower, transform, velocity, mass, max_force)| {
            if !follower.active() {
                return;
            }
            let state = follower.bypass_change_detection();
            state.mass = mass.0;
            state.max_force = max_force.effective();
            if state.advance_moving(position_of(transform), velocity.0) {
                follower.set_changed();
            }
        });
}

/// The radius a path's `radius` counts as: itself when positive and finite, else `0.0`.
fn effective_radius(radius: f32) -> f32 {
    if radius > 0.0 && radius.is_finite() {
        radius
    } else {
        0.0
    }
}

/// Where Reynolds' method aims from a projection `distance_along` the spine: `lookahead` further
/// along the path, towards the last node (one way; a patrol going `forward`), wrapping round a
/// loop, or back towards the first node (a patrol not going `forward`). Also says whether the
/// target is clamped to the end being headed for (never on a loop). A negative or non-finite
/// lookahead counts as zero. `None` for an empty path or one whose length overflows.
pub fn path_target(
    points: &[Vector],
    mode: PathMode,
    forward: bool,
    distance_along: f32,
    lookahead: f32,
) -> Option<(Vector, bool)> {
    let closed = mode == PathMode::Loop;
    let total = path_length(points, closed);
    if points.is_empty() || !total.is_finite() {
        return None;
    }
    let along = if distance_along.is_finite() {
        distance_along.clamp(0.0, total)
    } else {
        0.0
    };
    let lookahead = non_negative(lookahead);
    let (distance, at_end) = if closed {
        (along + lookahead, false)
    } else if forward || mode == PathMode::OneWay {
        let distance = along + lookahead;
        if distance >= total {
            (total, true)
        } else {
            (distance, false)
        }
    } else {
        let distance = along - lookahead;
        if distance <= 0.0 {
            (0.0, true)
        } else {
            (distance, false)
        }
    };
    Some((point_along_path(points, closed, distance)?, at_end))
}

/// The node after `current` on a path of `len` nodes, and the direction after it (`forward` is
/// read only by [`PathMode::PingPong`]): one way stops at the last node, a loop wraps to the
/// first, a patrol reverses at either end. A path of one node (or none) stays at node 0.
pub fn next_node(mode: PathMode, len: usize, current: usize, forward: bool) -> (usize, bool) {
    let Some(last) = len.checked_sub(1).filter(|&last| last > 0) else {
        return (0, forward);
    };
    let current = current.min(last);
    match mode {
        PathMode::OneWay => ((current + 1).min(last), forward),
        PathMode::Loop => ((current + 1) % len, forward),
        PathMode::PingPong => match (forward, current) {
            (true, current) if current < last => (current + 1, true),
            (true, _) => (last - 1, false),
            (false, 0) => (1, true),
            (false, current) => (current - 1, false),
        },
    }
}

/// The factor [`arrive`] puts on seek with arrival: `4 · max_speed / slowing_radius`, at least 1
/// and at most 10; 1 for a slowing radius that is not positive and finite.
///
/// Inside the slowing radius, arrival asks for a speed of `max_speed · distance / slowing_radius`;
/// with the plain force `desired - velocity` an agent of mass 1 takes about a second to follow the
/// change, so the default agent overshoots a slowing radius of 100 by about 50 units. With this
/// factor the approach is critically damped for a mass of 1 (and overdamped for lighter agents),
/// as long as [`MaxForce`](crate::components::MaxForce) leaves room to brake.
pub fn arrival_gain(max_speed: f32, slowing_radius: f32) -> f32 {
    if !(slowing_radius > 0.0 && slowing_radius.is_finite() && max_speed.is_finite()) {
        return 1.0;
    }
    (4.0 * max_speed / slowing_radius).clamp(1.0, 10.0)
}

/// Arrival at the end of a path, at rest and without overshooting: [`seek`](formulas::seek) with the
/// slowing radius, times [`arrival_gain`]. A slowing radius that is not positive is plain seek.
pub fn arrive(boid: &Boid, target: Vector, slowing_radius: f32) -> Vector {
    formulas::seek(boid, target, slowing_radius) * arrival_gain(boid.max_speed, slowing_radius)
}

impl BehaviourKind {
    /// [`FollowPath`].
    pub const FOLLOW_PATH: Self = Self::of::<FollowPath>();
}

/// Registers [`FollowPath`], and [`advance_paths`] in [`SteeringSystems::Decide`].
pub(crate) fn plugin(app: &mut App) {
    behaviour_plugin::<FollowPath>(app);
    app.register_type::<Path>()
        .register_type::<PathMode>()
        .register_type::<PathMethod>()
        .add_systems(
            SteeringSchedule,
            advance_paths.in_set(SteeringSystems::Decide),
        );
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::{EPSILON, assert_close, l_shape, square, v};

    fn boid(position: Vector, velocity: Vector) -> Boid {
        crate::test_support::boid(position, velocity, 180.0)
    }

    fn no_lookup(_: Entity) -> Option<TargetState> {
        None
    }

    #[test]
    fn tutorial_seeks_the_current_node_and_arrives_at_the_last() {
        let follow = FollowPath::new(Path::new(l_shape(), 10.0));
        let agent = boid(v(0.0, 0.0), Vector::ZERO);
        // Node 0 is under the agent: plain seek of it is zero.
        assert_eq!(follow.force(&agent, no_lookup), Ok(Vector::ZERO));
        let at_1 = FollowPath {
            current: 1,
            ..follow.clone()
        };
        assert_eq!(at_1.force(&agent, no_lookup), Ok(v(180.0, 0.0)));
        // The last node (and any index past it) is arrived at: 141 away from (0, 0), outside the
        // slowing radius, full speed towards it times 7.2.
        for current in [2, 99] {
            let last = FollowPath {
                current,
                ..follow.clone()
            };
            let expected = v(180.0, 180.0) / 2f32.sqrt() * 7.2;
            assert_close(last.force(&agent, no_lookup).unwrap(), expected);
        }
    }

    #[test]
    fn bad_paths_give_errors_not_nan() {
        let agent = boid(v(0.0, 0.0), v(10.0, 0.0));
        for method in [PathMethod::Tutorial, PathMethod::Reynolds] {
            let empty = FollowPath::default().with_method(method);
            assert_eq!(empty.force(&agent, no_lookup), Err(NoTarget::Unset));
            let nan = FollowPath::new([v(0.0, 0.0), v(f32::NAN, 1.0)]).with_method(method);
            assert_eq!(nan.force(&agent, no_lookup), Err(NoTarget::NonFinite));
            // One node: arrive at it (50 away, desired 90, minus 10, times 7.2).
            let single = FollowPath::new([v(50.0, 0.0)]).with_method(method);
            assert_close(single.force(&agent, no_lookup).unwrap(), v(80.0 * 7.2, 0.0));
            for radius in [0.0, -3.0, f32::NAN, f32::INFINITY] {
                let path = Path::new(square(), radius);
                for mode in [PathMode::OneWay, PathMode::Loop, PathMode::PingPong] {
                    let follow = FollowPath::new(path.clone())
                        .with_method(method)
                        .with_mode(mode);
                    let force = follow.force(&agent, no_lookup).unwrap();
                    assert!(force.is_finite(), "{method:?} {mode:?} {radius}: {force}");
                }
            }
        }
    }

    #[test]
    fn reynolds_holds_an_agent_on_track_and_steers_a_stray_back() {
        let path = Path::new([v(0.0, 0.0), v(1000.0, 0.0)], 20.0);
        let follow = FollowPath::new(path).with_method(PathMethod::Reynolds);
        // On the spine at full speed along it: nothing.
        let on_track = boid(v(100.0, 0.0), v(180.0, 0.0));
        assert_eq!(follow.force(&on_track, no_lookup), Ok(Vector::ZERO));
        // Slower, on the spine: speeds up along its heading within the response time.
        let slow = boid(v(100.0, 0.0), v(60.0, 0.0));
        assert_close(
            follow.force(&slow, no_lookup).unwrap(),
            v(120.0 / FollowPath::RESPONSE_TIME, 0.0),
        );
        // Off the spine, heading away from it: turned back towards it, at full speed.
        let stray = boid(v(100.0, 10.0), v(180.0, 60.0));
        let force = follow.force(&stray, no_lookup).unwrap();
        assert!(force.y < 0.0 && force.is_finite(), "{force}");
        // At rest on the path: sets off along it.
        let resting = boid(v(100.0, 0.0), Vector::ZERO);
        let force = follow.force(&resting, no_lookup).unwrap();
        assert!(force.x > 0.0 && force.y.abs() < EPSILON, "{force}");
        // A patrol going back sets off backwards.
        let back = FollowPath {
            forward: false,
            ..follow.clone().with_mode(PathMode::PingPong)
        };
        let force = back.force(&resting, no_lookup).unwrap();
        assert!(force.x < 0.0 && force.y.abs() < EPSILON, "{force}");
    }

    #[test]
    fn the_look_ahead_follows_speed_and_limits() {
        let follow = FollowPath::new(Path::new(square(), 20.0));
        // At rest: the path's radius. At 180 with 600 of force over a mass of 1: the turning
        // radius, 54, plus 0.15 s at 180, 27.
        assert_eq!(follow.lookahead_at(0.0), 20.0);
        assert!((follow.lookahead_at(180.0) - 81.0).abs() < 1e-3);
        let heavy = FollowPath {
            mass: 2.0,
            ..follow.clone()
        };
        assert!((heavy.lookahead_at(180.0) - 135.0).abs() < 1e-3);
        // Bad limits count as the default agent's; bad extras as zero.
        for (mass, max_force) in [(0.0, 600.0), (f32::NAN, 600.0), (1.0, -1.0), (1.0, 0.0)] {
            let bad = FollowPath {
                mass,
                max_force,
                prediction: f32::NAN,
                lookahead: f32::INFINITY,
                ..follow.clone()
            };
            assert!(
                (bad.lookahead_at(180.0) - 81.0).abs() < 1e-3,
                "{mass} {max_force}"
            );
            assert_eq!(bad.acceleration(), 600.0);
        }
        assert_eq!(follow.turning_diameter(f32::INFINITY), 0.0);
    }

    #[test]
    fn bend_speed_slows_only_for_bends_too_tight_to_turn() {
        use PathMode::*;
        // The square's right angles, radius 20: the arc within the radius has a radius of
        // 20 · cos 45° (1 + cos 45°) / sin² 45° ≈ 48.3, turned at √(0.8 · 600 · 48.3) ≈ 152.
        let square = square();
        let at_corner = bend_speed(&square, Loop, true, 100.0, 20.0, 600.0, 180.0);
        assert!(
            (at_corner - (0.8_f32 * 600.0 * 48.28).sqrt()).abs() < 1.0,
            "{at_corner}"
        );
        // Far from a bend: full speed (a long straight).
        let long = [v(0.0, 0.0), v(1000.0, 0.0), v(1000.0, 100.0)];
        assert_eq!(
            bend_speed(&long, OneWay, true, 100.0, 20.0, 600.0, 180.0),
            180.0
        );
        // A patrol's end is a hairpin: the floor, √(600 · 20 / 2).
        let end = bend_speed(&long, PingPong, true, 1100.0, 20.0, 600.0, 180.0);
        assert!((end - 6000.0_f32.sqrt()).abs() < 1e-3, "{end}");
        // Bad input: the speed limit (zero when that is bad), no NaN.
        for (along, radius, acceleration) in [
            (f32::NAN, 20.0, 600.0),
            (10.0, f32::NAN, 600.0),
            (10.0, 20.0, f32::NAN),
            (10.0, -5.0, 0.0),
        ] {
            let speed = bend_speed(&square, Loop, true, along, radius, acceleration, 180.0);
            assert!(speed.is_finite() && speed <= 180.0, "{speed}");
        }
        assert_eq!(
            bend_speed(&square, Loop, true, 10.0, 20.0, 600.0, f32::NAN),
            0.0
        );
        assert_eq!(
            bend_speed(&[v(1.0, 1.0)], Loop, true, 0.0, 20.0, 600.0, 180.0),
            180.0
        );
    }

    #[test]
    fn the_tutorial_method_counts_a_node_passed_by_as_reached() {
        let mut follow = FollowPath::new(Path::new(l_shape(), 10.0));
        follow.current = 1;
        // 15 beyond node 1 (100, 0), moving on along x: passed.
        assert!(follow.advance_moving(v(115.0, 0.0), v(180.0, 0.0)));
        assert_eq!(follow.current, 2);
        // Swung wide beside it, already turning back towards it but still moving on along the
        // segment: passed (a heavy agent would otherwise loop round it).
        let mut wide = FollowPath::new(Path::new(l_shape(), 10.0));
        wide.current = 1;
        assert!(wide.advance_moving(v(102.0, -40.0), v(60.0, 150.0)));
        assert_eq!(wide.current, 2);
        // Short of it, or at rest, or moving back against the segment: not.
        for (position, velocity) in [
            (v(85.0, 3.0), v(180.0, 0.0)),
            (v(115.0, 0.0), Vector::ZERO),
            (v(115.0, 0.0), v(-180.0, 0.0)),
            (v(115.0, 0.0), v(f32::NAN, 0.0)),
        ] {
            let mut follow = FollowPath::new(Path::new(l_shape(), 10.0));
            follow.current = 1;
            assert!(
                !follow.advance_moving(position, velocity),
                "{position} {velocity}"
            );
        }
        // Missed by far more than the reach: turned back to.
        let mut far = FollowPath::new(Path::new(l_shape(), 10.0));
        far.current = 1;
        assert!(!far.advance_moving(v(600.0, 0.0), v(30.0, 0.0)));
        // The first node of a one-way path has no segment leading to it: only the radius.
        let mut first = FollowPath::new(Path::new(l_shape(), 10.0));
        assert!(!first.advance_moving(v(-15.0, 0.0), v(-180.0, 0.0)));
    }

    #[test]
    fn advance_moves_on_within_the_radius_only() {
        let mut follow = FollowPath::new(Path::new(l_shape(), 10.0));
        assert!(!follow.advance(v(50.0, 50.0)));
        assert!(follow.advance(v(3.0, 4.0)), "5 from node 0");
        assert_eq!(follow.current, 1);
        assert!(!follow.advance(v(3.0, 4.0)));
        assert!(follow.advance(v(100.0, 10.0)));
        assert_eq!(follow.current, 2);
        // One way: stays at the last node.
        assert!(!follow.advance(v(100.0, 100.0)));
        assert_eq!(follow.current, 2);
        // Out of range is clamped.
        follow.current = 40;
        assert!(follow.advance(v(0.0, 0.0)));
        assert_eq!(follow.current, 2);
        // Zero and NaN radii: only exact arrival.
        for radius in [0.0, f32::NAN, -1.0] {
            let mut follow = FollowPath::new(Path::new(l_shape(), radius));
            assert!(!follow.advance(v(0.0, 0.001)), "{radius}");
            assert!(follow.advance(v(0.0, 0.0)), "{radius}");
        }
        // Bad paths and positions change nothing.
        let mut empty = FollowPath::default();
        assert!(!empty.advance(v(0.0, 0.0)));
        let mut nan = FollowPath::new([v(0.0, 0.0), v(f32::NAN, 0.0)]);
        assert!(!nan.advance(v(0.0, 0.0)));
        let mut fine = FollowPath::new(l_shape());
        assert!(!fine.advance(v(f32::NAN, 0.0)));
    }

    #[test]
    fn advance_reverses_a_patrol_and_wraps_a_loop() {
        let mut patrol = FollowPath::new(Path::new(l_shape(), 10.0)).with_mode(PathMode::PingPong);
        patrol.current = 2;
        assert!(patrol.advance(v(100.0, 95.0)));
        assert_eq!((patrol.current, patrol.forward), (1, false));
        let mut round = FollowPath::new(Path::new(l_shape(), 10.0)).with_mode(PathMode::Loop);
        round.current = 2;
        assert!(round.advance(v(100.0, 95.0)));
        assert_eq!((round.current, round.forward), (0, true));

        // Reynolds: the node ahead on the nearest segment; a patrol turns within the radius of
        // its end, measured along the spine.
        let mut reynolds = FollowPath::new(Path::new(l_shape(), 10.0))
            .with_method(PathMethod::Reynolds)
            .with_mode(PathMode::PingPong);
        assert!(reynolds.advance(v(50.0, 3.0)));
        assert_eq!((reynolds.current, reynolds.forward), (1, true));
        assert!(
            reynolds.advance(v(98.0, 92.0)),
            "8 from the end along the spine"
        );
        assert_eq!((reynolds.current, reynolds.forward), (1, false));
        assert!(!reynolds.advance(v(98.0, 50.0)));
        assert!(reynolds.advance(v(5.0, 0.0)));
        assert_eq!((reynolds.current, reynolds.forward), (1, true));
        let mut looping = FollowPath::new(Path::new(l_shape(), 10.0))
            .with_method(PathMethod::Reynolds)
            .with_mode(PathMode::Loop);
        // On the closing segment, from (100, 100) back to (0, 0): node 0 is ahead.
        looping.advance(v(50.0, 52.0));
        assert_eq!(looping.current, 0);
    }

    #[test]
    fn path_target_looks_ahead_in_the_direction_of_travel() {
        let square = square();
        // One way: 150 + 40 = 190 along, 90 up the second side: (100, 90).
        assert_eq!(
            path_target(&square, PathMode::OneWay, true, 150.0, 40.0),
            Some((v(100.0, 90.0), false))
        );
        // 280 + 40 passes the end (300): the last node, at the end.
        assert_eq!(
            path_target(&square, PathMode::OneWay, true, 280.0, 40.0),
            Some((v(0.0, 100.0), true))
        );
        // One way ignores `forward`.
        assert_eq!(
            path_target(&square, PathMode::OneWay, false, 280.0, 40.0),
            Some((v(0.0, 100.0), true))
        );
        // A patrol going back: 150 - 40 = 110, 10 up the second side.
        assert_eq!(
            path_target(&square, PathMode::PingPong, false, 150.0, 40.0),
            Some((v(100.0, 10.0), false))
        );
        assert_eq!(
            path_target(&square, PathMode::PingPong, false, 30.0, 40.0),
            Some((v(0.0, 0.0), true))
        );
        // A loop wraps: 380 + 40 = 420, 20 along the first side.
        assert_eq!(
            path_target(&square, PathMode::Loop, true, 380.0, 40.0),
            Some((v(20.0, 0.0), false))
        );
        // Bad lookahead counts as zero.
        assert_eq!(
            path_target(&square, PathMode::OneWay, true, 50.0, f32::NAN),
            Some((v(50.0, 0.0), false))
        );
        assert_eq!(path_target(&[], PathMode::Loop, true, 0.0, 40.0), None);
    }

    #[test]
    fn next_node_stops_wraps_or_reverses() {
        use PathMode::*;
        assert_eq!(next_node(OneWay, 3, 0, true), (1, true));
        assert_eq!(next_node(OneWay, 3, 2, true), (2, true));
        assert_eq!(next_node(Loop, 3, 2, true), (0, true));
        assert_eq!(next_node(PingPong, 3, 1, true), (2, true));
        assert_eq!(next_node(PingPong, 3, 2, true), (1, false));
        assert_eq!(next_node(PingPong, 3, 1, false), (0, false));
        assert_eq!(next_node(PingPong, 3, 0, false), (1, true));
        // Out of range counts as the last node; one node or none stays at 0.
        assert_eq!(next_node(OneWay, 3, 7, true), (2, true));
        assert_eq!(next_node(PingPong, 1, 0, true), (0, true));
        assert_eq!(next_node(Loop, 0, 5, true), (0, true));
    }

    #[test]
    fn arrival_gain_is_critical_damping_for_unit_mass_within_bounds() {
        // 4 · 180 / 100.
        assert!((arrival_gain(180.0, 100.0) - 7.2).abs() < EPSILON);
        assert_eq!(arrival_gain(180.0, 1000.0), 1.0);
        assert_eq!(arrival_gain(180.0, 10.0), 10.0);
        for bad in [0.0, -5.0, f32::NAN, f32::INFINITY] {
            assert_eq!(arrival_gain(180.0, bad), 1.0, "{bad}");
        }
        // At rest on the target: nothing. Moving 50 units away from it, 100 off: desired 180 · 1
        // towards it, minus the velocity, times 7.2.
        assert_eq!(
            arrive(&boid(v(5.0, 5.0), Vector::ZERO), v(5.0, 5.0), 100.0),
            Vector::ZERO
        );
        assert_close(
            arrive(&boid(v(0.0, 0.0), v(0.0, -50.0)), v(0.0, 100.0), 100.0),
            v(0.0, (180.0 + 50.0) * 7.2),
        );
        // Inside: 50 away, desired 90.
        assert_close(
            arrive(&boid(v(0.0, 0.0), Vector::ZERO), v(50.0, 0.0), 100.0),
            v(90.0 * 7.2, 0.0),
        );
    }
}
