//! The tutorials' behaviours, driven through the ECS with fixed steps.

use crate::common::steer::prelude::*;
use crate::common::*;
use bevy::prelude::*;

const STEPS_PER_SECOND: f64 = 60.0;

#[test]
fn seek_with_arrival_comes_to_rest_on_the_target_never_above_max_speed() {
    let mut app = create_app(STEPS_PER_SECOND);
    let target = v(400.0, -150.0);
    let agent = app
        .world_mut()
        .spawn((
            at(0.0, 0.0),
            Velocity(v(0.0, 120.0)),
            Seek::new(target).with_slowing_radius(250.0),
        ))
        .id();
    step_checking(&mut app, 15 * 60, |app, _| assert_agents_sane(app));
    let rest = position(&app, agent);
    assert!(
        rest.distance(target) < 1.0,
        "ended at {rest}, target {target}"
    );
    assert!(
        velocity(&app, agent).length() < 1.0,
        "still moving at {}",
        velocity(&app, agent)
    );
}

#[test]
fn flee_increases_the_distance_every_step() {
    let mut app = create_app(STEPS_PER_SECOND);
    let threat = v(10.0, 5.0);
    // Starts moving toward the threat: fleeing must turn it round without ever closing in.
    let agent = app
        .world_mut()
        .spawn((at(0.0, 0.0), Velocity(v(-30.0, 0.0)), Flee::new(threat)))
        .id();
    let mut previous = position(&app, agent).distance(threat);
    step_checking(&mut app, 300, |app, number| {
        let distance = position(app, agent).distance(threat);
        assert!(
            distance > previous,
            "step {number}: {distance} <= {previous}"
        );
        previous = distance;
    });
}

/// Steps until `hunter` is within `reach` of `prey`, returning the number of steps.
fn steps_to_catch(app: &mut App, hunter: Entity, prey: Entity, reach: f32, limit: u32) -> u32 {
    for number in 1..=limit {
        step(app, 1);
        if position(app, hunter).distance(position(app, prey)) < reach {
            return number;
        }
    }
    panic!("not caught within {limit} steps");
}

fn spawn_runner(app: &mut App) -> Entity {
    // The prey runs straight up; no behaviour, so it keeps its velocity.
    app.world_mut()
        .spawn((at(300.0, 0.0), Velocity(v(0.0, 120.0)), Steering::default()))
        .id()
}

#[test]
fn pursuit_catches_a_straight_runner_sooner_than_seeking_its_position() {
    let mut pursuit_app = create_app(STEPS_PER_SECOND);
    let prey = spawn_runner(&mut pursuit_app);
    let hunter = pursuit_app
        .world_mut()
        .spawn((at(0.0, 0.0), Pursue::new(prey)))
        .id();
    let pursuit_steps = steps_to_catch(&mut pursuit_app, hunter, prey, 5.0, 3000);

    let mut seek_app = create_app(STEPS_PER_SECOND);
    let prey = spawn_runner(&mut seek_app);
    let hunter = seek_app
        .world_mut()
        .spawn((at(0.0, 0.0), Seek::new(prey).with_slowing_radius(0.0)))
        .id();
    let seek_steps = steps_to_catch(&mut seek_app, hunter, prey, 5.0, 3000);

    assert!(
        pursuit_steps < seek_steps,
        "pursuit took {pursuit_steps} steps, seek {seek_steps}"
    );
}

/// The distance between a pursuer and its prey after `seconds`, the prey evading or not.
fn distance_after_chase(prey_evades: bool, seconds: u32) -> f32 {
    let mut app = create_app(STEPS_PER_SECOND);
    let prey = app
        .world_mut()
        .spawn((at(150.0, 0.0), MaxSpeed(150.0), Steering::default()))
        .id();
    let pursuer = app
        .world_mut()
        .spawn((at(0.0, 0.0), Pursue::new(prey)))
        .id();
    if prey_evades {
        app.world_mut().entity_mut(prey).insert(Evade::new(pursuer));
    }
    step(&mut app, seconds * 60);
    position(&app, prey).distance(position(&app, pursuer))
}

#[test]
fn evading_keeps_a_pursuer_further_away_than_doing_nothing() {
    let idle = distance_after_chase(false, 2);
    let evading = distance_after_chase(true, 2);
    assert!(evading > idle + 50.0, "evading {evading}, idle {idle}");
}

#[test]
fn seek_and_flee_add_up() {
    // Seek a point straight ahead while fleeing a point to the side: the agent drifts away from
    // the side as it goes, which neither behaviour does alone.
    let mut app = create_app(STEPS_PER_SECOND);
    let agent = app
        .world_mut()
        .spawn((
            at(0.0, 0.0),
            Seek::new(v(1000.0, 0.0)).with_slowing_radius(0.0),
            Flee::new(v(0.0, 50.0)),
        ))
        .id();
    step(&mut app, 60);
    let position = position(&app, agent);
    assert!(
        position.x > 20.0,
        "seek should carry it forward: {position}"
    );
    assert!(
        position.y < -20.0,
        "flee should push it away from the side: {position}"
    );
}

/// Unwrapped heading of the velocity, step after step, for a wanderer run for `steps`.
#[cfg(feature = "2d")]
fn wander_headings(frame: WanderFrame, steps: u32) -> Vec<f32> {
    let mut app = create_app(STEPS_PER_SECOND);
    let agent = app
        .world_mut()
        .spawn((
            at(0.0, 0.0),
            Velocity(v(180.0, 0.0)),
            Wander::default().with_frame(frame),
        ))
        .id();
    let mut headings: Vec<f32> = Vec::new();
    step_checking(&mut app, steps, |app, _| {
        let angle = velocity(app, agent).to_angle();
        let unwrapped = match headings.last() {
            Some(&last) => {
                let turn = (angle - last + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU)
                    - std::f32::consts::PI;
                last + turn
            }
            None => angle,
        };
        headings.push(unwrapped);
    });
    headings
}

/// 2D only: the heading as one angle (3D wanderers turn in every direction: `dim3.rs`).
#[cfg(feature = "2d")]
#[test]
fn wander_turns_smoothly_but_does_not_go_straight() {
    for frame in [WanderFrame::World, WanderFrame::Heading] {
        let headings = wander_headings(frame, 20 * 60);
        let largest_turn = headings
            .windows(2)
            .map(|pair| (pair[1] - pair[0]).abs())
            .fold(0.0, f32::max);
        // At full speed a step can turn at most MaxForce / Mass * dt / speed = 600 / 60 / 180 rad.
        assert!(
            largest_turn < 0.06,
            "{frame:?}: a step turned {largest_turn} rad"
        );
        let (low, high) = headings
            .iter()
            .fold((f32::MAX, f32::MIN), |(low, high), &h| {
                (low.min(h), high.max(h))
            });
        assert!(
            high - low > 1.5,
            "{frame:?}: heading only spanned {} rad",
            high - low
        );
    }
}

/// 2D only: a rectangle of targets, a facing about z.
#[cfg(feature = "2d")]
#[test]
fn random_target_wander_roams_the_area() {
    let mut app = create_app(STEPS_PER_SECOND);
    let area = Rect::new(-300.0, -200.0, 300.0, 200.0);
    let agent = app
        .world_mut()
        .spawn((
            at(0.0, 0.0),
            Wander::default().with_method(WanderMethod::random_target(area, 2.0)),
        ))
        .id();
    let mut targets = Vec::new();
    step_checking(&mut app, 20 * 60, |app, _| {
        assert_agents_sane(app);
        if let WanderMethod::RandomTarget { target, .. } =
            app.world().get::<Wander>(agent).unwrap().method
            && targets.last() != Some(&target)
        {
            targets.push(target);
        }
    });
    // A new target every 2 s: ten over 20 s, all inside the area.
    assert_eq!(targets.len(), 10, "targets: {targets:?}");
    assert!(targets.iter().all(|&target| area.contains(target)));
    let end = position(&app, agent);
    assert!(end.length() > 1.0 && end.length() < 700.0, "ended at {end}");
}

/// "Redrawn every `interval` seconds", at any step rate: over 20 s, `20 / interval` targets to
/// within one, also where the interval is not a whole number of steps (the time a step overruns
/// it by counts towards the next; before, each interval was rounded up to whole steps, and one
/// that was a whole number of them came a step late: 150 of 200 at 30 steps a second).
#[test]
fn random_target_wander_redraws_every_interval_at_any_step_rate() {
    for steps_per_second in [30.0, 60.0, 64.0, 144.0] {
        for interval in [0.1, 0.25, 1.0 / 30.0, 0.7] {
            let mut app = create_app(steps_per_second);
            let method =
                WanderMethod::random_target(area(v(-500.0, -500.0), v(500.0, 500.0)), interval);
            let agent = app
                .world_mut()
                .spawn((at(0.0, 0.0), Wander::default().with_method(method)))
                .id();
            let mut draws = 0;
            let mut last = None;
            step_checking(&mut app, (20.0 * steps_per_second) as u32, |app, _| {
                if let WanderMethod::RandomTarget { target, .. } =
                    app.world().get::<Wander>(agent).unwrap().method
                    && last != Some(target)
                {
                    draws += 1;
                    last = Some(target);
                }
            });
            let expected = 20.0 / interval;
            assert!(
                (draws as f32 - expected).abs() < 1.5,
                "{steps_per_second} steps a second, every {interval} s: {draws} targets in 20 s, \
                 not {expected}"
            );
        }
    }
}

/// 2D only: a rectangle of targets, a facing about z.
#[cfg(feature = "2d")]
#[test]
fn face_velocity_points_the_chosen_axis_along_the_velocity() {
    let mut app = create_app(STEPS_PER_SECOND);
    let agent = app
        .world_mut()
        .spawn((
            at(0.0, 0.0),
            Velocity(v(0.0, 50.0)),
            FaceVelocity::new(Dir2::Y),
            Seek::new(v(-500.0, 0.0)),
        ))
        .id();
    step(&mut app, 30);
    let rotation = app.world().get::<Transform>(agent).unwrap().rotation;
    let forward = (rotation * Vec3::Y).truncate();
    let heading = velocity(&app, agent).normalize();
    assert!(
        forward.abs_diff_eq(heading, 1e-4),
        "faces {forward}, moves {heading}"
    );
}

#[test]
fn the_plugin_runs_in_any_schedule_with_a_variable_step() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, SteeringPlugin::new(Update)));
    let agent = app
        .world_mut()
        .spawn((at(0.0, 0.0), Seek::new(v(100.0, 0.0))))
        .id();
    for millis in [5, 40, 16, 100, 1] {
        app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
            std::time::Duration::from_millis(millis),
        ));
        app.update();
    }
    assert!(
        position(&app, agent).x > 0.0,
        "did not move: {}",
        position(&app, agent)
    );
}

/// How far past its target an agent seeking with arrival goes, starting at rest 600 units away.
fn arrival_overshoot(mass: f32, max_speed: f32, slowing_radius: f32) -> f32 {
    let mut app = create_app(60.0);
    let seeker = spawn(
        &mut app,
        (
            at(-600.0, 0.0),
            Mass(mass),
            MaxSpeed(max_speed),
            MaxForce(10_000.0),
            Seek::new(Vector::ZERO).with_slowing_radius(slowing_radius),
        ),
    );
    let mut furthest = f32::NEG_INFINITY;
    step_checking(&mut app, 60 * 20, |app, _| {
        furthest = furthest.max(position(app, seeker).x);
    });
    furthest
}

#[test]
fn arrival_overshoots_unless_the_slowing_radius_is_four_times_mass_times_max_speed() {
    // The README's rule: inside the slowing radius R the agent is a damped spring with damping
    // ratio 1 / (2 sqrt(mass * max_speed / R)): it overshoots unless R >= 4 * mass * max_speed.
    let default = arrival_overshoot(1.0, 180.0, 100.0);
    assert!(
        default > 50.0,
        "the defaults (mass 1, max speed 180, R 100) overshoot by {default}, more than R / 2"
    );
    let critical = arrival_overshoot(1.0, 180.0, 4.0 * 180.0);
    assert!(critical < 1.0, "R = 4 m v overshoots by {critical}");
    let light = arrival_overshoot(100.0 / (4.0 * 180.0), 180.0, 100.0);
    assert!(light < 1.0, "a lighter agent overshoots by {light}");
    println!("overshoot: defaults {default}, R = 720 {critical}, mass 0.139 {light}");
}
