//! What behaviours aim at: a point or an entity ([`Target`]), where a target entity is and how
//! it moves ([`TargetState`]), and why a behaviour has no force this step ([`NoTarget`]).

use bevy::ecs::entity::{EntityMapper, MapEntities};
use bevy::prelude::*;

use crate::math::Vector;

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

/// What [`Seek`](crate::behaviours::Seek) and [`Flee`](crate::behaviours::Flee) aim at.
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
