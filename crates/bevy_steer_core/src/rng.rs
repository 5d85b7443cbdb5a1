//! Per-agent random numbers, reproducible from one seed.
//!
//! Each agent draws from its own generator, seeded from the global [`SteeringSeed`] and the agent's
//! `Entity` when its [`SteeringRng`] is added (unless it was given a stream of its own). No agent's numbers depend on which thread runs it or
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

/// An agent's own random number generator (xoshiro128++ from `rand`, and where its stream came
/// from: 20 bytes).
///
/// Required by [`Wander`](crate::behaviours::Wander). One added by default (required, or
/// `SteeringRng::default()`) is seeded from [`SteeringSeed`] and the entity when it is added, as is
/// one cloned from another agent's default stream, so that no two agents draw the same numbers. To
/// give an agent a stream of your choosing, insert one made with [`from_seed`](Self::from_seed) or
/// [`for_agent`](Self::for_agent), at spawn or later: it is kept (a clone of that agent keeps it
/// too, and draws the same numbers). It implements [`rand::Rng`], so game logic can draw from it
/// too (that changes the agent's later wander, reproducibly).
#[derive(Component, Reflect, Clone, Debug, PartialEq, Eq)]
#[reflect(opaque)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[component(on_add = seed_from_entity)]
pub struct SteeringRng {
    generator: Xoshiro128PlusPlus,
    /// Whether the stream was chosen by the user (kept when added) or is the default one
    /// (seeded from the entity when added).
    chosen: bool,
}

impl Default for SteeringRng {
    fn default() -> Self {
        Self::of_entity(SteeringSeed::default(), Entity::PLACEHOLDER)
    }
}

impl SteeringRng {
    /// The generator an agent gets from `seed` and its `entity`, as a stream of your choosing
    /// (kept when inserted).
    pub fn for_agent(seed: SteeringSeed, entity: Entity) -> Self {
        Self {
            chosen: true,
            ..Self::of_entity(seed, entity)
        }
    }

    /// A generator seeded directly with `seed` (kept when inserted).
    pub fn from_seed(seed: u64) -> Self {
        Self {
            generator: Xoshiro128PlusPlus::seed_from_u64(seed),
            chosen: true,
        }
    }

    /// The default stream of `entity` from `seed`.
    fn of_entity(seed: SteeringSeed, entity: Entity) -> Self {
        // Spread the entity's bits over the whole word before mixing, so that neighbouring entities
        // and neighbouring seeds give unrelated streams.
        const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
        let key = seed.0 ^ entity.to_bits().wrapping_mul(GOLDEN_GAMMA).rotate_left(29);
        Self {
            generator: Xoshiro128PlusPlus::seed_from_u64(key),
            chosen: false,
        }
    }
}

impl TryRng for SteeringRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.generator.next_u32())
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.generator.next_u64())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.generator.fill_bytes(dst);
        Ok(())
    }
}

fn seed_from_entity(mut world: DeferredWorld, context: HookContext) {
    let seed = world
        .get_resource::<SteeringSeed>()
        .copied()
        .unwrap_or_default();
    if let Some(mut rng) = world.get_mut::<SteeringRng>(context.entity)
        && !rng.chosen
    {
        *rng = SteeringRng::of_entity(seed, context.entity);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn a_stream_of_the_user_s_own_is_kept_and_a_default_one_seeded_per_entity() {
        use crate::plugin::SteeringPlugin;
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, SteeringPlugin::default()));
        let world = app.world_mut();
        // Inserted later on an agent that had none, and at spawn.
        let later = world.spawn(Transform::default()).id();
        world.entity_mut(later).insert(SteeringRng::from_seed(5));
        let at_spawn = world.spawn(SteeringRng::from_seed(5)).id();
        // Default ones, and a clone of one: each its entity's.
        let first = world.spawn(SteeringRng::default()).id();
        let second = world.spawn(SteeringRng::default()).id();
        let cloned = world.spawn_empty().id();
        world.entity_mut(first).clone_with_opt_out(cloned, |_| {});
        let rng = |world: &World, entity| world.get::<SteeringRng>(entity).unwrap().clone();
        assert_eq!(rng(world, later), SteeringRng::from_seed(5));
        assert_eq!(rng(world, at_spawn), SteeringRng::from_seed(5));
        let seed = *world.resource::<SteeringSeed>();
        for entity in [first, second, cloned] {
            assert_eq!(rng(world, entity), SteeringRng::of_entity(seed, entity));
        }
        assert_ne!(rng(world, first), rng(world, second));
    }

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
