//! The stepping every behaviour shares, so that a behaviour is only its component and its force:
//! the two behaviour traits ([`SteeringBehaviour`], [`NeighbourBehaviour`]) and the systems that
//! step their implementations, the registry of behaviours in priority order, and the job
//! machinery that spreads agents over the compute pool.
//!
//! Every stepping system visits agents table slice by table slice, in parallel; every agent reads
//! the others' state as it was before the step and writes only its own, so the result does not
//! depend on the thread count or the visiting order. Weights, switches, the force budget of
//! prioritised agents, non-finite forces, missing targets and bad radii are handled here once
//! (`columns::settle`), for the built-in behaviours and yours alike.

pub(crate) mod behaviour;
pub(crate) mod columns;
pub(crate) mod jobs;
pub(crate) mod neighbours;
pub(crate) mod registry;
pub(crate) mod shared_walk;

pub use behaviour::{
    LostTargets, SteeringBehaviour, TargetQuery, announce_lost_targets, apply_behaviour,
    lookup_target,
};
pub use columns::boid;
pub use neighbours::{NeighbourBehaviour, apply_neighbour_behaviour};
pub use registry::{Neighbourhoods, RegisteredBehaviour, SteeringBehaviours, WeightedForces};
