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

use crate::behaviours::WanderFrame;
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

/// The mean of `points` (the neighbours' centre), or `None` when there are none.
#[inline]
pub fn mean(points: impl IntoIterator<Item = Vec2>) -> Option<Vec2> {
    let (sum, count) = points
        .into_iter()
        .fold((Vec2::ZERO, 0_u32), |(sum, count), point| {
            (sum + point, count + 1)
        });
    (count > 0).then(|| sum / count as f32)
}

/// Separation as the flocking article, Leader Following and Queue write it: away from the mean
/// offset of the neighbours at `neighbours`, unit length. Zero with no neighbour, or when they
/// surround the agent evenly (or sit on it).
#[inline]
pub fn separation(position: Vec2, neighbours: impl IntoIterator<Item = Vec2>) -> Vec2 {
    mean(neighbours.into_iter().map(|neighbour| neighbour - position))
        .map_or(Vec2::ZERO, |offset| direction_or_zero(-offset))
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

/// Alignment as the flocking article writes it: the direction of the neighbours' mean velocity,
/// unit length. Zero with no neighbour or when their velocities cancel out.
#[inline]
pub fn alignment(neighbour_velocities: impl IntoIterator<Item = Vec2>) -> Vec2 {
    mean(neighbour_velocities).map_or(Vec2::ZERO, direction_or_zero)
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
