//! Per-agent random numbers, reproducible from one seed.
//!
//! Each agent draws from its own generator, seeded from the global [`SteeringSeed`] and the agent's
//! `Entity` when its [`SteeringRng`] is added. No agent's numbers depend on which thread runs it or
//! in what order entities are visited, so the same seed and the same spawn order give bit-identical
//! trajectories on every run.

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;
use rand::rngs::Xoshiro128PlusPlus;
use rand::{Rng, SeedableRng, TryRng};

/// The seed every agent's [`SteeringRng`] is derived from. Set by
/// [`SteeringPlugin::with_seed`](crate::plugin::SteeringPlugin::with_seed); change it before spawning
/// to get other trajectories.
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[reflect(Resource, Default, Debug, PartialEq, Clone)]
pub struct SteeringSeed(pub u64);

/// An agent's own random number generator (xoshiro128++ from `rand`, 16 bytes).
///
/// Required by [`Wander`](crate::behaviours::Wander). When the component is added it is seeded from
/// [`SteeringSeed`] and the entity, replacing whatever it held; to give an agent a stream of your
/// choosing, insert a `SteeringRng` on it after it was spawned. It implements [`rand::Rng`], so game
/// logic can draw from it too (that changes the agent's later wander, reproducibly).
#[derive(Component, Reflect, Clone, Debug, PartialEq, Eq)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[component(on_add = seed_from_entity)]
pub struct SteeringRng(Xoshiro128PlusPlus);

impl Default for SteeringRng {
    fn default() -> Self {
        Self::for_agent(SteeringSeed::default(), Entity::PLACEHOLDER)
    }
}

impl SteeringRng {
    /// The generator an agent gets from `seed` and its `entity`.
    pub fn for_agent(seed: SteeringSeed, entity: Entity) -> Self {
        // Spread the entity's bits over the whole word before mixing, so that neighbouring entities
        // and neighbouring seeds give unrelated streams.
        const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
        let key = seed.0 ^ entity.to_bits().wrapping_mul(GOLDEN_GAMMA).rotate_left(29);
        Self(Xoshiro128PlusPlus::seed_from_u64(key))
    }

    /// A generator seeded directly with `seed`.
    pub fn from_seed(seed: u64) -> Self {
        Self(Xoshiro128PlusPlus::seed_from_u64(seed))
    }
}

impl TryRng for SteeringRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.0.next_u32())
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.0.next_u64())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.0.fill_bytes(dst);
        Ok(())
    }
}

fn seed_from_entity(mut world: DeferredWorld, context: HookContext) {
    let seed = world
        .get_resource::<SteeringSeed>()
        .copied()
        .unwrap_or_default();
    if let Some(mut rng) = world.get_mut::<SteeringRng>(context.entity) {
        *rng = SteeringRng::for_agent(seed, context.entity);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn streams_depend_on_seed_and_entity() {
        let first = Entity::from_raw_u32(1).unwrap();
        let second = Entity::from_raw_u32(2).unwrap();
        let draw =
            |seed, entity| SteeringRng::for_agent(SteeringSeed(seed), entity).random::<u64>();
        assert_eq!(draw(7, first), draw(7, first));
        assert_ne!(draw(7, first), draw(7, second));
        assert_ne!(draw(7, first), draw(8, first));
    }
}
