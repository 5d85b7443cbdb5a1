//! The soak run of `docs/reliability.md`: hunter / prey with churn for a long time, checking the
//! steering invariants after every step. Ignored by `cargo test`; run it in release:
//!
//! ```sh
//! cargo test --release --test soak -- --ignored --nocapture
//! ```
//!
//! `SOAK_PREY` and `SOAK_STEPS` change its size (default 100 000 prey, with 1 000 hunters, for
//! 100 000 steps). It prints its progress every 1 000 steps.

#[path = "../examples/stress/scenes.rs"]
#[allow(dead_code, reason = "the soak run uses the hunter / prey scene only")]
mod scenes;

use std::time::Instant;

use bevy::prelude::*;
use bevy_steer::prelude::*;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use scenes::rules::{Hunter, HunterPreySettings, Prey, hunter, prey};
use scenes::{STEP, Scene};

/// Each agent's velocity at the start of the step, to bound what the step did to it.
#[derive(Component, Default)]
struct VelocityBefore(Vec2);

fn remember_velocity(mut agents: Query<(&Velocity, &mut VelocityBefore)>) {
    agents
        .par_iter_mut()
        .for_each(|(velocity, mut before)| before.0 = velocity.0);
}

/// Panics at the first agent that breaks an invariant: finite state, speed within `MaxSpeed`, a
/// velocity change within `MaxForce / Mass` per second, `Steering` cleared.
fn check_invariants(
    agents: Query<(
        Entity,
        &Transform,
        &Velocity,
        &VelocityBefore,
        &Steering,
        &Mass,
        &MaxSpeed,
        &MaxForce,
    )>,
) {
    let dt = STEP.as_secs_f32();
    for (entity, transform, velocity, before, steering, mass, max_speed, max_force) in &agents {
        let position = transform.translation.truncate();
        assert!(
            position.is_finite() && velocity.is_finite(),
            "{entity}: position {position}, velocity {}",
            velocity.0
        );
        assert_eq!(steering.0, Vec2::ZERO, "{entity}: steering not cleared");
        let speed_limit = max_speed.effective() * (1.0 + 1e-5) + 1e-5;
        assert!(
            velocity.length() <= speed_limit,
            "{entity}: speed {} over {}",
            velocity.length(),
            max_speed.0
        );
        if before.0.length() <= speed_limit {
            let change_limit = max_force.effective() * mass.inverse() * dt * (1.0 + 1e-4) + 1e-4;
            let change = (velocity.0 - before.0).length();
            assert!(
                change <= change_limit,
                "{entity}: velocity changed by {change}, more than {change_limit}"
            );
        }
    }
}

/// Every step, a few prey and now and then a hunter are despawned (often while pursued) and as
/// many spawned anywhere in the arena; behaviours are taken off and put back on some prey; a prey
/// loses its `Velocity` now and then (pursuers then aim where it stands) and gets it back later.
fn churn(
    mut commands: Commands,
    mut rng: Local<Option<SmallRng>>,
    settings: Res<HunterPreySettings>,
    prey_agents: Query<Entity, With<Prey>>,
    hunters: Query<Entity, With<Hunter>>,
) {
    let rng = rng.get_or_insert_with(|| SmallRng::seed_from_u64(42));
    let arena = settings.arena;
    let anywhere = |rng: &mut SmallRng| {
        let position = arena.min + arena.size() * Vec2::new(rng.random(), rng.random());
        let heading = Vec2::from_angle(rng.random::<f32>() * core::f32::consts::TAU);
        (position, heading)
    };
    // Distinct picks, so that no entity is despawned twice or changed after it was despawned.
    let mut prey_agents: Vec<Entity> = prey_agents.iter().collect();
    let mut hunters: Vec<Entity> = hunters.iter().collect();
    let pick = |rng: &mut SmallRng, agents: &mut Vec<Entity>| {
        (!agents.is_empty()).then(|| agents.swap_remove(rng.random_range(0..agents.len())))
    };
    for _ in 0..20 {
        if let Some(victim) = pick(rng, &mut prey_agents) {
            commands.entity(victim).despawn();
            let (position, heading) = anywhere(rng);
            commands.spawn((prey(position, heading), VelocityBefore::default()));
        }
    }
    if rng.random_ratio(1, 10)
        && let Some(victim) = pick(rng, &mut hunters)
    {
        commands.entity(victim).despawn();
        let (position, heading) = anywhere(rng);
        commands.spawn((
            hunter(position, heading, &settings),
            VelocityBefore::default(),
        ));
    }
    if let Some(agent) = pick(rng, &mut prey_agents) {
        commands.entity(agent).remove::<(Evade, Seek)>();
    }
    if let Some(agent) = pick(rng, &mut prey_agents) {
        commands
            .entity(agent)
            .insert_if_new((Evade::default(), Seek::default()));
    }
    if let Some(agent) = pick(rng, &mut prey_agents) {
        if rng.random_bool(0.5) {
            commands.entity(agent).remove::<Velocity>();
        } else {
            commands.entity(agent).insert_if_new(Velocity::default());
        }
    }
}

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

#[test]
#[ignore = "a long soak run; see docs/reliability.md"]
fn hunter_prey_with_churn_keeps_the_invariants() {
    let prey_count = env_count("SOAK_PREY", 100_000);
    let steps = env_count("SOAK_STEPS", 100_000);
    let mut app = Scene::HunterPrey.app(prey_count);
    app.add_systems(
        SteeringSchedule,
        (
            churn.before(SteeringSystems::Index),
            remember_velocity
                .after(SteeringSystems::Decide)
                .before(SteeringSystems::Behaviours),
            check_invariants.after(SteeringSystems::Integrate),
        ),
    );
    let agents: Vec<Entity> = app
        .world_mut()
        .query_filtered::<Entity, With<Steering>>()
        .iter(app.world())
        .collect();
    for agent in agents {
        app.world_mut()
            .entity_mut(agent)
            .insert(VelocityBefore::default());
    }
    let agent_count = |app: &mut App| {
        app.world_mut()
            .query_filtered::<(), With<Steering>>()
            .iter(app.world())
            .count()
    };
    let expected = agent_count(&mut app);

    let started = Instant::now();
    for step in 1..=steps {
        scenes::step(&mut app);
        if step % 1000 == 0 || step == steps {
            eprintln!(
                "soak: step {step} of {steps}, {:.0} s",
                started.elapsed().as_secs_f64()
            );
        }
    }
    assert_eq!(agent_count(&mut app), expected, "churn keeps the count");
    eprintln!(
        "soak: {expected} agents, {steps} steps in {:.0} s, every invariant held",
        started.elapsed().as_secs_f64()
    );
}
