//! The tutorials' steering formulas as pure functions, callable without an ECS.
//!
//! Units are per second: positions in world units, velocities in units per second, forces in units
//! per second squared for a mass of 1. The [crate docs](crate) say how the tutorials' per-frame
//! figures map to these.
//!
//! With finite inputs whose differences do not overflow, every function returns finite values: a
//! zero-length direction (an agent at rest, a target at the agent's own position) never divides by
//! zero. Non-finite inputs may give non-finite outputs; the systems check for that and drop the force.

use core::f32::consts::{PI, TAU};
use core::ops::{Add, Mul, Sub};

use bevy::math::{Rect, Vec2};

use crate::Vector;
use crate::behaviours::{PathMode, WanderFrame};
use crate::components::Mass;

/// What a force function needs to know about the agent it steers (the tutorials' `IBoid`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Boid {
    /// Position in world units.
    pub position: Vec2,
    /// Velocity in units per second.
    pub velocity: Vec2,
    /// Speed limit in units per second.
    pub max_speed: f32,
}

/// The frame rate the tutorials' per-frame figures are read at, in frames per second.
///
/// [`next_wander_angle`] and [`Queue`](crate::behaviours::Queue)'s hard stop use it, to scale the
/// tutorials' per-frame changes to any step length; every other figure is converted once, as the
/// crate docs describe.
pub const TUTORIAL_FRAME_RATE: f32 = 60.0;

/// The length of `v`, right to rounding even where its square underflows (below about 1e-19) or
/// overflows (above about 1.8e19).
#[inline]
pub(crate) fn length(v: Vec2) -> f32 {
    let squared = v.length_squared();
    if squared.is_normal() {
        return squared.sqrt();
    }
    let scale = v.abs().max_element();
    if scale > 0.0 && scale.is_finite() {
        scale * (v / scale).length()
    } else {
        scale
    }
}

/// Unit vector along `v`; zero when `v` is zero or not finite. Exact even for vectors so short or
/// so long that their squared length underflows or overflows.
#[inline]
pub fn direction_or_zero(v: Vec2) -> Vec2 {
    let squared = v.length_squared();
    if squared.is_normal() {
        // One division, not one per component.
        return v * squared.sqrt().recip();
    }
    let scale = v.abs().max_element();
    if scale > 0.0 && scale.is_finite() {
        (v / scale).normalize()
    } else {
        Vec2::ZERO
    }
}

/// The tutorials' `truncate`: `v` shortened to at most `max` long. A negative or NaN `max` counts
/// as zero.
#[inline]
pub fn truncate(v: Vec2, max: f32) -> Vec2 {
    let max = max.max(0.0);
    let length = length(v);
    if !length.is_finite() {
        return if length <= max {
            v
        } else {
            direction_or_zero(v) * max
        };
    }
    // Both candidates first, then a pick rather than a branch: an agent near its limit is
    // truncated one step and not the next, which a branch would mispredict half the time. Not
    // `v * (max / length)`: that ratio may be subnormal, with too few digits.
    let shortened = v / length * max;
    if length <= max { v } else { shortened }
}

/// Seek with arrival: the desired velocity points at `target` at full speed, scaled down by
/// `distance / slowing_radius` inside the slowing radius; the force is desired minus current velocity.
///
/// A `slowing_radius` of zero (or less) is plain seek. A target at the agent's own position asks for
/// a desired velocity of zero: the agent brakes.
#[inline]
pub fn seek(boid: &Boid, target: Vec2, slowing_radius: f32) -> Vec2 {
    let offset = target - boid.position;
    let distance = length(offset);
    let speed = if distance < slowing_radius {
        boid.max_speed * (distance / slowing_radius)
    } else {
        boid.max_speed
    };
    direction_or_zero(offset) * speed - boid.velocity
}

/// Flee: the desired velocity points away from `threat` at full speed.
///
/// When the threat sits exactly on the agent there is no "away"; the agent keeps fleeing along its
/// current heading, and an agent at rest gets no force.
#[inline]
pub fn flee(boid: &Boid, threat: Vec2) -> Vec2 {
    let mut away = direction_or_zero(boid.position - threat);
    if away == Vec2::ZERO {
        away = direction_or_zero(boid.velocity);
    }
    away * boid.max_speed - boid.velocity
}

/// Where the tutorials' pursuit and evade aim: the target's position advanced by its velocity for
/// `distance / max_speed` seconds, the time the agent would need to get there.
///
/// An agent with a zero speed limit, or a prediction that overflows, uses the target's current
/// position.
#[inline]
pub fn predict_position(boid: &Boid, target_position: Vec2, target_velocity: Vec2) -> Vec2 {
    predict_position_within(boid, target_position, target_velocity, None)
}

/// [`predict_position`] with the look-ahead capped at `max_time` seconds when that is `Some`
/// (OpenSteer's cap on evasion's prediction). A negative or NaN cap predicts nothing: the target's
/// current position.
#[inline]
pub fn predict_position_within(
    boid: &Boid,
    target_position: Vec2,
    target_velocity: Vec2,
    max_time: Option<f32>,
) -> Vec2 {
    if boid.max_speed <= 0.0 {
        return target_position;
    }
    let mut time_ahead = length(target_position - boid.position) / boid.max_speed;
    if let Some(max_time) = max_time {
        // `f32::max` turns a NaN cap into zero.
        time_ahead = time_ahead.min(max_time.max(0.0));
    }
    let predicted = target_position + target_velocity * time_ahead;
    if predicted.is_finite() {
        predicted
    } else {
        target_position
    }
}

/// Whether `other` is within `range` of `position`: always for `None`, never for a negative or NaN
/// range. The panic distance of flee and evade.
#[inline]
pub fn within_range(position: Vec2, other: Vec2, range: Option<f32>) -> bool {
    range.is_none_or(|range| length(other - position) <= range)
}

/// Pursuit: seek (without arrival) the target's predicted position.
#[inline]
pub fn pursue(boid: &Boid, target_position: Vec2, target_velocity: Vec2) -> Vec2 {
    pursue_within(boid, target_position, target_velocity, None)
}

/// [`pursue`] with the prediction capped at `max_prediction` seconds (see
/// [`predict_position_within`]).
#[inline]
pub fn pursue_within(
    boid: &Boid,
    target_position: Vec2,
    target_velocity: Vec2,
    max_prediction: Option<f32>,
) -> Vec2 {
    let aim = predict_position_within(boid, target_position, target_velocity, max_prediction);
    seek(boid, aim, 0.0)
}

/// Evade: flee the pursuer's predicted position.
#[inline]
pub fn evade(boid: &Boid, pursuer_position: Vec2, pursuer_velocity: Vec2) -> Vec2 {
    evade_within(boid, pursuer_position, pursuer_velocity, None)
}

/// [`evade`] with the prediction capped at `max_prediction` seconds (see
/// [`predict_position_within`]).
#[inline]
pub fn evade_within(
    boid: &Boid,
    pursuer_position: Vec2,
    pursuer_velocity: Vec2,
    max_prediction: Option<f32>,
) -> Vec2 {
    let threat = predict_position_within(boid, pursuer_position, pursuer_velocity, max_prediction);
    flee(boid, threat)
}

/// The cosine of half of `field_of_view` (radians, the whole angle): what
/// [`in_field_of_view`] compares with. A view of a full turn or more (or NaN) sees all round.
#[inline]
pub fn half_angle_cos(field_of_view: f32) -> f32 {
    if field_of_view < TAU {
        (field_of_view.max(0.0) * 0.5).cos()
    } else {
        -1.0
    }
}

/// Whether `other` is in the field of view of an agent at `position` facing `heading` (a unit
/// vector, or zero for an agent at rest, which sees all round), given [`half_angle_cos`] of the
/// view: Reynolds' neighbourhood, a disc with a wedge behind the agent cut out.
#[inline]
pub fn in_field_of_view(position: Vec2, heading: Vec2, half_angle_cos: f32, other: Vec2) -> bool {
    if half_angle_cos <= -1.0 || heading == Vec2::ZERO {
        return true;
    }
    let offset = other - position;
    offset.dot(heading) >= length(offset) * half_angle_cos
}

/// A sum of vectors and how many were added: what the mean-based rules keep of their neighbours.
/// The vectors are added in turn from zero, so two sums of the same vectors in the same order have
/// the same bits however they were made.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VectorSum {
    /// The vectors added up.
    pub sum: Vec2,
    /// How many.
    pub count: u32,
}

impl VectorSum {
    /// The sum of `vectors`, in their order.
    #[inline]
    pub fn of(vectors: impl IntoIterator<Item = Vec2>) -> Self {
        vectors
            .into_iter()
            .fold(Self::default(), |Self { sum, count }, vector| Self {
                sum: sum + vector,
                count: count + 1,
            })
    }

    /// The mean, or `None` when nothing was added.
    #[inline]
    pub fn mean(self) -> Option<Vec2> {
        (self.count > 0).then(|| self.sum / self.count as f32)
    }
}

/// The mean of `points` (the neighbours' centre), or `None` when there are none.
#[inline]
pub fn mean(points: impl IntoIterator<Item = Vec2>) -> Option<Vec2> {
    VectorSum::of(points).mean()
}

/// Separation as the flocking article, Leader Following and Queue write it: away from the mean
/// offset of the neighbours at `neighbours`, unit length. Zero with no neighbour, or when they
/// surround the agent evenly (or sit on it).
///
/// The direction of the mean is that of the sum, which is what is normalised: one division fewer.
#[inline]
pub fn separation(position: Vec2, neighbours: impl IntoIterator<Item = Vec2>) -> Vec2 {
    separation_from_offsets(
        neighbours
            .into_iter()
            .map(|neighbour| neighbour - position)
            .sum(),
    )
}

/// [`separation`] from the sum of the neighbours' offsets (`neighbour - position`).
#[inline]
pub fn separation_from_offsets(sum_of_offsets: Vec2) -> Vec2 {
    direction_or_zero(-sum_of_offsets)
}

/// Separation as Reynolds defines it: each neighbour pushes the agent straight away from it, by
/// `radius / distance` (1 at the edge of the neighbourhood, more the closer it is), and the pushes
/// add up. A neighbour on the agent's own point has no "away" and pushes nothing (so agents spawned
/// on one point stay together until something else moves them apart).
#[inline]
pub fn separation_by_distance(
    position: Vec2,
    radius: f32,
    neighbours: impl IntoIterator<Item = Vec2>,
) -> Vec2 {
    neighbours
        .into_iter()
        .map(|neighbour| {
            let away = position - neighbour;
            let distance = length(away);
            if distance > 0.0 {
                // Direction first, then the factor: `away / distance²` would overflow for
                // neighbours a hair away.
                direction_or_zero(away) * (radius / distance)
            } else {
                Vec2::ZERO
            }
        })
        .sum()
}

/// Alignment as the flocking article writes it: the direction of the neighbours' mean velocity
/// (that of their sum, which is what is normalised), unit length. Zero with no neighbour or when
/// their velocities cancel out.
#[inline]
pub fn alignment(neighbour_velocities: impl IntoIterator<Item = Vec2>) -> Vec2 {
    alignment_from_velocities(neighbour_velocities.into_iter().sum())
}

/// [`alignment`] from the sum of the neighbours' velocities.
#[inline]
pub fn alignment_from_velocities(sum_of_velocities: Vec2) -> Vec2 {
    direction_or_zero(sum_of_velocities)
}

/// Alignment as a steering force (Reynolds'): the desired velocity along the neighbours' mean
/// heading at full speed, minus the velocity, at most `strength` long. Zero when there is no
/// heading to match.
#[inline]
pub fn steer_to_heading(boid: &Boid, heading: Vec2, strength: f32) -> Vec2 {
    if heading == Vec2::ZERO {
        return Vec2::ZERO;
    }
    truncate(heading * boid.max_speed - boid.velocity, strength)
}

/// Cohesion: toward the neighbours' centre, unit length. Zero with no neighbour or when the agent
/// is at their centre.
#[inline]
pub fn cohesion(position: Vec2, neighbours: impl IntoIterator<Item = Vec2>) -> Vec2 {
    mean(neighbours).map_or(Vec2::ZERO, |centre| direction_or_zero(centre - position))
}

/// The Leader Following tutorial's two points: `distance` ahead of the leader along its heading
/// (where a follower is in its way) and `distance` behind it (where followers gather). A leader at
/// rest has no heading: both are its position.
#[inline]
pub fn ahead_and_behind(
    leader_position: Vec2,
    leader_velocity: Vec2,
    distance: f32,
) -> (Vec2, Vec2) {
    let offset = direction_or_zero(leader_velocity) * distance;
    (leader_position + offset, leader_position - offset)
}

/// The unit direction of the wander displacement for `angle`.
///
/// In [`WanderFrame::World`] (the tutorial's `setAngle`) the angle is measured from world +X; in
/// [`WanderFrame::Heading`] (Reynolds) from the velocity's direction. An agent at rest has no
/// heading, so there both frames agree.
#[inline]
pub fn wander_displacement_direction(angle: f32, frame: WanderFrame, velocity: Vec2) -> Vec2 {
    let (sin, cos) = sin_cos(angle);
    let world = Vec2::new(cos, sin);
    match frame {
        WanderFrame::World => world,
        WanderFrame::Heading => match direction_or_zero(velocity) {
            Vec2::ZERO => world,
            heading => heading.rotate(world),
        },
    }
}

/// The wander force by the circle method: the circle's centre, `circle_distance` ahead along the
/// velocity, plus the displacement, `circle_radius` long along `displacement_direction`.
///
/// An agent at rest has no "ahead": its circle is centred on it, so the displacement alone starts it
/// moving.
#[inline]
pub fn wander_circle(
    velocity: Vec2,
    circle_distance: f32,
    circle_radius: f32,
    displacement_direction: Vec2,
) -> Vec2 {
    direction_or_zero(velocity) * circle_distance + displacement_direction * circle_radius
}

/// The tutorial's `wanderAngle += Math.random() * ANGLE_CHANGE - ANGLE_CHANGE * .5`, with `random`
/// in `[0, 1)`, for a step of `dt` seconds.
///
/// The tutorial changes the angle once per frame. So that the angle wanders as much per second at
/// any step rate, the change is scaled by `sqrt(dt * TUTORIAL_FRAME_RATE)` (a random walk's spread
/// grows with the square root of the number of steps): at 60 steps per second it is the tutorial's.
/// The result is wrapped into `[-PI, PI)`. A change that comes out non-finite leaves the angle as it
/// was.
#[inline]
pub fn next_wander_angle(angle: f32, angle_change: f32, random: f32, dt: f32) -> f32 {
    let step_scale = (dt * TUTORIAL_FRAME_RATE).max(0.0).sqrt();
    let next = angle + (random - 0.5) * angle_change * step_scale;
    if (-PI..PI).contains(&next) {
        return next;
    }
    // Most of the other steps cross the boundary once: the remainder of the general case is a
    // slow library call.
    let wrapped_once = next - TAU.copysign(next);
    if (-PI..PI).contains(&wrapped_once) {
        wrapped_once
    } else if next.is_finite() {
        (next + PI).rem_euclid(TAU) - PI
    } else {
        angle
    }
}

/// `(sin(angle), cos(angle))`, to within 2e-7, in a few multiplications: the wander angle's
/// direction is the one transcendental function an agent needs each step, and the standard
/// library's is several times slower.
///
/// The same arithmetic on every platform, so trajectories do not depend on the C library either.
/// Angles beyond +-8192 radians, where reducing by pi / 2 in `f32` loses precision (the limit
/// Cephes uses), and non-finite angles use the standard library.
#[inline]
pub fn sin_cos(angle: f32) -> (f32, f32) {
    if !sin_cos_is_polynomial(angle) {
        return angle.sin_cos();
    }
    let quadrant = nearest_quadrant(angle);
    let (sin, cos) = reduced_sin_cos(angle, quadrant as f32);
    in_quadrant(quadrant, sin, cos)
}

/// Whether [`sin_cos`] computes the angle itself (false for NaN and beyond 8192 radians, which it
/// leaves to the standard library).
#[inline]
pub(crate) fn sin_cos_is_polynomial(angle: f32) -> bool {
    angle.abs() <= 8192.0
}

/// The multiple of pi / 2 nearest to `angle`, which must be no more than 8192 radians from zero.
#[inline]
pub(crate) fn nearest_quadrant(angle: f32) -> i32 {
    let quadrant = angle * core::f32::consts::FRAC_2_PI;
    // Round half away from zero with a truncating cast, which needs no rounding instruction.
    (quadrant + 0.5_f32.copysign(quadrant)) as i32
}

/// The sine and cosine of `angle - quadrant * pi / 2`, for one angle (`f32`) or four (`Vec4`, with
/// the same bits on every lane as one angle gives): Cody and Waite's reduction by pi / 2 split in
/// three parts (from Cephes' `sinf`), then Cephes' minimax polynomials on [-pi / 4, pi / 4].
#[inline]
pub(crate) fn reduced_sin_cos<T>(angle: T, quadrant: T) -> (T, T)
where
    T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T> + Mul<f32, Output = T>,
    f32: Add<T, Output = T> + Sub<T, Output = T> + Mul<T, Output = T>,
{
    const PIO2_HIGH: f32 = 1.570_312_5;
    const PIO2_MIDDLE: f32 = 4.837_513e-4;
    const PIO2_LOW: f32 = 7.549_79e-8;
    let k = quadrant;
    let r = ((angle - k * PIO2_HIGH) - k * PIO2_MIDDLE) - k * PIO2_LOW;
    let r2 = r * r;
    let sin = r + r * r2 * (-1.666_665_5e-1 + r2 * (8.332_161e-3 + r2 * -1.951_529_6e-4));
    let cos =
        1.0 - 0.5 * r2 + r2 * r2 * (4.166_664_6e-2 + r2 * (-1.388_731_6e-3 + r2 * 2.443_315_7e-5));
    (sin, cos)
}

/// The sine and cosine of an angle from those of its remainder after `quadrant` quarter turns.
#[inline]
pub(crate) fn in_quadrant(quadrant: i32, sin: f32, cos: f32) -> (f32, f32) {
    // The quadrant's swap and signs by bit operations, not a `match`: agents' angles are random, so
    // a branch on the quadrant would be mispredicted most of the time. Odd quadrants swap sine and
    // cosine; quadrants 2 and 3 negate the sine, quadrants 1 and 2 the cosine.
    let swap = 0_u32.wrapping_sub((quadrant & 1) as u32);
    let (sin, cos) = (sin.to_bits(), cos.to_bits());
    let sin_sign = ((quadrant & 2) as u32) << 30;
    let cos_sign = ((quadrant.wrapping_add(1) & 2) as u32) << 30;
    (
        f32::from_bits(((sin & !swap) | (cos & swap)) ^ sin_sign),
        f32::from_bits(((cos & !swap) | (sin & swap)) ^ cos_sign),
    )
}

/// A point of `area` from two numbers in `[0, 1)`: where the random-target wander places its target.
pub fn point_in_area(area: Rect, random_x: f32, random_y: f32) -> Vec2 {
    area.min + area.size() * Vec2::new(random_x, random_y)
}

/// One step of the tutorials' update for a step of `dt` seconds: the force truncated to `max_force`,
/// divided by `mass`, added to the velocity, and the velocity truncated to `max_speed`. Returns the
/// new velocity; the position then moves by `velocity * dt`.
///
/// A mass that is not a positive finite number ignores the force (see
/// [`Mass`]). A step so long, or a mass so small, that the velocity change
/// overflows gives the limit it tends to: full speed along the force.
#[inline]
pub fn integrate_velocity(
    velocity: Vec2,
    force: Vec2,
    mass: f32,
    max_speed: f32,
    max_force: f32,
    dt: f32,
) -> Vec2 {
    let force = truncate(force, max_force);
    if force == Vec2::ZERO || !Mass(mass).is_valid() {
        return truncate(velocity, max_speed);
    }
    // `dt / mass` rounds once, so it is exact to `f32` precision whenever it lands in the normal
    // range, whatever the mass. Otherwise (a huge mass with a short step underflows it, a tiny mass
    // with a long one overflows it) compute in f64, where neither happens.
    let step_per_mass = dt / mass;
    let velocity_change = if step_per_mass.is_normal() {
        force * step_per_mass
    } else {
        (force.as_dvec2() * (f64::from(dt) / f64::from(mass))).as_vec2()
    };
    if !velocity_change.is_finite() {
        return direction_or_zero(force) * max_speed.max(0.0);
    }
    let new_velocity = velocity + velocity_change;
    if new_velocity.is_finite() {
        truncate(new_velocity, max_speed)
    } else {
        // Both parts are finite but their sum overflows `f32`: it is longer than any finite
        // limit, so it is truncated, along its direction taken in f64.
        let sum = velocity.as_dvec2() + velocity_change.as_dvec2();
        sum.normalize_or_zero().as_vec2() * max_speed.max(0.0)
    }
}

// Path following: the geometry of a path's spine (nodes joined by straight segments), shared by
// `FollowPath`'s two methods.

/// `value` when finite and not negative, else `0.0`.
pub(crate) fn non_negative(value: f32) -> f32 {
    if value >= 0.0 && value.is_finite() {
        value
    } else {
        0.0
    }
}

/// How many segments the spine has: one between each pair of consecutive nodes, plus one from
/// the last back to the first when `closed`, with at least two nodes.
fn segment_count(len: usize, closed: bool) -> usize {
    match len {
        0 | 1 => 0,
        _ if closed => len,
        _ => len - 1,
    }
}

/// The ends of segment `index`.
pub(crate) fn segment(points: &[Vector], closed: bool, index: usize) -> (Vector, Vector) {
    let next = if closed {
        (index + 1) % points.len()
    } else {
        (index + 1).min(points.len() - 1)
    };
    (points[index], points[next])
}

/// How far along segment `start`–`end` (from 0 at `start` to 1 at `end`) its point closest to
/// `point` is. `0.0` for a segment of zero length or a non-finite point.
fn fraction_on_segment(point: Vector, start: Vector, end: Vector) -> f32 {
    let along = end - start;
    let squared = along.length_squared();
    if !(squared > 0.0 && squared.is_finite()) {
        return 0.0;
    }
    let fraction = (point - start).dot(along) / squared;
    if fraction.is_nan() {
        0.0
    } else {
        fraction.clamp(0.0, 1.0)
    }
}

/// The point of the segment from `start` to `end` closest to `point`: its orthogonal projection
/// on the segment's line, clamped to the segment. `start` for a segment of zero length.
pub fn closest_point_on_segment(point: Vector, start: Vector, end: Vector) -> Vector {
    start.lerp(end, fraction_on_segment(point, start, end))
}

/// Where a point lies relative to a path's spine: [`project_onto_path`]'s answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathProjection {
    /// The point of the spine closest to the projected point.
    pub point: Vector,
    /// The segment it lies on: from node `segment` to the next (to the first after the last, on a
    /// closed path).
    pub segment: usize,
    /// How far `point` is along the spine from the first node.
    pub distance_along: f32,
    /// How far the projected point is from the spine.
    pub distance: f32,
}

/// The length of the spine through `points`, back to the first when `closed`.
pub fn path_length(points: &[Vector], closed: bool) -> f32 {
    (0..segment_count(points.len(), closed))
        .map(|index| {
            let (start, end) = segment(points, closed, index);
            start.distance(end)
        })
        .sum()
}

/// The point of the spine through `points` (closed back to the first when `closed`) closest to
/// `point`, with where it lies; on a tie, the earlier segment. A one-node path projects everything
/// onto its node; an empty one gives `None`.
pub fn project_onto_path(points: &[Vector], closed: bool, point: Vector) -> Option<PathProjection> {
    let first = *points.first()?;
    let mut best = PathProjection {
        point: first,
        segment: 0,
        distance_along: 0.0,
        distance: first.distance(point),
    };
    let mut along = 0.0;
    for index in 0..segment_count(points.len(), closed) {
        let (start, end) = segment(points, closed, index);
        let fraction = fraction_on_segment(point, start, end);
        let length = start.distance(end);
        let on_spine = start.lerp(end, fraction);
        let distance = on_spine.distance(point);
        if index == 0 || distance < best.distance {
            best = PathProjection {
                point: on_spine,
                segment: index,
                distance_along: along + fraction * length,
                distance,
            };
        }
        along += length;
    }
    Some(best)
}

/// The point `distance` along the spine through `points` from the first node: clamped to the
/// ends of an open path, wrapped round a `closed` one. `None` for an empty path; the first node
/// for a path of zero (or non-finite) length or a NaN distance.
pub fn point_along_path(points: &[Vector], closed: bool, distance: f32) -> Option<Vector> {
    let first = *points.first()?;
    let total = path_length(points, closed);
    if !(total > 0.0 && total.is_finite()) || distance.is_nan() {
        return Some(first);
    }
    let mut remaining = if closed && distance.is_finite() {
        distance.rem_euclid(total)
    } else {
        distance.clamp(0.0, total)
    };
    let count = segment_count(points.len(), closed);
    for index in 0..count {
        let (start, end) = segment(points, closed, index);
        let length = start.distance(end);
        if remaining <= length {
            return Some(if length > 0.0 {
                start.lerp(end, remaining / length)
            } else {
                start
            });
        }
        remaining -= length;
    }
    // Rounding left a sliver past the last segment: its end.
    Some(segment(points, closed, count - 1).1)
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

/// Arrival at the end of a path, at rest and without overshooting: [`seek`] with the
/// slowing radius, times [`arrival_gain`]. A slowing radius that is not positive is plain seek.
pub fn arrive(boid: &Boid, target: Vector, slowing_radius: f32) -> Vector {
    seek(boid, target, slowing_radius) * arrival_gain(boid.max_speed, slowing_radius)
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::f32::consts::{FRAC_PI_2, PI};

    const EPSILON: f32 = 1e-4;

    fn assert_close(actual: Vec2, expected: Vec2) {
        assert!(
            actual.abs_diff_eq(expected, EPSILON),
            "expected {expected}, got {actual}"
        );
    }

    fn boid(position: Vec2, velocity: Vec2, max_speed: f32) -> Boid {
        Boid {
            position,
            velocity,
            max_speed,
        }
    }

    #[test]
    fn truncate_shortens_only_long_vectors() {
        assert_close(truncate(Vec2::new(3.0, 4.0), 10.0), Vec2::new(3.0, 4.0));
        assert_close(truncate(Vec2::new(3.0, 4.0), 2.5), Vec2::new(1.5, 2.0));
        assert_close(truncate(Vec2::new(3.0, 4.0), -1.0), Vec2::ZERO);
        assert_close(truncate(Vec2::new(3.0, 4.0), f32::NAN), Vec2::ZERO);
        let huge = truncate(Vec2::new(f32::MAX, f32::MAX), 2.0);
        assert_close(huge, Vec2::splat(2.0_f32.sqrt()));
    }

    #[test]
    fn seek_outside_the_slowing_radius_wants_full_speed() {
        // desired = normalize((100, 0) - (0, 0)) * 3 = (3, 0); force = desired - velocity.
        let agent = boid(Vec2::ZERO, Vec2::new(0.0, 1.0), 3.0);
        assert_close(
            seek(&agent, Vec2::new(100.0, 0.0), 20.0),
            Vec2::new(3.0, -1.0),
        );
    }

    #[test]
    fn seek_inside_the_slowing_radius_scales_by_distance() {
        // distance 10 <= slowingRadius 20: desired = (1, 0) * 3 * 10 / 20 = (1.5, 0).
        let agent = boid(Vec2::ZERO, Vec2::new(1.0, 0.0), 3.0);
        assert_close(
            seek(&agent, Vec2::new(10.0, 0.0), 20.0),
            Vec2::new(0.5, 0.0),
        );
    }

    #[test]
    fn seek_on_the_target_brakes() {
        let agent = boid(Vec2::splat(5.0), Vec2::new(2.0, -1.0), 3.0);
        assert_close(seek(&agent, Vec2::splat(5.0), 20.0), Vec2::new(-2.0, 1.0));
        assert_close(seek(&agent, Vec2::splat(5.0), 0.0), Vec2::new(-2.0, 1.0));
    }

    #[test]
    fn flee_wants_full_speed_away() {
        // desired = normalize((0, 0) - (0, 10)) * 3 = (0, -3).
        let agent = boid(Vec2::ZERO, Vec2::new(1.0, 0.0), 3.0);
        assert_close(flee(&agent, Vec2::new(0.0, 10.0)), Vec2::new(-1.0, -3.0));
    }

    #[test]
    fn flee_from_its_own_position_keeps_heading_or_rests() {
        let moving = boid(Vec2::ZERO, Vec2::new(2.0, 0.0), 3.0);
        assert_close(flee(&moving, Vec2::ZERO), Vec2::new(1.0, 0.0));
        let resting = boid(Vec2::ZERO, Vec2::ZERO, 3.0);
        assert_close(flee(&resting, Vec2::ZERO), Vec2::ZERO);
    }

    #[test]
    fn pursuit_aims_where_the_target_will_be() {
        // distance 30, max speed 3: T = 10; future = (30, 0) + (0, 1) * 10 = (30, 10).
        let hunter = boid(Vec2::ZERO, Vec2::ZERO, 3.0);
        let target = Vec2::new(30.0, 0.0);
        let target_velocity = Vec2::new(0.0, 1.0);
        assert_close(
            predict_position(&hunter, target, target_velocity),
            Vec2::new(30.0, 10.0),
        );
        let expected = Vec2::new(30.0, 10.0).normalize() * 3.0;
        assert_close(pursue(&hunter, target, target_velocity), expected);
        assert_close(evade(&hunter, target, target_velocity), -expected);
    }

    #[test]
    fn prediction_with_no_speed_uses_the_current_position() {
        let stuck = boid(Vec2::ZERO, Vec2::ZERO, 0.0);
        let target = Vec2::new(30.0, 0.0);
        assert_close(
            predict_position(&stuck, target, Vec2::new(5.0, 5.0)),
            target,
        );
    }

    #[test]
    fn wander_force_is_circle_centre_plus_displacement() {
        // circleCenter = normalize((0, 2)) * 6 = (0, 6); displacement at angle 0 = (8, 0).
        let velocity = Vec2::new(0.0, 2.0);
        let direction = wander_displacement_direction(0.0, WanderFrame::World, velocity);
        assert_close(
            wander_circle(velocity, 6.0, 8.0, direction),
            Vec2::new(8.0, 6.0),
        );
    }

    #[test]
    fn heading_frame_measures_the_angle_from_the_velocity() {
        // Heading +Y; angle +90 degrees from it points at -X.
        let velocity = Vec2::new(0.0, 5.0);
        let direction = wander_displacement_direction(FRAC_PI_2, WanderFrame::Heading, velocity);
        assert_close(direction, Vec2::new(-1.0, 0.0));
        let world = wander_displacement_direction(FRAC_PI_2, WanderFrame::World, velocity);
        assert_close(world, Vec2::new(0.0, 1.0));
    }

    #[test]
    fn wander_at_rest_is_the_displacement_alone() {
        let direction = wander_displacement_direction(PI, WanderFrame::Heading, Vec2::ZERO);
        assert_close(
            wander_circle(Vec2::ZERO, 6.0, 8.0, direction),
            Vec2::new(-8.0, 0.0),
        );
    }

    #[test]
    fn sin_cos_agrees_with_the_standard_library() {
        let mut worst = 0.0_f32;
        for step in -2_000_000..=2_000_000 {
            let angle = step as f32 * 4.0e-3;
            let (sin, cos) = sin_cos(angle);
            worst = worst
                .max((sin - angle.sin()).abs())
                .max((cos - angle.cos()).abs());
        }
        assert!(worst <= 2.0e-7, "worst error {worst}");
        for angle in [0.0, -0.0, PI, -PI, FRAC_PI_2, 8192.0, -8192.0, 1.0e5, 3.0e7] {
            let (sin, cos) = sin_cos(angle);
            assert!((sin - angle.sin()).abs() <= 1.0e-6, "sin {angle}");
            assert!((cos - angle.cos()).abs() <= 1.0e-6, "cos {angle}");
        }
        assert!(sin_cos(f32::NAN).0.is_nan() && sin_cos(f32::INFINITY).1.is_nan());
    }

    #[test]
    fn wander_angle_changes_by_at_most_half_the_angle_change_per_tutorial_frame() {
        let dt = 1.0 / TUTORIAL_FRAME_RATE;
        assert!((next_wander_angle(0.0, 1.0, 0.0, dt) + 0.5).abs() < 1e-6);
        assert!((next_wander_angle(0.0, 1.0, 0.5, dt)).abs() < 1e-6);
        assert!((next_wander_angle(0.0, 1.0, 1.0, dt) - 0.5).abs() < 1e-6);
        // Four times the step: twice the change.
        assert!((next_wander_angle(0.0, 1.0, 1.0, 4.0 * dt) - 1.0).abs() < 1e-5);
        // No time, no change; wraps into [-PI, PI).
        assert_eq!(next_wander_angle(0.25, 1.0, 0.9, 0.0), 0.25);
        assert!((next_wander_angle(PI - 0.1, 1.0, 1.0, dt) - (-PI + 0.4)).abs() < 1e-5);
        assert!((next_wander_angle(-PI + 0.1, 1.0, 0.0, dt) - (PI - 0.4)).abs() < 1e-5);
        // More than one turn: 10 radians is 10 - 4 PI.
        let turned = next_wander_angle(0.0, 20.0, 1.0, dt);
        assert!((turned - (10.0 - 2.0 * TAU)).abs() < 1e-5, "{turned}");
        for (angle, random) in [(PI - 1e-7, 1.0), (-PI, 0.0), (3.0, 0.999_999_9)] {
            assert!((-PI..PI).contains(&next_wander_angle(angle, 1.0, random, dt)));
        }
        assert_eq!(next_wander_angle(0.3, f32::NAN, 0.9, dt), 0.3);
    }

    #[test]
    fn integration_truncates_force_divides_by_mass_and_truncates_speed() {
        // force (10, 0) truncated to 4, / mass 2 = (2, 0) per second; dt 0.5: +1.
        let velocity = integrate_velocity(
            Vec2::new(1.0, 0.0),
            Vec2::new(10.0, 0.0),
            2.0,
            100.0,
            4.0,
            0.5,
        );
        assert_close(velocity, Vec2::new(2.0, 0.0));
        // Speed limited to 1.5.
        let velocity = integrate_velocity(
            Vec2::new(1.0, 0.0),
            Vec2::new(10.0, 0.0),
            2.0,
            1.5,
            4.0,
            0.5,
        );
        assert_close(velocity, Vec2::new(1.5, 0.0));
        // A mass so small the change overflows: full speed along the force.
        let velocity = integrate_velocity(Vec2::ZERO, Vec2::new(0.0, 1.0), 1e-45, 3.0, 4.0, 10.0);
        assert_close(velocity, Vec2::new(0.0, 3.0));
        // An invalid mass coasts.
        for mass in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let velocity = integrate_velocity(Vec2::X, Vec2::Y, mass, 3.0, 4.0, 0.5);
            assert_eq!(velocity, Vec2::X);
        }
    }

    #[test]
    fn random_target_point_lies_in_the_area() {
        let area = Rect::new(-10.0, 0.0, 30.0, 20.0);
        assert_close(point_in_area(area, 0.0, 0.0), Vec2::new(-10.0, 0.0));
        assert_close(point_in_area(area, 0.5, 0.25), Vec2::new(10.0, 5.0));
    }
}

#[cfg(test)]
pub(crate) mod path_tests {
    //! The path functions' tests, and the fixtures `behaviours::follow_path`'s tests share.
    use super::*;

    const EPSILON: f32 = 1e-4;

    pub(crate) fn assert_close(actual: Vector, expected: Vector) {
        assert!(
            actual.abs_diff_eq(expected, EPSILON),
            "expected {expected}, got {actual}"
        );
    }

    pub(crate) fn v(x: f32, y: f32) -> Vector {
        Vector::new(x, y)
    }

    pub(crate) fn boid(position: Vector, velocity: Vector) -> Boid {
        Boid {
            position,
            velocity,
            max_speed: 180.0,
        }
    }

    /// An L: 100 units right, then 100 up. Length 200 open, 200 + 100·√2 closed.
    pub(crate) fn l_shape() -> Vec<Vector> {
        vec![v(0.0, 0.0), v(100.0, 0.0), v(100.0, 100.0)]
    }

    /// A square of side 100, counter-clockwise from the origin: length 300 open, 400 closed.
    pub(crate) fn square() -> Vec<Vector> {
        vec![v(0.0, 0.0), v(100.0, 0.0), v(100.0, 100.0), v(0.0, 100.0)]
    }

    #[test]
    fn closest_point_on_segment_projects_and_clamps() {
        let (start, end) = (v(0.0, 0.0), v(10.0, 0.0));
        assert_close(
            closest_point_on_segment(v(5.0, 5.0), start, end),
            v(5.0, 0.0),
        );
        assert_close(closest_point_on_segment(v(15.0, 3.0), start, end), end);
        assert_close(closest_point_on_segment(v(-4.0, 2.0), start, end), start);
        // A diagonal: (4, 0) projects onto y = x at (2, 2).
        assert_close(
            closest_point_on_segment(v(4.0, 0.0), v(0.0, 0.0), v(10.0, 10.0)),
            v(2.0, 2.0),
        );
        // Zero length, NaN point: the start.
        assert_close(closest_point_on_segment(v(3.0, 4.0), end, end), end);
        assert_close(
            closest_point_on_segment(v(f32::NAN, 0.0), start, end),
            start,
        );
    }

    #[test]
    fn path_length_counts_the_closing_segment_of_a_loop() {
        assert_eq!(path_length(&square(), false), 300.0);
        assert_eq!(path_length(&square(), true), 400.0);
        assert_eq!(path_length(&[v(3.0, 4.0)], true), 0.0);
        assert_eq!(path_length(&[], false), 0.0);
    }

    #[test]
    fn project_onto_path_finds_the_nearest_segment_and_the_distance_along() {
        // (110, 50) is 10 right of the L's second segment, halfway up it: 100 + 50 along.
        let projection = project_onto_path(&l_shape(), false, v(110.0, 50.0)).unwrap();
        assert_close(projection.point, v(100.0, 50.0));
        assert_eq!(projection.segment, 1);
        assert!((projection.distance_along - 150.0).abs() < EPSILON);
        assert!((projection.distance - 10.0).abs() < EPSILON);
        // (-5, 60) is nearest the square's closing segment (0,100)->(0,0), 40 along it: 340.
        let closed = project_onto_path(&square(), true, v(-5.0, 60.0)).unwrap();
        assert_close(closed.point, v(0.0, 60.0));
        assert_eq!(closed.segment, 3);
        assert!((closed.distance_along - 340.0).abs() < EPSILON);
        // Open, without the closing side: nearest the third side's end (0, 100), √(25 + 1600) ≈
        // 40.3 away, rather than the first node, √(25 + 3600) ≈ 60.2 away.
        let open = project_onto_path(&square(), false, v(-5.0, 60.0)).unwrap();
        assert_close(open.point, v(0.0, 100.0));
        assert_eq!(open.segment, 2);
        // One node: everything projects onto it.
        let single = project_onto_path(&[v(1.0, 1.0)], false, v(4.0, 5.0)).unwrap();
        assert_eq!((single.point, single.distance), (v(1.0, 1.0), 5.0));
        assert!(project_onto_path(&[], false, v(0.0, 0.0)).is_none());
    }

    #[test]
    fn point_along_path_clamps_open_paths_and_wraps_loops() {
        let square = square();
        assert_close(
            point_along_path(&square, false, 150.0).unwrap(),
            v(100.0, 50.0),
        );
        assert_close(
            point_along_path(&square, false, 450.0).unwrap(),
            v(0.0, 100.0),
        );
        assert_close(point_along_path(&square, false, -5.0).unwrap(), v(0.0, 0.0));
        // 450 round a loop of 400 is 50 along the first side; -50 is 50 before the end.
        assert_close(
            point_along_path(&square, true, 450.0).unwrap(),
            v(50.0, 0.0),
        );
        assert_close(
            point_along_path(&square, true, -50.0).unwrap(),
            v(0.0, 50.0),
        );
        assert_close(
            point_along_path(&square, true, f32::NAN).unwrap(),
            v(0.0, 0.0),
        );
        assert_close(
            point_along_path(&square, true, f32::INFINITY).unwrap(),
            v(0.0, 0.0),
        );
        let same = [v(2.0, 2.0), v(2.0, 2.0)];
        assert_eq!(point_along_path(&same, true, 10.0), Some(v(2.0, 2.0)));
        assert_eq!(point_along_path(&[], false, 1.0), None);
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
