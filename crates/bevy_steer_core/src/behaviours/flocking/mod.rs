//! Flocking: [`Separation`], [`Alignment`] and [`Cohesion`], Reynolds' three rules, each a
//! [`NeighbourBehaviour`](crate::stepping::NeighbourBehaviour) in a file of its own, and
//! [`FlockingPlugin`], which steps the three together ([`apply_flocking`], most agents a group at a
//! time on SIMD lanes, in [`lanes`]).

mod alignment;
mod cohesion;
mod lanes;
mod separation;
mod system;

pub use alignment::{
    Alignment, AlignmentMethod, alignment, alignment_from_velocities, steer_to_heading,
};
pub use cohesion::{Cohesion, CohesionMethod, cohesion};
pub use separation::{
    Separation, SeparationMethod, separation, separation_by_distance, separation_from_offsets,
};
pub use system::{FlockScratch, apply_flocking};

use core::marker::PhantomData;

use bevy::prelude::*;

use crate::schedule::SteeringSchedule;
use crate::spatial::{SpatialIndex, SpatialIndexPlugin};
use crate::stepping::neighbours::{add_neighbour_system, register_neighbour_kind};

/// Flocking among the agents with marker `M`: keeps a [`SpatialIndex<M>`] and registers
/// [`Separation`], [`Alignment`] and [`Cohesion`] for them. Add it instead of a
/// `SpatialIndexPlugin<M>` (beside one, in either order, the first index stays, with its own cell
/// size). `FlockingPlugin::<Steering>` makes every
/// agent a neighbour of every other; a marker of your own (one flock, one team) keeps flocks apart.
/// The behaviours act on the agents that have their components. Add it once per marker (a second
/// `FlockingPlugin<M>` is Bevy's "plugin was already added" panic, at set-up).
pub struct FlockingPlugin<M> {
    cell_size: f32,
    marker: PhantomData<fn() -> M>,
}

impl<M: Component> FlockingPlugin<M> {
    /// Flocking with a spatial index of cells `cell_size` wide: about the largest radius of the
    /// flock's behaviours.
    pub fn new(cell_size: f32) -> Self {
        Self {
            cell_size,
            marker: PhantomData,
        }
    }
}

impl<M: Component> Plugin for FlockingPlugin<M> {
    fn build(&self, app: &mut App) {
        if !app.world().contains_resource::<SpatialIndex<M>>() {
            app.add_plugins(SpatialIndexPlugin::<M>::new(self.cell_size));
        }
        // The flocking system steps agents in the index's order, finding each one's slot.
        app.world_mut()
            .resource_mut::<SpatialIndex<M>>()
            .keep_slots();
        let slots = (
            register_neighbour_kind::<Separation, M>(app),
            register_neighbour_kind::<Alignment, M>(app),
            register_neighbour_kind::<Cohesion, M>(app),
        );
        if let (Some(first), Some(_), Some(_)) = slots {
            // One system steps the three rules, most agents a group at a time in the index's
            // order: the forces of three registrations for far less work.
            app.add_systems(SteeringSchedule, apply_flocking::<M>.in_set(first));
        } else {
            // A rule was registered for `M` on its own before: the others step on their own too.
            add_neighbour_system::<Separation, M>(app, slots.0);
            add_neighbour_system::<Alignment, M>(app, slots.1);
            add_neighbour_system::<Cohesion, M>(app, slots.2);
        }
    }
}

/// Registers the flocking rules' types (each flock registers the rules themselves, through
/// [`FlockingPlugin`] or
/// [`add_neighbour_behaviour`](crate::plugin::SteeringAppExt::add_neighbour_behaviour)).
pub(crate) fn plugin(app: &mut App) {
    app.register_type::<Separation>()
        .register_type::<SeparationMethod>()
        .register_type::<Alignment>()
        .register_type::<AlignmentMethod>()
        .register_type::<Cohesion>()
        .register_type::<CohesionMethod>();
}
