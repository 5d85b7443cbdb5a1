//! Separation, alignment and cohesion: the force functions against hand-computed values, then
//! crowds through the ECS.

use std::f32::consts::{FRAC_PI_2, PI, TAU};

use crate::common::steer::prelude::*;
use crate::common::*;
use bevy::prelude::*;
use rand::rngs::Xoshiro128PlusPlus;
use rand::{RngExt, SeedableRng};
use steer::forces::{
    alignment, cohesion, half_angle_cos, in_field_of_view, separation, separation_by_distance,
};
use steer::systems::apply_neighbour_behaviour;

#[test]
fn the_rules_against_hand_computed_values() {
    let me = v(10.0, 10.0);
    // Neighbours at (+3, 0) and (0, +4) from me: mean offset (1.5, 2), length 2.5.
    let neighbours = [v(13.0, 10.0), v(10.0, 14.0)];
    assert!(separation(me, neighbours).abs_diff_eq(v(-0.6, -0.8), 1e-6));
    assert!(cohesion(me, neighbours).abs_diff_eq(v(0.6, 0.8), 1e-6));
    // By distance: (-1, 0) * 12 / 3 + (0, -1) * 12 / 4 = (-4, -3).
    assert!(separation_by_distance(me, 12.0, neighbours).abs_diff_eq(v(-4.0, -3.0), 1e-5));
    // Velocities (30, 0) and (0, 40): mean (15, 20), direction (0.6, 0.8).
    let velocities = [v(30.0, 0.0), v(0.0, 40.0)];
    assert!(alignment(velocities).abs_diff_eq(v(0.6, 0.8), 1e-6));
}

#[test]
fn the_classic_alignment_and_cohesion_against_hand_computed_values() {
    // The agent at the origin moving at (10, 0), full speed 100; neighbours at (30, 0) and
    // (0, 40), moving at (30, 0) and (0, 40): their mean velocity is (15, 20), their centre
    // (15, 20), 25 away along (0.6, 0.8).
    let cases = [
        // Reynolds' alignment: their mean velocity minus the agent's.
        (
            Some(Alignment::new(60.0).with_method(AlignmentMethod::MeanVelocity)),
            None,
            v(5.0, 20.0),
        ),
        // The article's: their heading at full speed, (60, 80), minus the agent's.
        (Some(Alignment::new(60.0)), None, v(50.0, 80.0)),
        // Reynolds' cohesion: seek the centre at full speed although it is within the radius.
        (
            None,
            Some(Cohesion::new(60.0).with_method(CohesionMethod::Seek)),
            v(50.0, 80.0),
        ),
        // With arrival: 25 / 60 of full speed.
        (None, Some(Cohesion::new(60.0)), v(15.0, 100.0 / 3.0)),
    ];
    for (alignment, cohesion, force) in cases {
        for neighbour_count in [2, 0] {
            let mut app = flock_app();
            let agent = spawn(
                &mut app,
                (
                    at(0.0, 0.0),
                    Velocity(v(10.0, 0.0)),
                    MaxSpeed(100.0),
                    MaxForce(1e6),
                    Boid,
                ),
            );
            let mut entity = app.world_mut().entity_mut(agent);
            if let Some(alignment) = alignment {
                entity.insert(alignment);
            }
            if let Some(cohesion) = cohesion {
                entity.insert(cohesion);
            }
            for (position, velocity) in [(v(30.0, 0.0), v(30.0, 0.0)), (v(0.0, 40.0), v(0.0, 40.0))]
                .into_iter()
                .take(neighbour_count)
            {
                spawn(
                    &mut app,
                    (at(position.x, position.y), Velocity(velocity), Boid),
                );
            }
            step(&mut app, 1);
            // One step of 1/60 s, mass 1; no neighbour, no force.
            let expected = v(10.0, 0.0)
                + if neighbour_count > 0 {
                    force / 60.0
                } else {
                    Vector::ZERO
                };
            assert!(
                velocity(&app, agent).abs_diff_eq(expected, 1e-4),
                "{alignment:?} {cohesion:?} with {neighbour_count}: {} against {expected}",
                velocity(&app, agent)
            );
        }
    }
}

#[test]
fn no_neighbour_or_a_neighbour_on_the_agent_gives_no_force_and_no_nan() {
    let me = v(1.0, 2.0);
    assert_eq!(separation(me, []), Vector::ZERO);
    assert_eq!(separation_by_distance(me, 10.0, []), Vector::ZERO);
    assert_eq!(cohesion(me, []), Vector::ZERO);
    assert_eq!(alignment([]), Vector::ZERO);
    assert_eq!(separation(me, [me]), Vector::ZERO);
    assert_eq!(separation_by_distance(me, 10.0, [me, me]), Vector::ZERO);
    assert_eq!(cohesion(me, [me]), Vector::ZERO);
    assert_eq!(alignment([Vector::X, -Vector::X]), Vector::ZERO);
}

/// A push is `radius / distance` along the way away at every distance: where the squared distance
/// is normal (one division), where it underflows (a neighbour a hair away) and where it
/// overflows; finite for any finite radius that the distance does not dwarf.
#[test]
fn a_push_by_distance_is_radius_over_distance_at_any_distance() {
    let me = Vector::ZERO;
    let cases = [
        (1.0_f32, 10.0_f32),
        // The smallest normal square: `1 / distance²` is as large as it gets, still finite.
        (f32::MIN_POSITIVE.sqrt(), 10.0),
        // A square that underflows: the scalar special case.
        (1e-25, 1e-10),
        // A square that overflows.
        (1e25, 1e30),
    ];
    for (distance, radius) in cases {
        let neighbour = -Vector::X * distance;
        let push = separation_by_distance(me, radius, [neighbour]);
        let expected = radius / distance;
        assert!(push.is_finite(), "{distance}: {push}");
        assert!(
            (push.x - expected).abs() <= expected * 1e-5 && push.y == 0.0,
            "{distance}: {push} against {expected}"
        );
    }
}

#[test]
fn the_field_of_view_cuts_a_wedge_behind() {
    let heading = Vector::X;
    let quarter_view = half_angle_cos(FRAC_PI_2);
    assert!(in_field_of_view(
        Vector::ZERO,
        heading,
        quarter_view,
        v(10.0, 5.0)
    ));
    assert!(!in_field_of_view(
        Vector::ZERO,
        heading,
        quarter_view,
        v(5.0, 10.0)
    ));
    let half_view = half_angle_cos(PI);
    assert!(in_field_of_view(
        Vector::ZERO,
        heading,
        half_view,
        v(0.1, 10.0)
    ));
    assert!(!in_field_of_view(
        Vector::ZERO,
        heading,
        half_view,
        v(-0.1, 10.0)
    ));
    // All round, and an agent at rest, see everything.
    for view in [TAU, f32::NAN, 100.0] {
        assert!(in_field_of_view(
            Vector::ZERO,
            heading,
            half_angle_cos(view),
            -Vector::X
        ));
    }
    assert!(in_field_of_view(
        Vector::ZERO,
        Vector::ZERO,
        quarter_view,
        -Vector::X
    ));
}

/// A boid of the tests' flocks.
#[derive(Component, Default)]
struct Boid;

fn flock_app() -> App {
    let mut app = create_app(60.0);
    app.add_plugins(FlockingPlugin::<Boid>::new(60.0));
    app
}

/// A point drawn from `rng` in the square `half` either side of the origin (x, then y).
fn random_point(rng: &mut Xoshiro128PlusPlus, half: f32) -> Vector {
    v(rng.random_range(-half..half), rng.random_range(-half..half))
}

/// A unit heading drawn from `rng`.
fn random_heading(rng: &mut Xoshiro128PlusPlus) -> Vector {
    from_angle(rng.random_range(0.0..TAU))
}

fn positions_and_velocities(app: &mut App) -> Vec<(Vector, Vector)> {
    let mut boids = app
        .world_mut()
        .query_filtered::<(&Transform, &Velocity), With<Boid>>();
    boids
        .iter(app.world())
        .map(|(transform, velocity)| (as_position(transform.translation), velocity.0))
        .collect()
}

fn closest_pair(app: &mut App) -> f32 {
    let boids = positions_and_velocities(app);
    let mut closest = f32::INFINITY;
    for (i, (a, _)) in boids.iter().enumerate() {
        for (b, _) in &boids[i + 1..] {
            closest = closest.min(a.distance(*b));
        }
    }
    closest
}

fn spread_of(app: &mut App) -> f32 {
    let positions: Vec<Vector> = positions_and_velocities(app)
        .into_iter()
        .map(|(position, _)| position)
        .collect();
    let centre = positions.iter().sum::<Vector>() / positions.len() as f32;
    positions.iter().map(|p| p.distance(centre)).sum::<f32>() / positions.len() as f32
}

/// Length of the mean unit heading: 1 when all head the same way, near 0 when headings are random.
fn polarisation(app: &mut App) -> f32 {
    let boids = positions_and_velocities(app);
    let sum: Vector = boids
        .iter()
        .map(|(_, velocity)| velocity.normalize_or_zero())
        .sum();
    sum.length() / boids.len() as f32
}

#[test]
fn separation_spreads_a_packed_crowd() {
    let mut app = flock_app();
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(1);
    // 100 boids packed into a 20 x 20 square, pushed apart within 25 units.
    for _ in 0..100 {
        let start = random_point(&mut rng, 10.0);
        spawn(
            &mut app,
            (at(start.x, start.y), Boid, Separation::new(25.0)),
        );
    }
    assert!(closest_pair(&mut app) < 2.0);
    step_checking(&mut app, 60 * 5, |app, _| assert_agents_sane(app));
    let closest = closest_pair(&mut app);
    assert!(closest > 10.0, "closest pair {closest} apart after 5 s");
}

#[test]
fn alignment_brings_random_headings_into_line() {
    let mut app = flock_app();
    // The boids' world wraps round (as boids' worlds usually do), so that groups that agreed on a
    // heading keep meeting the others instead of drifting apart.
    app.add_systems(
        SteeringSchedule,
        (|mut boids: Query<&mut Transform, With<Boid>>| {
            for mut transform in &mut boids {
                transform.translation.x = transform.translation.x.rem_euclid(400.0);
                transform.translation.y = transform.translation.y.rem_euclid(200.0);
            }
        })
        .after(SteeringSystems::Integrate),
    );
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(2);
    // 200 boids on a grid 20 apart (400 x 200), each seeing the others within 80 (about 50).
    for index in 0..200 {
        let start = v((index % 20) as f32 * 20.0, (index / 20) as f32 * 20.0);
        let heading = random_heading(&mut rng);
        spawn(
            &mut app,
            (
                at(start.x, start.y),
                Velocity(heading * 100.0),
                Boid,
                Alignment::new(80.0),
            ),
        );
    }
    let before = polarisation(&mut app);
    assert!(before < 0.3, "{before}");
    step(&mut app, 60 * 10);
    let after = polarisation(&mut app);
    assert!(after > 0.9, "polarisation {after} after 10 s");
}

#[test]
fn cohesion_draws_a_scattered_group_together() {
    let mut app = flock_app();
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(3);
    for _ in 0..60 {
        let start = random_point(&mut rng, 150.0);
        spawn(&mut app, (at(start.x, start.y), Boid, Cohesion::new(120.0)));
    }
    let before = spread_of(&mut app);
    step(&mut app, 60 * 5);
    let after = spread_of(&mut app);
    assert!(after < before * 0.5, "spread {before} -> {after}");
}

#[test]
fn the_shared_walk_gives_the_forces_of_three_registrations_bit_for_bit() {
    // FlockingPlugin adds up most agents' neighbours four at a time on SIMD lanes, in the index's
    // order (fields of view and separation by distance included), and walks the index once per
    // agent for the others; registering the rules one by one walks it three times per agent.
    // Radii, fields of view, methods and switches differ per agent, and some agents lack a rule,
    // so every rule keeps its own neighbours.
    let scene = |app: &mut App| {
        let mut rng = Xoshiro128PlusPlus::seed_from_u64(7);
        for index in 0..300 {
            let start = random_point(&mut rng, 200.0);
            let heading = random_heading(&mut rng) * 60.0;
            let mut boid = app
                .world_mut()
                .spawn((at(start.x, start.y), Velocity(heading), Boid));
            let separation = Separation::new(10.0 + (index % 7) as f32 * 5.0);
            boid.insert(match index % 8 {
                0 => separation.with_field_of_view(4.0),
                1 => separation.with_method(SeparationMethod::ByDistance),
                _ => separation,
            });
            if index % 5 != 0 {
                let alignment = Alignment::new(40.0).with_enabled(index % 11 != 0);
                boid.insert(match index % 6 {
                    1 => alignment.with_field_of_view(3.0),
                    2 => alignment.with_method(AlignmentMethod::MeanVelocity),
                    _ => alignment,
                });
            }
            if index % 3 != 0 {
                let cohesion = Cohesion::new(25.0 + (index % 4) as f32 * 20.0).with_weight(0.5);
                boid.insert(match index % 7 {
                    2 => cohesion.with_field_of_view(5.0),
                    3 => cohesion.with_method(CohesionMethod::Seek),
                    _ => cohesion,
                });
            }
        }
    };
    let mut shared = create_app(60.0);
    shared.add_plugins(FlockingPlugin::<Boid>::new(40.0));
    let mut separate = create_app(60.0);
    separate
        .add_plugins(SpatialIndexPlugin::<Boid>::new(40.0))
        .add_neighbour_behaviour::<Separation, Boid>()
        .add_neighbour_behaviour::<Alignment, Boid>()
        .add_neighbour_behaviour::<Cohesion, Boid>();
    scene(&mut shared);
    scene(&mut separate);
    for _ in 0..120 {
        shared.update();
        separate.update();
    }
    let (shared, separate) = (
        positions_and_velocities(&mut shared),
        positions_and_velocities(&mut separate),
    );
    assert!(shared.iter().all(|(p, v)| p.is_finite() && v.is_finite()));
    assert_eq!(shared, separate);
}

#[test]
fn neighbour_behaviours_registered_together_give_the_forces_of_one_system_each() {
    // Registered one after another, the rules of a marker are stepped by one system that walks the
    // index once per agent; stepped by hand, one system each walks it once per rule. Three markers
    // (some agents have two) keep their flocks apart, the third with one rule (a run of one);
    // radii, fields of view and switches differ per agent, and one radius is bad.
    #[derive(Component)]
    struct Red;
    #[derive(Component)]
    struct Blue;
    let scene = |app: &mut App| {
        let mut rng = Xoshiro128PlusPlus::seed_from_u64(11);
        for index in 0..240 {
            let start = random_point(&mut rng, 150.0);
            let heading = random_heading(&mut rng) * 60.0;
            let mut boid = app.world_mut().spawn((
                at(start.x, start.y),
                Velocity(heading),
                Separation::new(if index == 7 {
                    f32::NAN
                } else {
                    10.0 + (index % 5) as f32 * 6.0
                })
                .with_field_of_view(if index % 4 == 0 { 4.0 } else { TAU }),
                Cohesion::new(20.0 + (index % 3) as f32 * 15.0).with_enabled(index % 9 != 0),
            ));
            if index % 3 != 0 {
                boid.insert((Boid, Alignment::new(35.0)));
            }
            if index % 2 == 0 {
                boid.insert(Red);
            }
            if index % 5 == 0 {
                boid.insert((Blue, Alignment::new(25.0)));
            }
        }
    };
    let mut together = create_app(60.0);
    together
        .add_plugins((
            SpatialIndexPlugin::<Boid>::new(40.0),
            SpatialIndexPlugin::<Red>::new(40.0),
            SpatialIndexPlugin::<Blue>::new(40.0),
        ))
        .add_neighbour_behaviour::<Separation, Boid>()
        .add_neighbour_behaviour::<Alignment, Boid>()
        .add_neighbour_behaviour::<Cohesion, Boid>()
        .add_neighbour_behaviour::<Separation, Red>()
        .add_neighbour_behaviour::<Cohesion, Red>()
        .add_neighbour_behaviour::<Alignment, Blue>();
    let mut one_by_one = create_app(60.0);
    one_by_one
        .add_plugins((
            SpatialIndexPlugin::<Boid>::new(40.0),
            SpatialIndexPlugin::<Red>::new(40.0),
            SpatialIndexPlugin::<Blue>::new(40.0),
        ))
        .add_systems(
            SteeringSchedule,
            (
                apply_neighbour_behaviour::<Separation, Boid>,
                apply_neighbour_behaviour::<Alignment, Boid>,
                apply_neighbour_behaviour::<Cohesion, Boid>,
                apply_neighbour_behaviour::<Separation, Red>,
                apply_neighbour_behaviour::<Cohesion, Red>,
                apply_neighbour_behaviour::<Alignment, Blue>,
            )
                .chain()
                .in_set(SteeringSystems::Behaviours),
        );
    scene(&mut together);
    scene(&mut one_by_one);
    let states = |app: &mut App| {
        let mut agents = app
            .world_mut()
            .query::<(&Transform, &Velocity, &ReportedProblems)>();
        agents
            .iter(app.world())
            .map(|(transform, velocity, problems)| {
                (
                    as_position(transform.translation),
                    velocity.0,
                    problems.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    for _ in 0..90 {
        together.update();
        one_by_one.update();
    }
    let (together, one_by_one) = (states(&mut together), states(&mut one_by_one));
    assert!(
        together
            .iter()
            .any(|(_, velocity, _)| *velocity != Vector::ZERO)
    );
    assert_eq!(together, one_by_one);
    let invalid = Problem::InvalidRadius(BehaviourKind::of_neighbour::<Separation>());
    assert_eq!(
        together
            .iter()
            .filter(|(.., problems)| problems.contains(invalid))
            .count(),
        1
    );
}

#[test]
fn flocks_keep_to_their_own_marker() {
    #[derive(Component)]
    struct Red;
    let mut app = create_app(60.0);
    app.add_plugins((
        FlockingPlugin::<Boid>::new(50.0),
        FlockingPlugin::<Red>::new(50.0),
    ));
    let boid = spawn(&mut app, (at(0.0, 0.0), Boid, Separation::new(50.0)));
    let red = spawn(&mut app, (at(10.0, 0.0), Red, Separation::new(50.0)));
    step(&mut app, 10);
    // Neither sees the other: no push.
    assert_eq!(velocity(&app, boid), Vector::ZERO);
    assert_eq!(velocity(&app, red), Vector::ZERO);
    // A second boid does push the first.
    let second = spawn(&mut app, (at(-10.0, 0.0), Boid, Separation::new(50.0)));
    step(&mut app, 10);
    assert!(velocity(&app, boid).x > 0.0);
    assert!(velocity(&app, second).x < 0.0);
}

#[test]
fn bad_radii_and_crowds_on_one_point_are_safe() {
    let mut app = flock_app();
    let bad = [0.0, -5.0, f32::NAN, f32::INFINITY].map(|radius| {
        spawn(
            &mut app,
            (
                at(0.0, 0.0),
                Boid,
                Separation::new(radius),
                Alignment::new(radius),
                Cohesion::new(radius),
            ),
        )
    });
    // Ten boids on one point, and a flock of one far away.
    for _ in 0..10 {
        spawn(
            &mut app,
            (
                at(500.0, 500.0),
                Boid,
                Separation::new(20.0),
                Alignment::new(20.0),
                Cohesion::new(20.0),
            ),
        );
    }
    let alone = spawn(
        &mut app,
        (
            at(-900.0, 0.0),
            Boid,
            Separation::new(20.0),
            Alignment::new(20.0),
            Cohesion::new(20.0),
        ),
    );
    step_checking(&mut app, 60, |app, _| assert_agents_sane(app));
    for agent in bad {
        let reported = problems(&app, agent);
        for name in ["separation", "alignment", "cohesion"] {
            assert!(
                reported.contains(Problem::InvalidRadius(BehaviourKind::new(name))),
                "{name}: {reported:?}"
            );
        }
    }
    assert_eq!(velocity(&app, alone), Vector::ZERO);
    assert!(problems(&app, alone).is_empty());
}

#[test]
fn a_missing_spatial_index_leaves_flocking_idle() {
    // Registered by hand without the index: no force, no panic.
    let mut app = create_app(60.0);
    app.add_neighbour_behaviour::<Separation, Boid>();
    let first = spawn(&mut app, (at(0.0, 0.0), Boid, Separation::new(50.0)));
    spawn(&mut app, (at(5.0, 0.0), Boid, Separation::new(50.0)));
    step(&mut app, 5);
    assert_eq!(velocity(&app, first), Vector::ZERO);
}

/// A follower of the leader-following tests.
#[derive(Component, Default)]
struct Follower;

#[test]
fn followers_gather_behind_the_leader_and_out_of_its_way() {
    let mut app = create_app(60.0);
    app.add_neighbour_behaviour::<Separation, Follower>()
        .add_plugins(SpatialIndexPlugin::<Follower>::new(30.0));
    // The leader walks right at 60 units a second, from among its followers.
    let leader = spawn(
        &mut app,
        (
            at(0.0, 0.0),
            MaxSpeed(60.0),
            Seek::new(v(100_000.0, 0.0)).with_slowing_radius(0.0),
        ),
    );
    let followers: Vec<Entity> = (0..6)
        .map(|index| {
            let start = from_angle(index as f32) * 40.0;
            spawn(
                &mut app,
                (
                    at(start.x, start.y),
                    MaxSpeed(120.0),
                    Follower,
                    FollowLeader::new(leader),
                    Separation::new(30.0).with_strength(120.0),
                ),
            )
        })
        .collect();
    step(&mut app, 60 * 5);
    step_checking(&mut app, 60 * 5, |app, _| {
        assert_agents_sane(app);
        let leader_position = position(app, leader);
        let ahead = leader_position + Vector::X * 50.0;
        for &follower in &followers {
            let offset = position(app, follower) - leader_position;
            assert!(
                offset.x < 0.0,
                "a follower is ahead of the leader: {offset}"
            );
            let from_ahead = position(app, follower).distance(ahead);
            assert!(from_ahead > 30.0, "a follower stands in the leader's way");
        }
    });
}

#[test]
fn a_leader_that_is_the_follower_itself_or_gone_is_safe() {
    let mut app = create_app(60.0);
    let itself = app.world_mut().spawn_empty().id();
    app.world_mut()
        .entity_mut(itself)
        .insert((at(0.0, 0.0), FollowLeader::new(itself)));
    let gone = spawn(&mut app, at(50.0, 0.0));
    let orphan = spawn(&mut app, (at(0.0, 50.0), FollowLeader::new(gone)));
    app.world_mut().despawn(gone);
    step_checking(&mut app, 30, |app, _| assert_agents_sane(app));
    assert!(problems(&app, itself).contains(Problem::TargetIsItself(BehaviourKind::FOLLOW_LEADER)));
    assert_eq!(velocity(&app, itself), Vector::ZERO);
    assert!(problems(&app, orphan).contains(Problem::MissingTarget(BehaviourKind::FOLLOW_LEADER)));
    assert_eq!(
        app.world().get::<FollowLeader>(orphan).unwrap().leader,
        None
    );
}

/// A walker of the queue tests.
#[derive(Component, Default)]
struct Walker;

/// The closest two walkers come over `seconds` as a file of ten walk to one point, with or without
/// queueing.
fn closest_approach_in_a_file(queue: bool, seconds: u32) -> f32 {
    let mut app = create_app(60.0);
    app.add_plugins(SpatialIndexPlugin::<Walker>::new(30.0));
    if queue {
        app.add_queue::<Walker>();
    }
    let walkers: Vec<Entity> = (0..10)
        .map(|index| {
            let walker = spawn(
                &mut app,
                (
                    at(-40.0 * index as f32, 0.0),
                    Walker,
                    Seek::new(v(400.0, 0.0)),
                ),
            );
            if queue {
                app.world_mut().entity_mut(walker).insert(Queue::default());
            }
            walker
        })
        .collect();
    let mut closest = f32::INFINITY;
    step_checking(&mut app, 60 * seconds, |app, _| {
        assert_agents_sane(app);
        for (i, &a) in walkers.iter().enumerate() {
            for &b in &walkers[i + 1..] {
                closest = closest.min(position(app, a).distance(position(app, b)));
            }
        }
    });
    closest
}

#[test]
fn queueing_walkers_keep_their_distance_where_others_pile_up() {
    let piled = closest_approach_in_a_file(false, 15);
    let queued = closest_approach_in_a_file(true, 15);
    assert!(piled < 5.0, "without queue: {piled}");
    assert!(queued > 15.0, "with queue: {queued}");
}

/// An app whose agents with `Walker` queue, in an index of cells 30 wide.
fn queue_app() -> App {
    let mut app = create_app(60.0);
    app.add_plugins(SpatialIndexPlugin::<Walker>::new(30.0))
        .add_queue::<Walker>();
    app
}

#[test]
fn a_queue_with_a_bad_radius_is_reported_and_idle() {
    let mut app = queue_app();
    let bad = spawn(
        &mut app,
        (
            at(0.0, 0.0),
            Walker,
            Seek::new(v(100.0, 0.0)),
            Queue {
                radius: f32::NAN,
                ..default()
            },
        ),
    );
    step_checking(&mut app, 30, |app, _| assert_agents_sane(app));
    assert!(problems(&app, bad).contains(Problem::InvalidRadius(Queue::KIND)));
    assert!(position(&app, bad).x > 0.0);
}

#[test]
fn a_queueing_agent_records_its_brake_for_the_gizmos() {
    let mut app = queue_app();
    let walker = |app: &mut App, x: f32| {
        spawn(
            app,
            (
                at(x, 0.0),
                Walker,
                Velocity(v(60.0, 0.0)),
                Seek::new(v(1000.0, 0.0)),
                Queue::default(),
            ),
        )
    };
    let front = walker(&mut app, 20.0);
    let rear = walker(&mut app, 0.0);
    step(&mut app, 1);
    let brake = |app: &App, agent| app.world().get::<Queue>(agent).unwrap().last_brake;
    assert_eq!(
        brake(&app, front),
        Vector::ZERO,
        "nobody ahead of the front walker"
    );
    assert!(
        brake(&app, rear).x < 0.0,
        "the rear walker brakes: {}",
        brake(&app, rear)
    );
}

/// The hard stop holds for an agent just in front even when another, further on, is nearer the
/// look-ahead point (a packed line): 12 ahead and 35 ahead, the look-ahead point at 30. With no
/// force to brake with, the hard stop alone: 0.3 of the velocity in a tutorial frame.
#[test]
fn the_hard_stop_holds_for_the_agent_just_in_front_in_a_packed_line() {
    for reversed in [false, true] {
        let mut app = queue_app();
        let mut ahead = [12.0, 35.0];
        if reversed {
            ahead.reverse();
        }
        for x in ahead {
            spawn(&mut app, (at(x, 0.0), Walker, Steering::default()));
        }
        let walker = spawn(
            &mut app,
            (
                at(0.0, 0.0),
                Walker,
                Velocity(v(60.0, 0.0)),
                MaxForce(0.0),
                Queue::default(),
            ),
        );
        step(&mut app, 1);
        let speed = velocity(&app, walker).x;
        assert!((speed - 18.0).abs() < 1e-3, "spawned {ahead:?}: {speed}");
    }
}

/// Prioritised, the queue's brake comes last (README, "Combining by priority"): it gets what is
/// left of the `MaxForce` budget after the seek, and nothing once the seek has spent it. One step
/// of a walker moving at 50 towards a far target, another 40 ahead (no hard stop).
#[test]
fn prioritised_the_queue_s_brake_gets_what_the_budget_leaves() {
    let velocity_after_a_step = |max_force: f32, combination: SteeringCombination| {
        let mut app = queue_app();
        let walker = spawn(
            &mut app,
            (
                at(0.0, 0.0),
                Walker,
                Velocity(v(50.0, 0.0)),
                MaxForce(max_force),
                Seek::new(v(10_000.0, 0.0)).with_slowing_radius(0.0),
                Queue::default(),
                combination,
            ),
        );
        spawn(&mut app, (at(40.0, 0.0), Walker, Steering::default()));
        step(&mut app, 1);
        velocity(&app, walker).x
    };
    let dt = 1.0 / 60.0;
    // The seek asks 180 - 50 = 130; the brake -(130 · 0.8) - 50 = -154.
    let cases = [
        (200.0, SteeringCombination::WeightedSum, 130.0 - 154.0),
        // 70 of the budget left: the brake shortened to it.
        (200.0, SteeringCombination::Prioritised, 130.0 - 70.0),
        // The seek spends the whole budget: no brake.
        (100.0, SteeringCombination::Prioritised, 100.0),
    ];
    for (max_force, combination, force) in cases {
        let got = velocity_after_a_step(max_force, combination);
        assert!(
            (got - (50.0 + force * dt)).abs() < 1e-3,
            "MaxForce {max_force}, {combination:?}: velocity {got}, expected {}",
            50.0 + force * dt
        );
    }
}

/// Marks the agent whose steering a broken force of the game's own makes NaN.
#[derive(Component)]
struct Poisoned;

fn poison_steering(mut agents: Query<&mut Steering, With<Poisoned>>) {
    for mut steering in &mut agents {
        steering.0 = Vector::NAN;
    }
}

#[test]
fn a_personal_space_leaves_a_broken_steering_to_be_reported() {
    let mut app = queue_app();
    app.add_systems(
        SteeringSchedule,
        poison_steering.in_set(SteeringSystems::CustomForces),
    );
    // The other walker is 50 degrees off the heading (not ahead, so no brake) and within the
    // personal space, which then limits the velocity.
    let walker = spawn(
        &mut app,
        (
            at(0.0, 0.0),
            Walker,
            Poisoned,
            Velocity(v(60.0, 0.0)),
            Queue::default().with_min_distance(20.0),
        ),
    );
    spawn(&mut app, (at(10.0, 12.0), Walker));
    step(&mut app, 1);
    assert!(problems(&app, walker).contains(Problem::NonFiniteSteering));
    let velocity = app.world().get::<Velocity>(walker).unwrap().0;
    assert!(velocity.is_finite(), "{velocity}");
}
