//! Issue 26: path following on scenes of a user's own rather than the examples': loops of several
//! sizes (an ellipse of 400 × 250 and one twice that, circles of radius 300 and 150), polylines
//! with corners and hairpins, both methods and every mode, in the XY plane. Each prints its
//! figures.

use std::f32::consts::TAU;

use crate::common::steer::prelude::*;
use crate::common::*;
use bevy::prelude::*;
use steer::forces::project_onto_path;

const STEPS_PER_SECOND: f64 = 60.0;

/// An ellipse of semi-axes `a` and `b` through `nodes` nodes, counter-clockwise.
fn ellipse(a: f32, b: f32, nodes: usize) -> Vec<Vector> {
    (0..nodes)
        .map(|i| {
            let angle = i as f32 * TAU / nodes as f32;
            v(a * angle.cos(), b * angle.sin())
        })
        .collect()
}

/// What a follower did, once it had joined the path (first within its radius).
#[derive(Debug, Default)]
struct Figures {
    /// Steps after joining, and how many of them were within the radius.
    steps: u32,
    within: u32,
    /// The furthest from the spine after joining.
    worst: f32,
    /// The mean speed after joining.
    mean_speed: f32,
    /// The slowest speed seen on straight stretches (`NaN`: none).
    slowest_on_straights: f32,
    /// The heading's turns (signed, in whole turns), for a loop.
    turns: f32,
    /// How many nodes the follower moved on by (`current` changing).
    nodes_passed: u32,
}

impl Figures {
    fn within_share(&self) -> f32 {
        self.within as f32 / self.steps.max(1) as f32
    }
}

/// Runs a follower on `points` for `seconds` and measures it; `straight` says whether a point
/// counts as on a straight stretch.
fn run(
    follow: FollowPath,
    start: Vector,
    initial_velocity: Vector,
    limits: (Mass, MaxForce),
    seconds: u32,
    straight: impl Fn(Vector) -> bool,
) -> (Figures, App, Entity) {
    let mut app = create_app(STEPS_PER_SECOND);
    let points = follow.path.points.clone();
    let radius = follow.path.radius;
    let closed = follow.mode == PathMode::Loop;
    let agent = spawn(
        &mut app,
        (
            at(start.x, start.y),
            Velocity(initial_velocity),
            limits.0,
            limits.1,
            follow,
        ),
    );
    let mut figures = Figures {
        slowest_on_straights: f32::NAN,
        ..default()
    };
    let mut joined = false;
    let mut speed_sum = 0.0;
    let mut heading = angle_of(initial_velocity);
    let mut current = 0;
    step_checking(&mut app, seconds * 60, |app, _| {
        assert_agents_sane(app);
        let now = app.world().get::<FollowPath>(agent).unwrap().current;
        figures.nodes_passed += u32::from(now != current);
        current = now;
        let here = position(app, agent);
        let moving = velocity(app, agent);
        let off = project_onto_path(&points, closed, here).unwrap().distance;
        if moving.length() > 1.0 {
            let angle = angle_of(moving);
            let mut change = angle - heading;
            while change > TAU / 2.0 {
                change -= TAU;
            }
            while change < -TAU / 2.0 {
                change += TAU;
            }
            figures.turns += change / TAU;
            heading = angle;
        }
        joined |= off <= radius;
        if !joined {
            return;
        }
        figures.steps += 1;
        figures.within += u32::from(off <= radius);
        figures.worst = figures.worst.max(off);
        speed_sum += moving.length();
        if straight(here) {
            figures.slowest_on_straights = figures.slowest_on_straights.min(moving.length());
            if figures.slowest_on_straights.is_nan() {
                figures.slowest_on_straights = moving.length();
            }
        }
    });
    figures.mean_speed = speed_sum / figures.steps.max(1) as f32;
    (figures, app, agent)
}

fn reynolds(points: Vec<Vector>, radius: f32, mode: PathMode) -> FollowPath {
    FollowPath::new(Path::new(points, radius))
        .with_method(PathMethod::Reynolds)
        .with_mode(mode)
}

/// The default agent, a nimbler one (the tutorials' mass of 20) and a heavier one.
const AGENTS: [(&str, Mass, MaxForce); 3] = [
    ("default", Mass(1.0), MaxForce(600.0)),
    ("nimble", Mass(1.0 / 3.0), MaxForce(600.0)),
    ("heavy", Mass(2.0), MaxForce(600.0)),
];

/// Whether a bend of radius `bend` can be turned at full speed by an agent with these limits.
fn can_turn(mass: Mass, max_force: MaxForce, bend: f32) -> bool {
    let speed = MaxSpeed::default().0;
    speed * speed * mass.0 / max_force.0 < bend
}

#[test]
fn reynolds_holds_loops_it_can_turn_within_the_radius() {
    // Ellipses (the tightest bend of an ellipse is b² / a) and circles through 20 and 24 nodes,
    // radius 20; the agent starts 60 units outside, moving along the loop at 100 units a second.
    let loops = [
        (
            "ellipse 400 x 250",
            ellipse(200.0, 125.0, 20),
            125.0 * 125.0 / 200.0,
        ),
        (
            "ellipse 800 x 500",
            ellipse(400.0, 250.0, 20),
            250.0 * 250.0 / 400.0,
        ),
        ("circle r 300", ellipse(300.0, 300.0, 24), 300.0),
        ("circle r 150", ellipse(150.0, 150.0, 20), 150.0),
    ];
    let mut failures = Vec::new();
    for (name, points, bend) in loops {
        for (agent, mass, max_force) in AGENTS {
            if !can_turn(mass, max_force, bend) {
                continue;
            }
            let start = points[0] + v(60.0, 0.0);
            let (figures, ..) = run(
                reynolds(points.clone(), 20.0, PathMode::Loop),
                start,
                v(0.0, 100.0),
                (mass, max_force),
                30,
                |_| false,
            );
            println!(
                "Reynolds, {name}, {agent}: {:.1} % of {} steps within 20, worst {:.1} off, \
                 mean speed {:.0} of 180, {:.2} turns",
                100.0 * figures.within_share(),
                figures.steps,
                figures.worst,
                figures.mean_speed,
                figures.turns
            );
            if figures.within_share() < 0.95 || figures.mean_speed < 0.9 * 180.0 {
                failures.push(format!("{name}, {agent}: {figures:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A long rectangle with 90-degree corners, and a zig-zag with corners of 60 degrees: straight
/// stretches of 600 units between them.
#[test]
fn reynolds_keeps_full_speed_on_straights_and_the_radius_round_corners() {
    let rectangle = vec![v(0.0, 0.0), v(800.0, 0.0), v(800.0, 400.0), v(0.0, 400.0)];
    let zig_zag: Vec<Vector> = (0..6)
        .map(|i| v(i as f32 * 600.0 * 0.5, if i % 2 == 0 { 0.0 } else { 520.0 }))
        .collect();
    let cases = [
        ("rectangle, loop", rectangle.clone(), PathMode::Loop),
        ("rectangle, patrol", rectangle, PathMode::PingPong),
        ("zig-zag, one way", zig_zag.clone(), PathMode::OneWay),
        ("zig-zag, patrol", zig_zag, PathMode::PingPong),
    ];
    let mut failures = Vec::new();
    for (name, points, mode) in cases {
        for (agent, mass, max_force) in AGENTS {
            let closed = mode == PathMode::Loop;
            let spine = points.clone();
            // Straight: more than 150 units from every node.
            let straight = |here: Vector| {
                let projection = project_onto_path(&spine, closed, here).unwrap();
                spine
                    .iter()
                    .all(|node| node.distance(projection.point) > 150.0)
            };
            let (figures, ..) = run(
                reynolds(points.clone(), 20.0, mode),
                points[0] + v(0.0, -30.0),
                v(100.0, 0.0),
                (mass, max_force),
                30,
                straight,
            );
            println!(
                "Reynolds, {name}, {agent}: {:.1} % of {} steps within 20, worst {:.1} off, \
                 slowest on straights {:.0}, mean speed {:.0} of 180",
                100.0 * figures.within_share(),
                figures.steps,
                figures.worst,
                figures.slowest_on_straights,
                figures.mean_speed,
            );
            let slow =
                figures.slowest_on_straights.is_nan() || figures.slowest_on_straights < 0.9 * 180.0;
            if figures.within_share() < 0.95 || slow {
                failures.push(format!("{name}, {agent}: {figures:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Hairpins: a U of two right angles 100 apart, and a single node turning back by 174 degrees.
/// The follower is back within the radius of the return leg, for good, within one turning
/// diameter at full speed (108 units for the default agent) of the turn.
#[test]
fn reynolds_comes_back_onto_the_return_leg_of_a_hairpin_within_a_turning_diameter() {
    let hairpins = [
        (
            "U 100 wide",
            vec![v(0.0, 0.0), v(800.0, 0.0), v(800.0, 100.0), v(0.0, 100.0)],
        ),
        (
            "V turning 174 degrees",
            vec![v(0.0, 0.0), v(800.0, 0.0), v(0.0, 80.0)],
        ),
    ];
    let mut failures = Vec::new();
    for (name, points) in hairpins {
        for (agent, mass, max_force) in AGENTS {
            let mut follow = reynolds(points.clone(), 20.0, PathMode::OneWay);
            follow.slowing_radius = 50.0;
            let (return_start, return_end) = (points[points.len() - 2], points[points.len() - 1]);
            let along_return = (return_end - return_start).normalize();
            let diameter = 2.0 * 180.0 * 180.0 * mass.0 / max_force.0;
            let mut app = create_app(STEPS_PER_SECOND);
            let entity = spawn(
                &mut app,
                (
                    at(0.0, 0.0),
                    Velocity(v(180.0, 0.0)),
                    mass,
                    max_force,
                    follow,
                ),
            );
            // Along the return leg: the last point at which the agent was outside the radius of
            // the return leg, once past its start.
            let mut last_out: f32 = 0.0;
            let mut on_return = false;
            let mut worst_in_turn: f32 = 0.0;
            step_checking(&mut app, 20 * 60, |app, _| {
                assert_agents_sane(app);
                let here = position(app, entity);
                let along = (here - return_start).dot(along_return);
                let leg_length = (return_end - return_start).length();
                let off = project_onto_path(&[return_start, return_end], false, here)
                    .unwrap()
                    .distance;
                let spine = project_onto_path(&points, false, here).unwrap().distance;
                worst_in_turn = worst_in_turn.max(spine);
                on_return |= along > 0.0 && velocity(app, entity).dot(along_return) > 0.0;
                if on_return && along < leg_length - 60.0 && off > 20.0 {
                    last_out = last_out.max(along);
                }
            });
            println!(
                "Reynolds, hairpin {name}, {agent}: within 20 of the return leg for good {last_out:.1} \
                 along it (turning diameter {diameter:.0}); furthest from the spine {worst_in_turn:.1}"
            );
            if last_out > diameter {
                failures.push(format!("{name}, {agent}: {last_out} > {diameter}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A bend the agent cannot turn at full speed (a heavy agent, `MaxForce` 200 over a mass of 2,
/// turns a circle of 324 at full speed; here a circle of radius 100): it slows and stays on
/// the path.
#[test]
fn reynolds_slows_for_bends_it_cannot_turn() {
    let points = ellipse(100.0, 100.0, 16);
    let (figures, ..) = run(
        reynolds(points.clone(), 20.0, PathMode::Loop),
        points[0],
        v(0.0, 100.0),
        (Mass(2.0), MaxForce(200.0)),
        30,
        |_| false,
    );
    println!(
        "Reynolds, circle r 100, heavy agent (turning radius 324 at full speed): {:.1} % within \
         20, worst {:.1} off, mean speed {:.0}",
        100.0 * figures.within_share(),
        figures.worst,
        figures.mean_speed
    );
    assert!(figures.within_share() >= 0.95, "{figures:?}");
    assert!(figures.mean_speed < 150.0, "did not slow: {figures:?}");
}

/// The tutorial's method on the same loops: node after node, with no circling back (the
/// heading turns once a lap, never more), at the default settings, for the default agent, a
/// nimbler one and a heavy one.
#[test]
fn the_tutorial_method_passes_nodes_without_circling_back() {
    let loops = [
        ("ellipse 400 x 250", ellipse(200.0, 125.0, 20)),
        ("ellipse 800 x 500", ellipse(400.0, 250.0, 20)),
        ("circle r 300", ellipse(300.0, 300.0, 24)),
        (
            "rectangle",
            vec![v(0.0, 0.0), v(800.0, 0.0), v(800.0, 400.0), v(0.0, 400.0)],
        ),
    ];
    let mut failures = Vec::new();
    for (name, points) in loops {
        for (agent, mass, max_force) in AGENTS {
            let (figures, ..) = run(
                FollowPath::new(Path::new(points.clone(), 20.0)).with_mode(PathMode::Loop),
                points[0],
                Vector::ZERO,
                (mass, max_force),
                30,
                |_| false,
            );
            let laps = figures.nodes_passed as f32 / points.len() as f32;
            println!(
                "Tutorial, {name}, {agent}: {:.2} turns of the heading in 30 s over {laps:.2} \
                 laps (nodes passed / nodes), mean speed {:.0} of 180, worst {:.1} off the spine",
                figures.turns, figures.mean_speed, figures.worst,
            );
            // Circling back to a node adds a whole turn of the heading to the lap. The heavy
            // agent too (a turning radius of 108 at full speed, and a seek that turns it in about
            // 2 s): the small ellipse's bend (78) is one it cannot turn, it swings wide of nodes
            // and goes on to the next once level with them (it circled each lap before).
            if (figures.turns - laps).abs() > 0.5 {
                failures.push(format!(
                    "{name}, {agent}: circled, {figures:?}, laps {laps}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
