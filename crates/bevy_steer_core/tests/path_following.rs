//! Path following through the ECS: one way, patrol, loop, Reynolds' method and bad input.

use crate::common::steer::prelude::*;
use crate::common::*;
use bevy::prelude::*;

const STEPS_PER_SECOND: f64 = 60.0;

fn follower(app: &App, entity: Entity) -> FollowPath {
    app.world()
        .get::<FollowPath>(entity)
        .expect("agent has FollowPath")
        .clone()
}

/// A zig-zag of four nodes, 600 units long.
fn zig_zag() -> Vec<Vector> {
    vec![v(0.0, 0.0), v(200.0, 0.0), v(200.0, 200.0), v(400.0, 200.0)]
}

/// How far `point` is past `end`, along the direction of the last segment from `before`.
fn past(point: Vector, before: Vector, end: Vector) -> f32 {
    (point - end).dot((end - before).normalize())
}

#[test]
fn a_one_way_path_ends_at_rest_on_its_last_node_without_overshooting() {
    for method in [PathMethod::Tutorial, PathMethod::Reynolds] {
        let mut app = create_app(STEPS_PER_SECOND);
        let points = zig_zag();
        let (before, end) = (points[2], points[3]);
        let agent = spawn(
            &mut app,
            (
                at(0.0, 0.0),
                FollowPath::new(Path::new(points, 20.0)).with_method(method),
            ),
        );
        let mut furthest_past = f32::NEG_INFINITY;
        step_checking(&mut app, 15 * 60, |app, _| {
            assert_agents_sane(app);
            furthest_past = furthest_past.max(past(position(app, agent), before, end));
        });
        let rest = position(&app, agent);
        let speed = velocity(&app, agent).length();
        assert!(
            rest.distance(end) < 2.0 && speed < 1.0,
            "{method:?}: after 15 s at {rest} ({} from the last node {end}), speed {speed}; \
             wanted within 2 and below 1",
            rest.distance(end)
        );
        assert!(
            furthest_past < 3.0,
            "{method:?}: went {furthest_past} units past the last node, wanted under 3"
        );
        if method == PathMethod::Tutorial {
            assert_eq!(follower(&app, agent).current, 3);
        }
        assert!(problems(&app, agent).is_empty());
    }
}

/// The slowing radius `FollowPath`'s docs give for coming to rest without going past the last node
/// (`0.4 × max_speed`, where `arrival_gain` reaches its cap: 72 for the default agent, with a mass
/// of 1 or less), and what a shorter one costs (the default agent goes about 3 past with 30): a
/// straight path 600 long, both methods, at 30, 60 and 144 steps a second.
#[test]
fn a_one_way_path_ends_without_going_past_from_the_documented_slowing_radius() {
    for steps_per_second in [30.0, 60.0, 144.0] {
        for method in [PathMethod::Tutorial, PathMethod::Reynolds] {
            for (slowing_radius, mass, past_between) in [
                (72.0, 1.0, -1.0..0.05),
                (72.0, 0.5, -1.0..0.05),
                (100.0, 1.0, -1.0..0.05),
                (200.0, 1.0, -1.0..0.05),
                (30.0, 1.0, 1.0..5.0),
            ] {
                let mut app = create_app(steps_per_second);
                let (before, end) = (v(0.0, 0.0), v(600.0, 0.0));
                let path = FollowPath::new(Path::new(vec![before, end], 20.0))
                    .with_method(method)
                    .with_slowing_radius(slowing_radius);
                let agent = spawn(&mut app, (at(0.0, 0.0), Mass(mass), path));
                let mut furthest_past = f32::NEG_INFINITY;
                step_checking(&mut app, steps_per_second as u32 * 10, |app, _| {
                    furthest_past = furthest_past.max(past(position(app, agent), before, end));
                });
                let (rest, speed) = (position(&app, agent), velocity(&app, agent).length());
                assert!(
                    past_between.contains(&furthest_past)
                        && rest.distance(end) < 1.0
                        && speed < 1.0,
                    "{steps_per_second} Hz, {method:?}, slowing radius {slowing_radius}, mass \
                     {mass}: went {furthest_past} past the last node (wanted {past_between:?}), \
                     at rest? {rest} at {speed}"
                );
            }
        }
    }
}

/// The same on paths of short segments (a spline's points), where the last node becomes the one
/// the tutorial's method seeks only a path's radius from the end, too late to stop there: it went
/// 4 to 8 units past it. Both methods.
#[test]
fn a_one_way_path_of_short_segments_ends_at_its_last_node_without_overshooting() {
    let straight = |spacing: f32, nodes: usize| -> Vec<Vector> {
        (0..nodes).map(|i| v(spacing * i as f32, 0.0)).collect()
    };
    let arc: Vec<Vector> = (0..=200)
        .map(|i| {
            let angle = core::f32::consts::FRAC_PI_2 * i as f32 / 200.0;
            v(300.0 * angle.sin(), 300.0 * (1.0 - angle.cos()))
        })
        .collect();
    for points in [straight(0.5, 1001), straight(5.0, 101), arc] {
        for method in [PathMethod::Tutorial, PathMethod::Reynolds] {
            let mut app = create_app(STEPS_PER_SECOND);
            let last = points.len() - 1;
            let (before, end) = (points[last - 1], points[last]);
            let agent = spawn(
                &mut app,
                (
                    at(0.0, 0.0),
                    FollowPath::new(Path::new(points.clone(), 20.0)).with_method(method),
                ),
            );
            let mut furthest_past = f32::NEG_INFINITY;
            step_checking(&mut app, 10 * 60, |app, _| {
                assert_agents_sane(app);
                furthest_past = furthest_past.max(past(position(app, agent), before, end));
            });
            let rest = position(&app, agent);
            assert!(
                rest.distance(end) < 2.0 && furthest_past < 1.0,
                "{method:?}, {} nodes to {end}: went {furthest_past} past the end, rests at {rest}",
                points.len()
            );
        }
    }
}

#[test]
fn a_patrol_reverses_at_the_last_node_and_comes_back_to_the_first() {
    for method in [PathMethod::Tutorial, PathMethod::Reynolds] {
        let mut app = create_app(STEPS_PER_SECOND);
        let points = zig_zag();
        let (first, last) = (points[0], points[3]);
        let agent = spawn(
            &mut app,
            (
                at(0.0, 0.0),
                FollowPath::new(Path::new(points, 20.0))
                    .with_mode(PathMode::PingPong)
                    .with_method(method),
            ),
        );
        let (mut nearest_last, mut reached_last_at) = (f32::INFINITY, None);
        let mut nearest_first_after = f32::INFINITY;
        let mut reversed = false;
        step_checking(&mut app, 20 * 60, |app, number| {
            assert_agents_sane(app);
            let here = position(app, agent);
            nearest_last = nearest_last.min(here.distance(last));
            if reached_last_at.is_none() && here.distance(last) < 25.0 {
                reached_last_at = Some(number);
            }
            if reached_last_at.is_some() {
                nearest_first_after = nearest_first_after.min(here.distance(first));
                reversed |= !follower(app, agent).forward;
            }
        });
        assert!(
            reached_last_at.is_some(),
            "{method:?}: came no nearer than {nearest_last} to the last node {last}; wanted 25"
        );
        assert!(reversed, "{method:?}: never turned back");
        assert!(
            nearest_first_after < 25.0,
            "{method:?}: after the last node (step {reached_last_at:?}) came no nearer than \
             {nearest_first_after} to the first; wanted 25"
        );
    }
}

#[test]
fn a_loop_wraps_from_the_last_node_to_the_first() {
    let mut app = create_app(STEPS_PER_SECOND);
    // A square of side 300, counter-clockwise.
    let points = vec![v(0.0, 0.0), v(300.0, 0.0), v(300.0, 300.0), v(0.0, 300.0)];
    let agent = spawn(
        &mut app,
        (
            at(0.0, 0.0),
            FollowPath::new(Path::new(points.clone(), 20.0)).with_mode(PathMode::Loop),
        ),
    );
    let mut wraps = 0;
    let mut previous = 0;
    let mut nearest_first_after_wrap = f32::INFINITY;
    step_checking(&mut app, 30 * 60, |app, _| {
        assert_agents_sane(app);
        let current = follower(app, agent).current;
        if previous == 3 && current == 0 {
            wraps += 1;
        }
        if wraps > 0 {
            nearest_first_after_wrap =
                nearest_first_after_wrap.min(position(app, agent).distance(points[0]));
        }
        previous = current;
    });
    // 1200 units round, turning wide at each corner: about 9 s a lap, so 3 wraps in 30 s.
    assert!(
        wraps >= 2,
        "wrapped {wraps} times in 30 s; wanted 2 or more"
    );
    assert!(
        nearest_first_after_wrap < 25.0,
        "came no nearer than {nearest_first_after_wrap} to the first node after wrapping"
    );
}

/// The largest distance from the spine of `points` at which `agent` is seen over `seconds`, from
/// the first step it is within `radius` of it; `None` if it never is.
fn worst_stray_once_on_path(
    app: &mut App,
    agent: Entity,
    points: &[Vector],
    closed: bool,
    radius: f32,
    seconds: u32,
) -> Option<f32> {
    let mut worst = None;
    step_checking(app, seconds * 60, |app, _| {
        assert_agents_sane(app);
        let off = steer::forces::project_onto_path(points, closed, position(app, agent))
            .unwrap()
            .distance;
        if worst.is_some() || off <= radius {
            worst = Some(worst.unwrap_or(0.0_f32).max(off));
        }
    });
    worst
}

#[test]
fn reynolds_keeps_a_follower_within_the_path_radius_once_on_it() {
    // A 24-sided loop of radius 600 (turns of 15 degrees) and a one-way wave; the agent starts 80
    // units off the path, moving at 100 units per second.
    let circle: Vec<Vector> = (0..24)
        .map(|i| from_angle(i as f32 * std::f32::consts::TAU / 24.0) * 600.0)
        .collect();
    let wave: Vec<Vector> = (0..=30)
        .map(|i| v(i as f32 * 100.0, 200.0 * (i as f32 * 0.3).sin()))
        .collect();
    let cases = [
        ("loop", circle, PathMode::Loop, v(680.0, 0.0), Vector::Y),
        ("wave", wave, PathMode::OneWay, v(0.0, -80.0), Vector::X),
    ];
    // The default agent with a radius of 30, and a nimbler one (the tutorials' mass of 20) with
    // the default radius and a shorter prediction.
    let agents = [(Mass(1.0), 30.0, 1.0), (Mass(1.0 / 3.0), 20.0, 0.5)];
    for (name, points, mode, start, heading) in cases {
        for (mass, radius, prediction) in agents {
            let mut app = create_app(STEPS_PER_SECOND);
            let follow = FollowPath {
                prediction,
                ..FollowPath::new(Path::new(points.clone(), radius))
                    .with_method(PathMethod::Reynolds)
                    .with_mode(mode)
            };
            let agent = spawn(
                &mut app,
                (
                    at(start.x, start.y),
                    Velocity(heading * 100.0),
                    mass,
                    follow,
                ),
            );
            let closed = mode == PathMode::Loop;
            let worst = worst_stray_once_on_path(&mut app, agent, &points, closed, radius, 20)
                .unwrap_or_else(|| panic!("{name}, {mass:?}: never came within {radius}"));
            assert!(
                worst <= radius + 3.0,
                "{name}, {mass:?}: strayed {worst} from the spine after reaching it; wanted the \
                 radius {radius} + 3 at most"
            );
        }
    }
}

#[test]
fn bad_paths_neither_panic_nor_spread_nan() {
    let mut app = create_app(STEPS_PER_SECOND);
    let square = vec![v(0.0, 0.0), v(100.0, 0.0), v(100.0, 100.0), v(0.0, 100.0)];
    let mut agents = Vec::new();
    for method in [PathMethod::Tutorial, PathMethod::Reynolds] {
        for mode in [PathMode::OneWay, PathMode::Loop, PathMode::PingPong] {
            let follow = |path: Path| FollowPath::new(path).with_method(method).with_mode(mode);
            let mut nan_point = square.clone();
            nan_point[2].x = f32::NAN;
            let bad = [
                follow(Path::default()),
                follow(Path::new([v(50.0, 50.0)], 20.0)),
                follow(Path::new(square.clone(), 0.0)),
                follow(Path::new(square.clone(), f32::NAN)),
                follow(Path::new(square.clone(), -10.0)),
                follow(Path::new(square.clone(), f32::INFINITY)),
                follow(Path::new(nan_point, 20.0)),
                follow(Path::new([Vector::ZERO, Vector::ZERO, Vector::ZERO], 20.0)),
                FollowPath {
                    current: 99,
                    forward: false,
                    prediction: f32::NAN,
                    lookahead: f32::INFINITY,
                    slowing_radius: -1.0,
                    ..follow(Path::new(square.clone(), 20.0))
                },
            ];
            for (index, follow) in bad.into_iter().enumerate() {
                // Every other agent starts at rest.
                let velocity = if index % 2 == 0 {
                    Vector::ZERO
                } else {
                    v(30.0, -20.0)
                };
                agents.push((
                    method,
                    mode,
                    index,
                    spawn(&mut app, (at(10.0, 10.0), Velocity(velocity), follow)),
                ));
            }
        }
    }
    step_checking(&mut app, 10 * 60, |app, _| assert_agents_sane(app));
    for &(method, mode, index, agent) in &agents {
        let follow = follower(&app, agent);
        assert!(
            follow.current < follow.path.points.len().max(1),
            "{method:?} {mode:?} #{index}: current {} of {} nodes",
            follow.current,
            follow.path.points.len()
        );
        let reported = problems(&app, agent);
        let non_finite = Problem::NonFiniteTarget(BehaviourKind::FOLLOW_PATH);
        assert_eq!(
            reported.contains(non_finite),
            index == 6,
            "{method:?} {mode:?} #{index}: {:?}",
            reported.iter().collect::<Vec<_>>()
        );
    }
    // The empty path idles; the one-node path is arrived at.
    let agent = |wanted| {
        agents
            .iter()
            .find(|&&(method, mode, index, _)| {
                (method, mode, index) == (PathMethod::Tutorial, PathMode::OneWay, wanted)
            })
            .unwrap()
            .3
    };
    let empty = agent(0);
    assert_eq!(
        position(&app, empty),
        v(10.0, 10.0),
        "empty path moved the agent"
    );
    let single = agent(1);
    let rest = position(&app, single);
    assert!(
        rest.distance(v(50.0, 50.0)) < 2.0 && velocity(&app, single).length() < 1.0,
        "one-node path: at {rest}, speed {}; wanted within 2 of (50, 50) and below 1",
        velocity(&app, single).length()
    );
}

#[test]
fn follow_path_is_registered_in_its_priority_place() {
    let app = create_app(STEPS_PER_SECOND);
    let kinds: Vec<BehaviourKind> = app
        .world()
        .resource::<SteeringBehaviours>()
        .kinds()
        .collect();
    // After avoidance and containment, before the others (see `SteeringCombination`).
    assert_eq!(kinds, BehaviourKind::BUILT_IN);
    assert_eq!(kinds[2], BehaviourKind::FOLLOW_PATH);
    assert_eq!(BehaviourKind::FOLLOW_PATH.name(), "follow path");
    let registry = app.world().resource::<AppTypeRegistry>().read();
    for name in ["FollowPath", "Path", "PathMode", "PathMethod"] {
        assert!(
            registry.get_with_short_type_path(name).is_some(),
            "{name} is not registered"
        );
    }
}

/// Reynolds' method on a path of radius 0 (the spine itself): a follower at rest on the spine, on
/// its first node or halfway along a segment, still has a point ahead to go for, and finishes.
#[test]
fn a_follower_at_rest_on_a_path_of_radius_zero_sets_off_and_finishes() {
    for start in [v(0.0, 0.0), v(100.0, 0.0)] {
        let mut app = create_app(STEPS_PER_SECOND);
        let points = [v(0.0, 0.0), v(250.0, 0.0), v(250.0, 250.0)];
        let agent = spawn(
            &mut app,
            (
                at(start.x, start.y),
                FollowPath::new(Path::new(points, 0.0)).with_method(PathMethod::Reynolds),
            ),
        );
        step_checking(&mut app, 12 * STEPS_PER_SECOND as u32, |app, _| {
            assert_agents_sane(app);
        });
        let end = position(&app, agent);
        assert!(
            end.distance(points[2]) < 3.0,
            "from {start}: ended at {end}"
        );
    }
}

/// A path sampled finer than a step's travel (nodes 2 apart, as a spline sampler gives them) is
/// followed at the same pace at 30 and at 60 steps a second, with either method: the tutorial's
/// no longer moves on one node a step.
#[test]
fn a_finely_sampled_path_takes_as_long_at_any_step_rate() {
    let points: Vec<Vector> = (0..=300)
        .map(|i| v(2.0 * i as f32, 40.0 * (i as f32 / 30.0).sin()))
        .collect();
    let end = *points.last().unwrap();
    for method in [PathMethod::Tutorial, PathMethod::Reynolds] {
        let times: Vec<f64> = [30.0, 60.0]
            .into_iter()
            .map(|rate| {
                let mut app = create_app(rate);
                let agent = spawn(
                    &mut app,
                    (
                        at(0.0, 0.0),
                        FollowPath::new(Path::new(points.clone(), 20.0)).with_method(method),
                    ),
                );
                let mut arrived = None;
                step_checking(&mut app, (20.0 * rate) as u32, |app, number| {
                    if arrived.is_none() && position(app, agent).distance(end) < 20.0 {
                        arrived = Some(f64::from(number) / rate);
                    }
                });
                arrived.unwrap_or(f64::INFINITY)
            })
            .collect();
        // About 680 long: 3.8 s at full speed; one node a step at 30 steps a second took 9.9 s
        // against 7.2 at 60.
        assert!(
            times.iter().all(|&time| time < 8.0) && (times[0] - times[1]).abs() < 0.3,
            "{method:?}: {times:?} s at 30 and at 60 steps a second"
        );
    }
}
