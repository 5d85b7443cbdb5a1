//! Behaviour components, one file each: each makes its system add a weighted force into
//! [`Steering`](crate::components::Steering).
//!
//! Every behaviour requires `Steering`, which brings the rest of an agent, so spawning
//! `(Transform::from_xyz(x, y, 0.0), Wander::default())` makes a working wanderer. Several behaviours
//! on one entity add up (the movement manager): `Seek` and `Flee` together seek one point while
//! fleeing another. Each has a `weight` (default `1.0`) to blend them; a negative weight reverses the
//! behaviour. Each has an `enabled` switch (default `true`): a behaviour that is disabled, or whose
//! weight is exactly zero, is off for that step without changing the entity's archetype and without
//! losing its tuning: its force is not computed, its target is not looked up (so a missing target
//! is not reported) and [`Wander`]'s random state does not move on.
//!
//! A behaviour with no target (`None`, every targeted behaviour's default) idles: no force, no
//! warning.
//!
//! Your own behaviours implement [`SteeringBehaviour`] and are registered with
//! [`SteeringAppExt::add_steering_behaviour`](crate::plugin::SteeringAppExt::add_steering_behaviour):
//! they get the same parallel stepping, weights, switches, bad-input checks, events and gizmos as
//! the built-in ones.

mod alignment;
mod avoid_obstacles;
mod cohesion;
mod containment;
mod evade;
mod flee;
mod follow_leader;
mod follow_path;
mod pursue;
mod queue;
mod seek;
mod separation;
mod wander;

pub use alignment::Alignment;
pub(crate) use avoid_obstacles::avoid_obstacles_forces;
pub use avoid_obstacles::{AvoidObstacles, Threat, apply_avoid_obstacles};
pub use cohesion::Cohesion;
pub use containment::Containment;
pub use evade::Evade;
pub use flee::Flee;
pub use follow_leader::FollowLeader;
pub use follow_path::{FollowPath, Path, PathMethod, PathMode, advance_paths};
pub use pursue::Pursue;
pub use queue::{Queue, apply_queue};
pub(crate) use seek::ArrivalState;
pub use seek::Seek;
pub use separation::{Separation, SeparationMethod};
pub use wander::{Wander, WanderFrame, WanderMethod};

use bevy::ecs::component::Mutable;
use bevy::ecs::entity::{EntityMapper, MapEntities};
use bevy::prelude::*;

use crate::Vector;
use crate::forces::Boid;
use crate::spatial::Neighbour;

/// A steering behaviour: a component whose force the plugin adds into
/// [`Steering`](crate::components::Steering) each step, once registered with
/// [`add_steering_behaviour`](crate::plugin::SteeringAppExt::add_steering_behaviour).
///
/// Implement [`force`](Self::force) as a pure function of the agent and its targets; the plugin
/// does the rest: agents are stepped in parallel, table slice by table slice, in a fixed order among
/// the behaviours (registration order) so runs are reproducible; the force is multiplied by
/// [`weight`](Self::weight) and skipped when the behaviour is not [`active`](Self::active); a
/// non-finite force is dropped and reported as [`Problem::NonFiniteForce`]; a target that is gone
/// is reported, [forgotten](Self::forget_target) and announced with
/// [`TargetLost`](crate::events::TargetLost); the debug gizmos draw the force in a colour of its
/// own.
///
/// The component must use table storage (the default): registering one declared with
/// `#[component(storage = "SparseSet")]` does not compile.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_steer_core::forces::{self, Boid};
/// use bevy_steer_core::prelude::*;
///
/// /// Circle a point at a distance.
/// #[derive(Component)]
/// #[require(Steering)]
/// struct Orbit {
///     centre: Vec2,
///     radius: f32,
/// }
///
/// impl SteeringBehaviour for Orbit {
///     const NAME: &'static str = "orbit";
///
///     fn force(&self, agent: &Boid, _: impl Fn(Entity) -> Option<TargetState>) -> Result<Vec2, NoTarget> {
///         let out = (agent.position - self.centre).normalize_or_zero();
///         let on_circle = self.centre + out * self.radius;
///         // Seek a point a little ahead along the circle.
///         Ok(forces::seek(agent, on_circle + out.perp() * 40.0, 0.0))
///     }
///
///     // No entity target to forget.
///     fn forget_target(&mut self) {}
/// }
///
/// App::new()
///     .add_plugins((MinimalPlugins, SteeringPlugin::default()))
///     .add_steering_behaviour::<Orbit>();
/// ```
///
/// [`Problem::NonFiniteForce`]: crate::problems::Problem::NonFiniteForce
pub trait SteeringBehaviour: Component<Mutability = Mutable> {
    /// The behaviour's name, in warnings, [`BehaviourKind`](crate::problems::BehaviourKind) and
    /// the gizmos' colour table. Unique among an app's behaviours.
    const NAME: &'static str;

    /// Factor on the force. Default `1.0`.
    fn weight(&self) -> f32 {
        1.0
    }

    /// Whether the behaviour is switched on. Default `true`.
    fn enabled(&self) -> bool {
        true
    }

    /// Whether the behaviour acts this step: enabled with a weight other than zero.
    fn active(&self) -> bool {
        self.enabled() && self.weight() != 0.0
    }

    /// The unweighted force on `agent`, looking target entities up with `lookup` (best through
    /// [`target_state`]). `Err` means no force this step, and says why.
    fn force(
        &self,
        agent: &Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vector, NoTarget>;

    /// Called once when the target entity [`force`](Self::force) reported as
    /// [`NoTarget::Missing`] is gone: drop it (the built-in behaviours set their target to `None`),
    /// so that the behaviour idles until it is given a new one instead of losing the same target
    /// again every step. A behaviour with no entity target leaves the body empty.
    fn forget_target(&mut self);
}

/// A behaviour that steers by the agent's neighbours (flocking): a component whose force the
/// plugin computes from the agents within [`radius`](Self::radius) and
/// [`field_of_view`](Self::field_of_view), once registered with
/// [`add_neighbour_behaviour`](crate::plugin::SteeringAppExt::add_neighbour_behaviour) for a
/// marker: its neighbours are the other agents with that marker, found through the marker's
/// [`SpatialIndex`](crate::spatial::SpatialIndex).
///
/// Stepping, weights, the switch, bad input and gizmos are shared with the other behaviours, as for
/// [`SteeringBehaviour`]. A radius that is zero, negative or not finite gives no force and is
/// reported once as [`Problem::InvalidRadius`](crate::problems::Problem::InvalidRadius).
pub trait NeighbourBehaviour: Component<Mutability = Mutable> {
    /// The behaviour's name (see [`SteeringBehaviour::NAME`]).
    const NAME: &'static str;

    /// Factor on the force. Default `1.0`.
    fn weight(&self) -> f32 {
        1.0
    }

    /// Whether the behaviour is switched on. Default `true`.
    fn enabled(&self) -> bool {
        true
    }

    /// Whether the behaviour acts this step: enabled with a weight other than zero.
    fn active(&self) -> bool {
        self.enabled() && self.weight() != 0.0
    }

    /// How far away other agents count as neighbours.
    fn radius(&self) -> f32;

    /// The whole angle, in radians, in which the agent sees neighbours, centred on its heading.
    /// Default a full turn: all round.
    fn field_of_view(&self) -> f32 {
        core::f32::consts::TAU
    }

    /// The unweighted force on `agent` from `neighbours` (those in range and view, in an order
    /// that does not depend on threads).
    fn force(&self, agent: &Boid, neighbours: &[Neighbour]) -> Vector;
}

/// Where a target entity is and how it moves, as the behaviours see it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TargetState {
    /// The target's `Transform` translation.
    pub position: Vector,
    /// The target's `Velocity`, or zero when it has none.
    pub velocity: Vector,
}

/// Why a behaviour has no force this step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoTarget {
    /// The behaviour has no target (`None`): it idles on purpose.
    Unset,
    /// The target entity does not exist (or has no `Transform`).
    Missing(Entity),
    /// The target's position or velocity is not finite.
    NonFinite,
    /// A neighbour behaviour's radius is zero, negative or not finite: it has no neighbours.
    InvalidRadius,
    /// The target entity is the agent itself.
    Itself,
}

fn finite(state: TargetState) -> Result<TargetState, NoTarget> {
    if state.position.is_finite() && state.velocity.is_finite() {
        Ok(state)
    } else {
        Err(NoTarget::NonFinite)
    }
}

/// Looks `entity` up with `lookup`: `Unset` for `None`, `Missing` for an entity that is gone,
/// `NonFinite` for one whose position or velocity is not finite.
pub fn target_state(
    entity: Option<Entity>,
    lookup: impl Fn(Entity) -> Option<TargetState>,
) -> Result<TargetState, NoTarget> {
    let entity = entity.ok_or(NoTarget::Unset)?;
    lookup(entity)
        .ok_or(NoTarget::Missing(entity))
        .and_then(finite)
}

/// What [`Seek`] and [`Flee`] aim at.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, PartialEq, Clone)]
pub enum Target {
    /// A fixed point in world space.
    Point(Vector),
    /// Another entity's current `Transform` translation.
    Entity(Entity),
}

impl Target {
    /// The point this target is at now.
    pub fn position(
        self,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vector, NoTarget> {
        match self {
            Self::Point(point) => finite(TargetState {
                position: point,
                velocity: Vector::ZERO,
            }),
            Self::Entity(entity) => target_state(Some(entity), lookup),
        }
        .map(|state| state.position)
    }
}

impl MapEntities for Target {
    fn map_entities<E: EntityMapper>(&mut self, entity_mapper: &mut E) {
        if let Self::Entity(entity) = self {
            *entity = entity_mapper.get_mapped(*entity);
        }
    }
}

impl From<Vector> for Target {
    fn from(point: Vector) -> Self {
        Self::Point(point)
    }
}

impl From<Entity> for Target {
    fn from(entity: Entity) -> Self {
        Self::Entity(entity)
    }
}

/// The builders every built-in behaviour has for its `weight` and `enabled` fields.
macro_rules! weight_and_switch_builders {
    ($behaviour:ty) => {
        impl $behaviour {
            /// Sets the weight.
            pub fn with_weight(mut self, weight: f32) -> Self {
                self.weight = weight;
                self
            }

            /// Switches the behaviour on or off, keeping its weight and parameters.
            pub fn with_enabled(mut self, enabled: bool) -> Self {
                self.enabled = enabled;
                self
            }
        }
    };
}
pub(crate) use weight_and_switch_builders;

/// The builders every built-in neighbour behaviour has for its `strength` and `field_of_view`.
macro_rules! neighbourhood_builders {
    ($behaviour:ty) => {
        impl $behaviour {
            /// Sets the strength.
            pub fn with_strength(mut self, strength: f32) -> Self {
                self.strength = strength;
                self
            }

            /// Sets the field of view: the whole angle, in radians, centred on the heading.
            pub fn with_field_of_view(mut self, field_of_view: f32) -> Self {
                self.field_of_view = field_of_view;
                self
            }
        }
    };
}
pub(crate) use neighbourhood_builders;

/// The `weight` and `enabled` accessors of a behaviour trait impl, read from the fields of those
/// names.
macro_rules! weight_and_switch_accessors {
    () => {
        fn weight(&self) -> f32 {
            self.weight
        }

        fn enabled(&self) -> bool {
            self.enabled
        }
    };
}
pub(crate) use weight_and_switch_accessors;

/// The accessors of a [`NeighbourBehaviour`] impl, read from the fields of the same names.
macro_rules! neighbourhood_accessors {
    () => {
        crate::behaviours::weight_and_switch_accessors!();

        fn radius(&self) -> f32 {
            self.radius
        }

        fn field_of_view(&self) -> f32 {
            self.field_of_view
        }
    };
}
pub(crate) use neighbourhood_accessors;
