//! The [`NeighbourBehaviour`] trait and the stepping its implementations share: each agent's
//! neighbours found in a [`SpatialIndex`], within the behaviour's radius and field of view.

use core::any::TypeId;

use bevy::ecs::component::Mutable;
use bevy::prelude::*;

use super::behaviour::{BehaviourAgents, step_agents};
use super::columns::boid;
use super::jobs::MIN_QUERYING_AGENTS_PER_JOB;
use super::registry::{BehaviourSlot, assert_table_storage, register_kind};
use super::shared_walk::add_to_group;
use crate::components::{MaxSpeed, Velocity};
use crate::formulas::{Boid, half_angle_cos, in_field_of_view};
use crate::math::{Vector, direction_or_zero, position_of};
use crate::problems::BehaviourKind;
use crate::spatial::{Neighbour, Neighbours, SpatialIndex};
use crate::targets::NoTarget;

/// A behaviour that steers by the agent's neighbours (flocking): a component whose force the
/// plugin computes from the agents within [`radius`](Self::radius) and
/// [`field_of_view`](Self::field_of_view), once registered with
/// [`add_neighbour_behaviour`](crate::plugin::SteeringAppExt::add_neighbour_behaviour) for a
/// marker: its neighbours are the other agents with that marker, found through the marker's
/// [`SpatialIndex`](crate::spatial::SpatialIndex).
///
/// Stepping, weights, the switch, bad input and gizmos are shared with the other behaviours, as for
/// [`SteeringBehaviour`](super::SteeringBehaviour). A radius that is zero, negative or not finite gives no force and is
/// reported once as [`Problem::InvalidRadius`](crate::problems::Problem::InvalidRadius).
pub trait NeighbourBehaviour: Component<Mutability = Mutable> {
    /// The behaviour's name (see [`SteeringBehaviour::NAME`](super::SteeringBehaviour::NAME)).
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

impl BehaviourKind {
    /// The kind of neighbour behaviour `B`.
    pub const fn of_neighbour<B: NeighbourBehaviour>() -> Self {
        Self::new(B::NAME)
    }
}

/// Per-job scratch lists of the neighbour behaviours, reused from agent to agent.
#[derive(Default)]
pub(crate) struct NeighbourScratch {
    /// The other agents within the reach walked, in the index's order.
    candidates: Vec<Neighbour>,
    /// The square of that reach.
    reach_squared: f32,
    /// Those of the candidates one behaviour sees.
    neighbours: Vec<Neighbour>,
}

impl NeighbourScratch {
    /// Walks `index` within `reach` of `agent` (whose entity is `entity`, left out), keeping what
    /// it finds as the candidates.
    pub(crate) fn walk<M>(
        &mut self,
        index: &SpatialIndex<M>,
        agent: &Boid,
        entity: Entity,
        reach: f32,
    ) {
        self.candidates.clear();
        self.reach_squared = reach * reach;
        index.for_each_within(agent.position, reach, |neighbour| {
            if neighbour.entity != entity {
                self.candidates.push(neighbour);
            }
        });
    }

    /// The weighted force of `behaviour` from the candidates within its radius and field of view.
    /// The radius test is the index's own, so a walk over a wider reach gives the very neighbours,
    /// in the same order, that a walk over the behaviour's radius would.
    pub(crate) fn force<B: NeighbourBehaviour>(
        &mut self,
        behaviour: &B,
        agent: &Boid,
    ) -> Result<Vector, NoTarget> {
        let radius = neighbourhood_radius(behaviour)?;
        let radius_squared = radius * radius;
        let fov_cos = half_angle_cos(behaviour.field_of_view());
        if radius_squared >= self.reach_squared && fov_cos <= -1.0 {
            // Every candidate is a neighbour (the same test passed them): no copy.
            return Ok(behaviour.force(agent, &self.candidates) * behaviour.weight());
        }
        let heading = direction_or_zero(agent.velocity);
        self.neighbours.clear();
        self.neighbours
            .extend(self.candidates.iter().filter(|neighbour| {
                neighbour.position.distance_squared(agent.position) <= radius_squared
                    && in_field_of_view(agent.position, heading, fov_cos, neighbour.position)
            }));
        Ok(behaviour.force(agent, &self.neighbours) * behaviour.weight())
    }
}

/// The radius of `behaviour` when it can hold neighbours (see [`holds_neighbours`]).
pub(crate) fn neighbourhood_radius<B: NeighbourBehaviour>(behaviour: &B) -> Result<f32, NoTarget> {
    let radius = behaviour.radius();
    if holds_neighbours(radius) {
        Ok(radius)
    } else {
        Err(NoTarget::InvalidRadius)
    }
}

/// Whether a neighbourhood of `radius` can hold neighbours: a positive finite number.
#[inline]
pub(crate) fn holds_neighbours(radius: f32) -> bool {
    radius > 0.0 && radius.is_finite()
}

/// The weighted force of neighbour behaviour `behaviour` on `agent` (whose entity is `entity`) from
/// its neighbours in `index`: those within its radius and field of view, in the index's order.
/// (Whether the behaviour is on is the caller's to check.)
pub(crate) fn weighted_neighbour_force<B: NeighbourBehaviour, M>(
    index: &SpatialIndex<M>,
    behaviour: &B,
    agent: &Boid,
    entity: Entity,
    scratch: &mut NeighbourScratch,
) -> Result<Vector, NoTarget> {
    scratch.walk(index, agent, entity, neighbourhood_radius(behaviour)?);
    scratch.force(behaviour, agent)
}

/// Adds the weighted force of neighbour behaviour `B` for every agent with marker `M` on which it
/// is active, from its neighbours in [`SpatialIndex<M>`], walking the index for `B` alone: the
/// forces that [`add_neighbour_behaviour`](crate::plugin::SteeringAppExt::add_neighbour_behaviour)
/// adds, to the bit, where it steps the behaviours registered for `M` one after another with one
/// walk per agent for all of them.
///
/// The neighbours are those within the behaviour's radius and field of view, the agent itself left
/// out, in the index's order, which does not depend on threads.
pub fn apply_neighbour_behaviour<B: NeighbourBehaviour, M: Component>(
    index: Neighbours<M>,
    mut agents: BehaviourAgents<B, With<M>>,
    mut logged_not_dense: Local<bool>,
) {
    if let Some(index) = index.index() {
        step_neighbour_behaviour(index, &mut agents, &mut logged_not_dense);
    }
}

/// The body of [`apply_neighbour_behaviour`]: also how the shared walk steps a run of one
/// behaviour, through the behaviour's own column.
pub(crate) fn step_neighbour_behaviour<B: NeighbourBehaviour, M: Component>(
    index: &SpatialIndex<M>,
    agents: &mut BehaviourAgents<B, With<M>>,
    logged_not_dense: &mut bool,
) {
    step_agents(
        agents,
        logged_not_dense,
        BehaviourKind::of_neighbour::<B>(),
        MIN_QUERYING_AGENTS_PER_JOB,
        B::active,
        |behaviour, agent, entity, scratch| {
            weighted_neighbour_force(index, behaviour, agent, entity, scratch)
        },
        |_, _, _| {},
    );
}

/// Registers neighbour behaviour `B` for marker `M` (see [`register_kind`]).
pub(crate) fn register_neighbour_kind<B: NeighbourBehaviour, M: Component>(
    app: &mut App,
) -> Option<BehaviourSlot> {
    const { assert_table_storage::<B>() };
    register_kind(
        app,
        BehaviourKind::of_neighbour::<B>(),
        [TypeId::of::<B>(), TypeId::of::<(B, M)>()],
        (neighbour_forces::<B, M>, Some(neighbourhoods::<B, M>)),
    )
}

/// Steps neighbour behaviour `B` for marker `M` with the neighbour behaviours registered for `M`
/// just before it, sharing their walk (see [`shared_walk`](super::shared_walk)), in `slot` if it
/// was newly registered.
pub(crate) fn add_neighbour_system<B: NeighbourBehaviour, M: Component>(
    app: &mut App,
    slot: Option<BehaviourSlot>,
) {
    if let Some(slot) = slot {
        add_to_group::<B, M>(app, slot);
    }
}

/// Registers neighbour behaviour `B` for marker `M`: what
/// [`add_neighbour_behaviour`](crate::plugin::SteeringAppExt::add_neighbour_behaviour) does.
pub(crate) fn register_neighbour_behaviour<B: NeighbourBehaviour, M: Component>(app: &mut App) {
    let slot = register_neighbour_kind::<B, M>(app);
    add_neighbour_system::<B, M>(app, slot);
}

fn neighbourhoods<B: NeighbourBehaviour, M: Component>(
    world: &mut World,
    radii: &mut Vec<(Vector, f32)>,
) {
    let mut agents = world.query_filtered::<(&B, &Transform), With<M>>();
    for (behaviour, transform) in agents.query(world) {
        if behaviour.active() {
            radii.push((position_of(transform), behaviour.radius()));
        }
    }
}

fn neighbour_forces<B: NeighbourBehaviour, M: Component>(
    world: &mut World,
    forces: &mut Vec<(Vector, Vector)>,
) {
    let mut agents =
        world.query_filtered::<(Entity, &B, &Transform, &Velocity, &MaxSpeed), With<M>>();
    let Some(index) = world.get_resource::<SpatialIndex<M>>() else {
        return;
    };
    let mut scratch = NeighbourScratch::default();
    for (entity, behaviour, transform, velocity, max_speed) in agents.query(world) {
        let agent = boid(transform, velocity, max_speed);
        if behaviour.active()
            && let Ok(force) =
                weighted_neighbour_force(index, behaviour, &agent, entity, &mut scratch)
        {
            forces.push((agent.position, force));
        }
    }
}
