//! Behaviour components: each one makes its system add a weighted force into
//! [`Steering`](crate::components::Steering).
//!
//! Every behaviour requires `Steering`, which brings the rest of an agent, so spawning
//! `(Transform::from_xyz(x, y, 0.0), Wander::default())` makes a working wanderer. Several behaviours
//! on one entity add up (the movement manager): `Seek` and `Flee` together seek one point while
//! fleeing another. Each has a `weight` (default `1.0`) to blend them; a negative weight reverses the
//! behaviour. A weight of exactly zero switches the behaviour off for that step without changing
//! the entity's archetype: its force is not computed, its target is not looked up (so a missing
//! target is not reported) and [`Wander`]'s random state does not move on.

use bevy::prelude::*;
use rand::RngExt;

use crate::components::Steering;
use crate::forces::{self, Boid};
use crate::problems::BehaviourKind;
use crate::rng::SteeringRng;

/// Where a target entity is and how it moves, as the behaviours see it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TargetState {
    /// The target's `Transform` translation.
    pub position: Vec2,
    /// The target's `Velocity`, or zero when it has none.
    pub velocity: Vec2,
}

/// Why a behaviour has no force this step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoTarget {
    /// The target is `Entity::PLACEHOLDER`: the behaviour is idle on purpose.
    Unset,
    /// The target entity does not exist (or has no `Transform`).
    Missing,
    /// The target's position or velocity is not finite.
    NonFinite,
}

fn finite(state: TargetState) -> Result<TargetState, NoTarget> {
    if state.position.is_finite() && state.velocity.is_finite() {
        Ok(state)
    } else {
        Err(NoTarget::NonFinite)
    }
}

/// A behaviour that steers toward or away from a target, computed by one shared system.
///
/// Implemented by [`Seek`], [`Flee`], [`Pursue`] and [`Evade`]; the debug gizmos call
/// [`force`](Self::force) too, so what is drawn is what is applied.
pub trait TargetedBehaviour: Component {
    /// Which behaviour this is (for ordering, warnings and colours).
    const KIND: BehaviourKind;

    /// Factor on the force.
    fn weight(&self) -> f32;

    /// The unweighted force on `boid`, looking target entities up with `lookup`.
    fn force(
        &self,
        boid: &Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vec2, NoTarget>;
}

fn target_state(
    entity: Entity,
    lookup: impl Fn(Entity) -> Option<TargetState>,
) -> Result<TargetState, NoTarget> {
    if entity == Entity::PLACEHOLDER {
        return Err(NoTarget::Unset);
    }
    lookup(entity).ok_or(NoTarget::Missing).and_then(finite)
}

/// What [`Seek`] and [`Flee`] aim at.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Default, Debug, PartialEq, Clone)]
pub enum Target {
    /// A fixed point in world space.
    Point(Vec2),
    /// Another entity's current `Transform` translation. A despawned entity gives no force and a
    /// warning once ([`Problem::MissingTarget`](crate::problems::Problem::MissingTarget)).
    Entity(Entity),
}

impl Default for Target {
    fn default() -> Self {
        Self::Point(Vec2::ZERO)
    }
}

impl Target {
    /// The point this target is at now.
    pub fn position(
        self,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vec2, NoTarget> {
        match self {
            Self::Point(point) => finite(TargetState {
                position: point,
                velocity: Vec2::ZERO,
            }),
            Self::Entity(entity) => target_state(entity, lookup),
        }
        .map(|state| state.position)
    }
}

impl From<Vec2> for Target {
    fn from(point: Vec2) -> Self {
        Self::Point(point)
    }
}

impl From<Entity> for Target {
    fn from(entity: Entity) -> Self {
        Self::Entity(entity)
    }
}

/// Seek a target, slowing down inside `slowing_radius` to arrive at rest (seek with arrival).
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct Seek {
    /// Where to go.
    pub target: Target,
    /// Inside this distance of the target the desired speed falls linearly to zero. `0.0` is plain
    /// seek, which overshoots and comes back. Default `100.0`.
    pub slowing_radius: f32,
    /// Factor on the force. Default `1.0`.
    pub weight: f32,
}

impl Default for Seek {
    fn default() -> Self {
        Self::new(Target::default())
    }
}

impl Seek {
    /// Seek `target` (a `Vec2` point or an `Entity`) with the default slowing radius.
    pub fn new(target: impl Into<Target>) -> Self {
        Self {
            target: target.into(),
            slowing_radius: 100.0,
            weight: 1.0,
        }
    }

    /// Sets the slowing radius.
    pub fn with_slowing_radius(mut self, slowing_radius: f32) -> Self {
        self.slowing_radius = slowing_radius;
        self
    }

    /// Sets the weight.
    pub fn with_weight(mut self, weight: f32) -> Self {
        self.weight = weight;
        self
    }
}

impl TargetedBehaviour for Seek {
    const KIND: BehaviourKind = BehaviourKind::Seek;

    fn weight(&self) -> f32 {
        self.weight
    }

    fn force(
        &self,
        boid: &Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vec2, NoTarget> {
        let target = self.target.position(lookup)?;
        Ok(forces::seek(boid, target, self.slowing_radius))
    }
}

/// Flee a target: full speed directly away from it.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct Flee {
    /// What to run from.
    pub target: Target,
    /// Factor on the force. Default `1.0`.
    pub weight: f32,
}

impl Default for Flee {
    fn default() -> Self {
        Self::new(Target::default())
    }
}

impl Flee {
    /// Flee `target` (a `Vec2` point or an `Entity`).
    pub fn new(target: impl Into<Target>) -> Self {
        Self {
            target: target.into(),
            weight: 1.0,
        }
    }

    /// Sets the weight.
    pub fn with_weight(mut self, weight: f32) -> Self {
        self.weight = weight;
        self
    }
}

impl TargetedBehaviour for Flee {
    const KIND: BehaviourKind = BehaviourKind::Flee;

    fn weight(&self) -> f32 {
        self.weight
    }

    fn force(
        &self,
        boid: &Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vec2, NoTarget> {
        let threat = self.target.position(lookup)?;
        Ok(forces::flee(boid, threat))
    }
}

/// Pursue an entity: seek where it will be, predicted from its `Velocity` (a target without one is
/// pursued where it stands).
///
/// `Entity::PLACEHOLDER` (the default) means no target: no force and no warning.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct Pursue {
    /// The entity to catch.
    pub target: Entity,
    /// Factor on the force. Default `1.0`.
    pub weight: f32,
}

impl Default for Pursue {
    fn default() -> Self {
        Self::new(Entity::PLACEHOLDER)
    }
}

impl Pursue {
    /// Pursue `target`.
    pub fn new(target: Entity) -> Self {
        Self {
            target,
            weight: 1.0,
        }
    }

    /// Sets the weight.
    pub fn with_weight(mut self, weight: f32) -> Self {
        self.weight = weight;
        self
    }
}

impl TargetedBehaviour for Pursue {
    const KIND: BehaviourKind = BehaviourKind::Pursue;

    fn weight(&self) -> f32 {
        self.weight
    }

    fn force(
        &self,
        boid: &Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vec2, NoTarget> {
        let target = target_state(self.target, lookup)?;
        Ok(forces::pursue(boid, target.position, target.velocity))
    }
}

/// Evade an entity: flee where it will be, predicted from its `Velocity` (a pursuer without one is
/// fled where it stands).
///
/// `Entity::PLACEHOLDER` (the default) means no pursuer: no force and no warning.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct Evade {
    /// The entity to escape.
    pub target: Entity,
    /// Factor on the force. Default `1.0`.
    pub weight: f32,
}

impl Default for Evade {
    fn default() -> Self {
        Self::new(Entity::PLACEHOLDER)
    }
}

impl Evade {
    /// Evade `target`.
    pub fn new(target: Entity) -> Self {
        Self {
            target,
            weight: 1.0,
        }
    }

    /// Sets the weight.
    pub fn with_weight(mut self, weight: f32) -> Self {
        self.weight = weight;
        self
    }
}

impl TargetedBehaviour for Evade {
    const KIND: BehaviourKind = BehaviourKind::Evade;

    fn weight(&self) -> f32 {
        self.weight
    }

    fn force(
        &self,
        boid: &Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vec2, NoTarget> {
        let pursuer = target_state(self.target, lookup)?;
        Ok(forces::evade(boid, pursuer.position, pursuer.velocity))
    }
}

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
    pub circle_distance: f32,
    /// Radius of the circle (a force magnitude). Default `180.0`.
    pub circle_radius: f32,
    /// Largest total swing of the angle per tutorial frame, in radians. Default `1.0`.
    pub angle_change: f32,
    /// The current wander angle, in radians, in `[-PI, PI)`.
    pub angle: f32,
    /// Which way `angle` is measured.
    pub frame: WanderFrame,
    /// Circle (default) or random target.
    pub method: WanderMethod,
    /// Factor on the force. Default `1.0`.
    pub weight: f32,
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

    /// Sets the weight.
    pub fn with_weight(mut self, weight: f32) -> Self {
        self.weight = weight;
        self
    }
}

impl Wander {
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
