//! Wander: the circle method and the random-target method.

use core::any::TypeId;

use bevy::prelude::*;
use rand::RngExt;

mod circle;
#[cfg(feature = "2d")]
mod lanes;
#[cfg(feature = "3d")]
mod sphere;

#[cfg(feature = "2d")]
pub use circle::wander_displacement_direction;
pub use circle::{WanderFrame, next_wander_angle};
#[cfg(feature = "3d")]
pub use sphere::{
    next_wander_displacement, wander_direction_in_plane, wander_displacement_direction,
};

/// Where [`WanderMethod::RandomTarget`] draws its targets: a rectangle in 2D, a box in 3D.
#[cfg(feature = "2d")]
pub type WanderArea = Rect;
/// Where [`WanderMethod::RandomTarget`] draws its targets: a rectangle in 2D, a box in 3D.
#[cfg(feature = "3d")]
pub type WanderArea = bevy::math::bounding::Aabb3d;

use super::weight_and_switch_builders;
use crate::components::{MaxSpeed, Steering, Velocity};
use crate::formulas::{self, Boid};
#[cfg(feature = "2d")]
use crate::math::lanes::{LANES, lanes_of};
use crate::math::lanes::{VectorLanes, groups};
use crate::math::{Vector, direction_or_zero};
use crate::problems::{BehaviourKind, ReportedProblems, record};
use crate::rng::SteeringRng;
use crate::stepping::boid;
use crate::stepping::columns::{
    AgentColumns, BudgetColumns, PlaneColumn, PlaneRows, chunked, log_not_dense, settle,
};
use crate::stepping::jobs::{MIN_AGENTS_PER_JOB, agents_per_job, run_jobs};
use crate::stepping::registry::register_behaviour;
use crate::tunable::{ANGLE, Tunable, WEIGHT};

/// How [`Wander`] picks its force.
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Default, Debug, PartialEq, Clone)]
pub enum WanderMethod {
    /// Reynolds' circle in front of the agent (the tutorial's main method). Uses the circle
    /// distance, circle radius, angle change and angle.
    #[default]
    Circle,
    /// The tutorial's first approach: seek (without arrival) a random point of `area`, drawn anew
    /// every `interval` seconds. Simpler, but the agent sometimes turns right round ("Damn, I forgot
    /// my keys!").
    RandomTarget {
        /// Where targets are drawn, in world space.
        area: WanderArea,
        /// Seconds between targets. A value that is not positive draws a new target every step.
        interval: f32,
        /// The current target.
        target: Vector,
        /// Seconds until the next target is drawn.
        time_left: f32,
    },
}

impl WanderMethod {
    /// A random target in `area`, redrawn every `interval` seconds; the first is drawn on the first
    /// step.
    pub fn random_target(area: WanderArea, interval: f32) -> Self {
        Self::RandomTarget {
            area,
            interval,
            target: Vector::from((area.min + area.max) * 0.5),
            time_left: 0.0,
        }
    }
}

/// Wander: a random walk that stays smooth.
///
/// The circle method: a circle `circle_distance` ahead along the velocity; the force points from
/// the agent to a point of the circle at `angle` (measured in [`frame`](Self::frame)); after each
/// step the angle changes by a random amount in `[-angle_change / 2, angle_change / 2]` (per
/// tutorial frame of 1/60 s; see [`next_wander_angle`]).
///
/// Circle distance and radius are force magnitudes (units per second squared for a mass of 1): the
/// greater they are, the stronger the push each step. The randomness comes from the agent's
/// [`SteeringRng`], seeded from [`SteeringSeed`](crate::rng::SteeringSeed) and the entity.
///
/// The wander system's own update of `angle` each step does not mark the component changed, so
/// `Changed<Wander>` means that something else (your code, the tuning panel) changed it.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering, SteeringRng)]
pub struct Wander {
    /// Distance of the circle's centre ahead of the agent (a force magnitude). Default `90.0`.
    #[reflect(@Tunable::logarithmic(0.0, 2000.0))]
    pub circle_distance: f32,
    /// Radius of the circle (a force magnitude). Default `180.0`.
    #[reflect(@Tunable::logarithmic(0.0, 2000.0))]
    pub circle_radius: f32,
    /// Largest total swing of the angle per tutorial frame, in radians. Default `1.0`.
    #[reflect(@ANGLE)]
    pub angle_change: f32,
    /// The current wander angle, in radians, in `[-PI, PI)` (in 3D, of ground units only).
    pub angle: f32,
    /// A flyer's current wander displacement: a unit vector, read in [`frame`](Self::frame)
    /// (3D only; ground units use `angle`). Default `+X`. In [`WanderFrame::Heading`] it starts
    /// relative to the heading (`+X` straight on) and is then carried round with it, step by step,
    /// in world space (see [`carried_heading`](Self::carried_heading)).
    #[cfg(feature = "3d")]
    pub displacement: Vector,
    /// A flyer in [`WanderFrame::Heading`]: the heading its [`displacement`](Self::displacement)
    /// was last turned with, zero before its first step on the move (3D only). Each step the
    /// displacement turns by the heading's turn since, so no heading is special: read against a
    /// frame fixed to the heading alone, one heading (where that frame twists round) drew the
    /// flyers to it.
    #[cfg(feature = "3d")]
    pub carried_heading: Vector,
    /// Which way `angle` is measured.
    pub frame: WanderFrame,
    /// Circle (default) or random target.
    pub method: WanderMethod,
    /// Factor on the force. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
}

impl Default for Wander {
    fn default() -> Self {
        Self {
            circle_distance: 90.0,
            circle_radius: 180.0,
            angle_change: 1.0,
            angle: 0.0,
            #[cfg(feature = "3d")]
            displacement: Vector::X,
            #[cfg(feature = "3d")]
            carried_heading: Vector::ZERO,
            frame: WanderFrame::World,
            method: WanderMethod::Circle,
            weight: 1.0,
            enabled: true,
        }
    }
}

impl Wander {
    /// Sets the circle distance and radius.
    pub fn with_circle(mut self, circle_distance: f32, circle_radius: f32) -> Self {
        self.circle_distance = circle_distance;
        self.circle_radius = circle_radius;
        self
    }

    /// Sets the angle change.
    pub fn with_angle_change(mut self, angle_change: f32) -> Self {
        self.angle_change = angle_change;
        self
    }

    /// Sets the starting angle.
    pub fn with_angle(mut self, angle: f32) -> Self {
        self.angle = angle;
        self
    }

    /// Sets the frame the angle is measured in.
    pub fn with_frame(mut self, frame: WanderFrame) -> Self {
        self.frame = frame;
        self
    }

    /// Sets the method.
    pub fn with_method(mut self, method: WanderMethod) -> Self {
        self.method = method;
        self
    }
}

weight_and_switch_builders!(Wander);

impl Wander {
    /// Whether the behaviour acts this step: enabled with a weight other than zero.
    pub fn active(&self) -> bool {
        self.enabled && self.weight != 0.0
    }

    /// The unweighted force of the current state, without changing it: what
    /// [`step`](Self::step) returns, and what the debug gizmos draw.
    #[inline]
    pub fn force(&self, boid: &Boid) -> Vector {
        self.force_in(boid, None)
    }

    /// [`force`](Self::force) of an agent kept to the plane at right angles to `up` (a unit
    /// vector; in 3D a `Planar` agent), or of a free one (`None`).
    #[inline]
    pub(crate) fn force_in(&self, boid: &Boid, up: Option<Vector>) -> Vector {
        match self.method {
            WanderMethod::Circle => wander_circle(
                boid.velocity,
                self.circle_distance,
                self.circle_radius,
                self.displacement_direction_in(boid.velocity, up),
            ),
            WanderMethod::RandomTarget { target, .. } => formulas::seek(boid, target, 0.0),
        }
    }

    /// The unit direction of the circle method's displacement for an agent moving at `velocity`
    /// (in 3D, a flyer's: see [`displacement_direction_in`](Self::displacement_direction_in)).
    #[inline]
    pub fn displacement_direction(&self, velocity: Vector) -> Vector {
        self.displacement_direction_in(velocity, None)
    }

    /// [`displacement_direction`](Self::displacement_direction) for an agent kept to the plane at
    /// right angles to `up` (a unit vector; in 3D a ground unit's, whose circle lies in its plane,
    /// measured by `angle`), or a free one (`None`; every agent in 2D, where `up` is not read).
    #[cfg(feature = "2d")]
    #[inline]
    pub fn displacement_direction_in(&self, velocity: Vector, _up: Option<Vector>) -> Vector {
        wander_displacement_direction(self.angle, self.frame, velocity)
    }

    /// [`displacement_direction`](Self::displacement_direction) for an agent kept to the plane at
    /// right angles to `up` (a unit vector: a ground unit, whose circle lies in its plane, measured
    /// by `angle`), or a free one (`None`: a flyer, whose displacement is on the sphere).
    #[cfg(feature = "3d")]
    #[inline]
    pub fn displacement_direction_in(&self, velocity: Vector, up: Option<Vector>) -> Vector {
        match up {
            Some(up) => wander_direction_in_plane(self.angle, self.frame, velocity, up),
            None => wander_displacement_direction(
                self.displacement,
                self.frame,
                velocity,
                self.carried_heading,
            ),
        }
    }

    /// One step of `dt` seconds: returns the unweighted force and moves the random state on, in
    /// the tutorial's order (the circle method uses the angle, then changes it; the random-target
    /// method draws a new target when its time is up, then seeks it).
    #[inline]
    pub fn step(&mut self, boid: &Boid, rng: &mut SteeringRng, dt: f32) -> Vector {
        self.step_in(boid, None, rng, dt)
    }

    /// [`step`](Self::step) of an agent kept to the plane at right angles to `up`, or of a free
    /// one (`None`).
    #[inline]
    pub(crate) fn step_in(
        &mut self,
        boid: &Boid,
        up: Option<Vector>,
        rng: &mut SteeringRng,
        dt: f32,
    ) -> Vector {
        if let WanderMethod::RandomTarget {
            area,
            interval,
            target,
            time_left,
        } = &mut self.method
        {
            // Due at the start of this step: a thousandth of a step early is on time (a sum of
            // steps that should make the interval can round to a hair short of it), and a time
            // left that is NaN is due now.
            if time_left.is_nan() || *time_left <= dt * 1e-3 {
                *target = random_point_in(*area, rng);
                // The time the last step overran the interval by counts towards the next one, so
                // that targets come every `interval` on average at any step rate (at most one a
                // step), not every interval rounded up to whole steps.
                *time_left = (*time_left + *interval).max(0.0);
            }
            *time_left -= dt;
            return self.force_in(boid, up);
        }
        // Carried first, so the force reads the displacement as it is, turned once.
        #[cfg(feature = "3d")]
        self.carry_with_heading(boid.velocity, up);
        let force = self.force_in(boid, up);
        self.turn(up.is_some(), rng, dt);
        force
    }

    /// A flyer in [`WanderFrame::Heading`] moving at `velocity`: its displacement turned with its
    /// heading since the last step, kept in world space.
    #[cfg(feature = "3d")]
    #[inline]
    fn carry_with_heading(&mut self, velocity: Vector, up: Option<Vector>) {
        let heading = direction_or_zero(velocity);
        if up.is_none() && self.frame == WanderFrame::Heading && heading != Vector::ZERO {
            self.displacement = self.displacement_direction_in(velocity, None);
            self.carried_heading = heading;
        }
    }

    /// The circle method's change of angle (in 3D, of a flyer's displacement: `in_plane` false)
    /// after a step of `dt` seconds.
    #[inline]
    pub(crate) fn turn(&mut self, in_plane: bool, rng: &mut SteeringRng, dt: f32) {
        #[cfg(feature = "3d")]
        if !in_plane {
            let random = Vector::new(rng.random(), rng.random(), rng.random());
            self.displacement =
                next_wander_displacement(self.displacement, self.angle_change, random, dt);
            return;
        }
        let _ = in_plane;
        self.angle = next_wander_angle(self.angle, self.angle_change, rng.random(), dt);
    }

    /// Whether this is the circle method with the angle in the world frame, the case the wander
    /// system steps four agents at a time.
    #[cfg(feature = "2d")]
    pub(crate) fn is_world_circle(&self) -> bool {
        matches!(self.method, WanderMethod::Circle) && self.frame == WanderFrame::World
    }
}

/// The wander force by the circle method: the circle's centre, `circle_distance` ahead along the
/// velocity, plus the displacement, `circle_radius` long along `displacement_direction`.
///
/// An agent at rest has no "ahead": its circle is centred on it, so the displacement alone starts it
/// moving.
#[inline]
pub fn wander_circle(
    velocity: Vector,
    circle_distance: f32,
    circle_radius: f32,
    displacement_direction: Vector,
) -> Vector {
    direction_or_zero(velocity) * circle_distance + displacement_direction * circle_radius
}

/// A point of `area` from two numbers in `[0, 1)`: where the random-target wander places its target.
#[cfg(feature = "2d")]
pub fn point_in_area(area: Rect, random_x: f32, random_y: f32) -> Vector {
    area.min + area.size() * Vector::new(random_x, random_y)
}

/// A point of `area` from three numbers in `[0, 1)`: where the random-target wander places its
/// target.
#[cfg(feature = "3d")]
pub fn point_in_area(area: WanderArea, random: Vector) -> Vector {
    Vector::from(area.min) + Vector::from(area.max - area.min) * random
}

/// A random point of `area`, drawn from `rng`.
fn random_point_in(area: WanderArea, rng: &mut SteeringRng) -> Vector {
    #[cfg(feature = "2d")]
    return point_in_area(area, rng.random(), rng.random());
    #[cfg(feature = "3d")]
    return point_in_area(area, Vector::new(rng.random(), rng.random(), rng.random()));
}

impl BehaviourKind {
    /// [`Wander`].
    pub const WANDER: Self = Self::new("wander");
}

/// Adds every wanderer's weighted wander force and moves its random state on by one step, except for
/// wanderers whose weight is zero.
pub fn apply_wander(
    time: Res<Time>,
    mut agents: Query<(
        Entity,
        &mut Wander,
        &mut SteeringRng,
        &Transform,
        &Velocity,
        &MaxSpeed,
        &mut Steering,
        &mut ReportedProblems,
        BudgetColumns,
        PlaneColumn,
    )>,
    mut logged_not_dense: Local<bool>,
) {
    let dt = time.delta_secs();
    let Ok(tables) = agents.contiguous_iter_mut() else {
        return log_not_dense(&mut logged_not_dense, "wander");
    };
    let mut tables: Vec<_> = tables.collect();
    let mut jobs = Vec::new();
    for (
        table,
        (_, wanders, rngs, transforms, velocities, max_speeds, steering, problems, budgets, planes),
    ) in tables.iter_mut().enumerate()
    {
        let columns = AgentColumns::new(transforms, velocities, max_speeds, problems, *budgets);
        // Steering, the random state and the wander angle are the plugin's own per-step scratch:
        // marking them changed every step would tell no system anything.
        let wanders = wanders.bypass_change_detection();
        let rngs = rngs.bypass_change_detection();
        let per_job = agents_per_job(wanders.len(), MIN_AGENTS_PER_JOB);
        for ((rows, wanders), (rngs, steering)) in chunked(table, per_job, wanders).zip(
            rngs.chunks_mut(per_job)
                .zip(steering.bypass_change_detection().chunks_mut(per_job)),
        ) {
            let range = rows.range();
            jobs.push((
                rows,
                wanders,
                rngs,
                columns.rows(range.clone()),
                steering,
                planes.of_rows(range),
            ));
        }
    }
    let findings = run_jobs(
        jobs,
        |(rows, wanders, rngs, columns, steering, planes), found| {
            for (start, group) in groups(rows.len) {
                #[cfg(feature = "3d")]
                let on_lanes: Option<VectorLanes> = None;
                #[cfg(feature = "2d")]
                let on_lanes = (group.len() == LANES
                    && wanders[group.clone()].iter().all(Wander::is_world_circle))
                .then(|| {
                    lanes::wander_circle_lanes(
                        VectorLanes::from_fn(|lane| columns.velocities[start + lane].0),
                        [
                            lanes_of(wanders, start, |wander| wander.circle_distance),
                            lanes_of(wanders, start, |wander| wander.circle_radius),
                            lanes_of(wanders, start, |wander| wander.angle),
                        ],
                    )
                })
                .flatten();
                for row in group {
                    let wander = &mut wanders[row];
                    if !wander.active() {
                        continue;
                    }
                    let up = planes.up(row);
                    let force = match on_lanes {
                        Some(forces) => {
                            wander.turn(false, &mut rngs[row], dt);
                            forces.lane(row - start)
                        }
                        None => wander.step_in(&columns.boid(row), up, &mut rngs[row], dt),
                    };
                    let agent = columns.agent(rows, row);
                    let weighted = Ok(force * wander.weight);
                    settle(
                        weighted,
                        BehaviourKind::WANDER,
                        &mut steering[row],
                        agent,
                        found,
                    );
                }
            }
        },
    );
    for finding in findings {
        let (entities, .., problems, _, _) = &mut tables[finding.table];
        record(problems, entities[finding.row], finding);
    }
}

fn wander_forces(world: &mut World, forces: &mut Vec<(Vector, Vector)>) {
    let mut agents = world.query::<(&Wander, &Transform, &Velocity, &MaxSpeed)>();
    for (wander, transform, velocity, max_speed) in agents.query(world) {
        if wander.active() {
            let agent = boid(transform, velocity, max_speed);
            forces.push((agent.position, wander.force(&agent) * wander.weight));
        }
    }
}

/// Registers [`Wander`], stepped by [`apply_wander`] (four wanderers at a time where it can).
pub(crate) fn plugin(app: &mut App) {
    app.register_type::<Wander>()
        .register_type::<WanderFrame>()
        .register_type::<WanderMethod>();
    register_behaviour(
        app,
        BehaviourKind::WANDER,
        [TypeId::of::<Wander>(); 2],
        (wander_forces, None),
        apply_wander,
    );
}

#[cfg(all(test, feature = "2d"))]
mod tests {
    use super::*;
    use crate::test_support::{assert_close, v};

    #[test]
    fn random_target_point_lies_in_the_area() {
        let area = Rect::new(-10.0, 0.0, 30.0, 20.0);
        assert_close(point_in_area(area, 0.0, 0.0), v(-10.0, 0.0));
        assert_close(point_in_area(area, 0.5, 0.25), v(10.0, 5.0));
    }
}
