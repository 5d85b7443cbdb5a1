//! Scenes of their own for each behaviour: black-box checks of the documented behaviour, away
//! from the scenes the other tests use.

use std::time::Duration;

use crate::common::steer::prelude::*;
use crate::common::*;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;

const HZ: f64 = 60.0;

/// Every `TargetLost` triggered: the agent, the lost target and the behaviour that lost it.
#[derive(Resource, Default)]
struct LostLog(Vec<(Entity, Entity, BehaviourKind)>);

/// Records every `TargetLost` in a [`LostLog`].
fn log_lost_targets(app: &mut App) {
    app.init_resource::<LostLog>();
    app.add_observer(|lost: On<TargetLost>, mut log: ResMut<LostLog>| {
        log.0.push((lost.entity, lost.target, lost.behaviour));
    });
}

/// The smallest distance between two of `agents`.
fn min_pairwise(app: &App, agents: &[Entity]) -> f32 {
    let mut best = f32::INFINITY;
    for (i, &a) in agents.iter().enumerate() {
        for &b in &agents[i + 1..] {
            best = best.min(position(app, a).distance(position(app, b)));
        }
    }
    best
}

/// The length of the mean unit heading of `agents`: 1 when they all head the same way.
fn heading_order(app: &App, agents: &[Entity]) -> f32 {
    let sum: Vector = agents
        .iter()
        .map(|&a| velocity(app, a).normalize_or_zero())
        .sum();
    sum.length() / agents.len() as f32
}

// ---------------------------------------------------------------------------------------------
// Seek, flee, evade

/// `Evade` acts only within its panic distance (README), on a pursuer driving in from afar.
#[test]
fn evade_starts_only_once_an_approaching_pursuer_is_within_the_panic_distance() {
    let mut app = create_app(HZ);
    let pursuer = spawn(
        &mut app,
        (
            at(-400.0, 0.0),
            Velocity(v(100.0, 0.0)),
            Steering::default(),
        ),
    );
    let evader = spawn(
        &mut app,
        (at(0.0, 10.0), Evade::new(pursuer).with_panic_distance(90.0)),
    );
    let mut moved_at = None;
    step_checking(&mut app, 300, |app, n| {
        let d = position(app, pursuer).distance(position(app, evader));
        if velocity(app, evader) != Vector::ZERO && moved_at.is_none() {
            moved_at = Some((n, d));
        }
    });
    let (n, d) = moved_at.expect("never evaded");
    assert!(d <= 92.0, "started evading at step {n}, distance {d}");
    // It got out of the way upward, the side it was on.
    assert!(
        position(&app, evader).y > 30.0,
        "{}",
        position(&app, evader)
    );
}

/// A negative weight reverses a behaviour (README), on a seeker of weight -1 beside a fleer.
#[test]
fn a_negative_weight_turns_seek_into_flee() {
    let mut app = create_app(HZ);
    let a = spawn(
        &mut app,
        (
            at(0.0, 0.0),
            Seek::new(v(100.0, 50.0))
                .with_weight(-1.0)
                .with_slowing_radius(0.0),
        ),
    );
    let b = spawn(&mut app, (at(0.0, 200.0), Flee::new(v(100.0, 250.0))));
    step(&mut app, 1);
    // From rest the reversed seek force is flee's.
    let va = velocity(&app, a);
    let vb = velocity(&app, b);
    assert!(va.distance(vb) < 1e-4, "{va} vs {vb}");
    let mut prev = position(&app, a).distance(v(100.0, 50.0));
    step_checking(&mut app, 120, |app, n| {
        let d = position(app, a).distance(v(100.0, 50.0));
        assert!(d > prev, "step {n}: {d} <= {prev}");
        prev = d;
    });
}

// ---------------------------------------------------------------------------------------------
// Flocking

/// A boid of the flocking scenes.
#[derive(Component)]
struct Boid;

/// An app with flocking for [`Boid`]s.
fn flock_app() -> App {
    let mut app = create_app(HZ);
    app.add_plugins(FlockingPlugin::<Boid>::new(50.0));
    app
}

/// Separation `ByDistance` (README), on seven boids packed within a few units of each other.
#[test]
fn separation_by_distance_spreads_a_tight_cluster_beyond_its_radius() {
    let mut app = flock_app();
    let offsets = [
        (0.0, 0.0),
        (3.0, 1.0),
        (-2.0, 2.5),
        (1.0, -3.0),
        (-3.5, -1.0),
        (4.0, 4.0),
        (0.5, 5.0),
    ];
    let agents: Vec<Entity> = offsets
        .iter()
        .map(|&(x, y)| {
            spawn(
                &mut app,
                (
                    at(100.0 + x, -40.0 + y),
                    Boid,
                    Separation::new(35.0).with_method(SeparationMethod::ByDistance),
                ),
            )
        })
        .collect();
    step_checking(&mut app, 60 * 4, |app, _| assert_agents_sane(app));
    let d = min_pairwise(&app, &agents);
    assert!(d >= 34.0, "closest pair {d}");
}

/// `Alignment`, both methods (README), on ten boids in sight of one another, headings scattered.
#[test]
fn alignment_brings_a_small_flock_into_line_with_either_method() {
    for method in [AlignmentMethod::Heading, AlignmentMethod::MeanVelocity] {
        let mut app = flock_app();
        let agents: Vec<Entity> = (0..10)
            .map(|i| {
                let f = i as f32;
                spawn(
                    &mut app,
                    (
                        at((i % 4) as f32 * 15.0, (i / 4) as f32 * 15.0),
                        Velocity(from_angle(f * 2.1) * 60.0),
                        MaxSpeed(60.0),
                        Boid,
                        Alignment::new(300.0).with_method(method),
                    ),
                )
            })
            .collect();
        let before = heading_order(&app, &agents);
        step(&mut app, 60 * 5);
        let after = heading_order(&app, &agents);
        assert!(before < 0.5, "{before}");
        assert!(after > 0.98, "{method:?}: order {before} -> {after}");
    }
}

/// `Cohesion`, both methods (README), on eight boids on a ring, all within one another's radius.
#[test]
fn cohesion_draws_a_ring_of_boids_together_with_either_method() {
    for method in [CohesionMethod::Arrival, CohesionMethod::Seek] {
        let mut app = flock_app();
        let agents: Vec<Entity> = (0..8)
            .map(|i| {
                let p = v(500.0, 500.0)
                    + from_angle(i as f32 * 0.785 + 0.1) * (150.0 + 20.0 * (i % 3) as f32);
                spawn(
                    &mut app,
                    (
                        at(p.x, p.y),
                        Boid,
                        Mass(0.5),
                        Cohesion::new(450.0).with_method(method),
                    ),
                )
            })
            .collect();
        let spread = |app: &App| {
            let c: Vector = agents.iter().map(|&a| position(app, a)).sum::<Vector>() / 8.0;
            agents
                .iter()
                .map(|&a| position(app, a).distance(c))
                .fold(0.0, f32::max)
        };
        let before = spread(&app);
        let mut best = before;
        step_checking(&mut app, 60 * 5, |app, _| best = best.min(spread(app)));
        assert!(
            best < 0.3 * before,
            "{method:?}: spread {before} -> min {best}"
        );
    }
}

/// No panic and no NaN (README, "Bad input"), on a flock gaining boids on top of others mid-run.
#[test]
fn boids_spawned_on_others_and_despawned_mid_run_stay_sane() {
    let mut app = flock_app();
    let mut agents: Vec<Entity> = Vec::new();
    let boid = |p: Vector, vel: Vector| {
        (
            at(p.x, p.y),
            Velocity(vel),
            Boid,
            Separation::new(20.0),
            Alignment::new(50.0),
            Cohesion::new(50.0),
            Wander::default().with_weight(0.2),
        )
    };
    for i in 0..20 {
        let f = i as f32;
        agents.push(spawn(
            &mut app,
            boid(v(f * 7.0, (f * 3.0) % 40.0), from_angle(f) * 50.0),
        ));
    }
    for round in 0..10 {
        step_checking(&mut app, 20, |app, _| assert_agents_sane(app));
        // Two spawned on top of a boid, one despawned.
        let p = position(&app, agents[round]);
        agents.push(spawn(&mut app, boid(p, Vector::ZERO)));
        agents.push(spawn(&mut app, boid(p + v(0.01, 0.0), v(1.0, 1.0))));
        let gone = agents.remove(round * 2 % agents.len());
        app.world_mut().despawn(gone);
    }
    step_checking(&mut app, 60, |app, _| assert_agents_sane(app));
}

// ---------------------------------------------------------------------------------------------
// Leader following

/// A follower of the leader-following scenes.
#[derive(Component)]
struct Follower;

/// An app with separation for [`Follower`]s.
fn leader_app() -> App {
    let mut app = create_app(HZ);
    app.add_plugins(SpatialIndexPlugin::<Follower>::new(40.0))
        .add_neighbour_behaviour::<Separation, Follower>();
    app
}

/// `TargetLost` once per loss (README, "Events"), on followers of a leader despawned mid-run.
#[test]
fn a_leader_despawned_mid_run_is_forgotten_and_announced_once_per_follower() {
    let mut app = leader_app();
    log_lost_targets(&mut app);
    let leader = spawn(
        &mut app,
        (at(0.0, 0.0), Velocity(v(50.0, 0.0)), Steering::default()),
    );
    let fs: Vec<Entity> = (0..3)
        .map(|i| {
            spawn(
                &mut app,
                (
                    at(-30.0 * i as f32, 20.0),
                    Follower,
                    FollowLeader::new(leader),
                ),
            )
        })
        .collect();
    step(&mut app, 30);
    app.world_mut().despawn(leader);
    step_checking(&mut app, 60, |app, _| assert_agents_sane(app));
    for &f in &fs {
        assert_eq!(app.world().get::<FollowLeader>(f).unwrap().leader, None);
    }
    let lost = &app.world().resource::<LostLog>().0;
    assert_eq!(lost.len(), 3);
    assert!(
        lost.iter()
            .all(|l| l.2 == BehaviourKind::FOLLOW_LEADER && l.1 == leader)
    );
}

/// Followers gather round a leader at rest (README), on four followers starting 200 units away.
#[test]
fn followers_of_a_resting_leader_gather_round_it() {
    let mut app = leader_app();
    let leader = spawn(&mut app, (at(100.0, 100.0), Steering::default()));
    let fs: Vec<Entity> = (0..4)
        .map(|i| {
            let p = from_angle(i as f32 * 1.5) * 200.0;
            spawn(
                &mut app,
                (
                    at(p.x, p.y),
                    Follower,
                    FollowLeader::new(leader),
                    Separation::new(25.0),
                ),
            )
        })
        .collect();
    step_checking(&mut app, 60 * 8, |app, _| assert_agents_sane(app));
    for &f in &fs {
        let d = position(&app, f).distance(v(100.0, 100.0));
        assert!(d < 120.0, "follower {d} from the resting leader");
    }
}

/// No panic and no NaN (README), on bad leader-following tuning and a follower on its leader.
#[test]
fn bad_leader_following_tuning_and_a_follower_on_its_leader_are_safe() {
    let mut app = leader_app();
    let leader = spawn(
        &mut app,
        (at(0.0, 0.0), Velocity(v(30.0, 0.0)), Steering::default()),
    );
    for x in [f32::NAN, f32::INFINITY, -10.0, 0.0] {
        spawn(
            &mut app,
            (
                at(0.0, 0.0),
                Follower,
                FollowLeader {
                    behind_distance: x,
                    sight_radius: x,
                    slowing_radius: x,
                    evade_scale: x,
                    ..FollowLeader::new(leader)
                },
            ),
        );
    }
    // A follower exactly on its leader, with the default tuning.
    spawn(
        &mut app,
        (at(0.0, 0.0), Follower, FollowLeader::new(leader)),
    );
    step_checking(&mut app, 120, |app, _| assert_agents_sane(app));
}

// ---------------------------------------------------------------------------------------------
// Queue

/// A walker of the queue scenes.
#[derive(Component)]
struct Walker;

/// Queues [`Walker`]s, with their spatial index.
fn add_walker_queue(app: &mut App) {
    app.add_plugins(SpatialIndexPlugin::<Walker>::new(40.0))
        .add_queue::<Walker>();
}

/// `Queue::min_distance` is never crossed (README), on seven seekers of one point from a ring.
#[test]
fn queue_personal_space_holds_for_seekers_converging_on_one_point() {
    let mut app = create_app(HZ);
    add_walker_queue(&mut app);
    let agents: Vec<Entity> = (0..7)
        .map(|i| {
            let p = from_angle(i as f32 * 0.9) * (160.0 + 15.0 * i as f32);
            spawn(
                &mut app,
                (
                    at(p.x, p.y),
                    Walker,
                    Mass(0.6),
                    Seek::new(v(0.0, 0.0)).with_slowing_radius(40.0),
                    Queue::default().with_min_distance(22.0),
                ),
            )
        })
        .collect();
    let mut closest = f32::INFINITY;
    step_checking(&mut app, 60 * 10, |app, _| {
        assert_agents_sane(app);
        closest = closest.min(min_pairwise(app, &agents));
    });
    assert!(closest >= 22.0 - 0.01, "came within {closest}");
}

/// The `Queue` brake (README), on a file of walkers running up to one standing in their way.
#[test]
fn queue_without_personal_space_stops_a_file_behind_a_resting_walker() {
    let mut app = create_app(HZ);
    add_walker_queue(&mut app);
    spawn(&mut app, (at(200.0, 0.0), Walker, Steering::default()));
    let line: Vec<Entity> = (0..4)
        .map(|i| {
            spawn(
                &mut app,
                (
                    at(-40.0 * i as f32, 0.0),
                    Walker,
                    Velocity(v(100.0, 0.0)),
                    Seek::new(v(600.0, 0.0)),
                    Queue::default(),
                ),
            )
        })
        .collect();
    let mut max_x = f32::NEG_INFINITY;
    step_checking(&mut app, 60 * 6, |app, _| {
        for &a in &line {
            max_x = max_x.max(position(app, a).x);
        }
    });
    assert!(
        max_x < 200.0,
        "a walker reached x = {max_x} past the blocker at 200"
    );
    for &a in &line {
        assert!(
            velocity(&app, a).length() < 20.0,
            "still moving {}",
            velocity(&app, a)
        );
    }
}

/// `Queue::min_distance` is never crossed (README), on twelve mixed agents crossing a circle.
#[test]
fn queue_personal_space_holds_for_a_crowd_crossing_a_circle() {
    let mut app = create_app(HZ);
    add_walker_queue(&mut app);
    let n = 12;
    let agents: Vec<Entity> = (0..n)
        .map(|i| {
            let dir = from_angle(i as f32 * std::f32::consts::TAU / n as f32 + 0.02 * i as f32);
            let p = dir * 150.0;
            spawn(
                &mut app,
                (
                    at(p.x, p.y),
                    Walker,
                    Mass(0.2 + 0.15 * (i % 4) as f32),
                    MaxSpeed(150.0 + 20.0 * (i % 3) as f32),
                    MaxForce(900.0),
                    Seek::new(-dir * 150.0).with_slowing_radius(30.0),
                    Wander::default().with_weight(0.3),
                    Queue::default().with_min_distance(18.0),
                ),
            )
        })
        .collect();
    let mut closest = f32::INFINITY;
    let mut when = 0;
    step_checking(&mut app, 60 * 12, |app, k| {
        assert_agents_sane(app);
        let d = min_pairwise(app, &agents);
        if d < closest {
            closest = d;
            when = k;
        }
    });
    assert!(
        closest >= 18.0 - 0.01,
        "came within {closest} at step {when}"
    );
}

/// `Queue::min_distance` is never crossed (README), on six fast agents crossing at 250 ms steps.
#[test]
fn queue_personal_space_holds_at_a_quarter_second_step() {
    let mut app = create_app_with_step(Duration::from_millis(250), SteeringPlugin::default());
    add_walker_queue(&mut app);
    let agents: Vec<Entity> = (0..6)
        .map(|i| {
            let dir = from_angle(i as f32 * 1.05);
            let p = dir * 120.0;
            spawn(
                &mut app,
                (
                    at(p.x, p.y),
                    Walker,
                    Mass(0.05),
                    MaxSpeed(400.0),
                    MaxForce(5000.0),
                    Seek::new(-dir * 120.0).with_slowing_radius(0.0),
                    Queue::default().with_min_distance(15.0),
                ),
            )
        })
        .collect();
    let mut closest = f32::INFINITY;
    step_checking(&mut app, 80, |app, _| {
        assert_agents_sane(app);
        closest = closest.min(min_pairwise(app, &agents));
    });
    assert!(closest >= 15.0 - 0.01, "came within {closest}");
}

// ---------------------------------------------------------------------------------------------
// Obstacles

/// An agent seeking `target` from `(x, y)` while avoiding obstacles.
fn avoider(x: f32, y: f32, target: Vector) -> impl Bundle {
    (
        at(x, y),
        Mass(0.5),
        MaxForce(800.0),
        Seek::new(target).with_slowing_radius(60.0),
        AvoidObstacles::new(100.0, 8.0),
    )
}

/// Steps `app` `steps` times: the deepest any of `agents` got inside an obstacle (negative: the
/// nearest it came to one).
fn deepest_inside(app: &mut App, agents: &[Entity], steps: u32) -> f32 {
    let mut deepest = f32::NEG_INFINITY;
    step_checking(app, steps, |app, _| {
        for &agent in agents {
            let point = position(app, agent);
            deepest = deepest.max(depth_inside(app, point));
        }
    });
    deepest
}

/// Asserts that every one of `agents` got beyond `x`.
fn assert_all_beyond(app: &App, agents: &[Entity], x: f32) {
    for &agent in agents {
        let at = position(app, agent);
        assert!(at.x > x, "stuck at {at}, short of x = {x}");
    }
}

/// Avoidance gets round and keeps clear (README), on six agents crossing a circle from six sides.
#[test]
fn agents_from_six_sides_get_round_a_circle_and_reach_their_targets() {
    let mut app = create_app(HZ);
    spawn(&mut app, (Obstacle::circle(70.0), at(20.0, -10.0)));
    let mut pairs = Vec::new();
    for i in 0..6 {
        let dir = from_angle(i as f32 * 1.047 + 0.05);
        let start = v(20.0, -10.0) + dir * 300.0;
        let target = v(20.0, -10.0) - dir * 300.0;
        pairs.push((spawn(&mut app, avoider(start.x, start.y, target)), target));
    }
    let agents: Vec<Entity> = pairs.iter().map(|&(agent, _)| agent).collect();
    let deepest = deepest_inside(&mut app, &agents, 60 * 12);
    assert!(
        deepest < -4.0,
        "an agent got within {} of the circle",
        -deepest
    );
    for (i, &(a, t)) in pairs.iter().enumerate() {
        assert!(
            position(&app, a).distance(t) < 20.0,
            "agent {i} at {} not at {t}",
            position(&app, a)
        );
    }
}

/// Avoidance of boxes and walls (README), on five agents past two boxes and a slanted wall.
#[test]
fn agents_get_round_two_boxes_and_a_slanting_wall() {
    let mut app = create_app(HZ);
    spawn(
        &mut app,
        (Obstacle::rectangle(v(60.0, 220.0)), at(150.0, 0.0)),
    );
    spawn(
        &mut app,
        (Obstacle::rectangle(v(40.0, 40.0)), at(350.0, 60.0)),
    );
    spawn(&mut app, Obstacle::wall(v(450.0, -200.0), v(550.0, 100.0)));
    let agents: Vec<Entity> = (0..5)
        .map(|i| {
            spawn(
                &mut app,
                avoider(
                    0.0,
                    -80.0 + 40.0 * i as f32,
                    v(700.0, -40.0 + 20.0 * i as f32),
                ),
            )
        })
        .collect();
    let deepest = deepest_inside(&mut app, &agents, 60 * 15);
    assert!(deepest < 0.0, "an agent got {deepest} inside an obstacle");
    assert_all_beyond(&app, &agents, 600.0);
}

/// An agent spawned inside is got out (README), inside a box and a circle, centres included.
#[test]
fn agents_started_inside_a_box_or_a_circle_get_out() {
    let mut app = create_app(HZ);
    spawn(
        &mut app,
        (Obstacle::rectangle(v(100.0, 60.0)), at(0.0, 0.0)),
    );
    spawn(&mut app, (Obstacle::circle(50.0), at(300.0, 0.0)));
    let inside = [
        spawn(&mut app, (at(10.0, 5.0), AvoidObstacles::default())),
        spawn(
            &mut app,
            (
                at(-45.0, 25.0),
                Velocity(v(30.0, 0.0)),
                AvoidObstacles::default(),
            ),
        ),
        spawn(&mut app, (at(310.0, -3.0), AvoidObstacles::default())),
        // The exact centre of a circle: no shortest way out.
        spawn(&mut app, (at(300.0, 0.0), AvoidObstacles::default())),
        // The exact centre of a box.
        spawn(
            &mut app,
            (
                at(0.0, 0.0),
                Seek::new(v(0.0, 0.0)),
                AvoidObstacles::default(),
            ),
        ),
    ];
    step_checking(&mut app, 60 * 4, |app, _| assert_agents_sane(app));
    for (i, &a) in inside.iter().enumerate() {
        let p = position(&app, a);
        let depth = depth_inside(&mut app, p);
        assert!(depth < 0.0, "agent {i} still {depth} inside at {p}");
    }
}

/// Bad obstacles are left out (README), on seekers through zero-size, NaN and infinite obstacles.
#[test]
fn zero_size_and_invalid_obstacles_neither_stop_nor_break_agents() {
    let mut app = create_app(HZ);
    spawn(&mut app, (Obstacle::circle(0.0), at(100.0, 0.0)));
    spawn(&mut app, (Obstacle::rectangle(v(0.0, 0.0)), at(150.0, 2.0)));
    spawn(
        &mut app,
        (Obstacle::rectangle(v(0.0, 80.0)), at(170.0, 2.0)),
    );
    spawn(&mut app, Obstacle::wall(v(200.0, 0.0), v(200.0, 0.0)));
    spawn(&mut app, (Obstacle::circle(f32::NAN), at(220.0, 0.0)));
    spawn(&mut app, (Obstacle::circle(-5.0), at(240.0, 0.0)));
    spawn(&mut app, (Obstacle::circle(f32::INFINITY), at(260.0, 0.0)));
    spawn(
        &mut app,
        (Obstacle::rectangle(v(f32::NAN, 3.0)), at(280.0, 0.0)),
    );
    spawn(&mut app, (Obstacle::circle(10.0), at(f32::NAN, 0.0)));
    spawn(&mut app, (Obstacle::circle(10.0), at(f32::INFINITY, 0.0)));
    spawn(&mut app, Obstacle::wall(v(300.0, f32::NAN), v(320.0, 0.0)));
    let agents: Vec<Entity> = (0..3)
        .map(|i| spawn(&mut app, avoider(0.0, -1.0 + i as f32, v(400.0, 0.0))))
        .collect();
    step_checking(&mut app, 60 * 6, |app, _| assert_agents_sane(app));
    assert_all_beyond(&app, &agents, 350.0);
}

/// Obstacles may move (README), on a circle closing in on an avoiding agent at 60 units a second.
#[test]
fn an_obstacle_moving_onto_an_agent_never_swallows_it() {
    let mut app = create_app(HZ);
    let obstacle = spawn(&mut app, (Obstacle::circle(30.0), at(200.0, 0.0)));
    let agent = spawn(
        &mut app,
        (
            at(0.0, 0.0),
            Velocity(v(10.0, 0.0)),
            AvoidObstacles::default(),
        ),
    );
    let mut deepest = f32::NEG_INFINITY;
    for _ in 0..240 {
        // The obstacle closes in at 60 units a second.
        app.world_mut()
            .get_mut::<Transform>(obstacle)
            .unwrap()
            .translation
            .x -= 1.0;
        step(&mut app, 1);
        let p = position(&app, agent);
        deepest = deepest.max(depth_inside(&mut app, p));
        assert_agents_sane(&mut app);
    }
    assert!(
        deepest < 0.0,
        "obstacle swallowed the agent: depth {deepest}"
    );
}

/// The crossings of the wall from (200, -400) to (200, 400), over 10 s, by agents of the given
/// (max speed, max force, mass) seeking a point behind it: (agent, step, position before, after).
fn wall_crossings(
    look: f32,
    braking: f32,
    limits: &[(f32, f32, f32)],
) -> Vec<(usize, u32, Vector, Vector)> {
    let mut app = create_app(HZ);
    spawn(&mut app, Obstacle::wall(v(200.0, -400.0), v(200.0, 400.0)));
    let agents: Vec<Entity> = limits
        .iter()
        .enumerate()
        .map(|(i, &(s, f, m))| {
            let y = -300.0 + 600.0 * i as f32 / limits.len() as f32;
            spawn(
                &mut app,
                (
                    at(0.0, y),
                    Velocity(v(s, 0.0)),
                    MaxSpeed(s),
                    MaxForce(f),
                    Mass(m),
                    Seek::new(v(400.0, y * 0.5)),
                    AvoidObstacles::new(look, 8.0).with_braking(braking),
                ),
            )
        })
        .collect();
    let mut prev: Vec<Vector> = agents.iter().map(|&a| position(&app, a)).collect();
    let mut crossed = Vec::new();
    step_checking(&mut app, 60 * 10, |app, k| {
        for (i, &a) in agents.iter().enumerate() {
            let p = position(app, a);
            let q = prev[i];
            if (q.x < 200.0) != (p.x < 200.0) {
                let t = (200.0 - q.x) / (p.x - q.x);
                let y = q.y + (p.y - q.y) * t;
                if y.abs() <= 400.0 {
                    crossed.push((i, k, q, p));
                }
            }
            prev[i] = p;
        }
    });
    crossed
}

/// Avoidance tests the whole look-ahead (README), on agents able to turn within it, at a wall.
#[test]
fn agents_that_can_turn_within_their_look_ahead_never_cross_a_wall() {
    // (max speed, max force, mass): turning radius v^2 m / F at most 90, stopping distance at most
    // 45, look-ahead 200, started at full speed 200 units from a wall 800 long.
    let spec = [
        (180.0, 600.0, 1.0),
        (250.0, 700.0, 0.8),
        (300.0, 1000.0, 0.6),
        (200.0, 400.0, 0.5),
        (350.0, 1500.0, 0.5),
        (120.0, 200.0, 1.0),
    ];
    for (i, &(s, f, m)) in spec.iter().enumerate() {
        assert!(s * s * m / f <= 90.0, "spec {i}");
    }
    for braking in [0.0, 0.5] {
        let crossed = wall_crossings(200.0, braking, &spec);
        assert!(
            crossed.is_empty(),
            "braking {braking}: crossed the wall: {crossed:?}"
        );
    }
}

/// The obstacle index is rebuilt every step (README), on obstacles despawned and spawned mid-run.
#[test]
fn obstacles_despawned_and_spawned_mid_run_are_safe() {
    let mut app = create_app(HZ);
    let mut obstacles: Vec<Entity> = (0..6)
        .map(|i| {
            spawn(
                &mut app,
                (
                    Obstacle::circle(20.0),
                    at(100.0 + 40.0 * i as f32, (i % 2) as f32 * 30.0),
                ),
            )
        })
        .collect();
    for i in 0..5 {
        spawn(
            &mut app,
            avoider(0.0, -20.0 + 10.0 * i as f32, v(500.0, 0.0)),
        );
    }
    for k in 0..30 {
        step_checking(&mut app, 10, |app, _| assert_agents_sane(app));
        if k % 3 == 0 && !obstacles.is_empty() {
            let o = obstacles.remove(0);
            app.world_mut().despawn(o);
        }
        if k % 4 == 0 {
            obstacles.push(spawn(
                &mut app,
                (
                    Obstacle::rectangle(v(30.0, 30.0)),
                    at(150.0 + 10.0 * k as f32, 0.0),
                ),
            ));
        }
    }
}

/// Prioritised combination puts avoidance first (README), on a seek of weight 20 through a circle.
#[test]
fn prioritised_avoidance_wins_over_a_heavy_seek() {
    let mut app = create_app(HZ);
    spawn(&mut app, (Obstacle::circle(60.0), at(200.0, 0.0)));
    let e = spawn(
        &mut app,
        (
            at(0.0, 3.0),
            Mass(0.5),
            MaxForce(900.0),
            SteeringCombination::Prioritised,
            Seek::new(v(400.0, 0.0)).with_weight(20.0),
            AvoidObstacles::new(120.0, 10.0),
        ),
    );
    let deepest = deepest_inside(&mut app, &[e], 60 * 8);
    assert!(deepest < 0.0, "went {deepest} into the obstacle");
    assert!(
        position(&app, e).distance(v(400.0, 0.0)) < 30.0,
        "{}",
        position(&app, e)
    );
}

// ---------------------------------------------------------------------------------------------
// Containment

/// `Containment::circle` keeps agents in (README), on seekers of targets far outside a circle.
#[test]
fn containment_circle_keeps_seekers_of_far_targets_inside() {
    let mut app = create_app(HZ);
    let centre = v(50.0, 50.0);
    let agents: Vec<Entity> = (0..6)
        .map(|i| {
            let dir = from_angle(i as f32);
            spawn(
                &mut app,
                (
                    at(centre.x, centre.y),
                    Velocity(dir * 150.0),
                    Seek::new(centre + dir * 2000.0).with_slowing_radius(0.0),
                    Containment::circle(centre, 220.0),
                ),
            )
        })
        .collect();
    let mut farthest = 0.0f32;
    step_checking(&mut app, 60 * 10, |app, _| {
        for &a in &agents {
            farthest = farthest.max(position(app, a).distance(centre));
        }
    });
    assert!(
        farthest < 220.0,
        "an agent reached {farthest} from the centre of a 220 circle"
    );
}

/// A non-finite target gives no force and is reported (README), on three bad containment shapes.
#[test]
fn a_bad_containment_shape_gives_no_force_and_is_reported() {
    let mut app = create_app(HZ);
    let a = spawn(
        &mut app,
        (
            at(0.0, 0.0),
            Velocity(v(100.0, 0.0)),
            Containment::circle(v(0.0, 0.0), f32::NAN),
        ),
    );
    let b = spawn(
        &mut app,
        (
            at(0.0, 50.0),
            Velocity(v(100.0, 0.0)),
            Containment::rectangle(v(0.0, 0.0), v(-10.0, 10.0)),
        ),
    );
    let c = spawn(
        &mut app,
        (
            at(0.0, 90.0),
            Velocity(v(100.0, 0.0)),
            Containment::circle(v(f32::INFINITY, 0.0), 40.0),
        ),
    );
    step(&mut app, 60);
    for e in [a, b, c] {
        assert_eq!(velocity(&app, e), v(100.0, 0.0));
        assert!(
            problems(&app, e).contains(Problem::NonFiniteTarget(BehaviourKind::CONTAINMENT)),
            "{:?}",
            problems(&app, e).iter().collect::<Vec<_>>()
        );
    }
}

/// No panic and no NaN (README, "Bad input"), on containment areas of size zero.
#[test]
fn zero_size_containment_areas_are_safe() {
    let mut app = create_app(HZ);
    spawn(
        &mut app,
        (
            at(0.0, 0.0),
            Velocity(v(50.0, 20.0)),
            Containment::circle(v(0.0, 0.0), 0.0),
        ),
    );
    spawn(
        &mut app,
        (
            at(3.0, 0.0),
            Containment::rectangle(v(3.0, 0.0), v(0.0, 0.0)),
        ),
    );
    spawn(
        &mut app,
        (
            at(3.0, 0.0),
            Containment::circle(v(3.0, 0.0), 5.0).with_margin(0.0),
        ),
    );
    step_checking(&mut app, 120, |app, _| assert_agents_sane(app));
}

// ---------------------------------------------------------------------------------------------
// Path following

/// The follower's `FollowPath` as it is now.
fn follow(app: &App, e: Entity) -> FollowPath {
    app.world().get::<FollowPath>(e).unwrap().clone()
}

/// The nodes a follower of `points` seeks over 20 s, in turn (each change of `current`), from
/// just off the first node.
fn nodes_sought(points: &[Vector], mode: PathMode, method: PathMethod) -> Vec<usize> {
    let mut app = create_app(HZ);
    let follower = spawn(
        &mut app,
        (
            at(10.0, -10.0),
            Mass(0.4),
            FollowPath::new(Path::new(points.to_vec(), 20.0))
                .with_mode(mode)
                .with_method(method),
        ),
    );
    let mut sought = vec![follow(&app, follower).current];
    step_checking(&mut app, 60 * 20, |app, _| {
        let current = follow(app, follower).current;
        if sought.last() != Some(&current) {
            sought.push(current);
        }
    });
    sought
}

/// Loop wraps and ping-pong reverses (README), on the node sought round a square, both methods.
#[test]
fn loop_and_ping_pong_visit_the_nodes_in_order_with_either_method() {
    let square = [v(0.0, 0.0), v(200.0, 0.0), v(200.0, 200.0), v(0.0, 200.0)];
    for method in [PathMethod::Tutorial, PathMethod::Reynolds] {
        let seq = nodes_sought(&square, PathMode::Loop, method);
        assert!(seq.len() >= 9, "{method:?} loop only visited {seq:?}");
        for w in seq.windows(2) {
            assert_eq!(w[1], (w[0] + 1) % 4, "{method:?} loop order {seq:?}");
        }
        let seq = nodes_sought(&square[..3], PathMode::PingPong, method);
        assert!(seq.len() >= 6, "{method:?} ping-pong only visited {seq:?}");
        assert!(
            seq.contains(&2) && seq.iter().skip_while(|&&c| c != 2).any(|&c| c == 0),
            "{method:?} {seq:?}"
        );
        for w in seq.windows(2) {
            assert_eq!(w[1].abs_diff(w[0]), 1, "{method:?} ping-pong order {seq:?}");
        }
    }
}

/// No panic and no NaN (README, "Bad input"), on paths swapped mid-run for short and empty ones.
#[test]
fn a_path_replaced_mid_run_by_a_shorter_an_empty_or_a_one_node_path_is_safe() {
    let mut app = create_app(HZ);
    let points: Vec<Vector> = (0..8)
        .map(|i| v(i as f32 * 50.0, (i % 2) as f32 * 40.0))
        .collect();
    let agents: Vec<Entity> = [PathMethod::Tutorial, PathMethod::Reynolds]
        .iter()
        .flat_map(|&m| [PathMode::OneWay, PathMode::Loop, PathMode::PingPong].map(|mode| (m, mode)))
        .map(|(m, mode)| {
            spawn(
                &mut app,
                (
                    at(0.0, 0.0),
                    FollowPath::new(Path::new(points.clone(), 15.0))
                        .with_method(m)
                        .with_mode(mode),
                ),
            )
        })
        .collect();
    step(&mut app, 240);
    for &e in &agents {
        let mut follow_path = app.world_mut().get_mut::<FollowPath>(e).unwrap();
        follow_path.path = Path::new([v(0.0, 100.0), v(50.0, 100.0)], 15.0);
    }
    step_checking(&mut app, 240, |app, _| assert_agents_sane(app));
    for &e in &agents {
        assert!(follow(&app, e).current <= 1);
        let mut follow_path = app.world_mut().get_mut::<FollowPath>(e).unwrap();
        follow_path.path = Path::default();
        follow_path.current = 17;
    }
    step_checking(&mut app, 60, |app, _| assert_agents_sane(app));
    for &e in &agents {
        let mut follow_path = app.world_mut().get_mut::<FollowPath>(e).unwrap();
        follow_path.path = Path::new([v(-50.0, -50.0)], 15.0);
        follow_path.current = 5;
    }
    step_checking(&mut app, 60 * 6, |app, _| assert_agents_sane(app));
    for &e in &agents {
        assert!(
            position(&app, e).distance(v(-50.0, -50.0)) < 3.0,
            "{}",
            position(&app, e)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input

/// A non-finite velocity is set to zero (README, "Bad input"), on seekers that then arrive.
#[test]
fn a_non_finite_velocity_is_zeroed_and_the_agent_then_arrives() {
    let mut app = create_app(HZ);
    let agents: Vec<Entity> = [
        v(f32::NAN, 0.0),
        v(f32::INFINITY, 3.0),
        v(0.0, f32::NEG_INFINITY),
        v(f32::MAX, f32::MAX),
    ]
    .iter()
    .map(|&vel| {
        spawn(
            &mut app,
            (
                at(0.0, 0.0),
                Velocity(vel),
                Mass(0.2),
                Seek::new(v(100.0, 100.0)).with_slowing_radius(200.0),
            ),
        )
    })
    .collect();
    step_checking(&mut app, 60 * 8, |app, _| assert_agents_sane(app));
    for (i, &e) in agents.iter().enumerate() {
        let p = position(&app, e);
        assert!(p.distance(v(100.0, 100.0)) < 2.0, "case {i}: at {p}");
    }
    assert!(problems(&app, agents[0]).contains(Problem::NonFiniteMotion));
}

/// A target gone or without `Transform` is lost once (README, "Bad input"), for four behaviours.
#[test]
fn targets_without_a_transform_or_despawned_before_the_first_step_are_lost_once() {
    let mut app = create_app(HZ);
    log_lost_targets(&mut app);
    let ghost = app.world_mut().spawn(Name::new("no transform")).id();
    let gone = app.world_mut().spawn(at(10.0, 10.0)).id();
    app.world_mut().despawn(gone);
    let mut agents = Vec::new();
    for t in [ghost, gone] {
        agents.push(spawn(
            &mut app,
            (at(0.0, 0.0), Velocity(v(1.0, 2.0)), Seek::new(t)),
        ));
        agents.push(spawn(
            &mut app,
            (at(0.0, 0.0), Velocity(v(1.0, 2.0)), Flee::new(t)),
        ));
        agents.push(spawn(
            &mut app,
            (at(0.0, 0.0), Velocity(v(1.0, 2.0)), Pursue::new(t)),
        ));
        agents.push(spawn(
            &mut app,
            (at(0.0, 0.0), Velocity(v(1.0, 2.0)), Evade::new(t)),
        ));
    }
    step_checking(&mut app, 20, |app, _| assert_agents_sane(app));
    for &e in &agents {
        assert_eq!(velocity(&app, e), v(1.0, 2.0));
    }
    let lost = &app.world().resource::<LostLog>().0;
    assert_eq!(lost.len(), 8, "{lost:?}");
}

/// A non-finite target adds no force (README, "Bad input"), on a pursued entity NaN for a while.
#[test]
fn pursuit_pauses_while_its_target_is_not_finite_and_resumes_after() {
    let mut app = create_app(HZ);
    let target = spawn(&mut app, (at(100.0, 0.0), Steering::default()));
    let seeker = spawn(&mut app, (at(0.0, 0.0), Pursue::new(target)));
    step(&mut app, 10);
    app.world_mut()
        .get_mut::<Transform>(target)
        .unwrap()
        .translation
        .x = f32::NAN;
    let before = velocity(&app, seeker);
    step(&mut app, 10);
    assert_eq!(velocity(&app, seeker), before, "pursued a NaN target");
    app.world_mut()
        .get_mut::<Transform>(target)
        .unwrap()
        .translation = Vec3::new(-100.0, 0.0, 0.0);
    step(&mut app, 120);
    assert!(
        velocity(&app, seeker).x < 0.0,
        "did not resume pursuit: {}",
        velocity(&app, seeker)
    );
    assert!(problems(&app, seeker).contains(Problem::NonFiniteTarget(BehaviourKind::PURSUE)));
}

/// No panic and no NaN (README, "Bad input"), on bad tuning of every behaviour without neighbours.
#[test]
fn bad_tuning_of_every_behaviour_without_neighbours_is_safe() {
    let mut app = create_app(HZ);
    let bad = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -1.0,
        0.0,
        1e-30,
        1e30,
        f32::MAX,
    ];
    for (i, &x) in bad.iter().enumerate() {
        let y = 40.0 * i as f32;
        spawn(
            &mut app,
            (
                at(0.0, y),
                Velocity(v(10.0, 0.0)),
                Seek::new(v(200.0, y))
                    .with_slowing_radius(x)
                    .with_arrival(x, x),
            ),
        );
        spawn(
            &mut app,
            (
                at(0.0, y),
                Wander::default()
                    .with_circle(x, x)
                    .with_angle_change(x)
                    .with_angle(x),
            ),
        );
        spawn(
            &mut app,
            (at(0.0, y), Flee::new(v(1.0, y)).with_panic_distance(x)),
        );
        spawn(&mut app, (at(0.0, y), Seek::new(v(50.0, y)).with_weight(x)));
        spawn(
            &mut app,
            (
                at(0.0, y),
                Wander::default()
                    .with_method(WanderMethod::random_target(area(v(0.0, 0.0), v(x, x)), x)),
            ),
        );
        spawn(
            &mut app,
            (
                at(0.0, y),
                AvoidObstacles {
                    look_ahead: x,
                    clearance: x,
                    strength: x,
                    braking: x,
                    ..default()
                },
            ),
        );
        spawn(
            &mut app,
            (
                at(0.0, y),
                Containment::circle(v(0.0, y), 100.0)
                    .with_margin(x)
                    .with_strength(x),
            ),
        );
        spawn(
            &mut app,
            (
                at(0.0, y),
                FollowPath {
                    slowing_radius: x,
                    prediction: x,
                    lookahead: x,
                    ..FollowPath::new(Path::new([v(100.0, y), v(100.0, y + 100.0)], 10.0))
                        .with_method(PathMethod::Reynolds)
                },
            ),
        );
    }
    spawn(&mut app, (Obstacle::circle(15.0), at(30.0, 0.0)));
    step_checking(&mut app, 120, |app, _| assert_agents_sane(app));
}

/// A bad radius is reported (README, "Neighbours"), on a crowd with bad neighbour and queue tuning.
#[test]
fn bad_tuning_of_the_neighbour_behaviours_is_safe_and_a_bad_radius_is_reported() {
    let mut app = flock_app();
    add_walker_queue(&mut app);
    let bad = [f32::NAN, f32::INFINITY, -1.0, 0.0, 1e-30, 1e30];
    let mut agents = Vec::new();
    for (i, &x) in bad.iter().enumerate() {
        for j in 0..3 {
            agents.push(spawn(
                &mut app,
                (
                    at(j as f32 * 3.0, i as f32 * 5.0),
                    Velocity(v(10.0, j as f32)),
                    Boid,
                    Walker,
                    Separation {
                        strength: x,
                        field_of_view: x,
                        ..Separation::new(x)
                    },
                    Alignment {
                        strength: x,
                        ..Alignment::new(20.0)
                    },
                    Cohesion {
                        field_of_view: x,
                        ..Cohesion::new(20.0)
                    },
                    Queue {
                        ahead_distance: x,
                        radius: x,
                        brake: x,
                        hard_stop: x,
                        min_distance: x,
                        ..default()
                    },
                    Seek::new(v(100.0, 0.0)),
                ),
            ));
        }
    }
    step_checking(&mut app, 120, |app, _| assert_agents_sane(app));
    assert!(problems(&app, agents[0]).contains(Problem::InvalidRadius(BehaviourKind::SEPARATION)));
}

/// No panic and no NaN (README, "Bad input"), on extreme limits with every behaviour at once.
#[test]
fn extreme_limits_with_every_behaviour_at_once_stay_finite() {
    let mut app = create_app(HZ);
    app.add_plugins(FlockingPlugin::<Boid>::new(50.0));
    add_walker_queue(&mut app);
    spawn(&mut app, (Obstacle::circle(20.0), at(30.0, 0.0)));
    spawn(
        &mut app,
        (Obstacle::rectangle(v(1e30, 10.0)), at(0.0, 500.0)),
    );
    spawn(&mut app, Obstacle::wall(v(-1e30, -50.0), v(1e30, -50.0)));
    let leader = spawn(
        &mut app,
        (
            at(1.0, 1.0),
            Velocity(v(1e30, 0.0)),
            MaxSpeed(f32::MAX),
            Steering::default(),
        ),
    );
    let limits = [
        (f32::MAX, f32::MAX, 1.0),
        (f32::MAX, f32::MAX, 1e-38),
        (f32::MAX, 1.0, 1e38),
        (1e-38, 1e-38, 1e-38),
        (1e30, 1e30, 1e-30),
        (180.0, 600.0, 1e-38),
        (180.0, f32::MAX, 1.0),
    ];
    for (i, &(speed, force, mass)) in limits.iter().enumerate() {
        for j in 0..3 {
            spawn(
                &mut app,
                (
                    at(j as f32 * 1e-6, i as f32 * 1e-6),
                    Velocity(from_angle(j as f32) * speed.min(1e30)),
                    MaxSpeed(speed),
                    MaxForce(force),
                    Mass(mass),
                    Boid,
                    Walker,
                    (
                        Separation::new(30.0).with_method(SeparationMethod::ByDistance),
                        Alignment::new(1e30),
                        Cohesion::new(f32::MAX),
                        Queue::default().with_min_distance(10.0),
                        Seek::new(leader),
                        Pursue::new(leader),
                        Evade::new(leader),
                    ),
                    (
                        FollowLeader::new(leader),
                        AvoidObstacles::default(),
                        Containment::circle(v(0.0, 0.0), 1e30),
                        FollowPath::new(Path::new(
                            [v(0.0, 0.0), v(1e30, 0.0), v(1e30, 1e30)],
                            1e30,
                        ))
                        .with_method(if j == 0 {
                            PathMethod::Tutorial
                        } else {
                            PathMethod::Reynolds
                        })
                        .with_mode(PathMode::Loop),
                        Wander::default(),
                    ),
                ),
            );
        }
    }
    step_checking(&mut app, 120, |app, k| {
        let mut q = app
            .world_mut()
            .query::<(Entity, &Transform, &Velocity, &MaxSpeed)>();
        for (e, t, vel, ms) in q.iter(app.world()) {
            assert!(
                t.translation.is_finite() && vel.0.is_finite(),
                "step {k} {e}: {} {}",
                t.translation,
                vel.0
            );
            assert!(
                vel.0.length() <= ms.effective() * 1.0001 || vel.0.length().is_infinite(),
                "step {k} {e} speed {}",
                vel.0.length()
            );
        }
    });
}

/// Spawns agent `k` of the every-behaviour scene: every behaviour at once, `leader` its target.
fn everything(app: &mut App, leader: Entity, k: usize) {
    let f = k as f32;
    spawn(
        app,
        (
            at(f * 9.0, f * -4.0),
            Velocity(from_angle(f) * 40.0),
            Boid,
            Walker,
            (
                Separation::new(20.0),
                Alignment::new(40.0),
                Cohesion::new(40.0),
                Queue::default().with_min_distance(6.0),
                Seek::new(v(300.0, 0.0)),
                Pursue::new(leader).with_weight(0.2),
                Evade::new(leader).with_panic_distance(30.0),
            ),
            (
                FollowLeader::new(leader).with_weight(0.3),
                AvoidObstacles::default(),
                Containment::circle(v(0.0, 0.0), 400.0),
                FollowPath::new(Path::new(
                    [v(0.0, 0.0), v(100.0, 0.0), v(100.0, 100.0)],
                    10.0,
                ))
                .with_mode(PathMode::Loop)
                .with_method(if k.is_multiple_of(2) {
                    PathMethod::Tutorial
                } else {
                    PathMethod::Reynolds
                }),
                Wander::default(),
                FaceVelocity::default(),
            ),
        ),
    );
}

/// Every formula is scaled by the step (README), on 0 to 4 s frames in `Update`, every behaviour.
#[test]
fn zero_tiny_and_long_frames_in_update_are_safe_for_every_behaviour() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, SteeringPlugin::new(Update)))
        .add_plugins(FlockingPlugin::<Boid>::new(40.0));
    add_walker_queue(&mut app);
    allow_frame_time(&mut app, Duration::from_secs(4));
    spawn(&mut app, (Obstacle::circle(20.0), at(60.0, 30.0)));
    let leader = spawn(
        &mut app,
        (at(50.0, 50.0), Velocity(v(20.0, 0.0)), Steering::default()),
    );
    for k in 0..8 {
        everything(&mut app, leader, k);
    }
    let frames = [
        0.0, 0.0, 1e-9, 0.016, 0.0, 2.0, 1e-7, 0.0, 0.033, 4.0, 0.0, 0.001,
    ];
    for round in 0..5 {
        for &dt in &frames {
            app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
                dt,
            )));
            app.update();
            assert_agents_sane(&mut app);
        }
        if round == 2 {
            app.world_mut().despawn(leader);
        }
    }
}
