//! Agreement with the tutorials' per-frame code, and across runs (2D: the tutorials' code is; the
//! agreement across step rates, which means the same in 3D, is in `step_rates.rs`).

use crate::common::*;
use bevy::prelude::*;
use bevy_steer_core::forces::TUTORIAL_FRAME_RATE;
use bevy_steer_core::prelude::*;
use rand::RngExt;

/// The tutorials' ActionScript, transcribed: per frame, pixels per frame, no time step.
mod tutorial {
    use bevy::math::Vec2;

    pub struct Boid {
        pub position: Vec2,
        pub velocity: Vec2,
        pub mass: f32,
    }

    pub const MAX_VELOCITY: f32 = 3.0;
    pub const MAX_FORCE: f32 = 5.4;

    fn truncate(v: Vec2, max: f32) -> Vec2 {
        if v.length() > max {
            v.normalize() * max
        } else {
            v
        }
    }

    /// `doSeek(target, slowingRadius)` of the movement manager.
    pub fn do_seek(host: &Boid, target: Vec2, slowing_radius: f32) -> Vec2 {
        let mut desired = target - host.position;
        let distance = desired.length();
        desired = desired.normalize();
        if distance <= slowing_radius {
            desired *= MAX_VELOCITY * distance / slowing_radius;
        } else {
            desired *= MAX_VELOCITY;
        }
        desired - host.velocity
    }

    /// `doPursuit(target)`.
    pub fn do_pursuit(host: &Boid, target_position: Vec2, target_velocity: Vec2) -> Vec2 {
        let updates_needed = (target_position - host.position).length() / MAX_VELOCITY;
        do_seek(
            host,
            target_position + target_velocity * updates_needed,
            0.0,
        )
    }

    /// `wander()` of the wander tutorial, drawing `random` for `Math.random()`.
    pub fn wander(
        host: &Boid,
        wander_angle: &mut f32,
        circle_distance: f32,
        circle_radius: f32,
        angle_change: f32,
        random: f32,
    ) -> Vec2 {
        let circle_center = host.velocity.normalize() * circle_distance;
        let displacement = Vec2::new(wander_angle.cos(), wander_angle.sin()) * circle_radius;
        *wander_angle += random * angle_change - angle_change * 0.5;
        circle_center + displacement
    }

    /// `update()` of the movement manager.
    pub fn update(host: &mut Boid, steering: Vec2) {
        let steering = truncate(steering, MAX_FORCE) / host.mass;
        host.velocity = truncate(host.velocity + steering, MAX_VELOCITY);
        host.position += host.velocity;
    }
}

const FPS: f32 = TUTORIAL_FRAME_RATE;
const TUTORIAL_MASS: f32 = 20.0;

/// The crate docs' mapping of the tutorials' figures, for an agent at `position`.
fn mapped_agent(position: Vec2, velocity_per_frame: Vec2) -> impl Bundle {
    (
        at(position.x, position.y),
        Velocity(velocity_per_frame * FPS),
        Mass(TUTORIAL_MASS / FPS),
        MaxSpeed(tutorial::MAX_VELOCITY * FPS),
        MaxForce(tutorial::MAX_FORCE * FPS),
    )
}

fn assert_same_path(frame: u32, ours: Vec2, theirs: Vec2) {
    assert!(
        ours.distance(theirs) < 0.05,
        "frame {frame}: ours {ours}, tutorial {theirs}"
    );
}

#[test]
fn seek_with_arrival_matches_the_tutorial_frame_for_frame() {
    let mut app = create_app(FPS as f64);
    let target = Vec2::new(320.0, 140.0);
    let start = Vec2::new(-40.0, 25.0);
    let agent = app
        .world_mut()
        .spawn((
            mapped_agent(start, Vec2::new(-1.0, -2.0)),
            Seek::new(target).with_slowing_radius(30.0),
        ))
        .id();
    let mut reference = tutorial::Boid {
        position: start,
        velocity: Vec2::new(-1.0, -2.0),
        mass: TUTORIAL_MASS,
    };
    step_checking(&mut app, 600, |app, frame| {
        let steering = tutorial::do_seek(&reference, target, 30.0);
        tutorial::update(&mut reference, steering);
        assert_same_path(frame, position(app, agent), reference.position);
    });
}

#[test]
fn pursuit_matches_the_tutorial_frame_for_frame() {
    let mut app = create_app(FPS as f64);
    let prey_start = Vec2::new(200.0, 0.0);
    let prey_velocity = Vec2::new(-0.5, 1.5);
    let prey = app
        .world_mut()
        .spawn((
            at(prey_start.x, prey_start.y),
            Velocity(prey_velocity * FPS),
            Steering::default(),
        ))
        .id();
    let hunter = app
        .world_mut()
        .spawn((
            mapped_agent(Vec2::ZERO, Vec2::new(0.0, -1.0)),
            Pursue::new(prey),
        ))
        .id();
    let mut reference = tutorial::Boid {
        position: Vec2::ZERO,
        velocity: Vec2::new(0.0, -1.0),
        mass: TUTORIAL_MASS,
    };
    let mut prey_position = prey_start;
    step_checking(&mut app, 120, |app, frame| {
        let steering = tutorial::do_pursuit(&reference, prey_position, prey_velocity);
        tutorial::update(&mut reference, steering);
        prey_position += prey_velocity;
        assert_same_path(frame, position(app, hunter), reference.position);
    });
}

#[test]
fn wander_matches_the_tutorial_frame_for_frame() {
    let (circle_distance, circle_radius, angle_change) = (6.0, 8.0, 1.0);
    let mut app = create_app(FPS as f64);
    let agent = app
        .world_mut()
        .spawn((
            mapped_agent(Vec2::ZERO, Vec2::new(1.0, -2.0)),
            Wander::default()
                .with_circle(circle_distance * FPS, circle_radius * FPS)
                .with_angle_change(angle_change),
        ))
        .id();
    // Give the agent a known stream and draw the tutorial's Math.random() from a copy of it.
    app.world_mut()
        .entity_mut(agent)
        .insert(SteeringRng::from_seed(99));
    let mut random = SteeringRng::from_seed(99);
    let mut reference = tutorial::Boid {
        position: Vec2::ZERO,
        velocity: Vec2::new(1.0, -2.0),
        mass: TUTORIAL_MASS,
    };
    let mut wander_angle = 0.0;
    step_checking(&mut app, 300, |app, frame| {
        let steering = tutorial::wander(
            &reference,
            &mut wander_angle,
            circle_distance,
            circle_radius,
            angle_change,
            random.random(),
        );
        tutorial::update(&mut reference, steering);
        assert_same_path(frame, position(app, agent), reference.position);
    });
}

/// Wanderers in the determinism tests. Wander and integration cut a table into jobs of at least
/// 1 024 agents (`MIN_AGENTS_PER_JOB`; the querying behaviours from 128), so a smaller crowd would
/// be stepped by them as one job on one thread whatever the pool's size. This many make five jobs,
/// stepped in parallel with two or more threads; the last holds three agents, fewer than the four
/// SIMD lanes.
const CROWD: usize = 4 * 1024 + 3;

/// Final positions of a crowd of wanderers, who also orbit the origin by a registered behaviour of
/// the test's own, flock (every agent a neighbour, about ten of them each, with every method and
/// fields of view), avoid obstacles, stay in an arena, and some follow a path or combine their
/// forces by priority, after `steps`, in this process's compute pool.
fn crowd_after(seed: u64, threads: usize, steps: u32) -> Vec<Vec2> {
    // Bevy's compute pool is global to the process: the first app sets its size for good.
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(threads::task_pool_plugin(threads)),
        SteeringPlugin::default().with_seed(seed),
    ))
    .add_steering_behaviour::<Orbit>()
    .add_plugins(FlockingPlugin::<Steering>::new(5.0));
    let step_length = std::time::Duration::from_secs_f64(1.0 / 60.0);
    app.insert_resource(Time::<Fixed>::from_duration(step_length))
        .insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(step_length));
    // Circles, boxes and a wall among the crowd.
    for index in 0..60 {
        let position = Vec2::new(index as f32 * 70.0 + 35.0, (index % 3) as f32 * 20.0 - 20.0);
        let obstacle = if index % 2 == 0 {
            Obstacle::circle(8.0)
        } else {
            Obstacle::rectangle(Vec2::splat(12.0))
        };
        app.world_mut()
            .spawn((obstacle, at(position.x, position.y)));
    }
    app.world_mut().spawn(Obstacle::wall(
        Vec2::new(-50.0, 150.0),
        Vec2::new(600.0, 150.0),
    ));
    let path = Path::new(
        [Vec2::ZERO, Vec2::new(200.0, 0.0), Vec2::new(200.0, 200.0)],
        20.0,
    );
    let agents: Vec<Entity> = (0..CROWD)
        .map(|index| {
            // Frames alternate by fours, so that some groups of four take the SIMD lanes (which
            // step world-frame wanderers only) and the rest the scalar path.
            let frame = if index / 4 % 2 == 0 {
                WanderFrame::World
            } else {
                WanderFrame::Heading
            };
            let mut agent = app.world_mut().spawn((
                at(index as f32, 0.0),
                Wander::default().with_frame(frame),
                Orbit {
                    weight: 0.5,
                    ..Orbit::new(300.0)
                },
                // Every path of the flocking lanes: the default rules, separation by distance,
                // fields of view, the classic alignment and cohesion.
                Separation::new(3.0).with_method(if index % 5 == 1 {
                    SeparationMethod::ByDistance
                } else {
                    SeparationMethod::Mean
                }),
                match index % 5 {
                    2 => Alignment::new(5.0).with_field_of_view(4.0),
                    3 => Alignment::new(5.0).with_method(AlignmentMethod::MeanVelocity),
                    _ => Alignment::new(5.0),
                },
                match index % 5 {
                    2 => Cohesion::new(5.0).with_field_of_view(4.0),
                    4 => Cohesion::new(5.0).with_method(CohesionMethod::Seek),
                    _ => Cohesion::new(5.0),
                },
                AvoidObstacles::new(40.0, 2.0),
                Containment::rectangle(Vec2::new(2000.0, 0.0), Vec2::new(5000.0, 1500.0)),
            ));
            if index % 3 == 0 {
                agent.insert(FollowPath::new(path.clone()).with_mode(PathMode::Loop));
            }
            if index.is_multiple_of(2) {
                agent.insert(SteeringCombination::Prioritised);
            }
            agent.id()
        })
        .collect();
    for _ in 0..steps {
        app.update();
    }
    agents.iter().map(|&agent| position(&app, agent)).collect()
}

#[test]
#[ignore = "run in a process of its own by the thread-count determinism test"]
fn crowd_positions_in_a_child_process() {
    let Some(threads) = threads::child_threads() else {
        return;
    };
    let positions = crowd_after(42, threads, 400);
    let pool = bevy::tasks::ComputeTaskPool::get();
    assert_eq!(pool.thread_num(), threads, "the compute pool's size");
    threads::print_bits(positions.iter().flat_map(|position| position.to_array()));
}

/// The crowd's positions, bit for bit, from a copy of this test binary with `threads` compute
/// threads.
fn crowd_in_a_child_process(threads: usize) -> String {
    threads::in_a_child_process("fidelity::crowd_positions_in_a_child_process", threads)
}

#[test]
fn the_same_seed_gives_identical_trajectories_whatever_the_thread_count() {
    // One thread iterates sequentially; two and four cut the crowd into batches run in parallel.
    let sequential = crowd_in_a_child_process(1);
    assert_eq!(
        sequential,
        crowd_in_a_child_process(2),
        "one thread differs from two"
    );
    assert_eq!(
        sequential,
        crowd_in_a_child_process(4),
        "one thread differs from four"
    );
}

#[test]
fn the_same_seed_gives_identical_trajectories_on_every_run() {
    let first = crowd_after(42, 2, 400);
    assert_eq!(first, crowd_after(42, 2, 400), "two runs differ");
    assert_ne!(
        first,
        crowd_after(43, 2, 400),
        "another seed gives the same paths"
    );
}
