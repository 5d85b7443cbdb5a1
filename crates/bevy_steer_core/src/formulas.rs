//! The formulas the behaviours share, as pure functions callable without an ECS: the agent as a
//! force function sees it ([`Boid`]), seek, flee, pursuit and evasion with their prediction, the
//! field of view, sums and means of neighbours, and the tutorials' integration step. Each
//! behaviour's own formulas live with it in [`behaviours`](crate::behaviours); the
//! [`forces`](crate::forces) module lists them all.
//!
//! Units are per second: positions in world units, velocities in units per second, forces in units
//! per second squared for a mass of 1. The [crate docs](crate) say how the tutorials' per-frame
//! figures map to these.
//!
//! With finite inputs whose differences do not overflow, every function returns finite values: a
//! zero-length direction (an agent at rest, a target at the agent's own position) never divides by
//! zero. Non-finite inputs may give non-finite outputs; the systems check for that and drop the force.

use core::f32::consts::TAU;

use crate::math::{Vector, direction_or_zero, length, narrow, truncate, widen};

/// What a force function needs to know about the agent it steers (the tutorials' `IBoid`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Boid {
    /// Position in world units.
    pub position: Vector,
    /// Velocity in units per second.
    pub velocity: Vector,
    /// Speed limit in units per second.
    pub max_speed: f32,
}

/// The frame rate the tutorials' per-frame figures are read at, in frames per second.
///
/// [`next_wander_angle`](crate::forces::next_wander_angle) and [`Queue`](crate::behaviours::Queue)'s hard stop use it, to scale the
/// tutorials' per-frame changes to any step length; every other figure is converted once, as the
/// crate docs describe.
pub const TUTORIAL_FRAME_RATE: f32 = 60.0;

/// Seek with arrival: the desired velocity points at `target` at full speed, scaled down by
/// `distance / slowing_radius` inside the slowing radius; the force is desired minus current velocity.
///
/// A `slowing_radius` of zero (or less) is plain seek. A target at the agent's own position asks for
/// a desired velocity of zero: the agent brakes.
#[inline]
pub fn seek(boid: &Boid, target: Vector, slowing_radius: f32) -> Vector {
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
pub fn flee(boid: &Boid, threat: Vector) -> Vector {
    let mut away = direction_or_zero(boid.position - threat);
    if away == Vector::ZERO {
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
pub fn predict_position(boid: &Boid, target_position: Vector, target_velocity: Vector) -> Vector {
    predict_position_within(boid, target_position, target_velocity, None)
}

/// [`predict_position`] with the look-ahead capped at `max_time` seconds when that is `Some`
/// (OpenSteer's cap on evasion's prediction). A negative or NaN cap predicts nothing: the target's
/// current position.
#[inline]
pub fn predict_position_within(
    boid: &Boid,
    target_position: Vector,
    target_velocity: Vector,
    max_time: Option<f32>,
) -> Vector {
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
pub fn within_range(position: Vector, other: Vector, range: Option<f32>) -> bool {
    range.is_none_or(|range| length(other - position) <= range)
}

/// Pursuit: seek (without arrival) the target's predicted position.
#[inline]
pub fn pursue(boid: &Boid, target_position: Vector, target_velocity: Vector) -> Vector {
    pursue_within(boid, target_position, target_velocity, None)
}

/// [`pursue`] with the prediction capped at `max_prediction` seconds (see
/// [`predict_position_within`]).
#[inline]
pub fn pursue_within(
    boid: &Boid,
    target_position: Vector,
    target_velocity: Vector,
    max_prediction: Option<f32>,
) -> Vector {
    let aim = predict_position_within(boid, target_position, target_velocity, max_prediction);
    seek(boid, aim, 0.0)
}

/// Evade: flee the pursuer's predicted position.
#[inline]
pub fn evade(boid: &Boid, pursuer_position: Vector, pursuer_velocity: Vector) -> Vector {
    evade_within(boid, pursuer_position, pursuer_velocity, None)
}

/// [`evade`] with the prediction capped at `max_prediction` seconds (see
/// [`predict_position_within`]).
#[inline]
pub fn evade_within(
    boid: &Boid,
    pursuer_position: Vector,
    pursuer_velocity: Vector,
    max_prediction: Option<f32>,
) -> Vector {
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
pub fn in_field_of_view(
    position: Vector,
    heading: Vector,
    half_angle_cos: f32,
    other: Vector,
) -> bool {
    if half_angle_cos <= -1.0 || heading == Vector::ZERO {
        return true;
    }
    let offset = other - position;
    let along = offset.dot(heading);
    // `along >= length(offset) * half_angle_cos`, squared on both sides with their signs kept (a
    // square root saved for every candidate): `along·|along| >= distance²·cos·|cos|`. Behind the
    // agent only a cone wider than a half turn sees; said outright, since there both sides
    // underflow to zero for a candidate a hair away.
    let bound = offset.length_squared() * (half_angle_cos * half_angle_cos.abs());
    (along >= 0.0 || half_angle_cos < 0.0) && along * along.abs() >= bound
}

/// A sum of vectors and how many were added: what the mean-based rules keep of their neighbours.
/// The vectors are added in turn from zero, so two sums of the same vectors in the same order have
/// the same bits however they were made.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VectorSum {
    /// The vectors added up.
    pub sum: Vector,
    /// How many.
    pub count: u32,
}

impl VectorSum {
    /// The sum of `vectors`, in their order.
    #[inline]
    pub fn of(vectors: impl IntoIterator<Item = Vector>) -> Self {
        vectors
            .into_iter()
            .fold(Self::default(), |Self { sum, count }, vector| Self {
                sum: sum + vector,
                count: count + 1,
            })
    }

    /// The mean, or `None` when nothing was added.
    #[inline]
    pub fn mean(self) -> Option<Vector> {
        (self.count > 0).then(|| self.sum / self.count as f32)
    }
}

/// The mean of `points` (the neighbours' centre), or `None` when there are none.
#[inline]
pub fn mean(points: impl IntoIterator<Item = Vector>) -> Option<Vector> {
    VectorSum::of(points).mean()
}

/// One step of the tutorials' update for a step of `dt` seconds: the force truncated to `max_force`,
/// divided by `mass`, added to the velocity, and the velocity truncated to `max_speed`. Returns the
/// new velocity; the position then moves by `velocity * dt`.
///
/// A mass that is not a positive finite number ignores the force (see
/// [`Mass`](crate::components::Mass)), as the velocity ignores a force that is not finite (which
/// only a `max_force` that is no finite limit lets through). A step at least as long as the mass (`dt / mass >= 1`: a
/// very light agent, or a long step) changes the velocity by the truncated force itself and no
/// more: the force of seek, arrival, pursuit and the like is the change of velocity they want
/// (`desired - velocity`), which `dt / mass` above 1 would overshoot, and above 2 overshoot by more
/// than it corrects, the velocity flipping from full speed one way to full speed the other, step
/// after step, at some step rates and not others.
#[inline]
pub fn integrate_velocity(
    velocity: Vector,
    force: Vector,
    mass: f32,
    max_speed: f32,
    max_force: f32,
    dt: f32,
) -> Vector {
    let force = truncate(force, max_force);
    if force == Vector::ZERO || !force.is_finite() || !is_valid_mass(mass) {
        return truncate(velocity, max_speed);
    }
    // `dt / mass` rounds once, so it is exact to `f32` precision whenever it lands in the normal
    // range, whatever the mass. Otherwise (a huge mass with a short step underflows it) compute in
    // f64, where that does not happen. At most 1, the change is never longer than the finite force.
    let step_per_mass = dt / mass;
    let velocity_change = if step_per_mass >= 1.0 {
        force
    } else if step_per_mass.is_normal() {
        force * step_per_mass
    } else {
        narrow(widen(force) * (f64::from(dt) / f64::from(mass)))
    };
    let new_velocity = velocity + velocity_change;
    if new_velocity.is_finite() {
        truncate(new_velocity, max_speed)
    } else {
        // Both parts are finite but their sum overflows `f32`: it is longer than any finite
        // limit, so it is truncated, along its direction taken in f64.
        let sum = widen(velocity) + widen(velocity_change);
        narrow(sum.normalize_or_zero()) * max_speed.max(0.0)
    }
}

/// Whether `mass` is a positive finite number, one that forces can be divided by.
#[inline]
pub fn is_valid_mass(mass: f32) -> bool {
    mass > 0.0 && mass.is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{assert_close, boid, v};

    #[test]
    fn seek_outside_the_slowing_radius_wants_full_speed() {
        // desired = normalize((100, 0) - (0, 0)) * 3 = (3, 0); force = desired - velocity.
        let agent = boid(Vector::ZERO, v(0.0, 1.0), 3.0);
        assert_close(seek(&agent, v(100.0, 0.0), 20.0), v(3.0, -1.0));
    }

    #[test]
    fn seek_inside_the_slowing_radius_scales_by_distance() {
        // distance 10 <= slowingRadius 20: desired = (1, 0) * 3 * 10 / 20 = (1.5, 0).
        let agent = boid(Vector::ZERO, v(1.0, 0.0), 3.0);
        assert_close(seek(&agent, v(10.0, 0.0), 20.0), v(0.5, 0.0));
    }

    #[test]
    fn seek_on_the_target_brakes() {
        let agent = boid(Vector::splat(5.0), v(2.0, -1.0), 3.0);
        assert_close(seek(&agent, Vector::splat(5.0), 20.0), v(-2.0, 1.0));
        assert_close(seek(&agent, Vector::splat(5.0), 0.0), v(-2.0, 1.0));
    }

    #[test]
    fn flee_wants_full_speed_away() {
        // desired = normalize((0, 0) - (0, 10)) * 3 = (0, -3).
        let agent = boid(Vector::ZERO, v(1.0, 0.0), 3.0);
        assert_close(flee(&agent, v(0.0, 10.0)), v(-1.0, -3.0));
    }

    #[test]
    fn flee_from_its_own_position_keeps_heading_or_rests() {
        let moving = boid(Vector::ZERO, v(2.0, 0.0), 3.0);
        assert_close(flee(&moving, Vector::ZERO), v(1.0, 0.0));
        let resting = boid(Vector::ZERO, Vector::ZERO, 3.0);
        assert_close(flee(&resting, Vector::ZERO), Vector::ZERO);
    }

    #[test]
    fn pursuit_aims_where_the_target_will_be() {
        // distance 30, max speed 3: T = 10; future = (30, 0) + (0, 1) * 10 = (30, 10).
        let hunter = boid(Vector::ZERO, Vector::ZERO, 3.0);
        let target = v(30.0, 0.0);
        let target_velocity = v(0.0, 1.0);
        assert_close(
            predict_position(&hunter, target, target_velocity),
            v(30.0, 10.0),
        );
        let expected = v(30.0, 10.0).normalize() * 3.0;
        assert_close(pursue(&hunter, target, target_velocity), expected);
        assert_close(evade(&hunter, target, target_velocity), -expected);
    }

    #[test]
    fn prediction_with_no_speed_uses_the_current_position() {
        let stuck = boid(Vector::ZERO, Vector::ZERO, 0.0);
        let target = v(30.0, 0.0);
        assert_close(predict_position(&stuck, target, v(5.0, 5.0)), target);
    }

    #[test]
    fn integration_truncates_force_divides_by_mass_and_truncates_speed() {
        // force (10, 0) truncated to 4, / mass 2 = (2, 0) per second; dt 0.5: +1.
        let velocity = integrate_velocity(v(1.0, 0.0), v(10.0, 0.0), 2.0, 100.0, 4.0, 0.5);
        assert_close(velocity, v(2.0, 0.0));
        // Speed limited to 1.5.
        let velocity = integrate_velocity(v(1.0, 0.0), v(10.0, 0.0), 2.0, 1.5, 4.0, 0.5);
        assert_close(velocity, v(1.5, 0.0));
        // A step longer than the mass: the force whole, however light the agent.
        let velocity = integrate_velocity(v(1.0, 0.0), v(10.0, 0.0), 0.25, 100.0, 4.0, 0.5);
        assert_close(velocity, v(5.0, 0.0));
        let velocity = integrate_velocity(Vector::ZERO, v(0.0, 1.0), 1e-45, 3.0, 4.0, 10.0);
        assert_close(velocity, v(0.0, 1.0));
        // A force that is not finite, let through by a limit that is not finite, coasts.
        let velocity = integrate_velocity(
            Vector::X,
            v(f32::INFINITY, 0.0),
            1.0,
            3.0,
            f32::INFINITY,
            0.5,
        );
        assert_eq!(velocity, Vector::X);
        // An invalid mass coasts.
        for mass in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let velocity = integrate_velocity(Vector::X, Vector::Y, mass, 3.0, 4.0, 0.5);
            assert_eq!(velocity, Vector::X);
        }
    }
}
