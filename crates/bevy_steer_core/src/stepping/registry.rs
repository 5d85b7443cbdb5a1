//! The registry of behaviours: which are registered in the app, in what order their forces are
//! added, and the slots that order their systems in [`SteeringSystems::Behaviours`].

use core::any::TypeId;

use bevy::ecs::component::StorageType;
use bevy::ecs::system::ScheduleSystem;
use bevy::prelude::*;

use super::shared_walk::NeighbourGroup;
use crate::math::Vector;
use crate::problems::BehaviourKind;
use crate::schedule::{SteeringSchedule, SteeringSystems};

/// The behaviours registered in the app, in the order their forces are added: the built-in ones,
/// then those added with
/// [`SteeringAppExt::add_steering_behaviour`](crate::plugin::SteeringAppExt::add_steering_behaviour).
#[derive(Resource, Default)]
pub struct SteeringBehaviours {
    registered: Vec<RegisteredBehaviour>,
    /// The runs of neighbour behaviours that share a walk of their marker's index.
    pub(crate) neighbour_groups: Vec<NeighbourGroup>,
}

/// One registered behaviour.
pub struct RegisteredBehaviour {
    kind: BehaviourKind,
    component: TypeId,
    registration: TypeId,
    weighted_forces: WeightedForces,
    neighbourhoods: Option<Neighbourhoods>,
}

/// Collects `(agent position, weighted force)` for every agent whose behaviour is active, as the
/// behaviour's system would add it now.
pub type WeightedForces = fn(&mut World, &mut Vec<(Vector, Vector)>);

/// Collects `(agent position, radius)` for every agent whose neighbour behaviour is active.
pub type Neighbourhoods = fn(&mut World, &mut Vec<(Vector, f32)>);

impl SteeringBehaviours {
    /// The registered behaviours, in the order their forces are added.
    pub fn iter(&self) -> impl Iterator<Item = &RegisteredBehaviour> {
        self.registered.iter()
    }

    /// The registered behaviours' kinds, in the order their forces are added (a neighbour
    /// behaviour registered for several markers appears once per marker).
    pub fn kinds(&self) -> impl Iterator<Item = BehaviourKind> + '_ {
        self.iter().map(RegisteredBehaviour::kind)
    }
}

impl RegisteredBehaviour {
    /// Which behaviour this is.
    pub fn kind(&self) -> BehaviourKind {
        self.kind
    }

    /// Collects `(agent position, weighted force)` for every agent whose behaviour is active: what
    /// the debug gizmos draw.
    pub fn weighted_forces(&self, world: &mut World, forces: &mut Vec<(Vector, Vector)>) {
        (self.weighted_forces)(world, forces);
    }

    /// For a neighbour behaviour, collects `(agent position, radius)` for every agent on which it
    /// is active, and returns `true`; for another behaviour, returns `false`.
    pub fn neighbourhoods(&self, world: &mut World, radii: &mut Vec<(Vector, f32)>) -> bool {
        self.neighbourhoods
            .map(|neighbourhoods| neighbourhoods(world, radii))
            .is_some()
    }
}

/// Orders the behaviour systems: slot `n` runs after slot `n - 1`.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BehaviourSlot(usize);

impl BehaviourSlot {
    /// The slot after this one.
    pub(crate) fn next(self) -> Self {
        Self(self.0 + 1)
    }
}

/// Registers a behaviour's kind and adds its system after the previously registered one; does
/// nothing when the same registration was made before (see [`register_kind`]).
pub(crate) fn register_behaviour<M>(
    app: &mut App,
    kind: BehaviourKind,
    ids: [TypeId; 2],
    forces: (WeightedForces, Option<Neighbourhoods>),
    system: impl IntoScheduleConfigs<ScheduleSystem, M>,
) {
    if let Some(slot) = register_kind(app, kind, ids, forces) {
        app.add_systems(SteeringSchedule, system.in_set(slot));
    }
}

/// Registers a behaviour's kind and gives it a slot after the previously registered one, for the
/// system that steps it; `None` when the same registration was made before. `ids` are the
/// behaviour component's type and the registration's own (they differ for a neighbour behaviour,
/// registered once per marker).
///
/// # Panics
///
/// When [`SteeringPlugin`](crate::SteeringPlugin) was not added first, or another behaviour has the same name: both are
/// mistakes in the app's set-up that would otherwise leave behaviours silently unstepped.
pub(crate) fn register_kind(
    app: &mut App,
    kind: BehaviourKind,
    [component, registration]: [TypeId; 2],
    (weighted_forces, neighbourhoods): (WeightedForces, Option<Neighbourhoods>),
) -> Option<BehaviourSlot> {
    let Some(mut behaviours) = app.world_mut().get_resource_mut::<SteeringBehaviours>() else {
        panic!(
            "bevy_steer: the behaviour \"{kind}\" was registered before SteeringPlugin was \
             added; add SteeringPlugin first"
        );
    };
    if behaviours
        .iter()
        .any(|registered| registered.registration == registration)
    {
        return None;
    }
    assert!(
        behaviours
            .iter()
            .all(|registered| registered.kind != kind || registered.component == component),
        "bevy_steer: two behaviours are named \"{kind}\"; give each one a NAME of its own"
    );
    let slot = behaviours.registered.len();
    behaviours.registered.push(RegisteredBehaviour {
        kind,
        component,
        registration,
        weighted_forces,
        neighbourhoods,
    });
    let slot_set = BehaviourSlot(slot).in_set(SteeringSystems::Behaviours);
    if slot == 0 {
        app.configure_sets(SteeringSchedule, slot_set);
    } else {
        app.configure_sets(SteeringSchedule, slot_set.after(BehaviourSlot(slot - 1)));
    }
    Some(BehaviourSlot(slot))
}

/// Stops the build when behaviour `B` is stored as a sparse set: the behaviour systems step agents
/// table by table. Called in a `const` block, so the mistake is found when the app is built.
pub(crate) const fn assert_table_storage<B: Component>() {
    assert!(
        matches!(B::STORAGE_TYPE, StorageType::Table),
        "a steering behaviour must use table storage (the default), not SparseSet: the behaviour \
         systems step agents table by table"
    );
}
