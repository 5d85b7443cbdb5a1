//! Churn: agents spawned and despawned while others pursue and evade them, behaviours inserted and
//! removed mid-run, a pursued target that loses its `Velocity`, and a variable frame time in
//! `Update`. Nothing panics, every value stays finite, and the agents that remain still steer.

use std::time::Duration;

use crate::common::steer::prelude::*;
use crate::common::*;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use rand::rngs::Xoshiro128PlusPlus;
use rand::{RngExt, SeedableRng};

const STEPS_PER_SECOND: f64 = 60.0;

/// The churn is random but the same on every run.
fn churn_rng() -> Xoshiro128PlusPlus {
    Xoshiro128PlusPlus::seed_from_u64(0x5EED)
}

fn random_point(rng: &mut Xoshiro128PlusPlus, half_extent: f32) -> Vector {
    v(
        rng.random_range(-half_extent..half_extent),
        rng.random_range(-half_extent..half_extent),
    )
}

fn pick(rng: &mut Xoshiro128PlusPlus, entities: &[Entity]) -> Entity {
    entities[rng.random_range(0..entities.len())]
}

/// An agent at rest at `start` seeking `target` with arrival.
fn spawn_seeker(app: &mut App, start: Vector, target: Vector) -> Entity {
    spawn(
        app,
        (
            at(start.x, start.y),
            Seek::new(target).with_slowing_radius(150.0),
        ),
    )
}

fn spawn_wanderer(app: &mut App, start: Vector) -> Entity {
    spawn(app, (at(start.x, start.y), Wander::default()))
}

fn has_arrived(app: &App, seeker: Entity, target: Vector) -> bool {
    position(app, seeker).distance(target) < 1.0 && velocity(app, seeker).length() < 1.0
}

fn assert_arrived(app: &App, seeker: Entity, target: Vector) {
    assert!(
        has_arrived(app, seeker, target),
        "ended at {} moving at {}, target {target}",
        position(app, seeker),
        velocity(app, seeker)
    );
}

/// Steps until `seeker` comes to rest on `target`, for at most `seconds`, checking every agent on
/// the way. Arrival slows down exponentially, taking about ten seconds from a few hundred units.
fn assert_arrives(app: &mut App, seeker: Entity, target: Vector, seconds: u32) {
    for _ in 0..seconds * STEPS_PER_SECOND as u32 {
        if has_arrived(app, seeker, target) {
            return;
        }
        step(app, 1);
        assert_agents_sane(app);
    }
    assert_arrived(app, seeker, target);
}

fn assert_wandering(app: &App, wanderer: Entity, start: Vector) {
    let speed = velocity(app, wanderer).length();
    assert!(speed > 1.0, "wanderer slowed to {speed}");
    let travelled = position(app, wanderer).distance(start);
    assert!(travelled > 10.0, "wanderer only got {travelled} away");
}

fn assert_no_problems(app: &App, agents: &[Entity]) {
    for &agent in agents {
        let reported = problems(app, agent);
        assert!(
            reported.is_empty(),
            "{agent}: {:?}",
            reported.iter().collect::<Vec<_>>()
        );
    }
}

/// The closest `hunter` comes to `prey` over `steps` steps, checking every agent on the way.
fn closest_approach(app: &mut App, hunter: Entity, prey: Entity, steps: u32) -> f32 {
    let mut closest = f32::INFINITY;
    step_checking(app, steps, |app, _| {
        assert_agents_sane(app);
        closest = closest.min(position(app, hunter).distance(position(app, prey)));
    });
    closest
}

#[test]
fn pursuers_and_evaders_survive_targets_spawned_and_despawned_every_step() {
    let mut app = create_app(STEPS_PER_SECOND);
    let mut rng = churn_rng();
    let seek_target = v(250.0, -120.0);
    let seeker = spawn_seeker(&mut app, Vector::ZERO, seek_target);
    let wanderer_start = v(-100.0, 50.0);
    let wanderer = spawn_wanderer(&mut app, wanderer_start);
    let hunters: Vec<Entity> = (0..6)
        .map(|_| {
            let start = random_point(&mut rng, 300.0);
            spawn(
                &mut app,
                (at(start.x, start.y), Pursue::default(), Evade::default()),
            )
        })
        .collect();
    let mut transients: Vec<Entity> = Vec::new();
    let mut just_despawned: Vec<Entity> = Vec::new();
    for _ in 0..15 * 60 {
        just_despawned.clear();
        for _ in 0..rng.random_range(0..=2) {
            if !transients.is_empty() {
                let gone = transients.swap_remove(rng.random_range(0..transients.len()));
                app.world_mut().despawn(gone);
                just_despawned.push(gone);
            }
        }
        for _ in 0..rng.random_range(0..=2) {
            // Transients wander while evading a hunter and pursuing one another.
            let start = random_point(&mut rng, 300.0);
            let evaded = pick(&mut rng, &hunters);
            let pursued = transients.last().copied();
            let transient = spawn(
                &mut app,
                (
                    at(start.x, start.y),
                    Velocity(random_point(&mut rng, 100.0)),
                    Wander::default(),
                    Evade::new(evaded),
                    Pursue {
                        target: pursued,
                        ..default()
                    },
                ),
            );
            transients.push(transient);
        }
        // Hunters switch to living or just-despawned entities.
        let candidates: Vec<Entity> = transients
            .iter()
            .chain(&just_despawned)
            .chain(&hunters)
            .chain([&wanderer])
            .copied()
            .collect();
        for &hunter in &hunters {
            if rng.random_bool(0.3) {
                let pursued = pick(&mut rng, &candidates);
                let evaded = pick(&mut rng, &candidates);
                app.world_mut()
                    .entity_mut(hunter)
                    .insert((Pursue::new(pursued), Evade::new(evaded)));
            }
        }
        step(&mut app, 1);
        assert_agents_sane(&mut app);
    }

    // A despawned target (or, picked at random, itself) is the only thing a hunter had to report,
    // and some did miss a target.
    let mut missed_a_target = false;
    for &hunter in &hunters {
        for problem in problems(&app, hunter).iter() {
            assert!(
                matches!(
                    problem,
                    Problem::MissingTarget(_) | Problem::TargetIsItself(_)
                ),
                "{hunter}: {problem:?}"
            );
            missed_a_target |= matches!(problem, Problem::MissingTarget(_));
        }
    }
    assert!(
        missed_a_target,
        "no hunter was left aiming at a despawned entity"
    );
    assert_no_problems(&app, &[seeker, wanderer]);
    assert_arrived(&app, seeker, seek_target);
    assert_wandering(&app, wanderer, wanderer_start);

    // After the churn every hunter still catches a post.
    let post = spawn(&mut app, at(-200.0, 200.0));
    for &hunter in &hunters {
        app.world_mut()
            .entity_mut(hunter)
            .insert(Pursue::new(post))
            .remove::<Evade>();
    }
    let mut closest = vec![f32::INFINITY; hunters.len()];
    step_checking(&mut app, 10 * 60, |app, _| {
        assert_agents_sane(app);
        for (closest, &hunter) in closest.iter_mut().zip(&hunters) {
            *closest = closest.min(position(app, hunter).distance(position(app, post)));
        }
    });
    for (closest, hunter) in closest.into_iter().zip(hunters) {
        assert!(closest < 5.0, "{hunter} came no closer than {closest}");
    }
}

#[test]
fn behaviours_inserted_and_removed_mid_run_leave_working_agents() {
    let mut app = create_app(STEPS_PER_SECOND);
    let mut rng = churn_rng();
    let agents: Vec<Entity> = (0..8)
        .map(|_| {
            let start = random_point(&mut rng, 300.0);
            let velocity = Velocity(random_point(&mut rng, 100.0));
            spawn(
                &mut app,
                (at(start.x, start.y), velocity, Steering::default()),
            )
        })
        .collect();
    for _ in 0..15 * 60 {
        for _ in 0..3 {
            let agent = pick(&mut rng, &agents);
            // Another agent: aiming at itself is a mistake the plugin reports (tested in
            // bad_input.rs), and this agent must have nothing to report.
            let other = loop {
                let other = pick(&mut rng, &agents);
                if other != agent {
                    break other;
                }
            };
            let point = random_point(&mut rng, 300.0);
            let frame = if rng.random_bool(0.5) {
                WanderFrame::World
            } else {
                WanderFrame::Heading
            };
            let mut agent = app.world_mut().entity_mut(agent);
            match rng.random_range(0..12) {
                0 => agent.insert(Seek::new(point)),
                1 => agent.remove::<Seek>(),
                2 => agent.insert(Flee::new(other)),
                3 => agent.remove::<Flee>(),
                4 => agent.insert(Pursue::new(other)),
                5 => agent.remove::<Pursue>(),
                6 => agent.insert(Evade::new(other)),
                7 => agent.remove::<Evade>(),
                8 => agent.insert(Wander::default().with_frame(frame)),
                9 => agent.remove::<Wander>(),
                10 => agent.insert(FaceVelocity::default()),
                _ => agent.remove::<FaceVelocity>(),
            };
        }
        step(&mut app, 1);
        assert_agents_sane(&mut app);
    }
    // Every target was a living agent or a finite point: nothing to report.
    assert_no_problems(&app, &agents);

    // Stripped of its behaviours an agent coasts; given a seek it arrives.
    let survivor = agents[0];
    app.world_mut()
        .entity_mut(survivor)
        .remove::<(Seek, Flee, Pursue, Evade, Wander)>();
    step(&mut app, 1);
    let drift = velocity(&app, survivor);
    step(&mut app, 30);
    assert_eq!(
        velocity(&app, survivor),
        drift,
        "a survivor with no behaviour"
    );
    let target = v(-80.0, 140.0);
    app.world_mut()
        .entity_mut(survivor)
        .insert(Seek::new(target).with_slowing_radius(150.0));
    assert_arrives(&mut app, survivor, target, 30);

    // Given a wander alone, another keeps moving.
    let wanderer = agents[1];
    app.world_mut()
        .entity_mut(wanderer)
        .remove::<(Seek, Flee, Pursue, Evade)>()
        .insert(Wander::default());
    let start = position(&app, wanderer);
    step_checking(&mut app, 5 * 60, |app, _| assert_agents_sane(app));
    assert_wandering(&app, wanderer, start);
}

#[test]
fn a_pursued_target_that_loses_its_velocity_is_caught_where_it_stands() {
    let mut app = create_app(STEPS_PER_SECOND);
    let prey = spawn(
        &mut app,
        (at(200.0, 0.0), Velocity(v(0.0, 120.0)), Wander::default()),
    );
    let hunter = spawn(&mut app, (at(0.0, 0.0), Pursue::new(prey)));
    let seeker = spawn(
        &mut app,
        (at(-100.0, 0.0), Seek::new(prey).with_slowing_radius(150.0)),
    );
    let evader = spawn(&mut app, (at(150.0, 0.0), Evade::new(prey)));
    step_checking(&mut app, 60, |app, _| assert_agents_sane(app));

    // Without a Velocity the prey is no longer integrated: it stays where it is, and the others
    // aim at it there.
    app.world_mut().entity_mut(prey).remove::<Velocity>();
    let stand = position(&app, prey);
    let evader_distance = position(&app, evader).distance(stand);
    let closest = closest_approach(&mut app, hunter, prey, 10 * 60);
    assert!(closest < 5.0, "the hunter came no closer than {closest}");
    assert_eq!(position(&app, prey), stand, "the prey moved");
    assert_eq!(
        app.world().get::<Steering>(prey),
        Some(&Steering(Vector::ZERO))
    );
    assert_arrives(&mut app, seeker, stand, 30);
    assert!(position(&app, evader).distance(stand) > evader_distance + 100.0);
    assert_no_problems(&app, &[hunter, seeker, evader]);
}

#[test]
fn a_variable_frame_time_in_update_keeps_agents_steering() {
    const HITCH: Duration = Duration::from_secs(1);
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, SteeringPlugin::new(Update)));
    allow_frame_time(&mut app, HITCH);
    let mut rng = churn_rng();
    let target = v(-300.0, 200.0);
    let seeker = spawn_seeker(&mut app, Vector::ZERO, target);
    let wanderer_start = v(100.0, 100.0);
    let wanderer = spawn_wanderer(&mut app, wanderer_start);
    let hunter = spawn(&mut app, (at(-50.0, -50.0), Pursue::new(wanderer)));
    let evader = spawn(
        &mut app,
        (at(100.0, 80.0), Evade::new(hunter), FaceVelocity::default()),
    );
    for frame in 0..600 {
        let frame_time = if frame == 200 {
            HITCH
        } else {
            Duration::from_millis(rng.random_range(1..=100))
        };
        app.insert_resource(TimeUpdateStrategy::ManualDuration(frame_time));
        let seeker_velocity = velocity(&app, seeker);
        app.update();
        assert_agents_sane(&mut app);
        // The step is the frame's own length, hitch included (the first update only starts the
        // clock), and the default MaxForce of 600 changes the velocity by at most 600 per second.
        let dt = app.world().resource::<Time>().delta_secs();
        if frame > 0 {
            assert_eq!(dt, frame_time.as_secs_f32(), "frame {frame}");
        }
        let change = velocity(&app, seeker).distance(seeker_velocity);
        assert!(
            change <= 600.0 * dt * (1.0 + 1e-4),
            "frame {frame}: velocity changed by {change} in {dt} s"
        );
    }
    assert_arrived(&app, seeker, target);
    assert_wandering(&app, wanderer, wanderer_start);
    assert_no_problems(&app, &[seeker, wanderer, hunter, evader]);
}
