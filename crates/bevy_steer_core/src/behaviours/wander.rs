//! Wander: the circle method and the random-target method.

use bevy::prelude::*;
use rand::RngExt;

use super::weight_and_switch_builders;
use crate::components::Steering;
use crate::forces::{self, Boid};
use crate::rng::SteeringRng;
use crate::tunable::{ANGLE, Tunable, WEIGHT};

/// Which way the wander angle is measured.
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[reflect(Default, Debug, PartialEq, Hash, Clone)]
pub enum WanderFrame {
    /// From world +X, as the tutorial's `setAngle` does. The displacement keeps a world direction
    /// while the angle drifts, so turns are long and sweeping.
    #[default]
    World,
    /// From the agent's heading, as Reynolds places it: the displacement turns with the agent, so
    /// an angle near zero means "straight on" and turns stay gentle whatever the heading.
    Heading,
}

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
        area: Rect,
        /// Seconds between targets. A value that is not positive draws a new target every step.
        interval: f32,
        /// The current target.
        target: Vec2,
        /// Seconds until the next target is drawn.
        time_left: f32,
    },
}

impl WanderMethod {
    /// A random target in `area`, redrawn every `interval` seconds; the first is drawn on the first
    /// step.
    pub fn random_target(area: Rect, interval: f32) -> Self {
        Self::RandomTarget {
            area,
            interval,
            target: area.center(),
            time_left: 0.0,
        }
    }
}

/// Wander: a random walk that stays smooth.
///
/// The circle method: a circle `circle_distance` ahead along the velocity; the force points from
/// the agent to a point of the circle at `angle` (measured in [`frame`](Self::frame)); after each
/// step the angle changes by a random amount in `[-angle_change / 2, angle_change / 2]` (per
/// tutorial frame of 1/60 s; see [`next_wander_angle`](crate::forces::next_wander_angle)).
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
    /// The current wander angle, in radians, in `[-PI, PI)`.
    pub angle: f32,
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
    pub fn force(&self, boid: &Boid) -> Vec2 {
        match self.method {
            WanderMethod::Circle => forces::wander_circle(
                boid.velocity,
                self.circle_distance,
                self.circle_radius,
                self.displacement_direction(boid.velocity),
            ),
            WanderMethod::RandomTarget { target, .. } => forces::seek(boid, target, 0.0),
        }
    }

    /// The unit direction of the circle method's displacement for an agent moving at `velocity`.
    #[inline]
    pub fn displacement_direction(&self, velocity: Vec2) -> Vec2 {
        forces::wander_displacement_direction(self.angle, self.frame, velocity)
    }

    /// One step of `dt` seconds: returns the unweighted force and moves the random state on, in
    /// the tutorial's order (the circle method uses the angle, then changes it; the random-target
    /// method draws a new target when its time is up, then seeks it).
    #[inline]
    pub fn step(&mut self, boid: &Boid, rng: &mut SteeringRng, dt: f32) -> Vec2 {
        if let WanderMethod::RandomTarget {
            area,
            interval,
            target,
            time_left,
        } = &mut self.method
        {
            *time_left -= dt;
            if *time_left <= 0.0 {
                *target = forces::point_in_area(*area, rng.random(), rng.random());
                *time_left = interval.max(0.0);
            }
            return self.force(boid);
        }
        let force = self.force(boid);
        self.turn(rng, dt);
        force
    }

    /// The circle method's change of angle after a step of `dt` seconds.
    #[inline]
    pub(crate) fn turn(&mut self, rng: &mut SteeringRng, dt: f32) {
        self.angle = forces::next_wander_angle(self.angle, self.angle_change, rng.random(), dt);
    }

    /// Whether this is the circle method with the angle in the world frame, the case the wander
    /// system steps four agents at a time.
    pub(crate) fn is_world_circle(&self) -> bool {
        matches!(self.method, WanderMethod::Circle) && self.frame == WanderFrame::World
    }
}
