//! The 3D build's own behaviour, in the ECS: flyers wander in all three dimensions, ground units
//! keep to their plane, facing never flips, obstacle fields of spheres and boxes are never entered,
//! ground units and flyers see each other, and bad 3D input stays safe.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_steer_core3d::prelude::*;
use rand::rngs::Xoshiro128PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::common::threads;

const STEPS_PER_SECOND: f64 = 60.0;

/// An app with `MinimalPlugins` and `SteeringPlugin`, where each `app.update()` runs one fixed step.
fn create_app() -> App {
    let step = Duration::from_secs_f64(1.0 / STEPS_PER_SECOND);
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, SteeringPlugin::default()))
        .insert_resource(Time::<Fixed>::from_duration(step))
        .insert_resource(TimeUpdateStrategy::ManualDuration(step));
    app
}

fn position(app: &App, entity: Entity) -> Vec3 {
    app.world().get::<Transform>(entity).unwrap().translation
}

fn velocity(app: &App, entity: Entity) -> Vec3 {
    app.world().get::<Velocity>(entity).unwrap().0
}

/// The spread (standard deviation) of `points` along each axis.
fn spread(points: &[Vec3]) -> Vec3 {
    let mean = points.iter().sum::<Vec3>() / points.len() as f32;
    let variance = points
        .iter()
        .map(|p| (*p - mean) * (*p - mean))
        .sum::<Vec3>()
        / points.len() as f32;
    Vec3::new(variance.x.sqrt(), variance.y.sqrt(), variance.z.sqrt())
}

#[test]
fn flyers_wander_in_all_three_dimensions() {
    for frame in [WanderFrame::World, WanderFrame::Heading] {
        let mut app = create_app();
        let flyers: Vec<Entity> = (0..200)
            .map(|_| {
                app.world_mut()
                    .spawn((Transform::default(), Wander::default().with_frame(frame)))
                    .id()
            })
            .collect();
        for _ in 0..600 {
            app.update();
        }
        let points: Vec<Vec3> = flyers.iter().map(|&flyer| position(&app, flyer)).collect();
        assert!(points.iter().all(|point| point.is_finite()));
        let spread = spread(&points);
        println!("{frame:?}: spread after 10 s {spread}");
        // At 180 a second for 10 s, each axis spreads by hundreds of units.
        assert!(spread.min_element() > 100.0, "{frame:?}: {spread}");
        // No axis is favoured much over another.
        assert!(
            spread.max_element() < 3.0 * spread.min_element(),
            "{frame:?}: {spread}"
        );
    }
}

#[test]
fn ground_units_never_leave_their_plane() {
    let mut app = create_app();
    app.add_plugins(FlockingPlugin::<Planar>::new(40.0));
    let tilted = Dir3::new(Vec3::new(0.3, 1.0, -0.2)).unwrap();
    let mut units = Vec::new();
    for index in 0..60 {
        let up = if index % 2 == 0 { Dir3::Y } else { tilted };
        // Heights of their own (a terrain's), which steering must not change.
        let start = Vec3::new(index as f32 * 9.0, (index % 5) as f32 * 3.0, 0.0);
        let unit = app
            .world_mut()
            .spawn((
                Transform::from_translation(start),
                // A velocity and a target out of the plane: both are put into it.
                Velocity(Vec3::new(10.0, 50.0, 5.0)),
                Planar::new(up),
                Wander::default(),
                Seek::new(Vec3::new(300.0, 400.0, 200.0)).with_weight(0.5),
                Separation::new(20.0),
                FaceVelocity::default(),
            ))
            .id();
        units.push((unit, start, up));
    }
    // A flyer passing through them: they see it and it sees them.
    app.world_mut().spawn((
        Transform::from_xyz(200.0, 5.0, 0.0),
        Wander::default(),
        Separation::new(20.0),
        Planar::default(),
    ));
    // The first update runs no fixed step yet.
    app.update();
    for step in 0..1200 {
        app.update();
        for &(unit, start, up) in &units {
            let height = (position(&app, unit) - start).dot(*up);
            assert!(
                height.abs() < 1e-2,
                "step {step}: {unit} {height} off its plane"
            );
            assert!(velocity(&app, unit).dot(*up).abs() < 1e-3, "step {step}");
        }
    }
    // Facing a level heading, a Y-up unit turns about Y only: its up stays up.
    let (unit, ..) = units[0];
    let rotation = app.world().get::<Transform>(unit).unwrap().rotation;
    assert!(
        (rotation * Vec3::Y).abs_diff_eq(Vec3::Y, 1e-4),
        "{rotation}"
    );
    // They moved, and in their plane.
    let moved = (position(&app, unit) - units[0].1).length();
    assert!(moved > 100.0, "moved {moved}");
}

/// A ground unit's facing turns about its plane's up only, whatever its plane and whatever
/// `FaceVelocity` says of the world's up and of banking: a Y-up unit with banking on, driving a
/// circle, never rolls; one spawned upside down stands upright from its first step; a Z-up unit
/// with the default `FaceVelocity` (whose own up is +Y) wandering keeps its model's up on +Z.
#[test]
fn a_ground_unit_faces_its_heading_about_its_plane_s_up_only() {
    let mut app = create_app();
    let circle: Vec<Vec3> = (0..16)
        .map(|index| {
            let angle = index as f32 * core::f32::consts::TAU / 16.0;
            Vec3::new(150.0 * angle.cos(), 0.0, 150.0 * angle.sin())
        })
        .collect();
    let banked = app
        .world_mut()
        .spawn((
            Transform::from_translation(circle[0]),
            Planar::default(),
            FollowPath::new(Path::new(circle, 20.0))
                .with_mode(PathMode::Loop)
                .with_method(PathMethod::Reynolds),
            FaceVelocity::default().with_bank(0.005, 1.0),
        ))
        .id();
    let z_up = app
        .world_mut()
        .spawn((
            // Model up along +Z from the start, as a Z-up game would spawn it.
            Transform::from_xyz(0.0, 500.0, 0.0).looking_to(Vec3::X, Vec3::Z),
            Planar::new(Dir3::Z),
            Wander::default(),
            FaceVelocity::default(),
        ))
        .id();
    // Spawned upside down: upright from its first step.
    let upside_down = app
        .world_mut()
        .spawn((
            Transform::from_xyz(300.0, 0.0, -300.0)
                .with_rotation(Quat::from_rotation_z(core::f32::consts::PI)),
            Planar::default(),
            Wander::default(),
            FaceVelocity::default(),
        ))
        .id();
    let rotation = |app: &App, entity| app.world().get::<Transform>(entity).unwrap().rotation;
    // The first update runs no fixed step yet.
    app.update();
    let (mut worst_roll, mut worst_tilt) = (0.0_f32, 0.0_f32);
    for _ in 0..1800 {
        app.update();
        worst_roll = worst_roll.max((rotation(&app, banked) * Vec3::Y).angle_between(Vec3::Y));
        worst_tilt = worst_tilt.max((rotation(&app, z_up) * Vec3::Y).angle_between(Vec3::Z));
        worst_roll = worst_roll.max((rotation(&app, upside_down) * Vec3::Y).angle_between(Vec3::Y));
    }
    assert!(worst_roll < 1e-3, "a Y-up unit rolled {worst_roll} rad");
    assert!(
        worst_tilt < 1e-3,
        "the Z-up unit's up left +Z by {worst_tilt} rad"
    );
}

#[test]
fn ground_units_and_flyers_see_each_other() {
    let mut app = create_app();
    app.add_plugins(FlockingPlugin::<Steering>::new(50.0));
    let ground = app
        .world_mut()
        .spawn((
            Transform::default(),
            Planar::default(),
            Separation::new(30.0),
        ))
        .id();
    let flyer = app
        .world_mut()
        .spawn((Transform::from_xyz(10.0, 10.0, 0.0), Separation::new(30.0)))
        .id();
    for _ in 0..30 {
        app.update();
    }
    // Each pushed away from the other: the ground unit along the ground only.
    assert!(
        position(&app, ground).x < -1.0,
        "{}",
        position(&app, ground)
    );
    assert_eq!(position(&app, ground).y, 0.0);
    let flyer_at = position(&app, flyer);
    assert!(flyer_at.x > 11.0 && flyer_at.y > 11.0, "{flyer_at}");
}

/// Flyers wandering up and down through the vertical never flip, banking into their turns or not.
#[test]
fn facing_never_flips() {
    for face in [
        FaceVelocity::default(),
        FaceVelocity::default().with_bank(0.005, core::f32::consts::FRAC_PI_3),
    ] {
        let mut app = create_app();
        let flyers: Vec<Entity> = (0..50)
            .map(|index| {
                app.world_mut()
                    .spawn((
                        Transform::from_xyz(index as f32 * 20.0, 0.0, 0.0),
                        Wander::default().with_frame(WanderFrame::Heading),
                        // Up and down through the vertical, again and again.
                        Seek::new(Vec3::new(index as f32 * 20.0, 2000.0, 0.0)).with_weight(0.3),
                        face,
                    ))
                    .id()
            })
            .collect();
        let rotations = |app: &App| -> Vec<Quat> {
            flyers
                .iter()
                .map(|&flyer| app.world().get::<Transform>(flyer).unwrap().rotation)
                .collect()
        };
        let mut before = rotations(&app);
        let mut largest: f32 = 0.0;
        for _ in 0..1200 {
            app.update();
            let after = rotations(&app);
            for (index, (a, b)) in before.iter().zip(&after).enumerate() {
                if index == 0 || velocity(&app, flyers[index]).length() < 20.0 {
                    continue;
                }
                largest = largest.max(a.angle_between(*b));
            }
            before = after;
        }
        println!("bank {}: largest turn in a step {largest} rad", face.bank);
        assert!(largest < 0.5, "a model turned {largest} rad in one step");
    }
}

/// A field of spheres, axis-aligned boxes and rotated boxes, with 100 agents wandering among them
/// in a box arena for 10 000 steps: none ever has its centre inside an obstacle.
#[test]
fn obstacle_fields_of_spheres_and_boxes_are_never_entered() {
    let mut app = create_app();
    let mut random = Xoshiro128PlusPlus::seed_from_u64(3);
    let half_arena = 400.0;
    let mut obstacles = Vec::new();
    for index in 0..40 {
        let centre = Vec3::new(
            random.random_range(-300.0..300.0),
            random.random_range(-300.0..300.0),
            random.random_range(-300.0..300.0),
        );
        let obstacle = match index % 3 {
            0 => Obstacle::sphere(random.random_range(15.0..40.0)),
            1 => Obstacle::cuboid(Vec3::new(60.0, 30.0, 45.0)),
            _ => Obstacle::rotated_cuboid(
                Vec3::new(80.0, 20.0, 50.0),
                Quat::from_euler(EulerRot::XYZ, 0.4, index as f32, -0.7),
            ),
        };
        obstacles.push((obstacle.shape, centre));
        app.world_mut()
            .spawn((obstacle, Transform::from_translation(centre)));
    }
    let clear_of_all = |point: Vec3, room: f32| {
        obstacles
            .iter()
            .all(|(shape, centre)| shape.signed_distance(*centre, point) > room)
    };
    let mut agents = Vec::new();
    while agents.len() < 100 {
        let start = Vec3::new(
            random.random_range(-350.0..350.0),
            random.random_range(-350.0..350.0),
            random.random_range(-350.0..350.0),
        );
        if !clear_of_all(start, 20.0) {
            continue;
        }
        agents.push(
            app.world_mut()
                .spawn((
                    Transform::from_translation(start),
                    Wander::default(),
                    AvoidObstacles::new(100.0, 6.0),
                    Containment::cuboid(Vec3::ZERO, Vec3::splat(2.0 * half_arena)),
                ))
                .id(),
        );
    }
    let mut penetrations = 0;
    for _ in 0..10_000 {
        app.update();
        for &agent in &agents {
            let at = position(&app, agent);
            assert!(at.is_finite());
            if !clear_of_all(at, 0.0) {
                penetrations += 1;
            }
        }
    }
    assert_eq!(penetrations, 0, "agent-steps inside an obstacle");
}

/// A floor and a tilted plane meeting it, with 100 agents for 10 000 steps: half wander in a box
/// arena that reaches behind both planes, half seek a point behind both (into the corner where
/// they meet). None is ever behind a plane.
#[test]
fn planes_are_never_crossed() {
    let mut app = create_app();
    let planes = [
        Obstacle::plane(Vec3::new(0.0, -200.0, 0.0), Vec3::Y),
        Obstacle::plane(Vec3::new(0.0, 0.0, 250.0), Vec3::new(0.3, 0.4, -1.0)),
    ];
    for plane in planes {
        app.world_mut().spawn(plane);
    }
    let behind_any = |point: Vec3| {
        planes.iter().any(|(plane, transform)| {
            plane.shape.signed_distance(transform.translation, point) < 0.0
        })
    };
    let mut random = Xoshiro128PlusPlus::seed_from_u64(5);
    let mut agents = Vec::new();
    while agents.len() < 100 {
        let start = Vec3::new(
            random.random_range(-350.0..350.0),
            random.random_range(-150.0..350.0),
            random.random_range(-350.0..200.0),
        );
        if behind_any(start) {
            continue;
        }
        let mut agent = app.world_mut().spawn((
            Transform::from_translation(start),
            AvoidObstacles::new(100.0, 6.0),
        ));
        if agents.len() % 2 == 0 {
            agent.insert((
                Wander::default(),
                Containment::cuboid(Vec3::ZERO, Vec3::splat(800.0)),
            ));
        } else {
            agent.insert(Seek::new(Vec3::new(0.0, -600.0, 700.0)));
        }
        agents.push(agent.id());
    }
    let (mut behind, mut nearest) = (0, f32::INFINITY);
    for _ in 0..10_000 {
        app.update();
        for &agent in &agents {
            let at = position(&app, agent);
            assert!(at.is_finite());
            if behind_any(at) {
                behind += 1;
            }
            for (plane, transform) in &planes {
                nearest = nearest.min(plane.shape.signed_distance(transform.translation, at));
            }
        }
    }
    println!("agent-steps behind a plane: {behind}; nearest approach {nearest}");
    assert_eq!(behind, 0, "agent-steps behind a plane");
}

/// The README's rule for corners where three faces meet: flyers driven at full speed into the
/// corner of a room (three planes) by a seek through it, with `MaxSpeed² × Mass / MaxForce` at 36
/// (`MaxForce` 900), keep half their clearance at 30, 64 and 144 steps a second (7.3, 9.4 and 10.1
/// of 12 from these five starts); at the defaults' 54 they come within 0.7, 3.4 and 4.05.
#[test]
fn flyers_driven_into_a_room_s_corner_keep_half_their_clearance_within_the_corner_rule() {
    for steps_per_second in [30.0, 64.0, 144.0] {
        let step = Duration::from_secs_f64(1.0 / steps_per_second);
        let mut app = create_app();
        app.insert_resource(Time::<Fixed>::from_duration(step))
            .insert_resource(TimeUpdateStrategy::ManualDuration(step));
        for normal in [Vec3::X, Vec3::Y, Vec3::Z] {
            app.world_mut().spawn(Obstacle::plane(Vec3::ZERO, normal));
        }
        let flyers: Vec<Entity> = [
            Vec3::new(200.0, 200.0, 200.0),
            Vec3::new(300.0, 100.0, 50.0),
            Vec3::new(50.0, 250.0, 120.0),
            Vec3::new(100.0, 40.0, 300.0),
            Vec3::new(200.0, 190.0, 210.0),
        ]
        .into_iter()
        .map(|start| {
            app.world_mut()
                .spawn((
                    Transform::from_translation(start),
                    MaxForce(900.0),
                    Seek::new(Vec3::splat(-100.0)),
                    AvoidObstacles::default(),
                ))
                .id()
        })
        .collect();
        let mut nearest = f32::INFINITY;
        for _ in 0..(10.0 * steps_per_second) as u32 {
            app.update();
            for &flyer in &flyers {
                nearest = nearest.min(position(&app, flyer).min_element());
            }
        }
        assert!(
            nearest > 6.0,
            "{steps_per_second} steps a second: came within {nearest} of a plane"
        );
    }
}

/// Ground units crossing a field of spheres and boxes that cut their plane (centred above it,
/// below it, some turned out of it), each seeking the point straight across the field: every one
/// gets there, stays in its plane, and never has its centre inside an obstacle. (With avoidance
/// probing out of the plane, seven of the thirty stopped for good in front of a box centred
/// above it.)
#[test]
fn ground_units_cross_a_field_of_obstacles_in_their_plane() {
    let mut app = create_app();
    let mut random = Xoshiro128PlusPlus::seed_from_u64(11);
    // Passages at least 30 wide between the obstacles' bounding spheres: room for a unit keeping
    // 6 from both sides.
    let mut obstacles: Vec<(ObstacleShape, Vec3, f32)> = Vec::new();
    while obstacles.len() < 14 {
        let centre = Vec3::new(
            random.random_range(-320.0..320.0),
            random.random_range(-20.0..20.0),
            random.random_range(-240.0..240.0),
        );
        let obstacle = match obstacles.len() % 3 {
            0 => Obstacle::sphere(random.random_range(25.0..45.0)),
            1 => Obstacle::cuboid(Vec3::new(60.0, 50.0, 40.0)),
            _ => Obstacle::rotated_cuboid(
                Vec3::new(70.0, 50.0, 30.0),
                Quat::from_euler(EulerRot::XYZ, 0.5, random.random_range(0.0..6.0), -0.4),
            ),
        };
        let bounding = match obstacle.shape {
            ObstacleShape::Sphere { radius } => radius,
            ObstacleShape::Box { half_size } | ObstacleShape::RotatedBox { half_size, .. } => {
                half_size.length()
            }
            _ => unreachable!(),
        };
        let apart = |(_, other, other_bounding): &(ObstacleShape, Vec3, f32)| {
            centre.xz().distance(other.xz()) > bounding + other_bounding + 30.0
        };
        if obstacles.iter().all(apart) {
            obstacles.push((obstacle.shape, centre, bounding));
            app.world_mut()
                .spawn((obstacle, Transform::from_translation(centre)));
        }
    }
    let inside_any = |point: Vec3| {
        obstacles
            .iter()
            .any(|(shape, centre, _)| shape.signed_distance(*centre, point) < 0.0)
    };
    let units: Vec<(Entity, Vec3)> = (0..30)
        .map(|index| {
            let z = -180.0 + index as f32 * 12.0;
            let goal = Vec3::new(450.0, 0.0, z);
            let unit = app
                .world_mut()
                .spawn((
                    Transform::from_xyz(-450.0, 0.0, z),
                    Planar::default(),
                    Seek::new(goal),
                    AvoidObstacles::new(80.0, 6.0),
                ))
                .id();
            (unit, goal)
        })
        .collect();
    let mut inside = 0;
    let mut arrived_at = vec![None; units.len()];
    for step in 0..1800 {
        app.update();
        for (index, &(unit, goal)) in units.iter().enumerate() {
            let at = position(&app, unit);
            assert!(
                at.y.abs() < 1e-3,
                "step {step}: {unit} left its plane: {at}"
            );
            if inside_any(at) {
                inside += 1;
            }
            if at.distance(goal) < 20.0 {
                arrived_at[index].get_or_insert(step);
            }
        }
    }
    let arrived: Vec<u32> = arrived_at.iter().flatten().copied().collect();
    println!(
        "{} of {} arrived, the last after {:?} steps; agent-steps inside: {inside}",
        arrived.len(),
        units.len(),
        arrived.iter().max()
    );
    assert_eq!(inside, 0, "agent-steps inside an obstacle");
    assert_eq!(
        arrived.len(),
        units.len(),
        "not all arrived: {arrived_at:?}"
    );
}

/// A flyer at rest inside two spheres that overlap, on the line through their centres (each one's
/// way out leads into the other), gets out of both, off that line, and keeps its clearance.
#[test]
fn a_flyer_inside_two_overlapping_spheres_gets_out_of_both() {
    let mut app = create_app();
    let centres = [Vec3::ZERO, Vec3::new(30.0, 30.0, 30.0)];
    for centre in centres {
        app.world_mut()
            .spawn((Obstacle::sphere(40.0), Transform::from_translation(centre)));
    }
    let agent = app
        .world_mut()
        .spawn((
            Transform::from_translation(Vec3::splat(12.0)),
            AvoidObstacles::default(),
        ))
        .id();
    let clearance = |app: &App| {
        let at = position(app, agent);
        centres
            .iter()
            .map(|&centre| Obstacle::sphere(40.0).shape.signed_distance(centre, at))
            .fold(f32::INFINITY, f32::min)
    };
    let mut inside_for = 0;
    for _ in 0..180 {
        app.update();
        if clearance(&app) < 0.0 {
            inside_for += 1;
        }
    }
    let end = clearance(&app);
    assert!(
        inside_for < 60 && end > 10.0,
        "inside for {inside_for} steps, ends {end} clear at {}",
        position(&app, agent)
    );
}

/// An agent started inside a sphere, a box, a rotated box or behind a plane gets straight out,
/// and stays out.
#[test]
fn an_agent_started_inside_an_obstacle_gets_straight_out() {
    let shapes = [
        Obstacle::sphere(40.0),
        Obstacle::cuboid(Vec3::new(80.0, 60.0, 100.0)),
        Obstacle::rotated_cuboid(Vec3::splat(70.0), Quat::from_rotation_z(0.6)),
        // The start below lies 5 behind the first plane and about 11 behind the second.
        Obstacle::plane(Vec3::ZERO, Vec3::NEG_Y).0,
        Obstacle::plane(Vec3::ZERO, Vec3::new(-1.0, -0.5, 0.4)).0,
    ];
    for obstacle in shapes {
        let mut app = create_app();
        let centre = Vec3::new(10.0, -20.0, 30.0);
        app.world_mut()
            .spawn((obstacle, Transform::from_translation(centre)));
        // Off-centre inside, moving deeper in.
        let start = centre + Vec3::new(8.0, 5.0, -6.0);
        let agent = app
            .world_mut()
            .spawn((
                Transform::from_translation(start),
                Velocity(Vec3::new(-20.0, 0.0, 10.0)),
                AvoidObstacles::new(60.0, 5.0),
            ))
            .id();
        let mut out_at = None;
        for step in 0..240 {
            app.update();
            let inside = obstacle
                .shape
                .signed_distance(centre, position(&app, agent))
                < 0.0;
            match (inside, out_at) {
                (false, None) => out_at = Some(step),
                (true, Some(_)) => panic!("{:?}: back inside at step {step}", obstacle.shape),
                _ => {}
            }
        }
        let out_at = out_at.unwrap_or_else(|| panic!("{:?}: never got out", obstacle.shape));
        println!("{:?}: out after {out_at} steps", obstacle.shape);
        // Straight out: within a second.
        assert!(
            out_at < 60,
            "{:?}: out after {out_at} steps",
            obstacle.shape
        );
    }
}

#[test]
fn bad_3d_input_stays_finite() {
    let mut app = create_app();
    // Obstacles whose shapes are not valid are left out of the index.
    app.world_mut()
        .spawn((Obstacle::sphere(f32::NAN), Transform::default()));
    app.world_mut().spawn((
        Obstacle {
            shape: ObstacleShape::RotatedBox {
                half_size: Vec3::ONE * 10.0,
                rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            },
        },
        Transform::from_xyz(30.0, 0.0, 0.0),
    ));
    // Planes facing nowhere, or placed nowhere, likewise.
    for normal in [Vec3::ZERO, Vec3::NAN, Vec3::new(0.0, f32::INFINITY, 0.0)] {
        app.world_mut().spawn(Obstacle::plane(Vec3::ZERO, normal));
    }
    app.world_mut()
        .spawn(Obstacle::plane(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::Y));
    let agents = [
        app.world_mut()
            .spawn((
                Transform::default(),
                Velocity(Vec3::NAN),
                Wander::default(),
                AvoidObstacles::default(),
            ))
            .id(),
        app.world_mut()
            .spawn((
                Transform::from_xyz(5.0, 0.0, 0.0),
                Planar::default(),
                Wander {
                    displacement: Vec3::NAN,
                    ..default()
                },
                FaceVelocity {
                    local_forward: Dir3::Y,
                    local_up: Dir3::Y,
                    up: Dir3::Y,
                    ..default()
                },
            ))
            .id(),
        app.world_mut()
            .spawn((
                Transform::from_xyz(0.0, 5.0, 0.0),
                Wander {
                    displacement: Vec3::ZERO,
                    angle_change: f32::INFINITY,
                    ..default()
                },
                Containment::sphere(Vec3::ZERO, f32::NAN),
                FaceVelocity::default(),
            ))
            .id(),
    ];
    // The first update runs no fixed step yet.
    app.update();
    for _ in 0..300 {
        app.update();
        for agent in agents {
            let transform = app.world().get::<Transform>(agent).unwrap();
            assert!(transform.translation.is_finite() && transform.rotation.is_finite());
            assert!(velocity(&app, agent).is_finite());
        }
    }
    assert!(
        app.world()
            .resource::<ObstacleIndex>()
            .obstacles()
            .is_empty()
    );
}

/// Agents in the determinism test: enough for several jobs of the largest minimum job size (1 024),
/// the last group shorter than the four SIMD lanes.
const CROWD: usize = 4 * 1024 + 3;

/// Final positions and rotations of a crowd of flyers and ground units that wander, flock, avoid
/// spheres and boxes, stay in a box, face their heading and some follow a 3D path, after `steps`,
/// in this process's compute pool.
fn crowd_after(threads: usize, steps: u32) -> Vec<f32> {
    let step = Duration::from_secs_f64(1.0 / STEPS_PER_SECOND);
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(threads::task_pool_plugin(threads)),
        SteeringPlugin::default().with_seed(9),
        FlockingPlugin::<Steering>::new(10.0),
    ))
    .insert_resource(Time::<Fixed>::from_duration(step))
    .insert_resource(TimeUpdateStrategy::ManualDuration(step));
    for index in 0..30 {
        let centre = Vec3::new(
            index as f32 * 40.0,
            (index % 3) as f32 * 30.0,
            (index % 5) as f32 * 20.0,
        );
        let obstacle = if index % 2 == 0 {
            Obstacle::sphere(8.0)
        } else {
            Obstacle::cuboid(Vec3::splat(12.0))
        };
        app.world_mut()
            .spawn((obstacle, Transform::from_translation(centre)));
    }
    let path = Path::new(
        [
            Vec3::ZERO,
            Vec3::new(200.0, 50.0, 0.0),
            Vec3::new(200.0, 50.0, 200.0),
        ],
        20.0,
    );
    let agents: Vec<Entity> = (0..CROWD)
        .map(|index| {
            let mut agent = app.world_mut().spawn((
                Transform::from_xyz(index as f32 * 0.3, (index % 7) as f32, (index % 11) as f32),
                Wander::default(),
                Separation::new(4.0),
                Alignment::new(8.0),
                Cohesion::new(8.0),
                AvoidObstacles::new(40.0, 2.0),
                Containment::cuboid(Vec3::new(600.0, 0.0, 0.0), Vec3::new(2000.0, 600.0, 600.0)),
                FaceVelocity::default(),
            ));
            if index % 3 == 0 {
                agent.insert(FollowPath::new(path.clone()).with_mode(PathMode::Loop));
            }
            if index % 5 == 0 {
                agent.insert(Planar::default());
            }
            agent.id()
        })
        .collect();
    for _ in 0..steps {
        app.update();
    }
    agents
        .iter()
        .flat_map(|&agent| {
            let transform = app.world().get::<Transform>(agent).unwrap();
            transform
                .translation
                .to_array()
                .into_iter()
                .chain(transform.rotation.to_array())
        })
        .collect()
}

#[test]
#[ignore = "run in a process of its own by the thread-count determinism test"]
fn crowd_in_3d_in_a_child_process() {
    let Some(threads) = threads::child_threads() else {
        return;
    };
    threads::print_bits(crowd_after(threads, 120));
}

#[test]
fn the_same_seed_gives_identical_3d_trajectories_whatever_the_thread_count() {
    let run =
        |threads| threads::in_a_child_process("dim3::crowd_in_3d_in_a_child_process", threads);
    let sequential = run(1);
    assert_eq!(sequential, run(2), "one thread differs from two");
    assert_eq!(sequential, run(4), "one thread differs from four");
}

/// `ground_units`' stall, headless: ground units (the example's speed, force and avoidance) seek a
/// point behind a wall 350 long whose face a rotated box nearly meets (a slot 15 wide, too narrow
/// for a unit keeping 8), from 8 starts to 3 goals. Plain seek and avoidance stalled 6 of the 24
/// against the wall's face, where the seek pulls a unit turned aside back to the point opposite
/// its goal (a local minimum); sliding along a face too long to see round, towards its nearer end
/// with open space past it, takes all 24 round.
#[test]
fn ground_units_seeking_past_a_wall_and_a_box_get_there() {
    let mut stalled = Vec::new();
    for start_z in [60.0, 100.0, 130.0, 150.0, 170.0, 200.0, 240.0, 280.0] {
        for goal_z in [100.0, 150.0, 250.0] {
            let mut app = create_app();
            // The example's wall along z at x = 450, and its turned building next to it.
            app.world_mut().spawn(Obstacle::wall(
                Vec3::new(450.0, 15.0, 175.0),
                Vec3::X,
                Vec3::Y,
                350.0,
                40.0,
            ));
            app.world_mut().spawn((
                Obstacle::rotated_cuboid(Vec3::new(90.0, 60.0, 70.0), Quat::from_rotation_y(-0.4)),
                Transform::from_xyz(380.0, 20.0, 150.0),
            ));
            let goal = Vec3::new(600.0, 11.0, goal_z);
            let unit = app
                .world_mut()
                .spawn((
                    Transform::from_xyz(250.0, 11.0, start_z),
                    Planar::default(),
                    MaxSpeed(70.0),
                    MaxForce(150.0),
                    Seek::new(goal).with_slowing_radius(60.0),
                    AvoidObstacles::new(60.0, 8.0),
                ))
                .id();
            let arrived = (0..3600).any(|_| {
                app.update();
                position(&app, unit).distance(goal) < 20.0
            });
            if !arrived {
                stalled.push((start_z, goal_z, position(&app, unit)));
            }
        }
    }
    println!("{} of 24 stalled: {stalled:?}", stalled.len());
    assert!(stalled.is_empty(), "{stalled:?}");
}

/// A flyer heading straight at the centre of a sphere or a box along a diagonal, seeking a point
/// behind it: it turns aside and gets there, never entering it (along an axis it always did; along
/// a diagonal the sideways direction came out of rounding, along the heading, and it stopped dead).
#[test]
fn a_flyer_heading_diagonally_at_an_obstacle_s_centre_goes_round_it() {
    let obstacles = [Obstacle::sphere(60.0), Obstacle::cuboid(Vec3::splat(100.0))];
    let diagonals = [
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::ONE,
        Vec3::new(0.0, -1.0, 1.0),
    ];
    for obstacle in obstacles {
        for diagonal in diagonals {
            let mut app = create_app();
            let (centre, target) = (diagonal * 150.0, diagonal * 300.0);
            let shape = obstacle.shape;
            app.world_mut()
                .spawn((obstacle, Transform::from_translation(centre)));
            let flyer = app
                .world_mut()
                .spawn((
                    Transform::default(),
                    Seek::new(target),
                    AvoidObstacles::default(),
                ))
                .id();
            let mut closest = f32::INFINITY;
            for _ in 0..900 {
                app.update();
                closest = closest.min(shape.signed_distance(centre, position(&app, flyer)));
            }
            let end = position(&app, flyer);
            assert!(
                closest >= 0.0,
                "{shape:?} along {diagonal}: entered ({closest})"
            );
            assert!(
                end.distance(target) < 15.0,
                "{shape:?} along {diagonal}: stalled at {end}"
            );
        }
    }
}

/// A wall whose `up` lies along its normal (no part at right angles to it, here along a
/// diagonal): it still faces its normal.
#[test]
fn a_wall_whose_up_lies_along_its_diagonal_normal_faces_it() {
    for normal in [
        Vec3::X,
        Vec3::ONE.normalize(),
        Vec3::new(1.0, 1.0, 0.0).normalize(),
    ] {
        let (wall, _) = Obstacle::wall(Vec3::ZERO, normal, normal, 200.0, 100.0);
        let distance = wall.shape.signed_distance(Vec3::ZERO, normal * 5.0);
        assert!((distance - 5.0).abs() < 1e-3, "{normal}: {distance}");
    }
}

/// Flyers wandering in the heading frame have no preferred world direction, as in the world
/// frame: read against a frame fixed to the heading alone, the one heading where that frame twists
/// round (-X) drew them to it (a mean heading of -0.72 along X).
#[test]
fn flyers_wandering_in_the_heading_frame_prefer_no_world_direction() {
    for frame in [WanderFrame::World, WanderFrame::Heading] {
        let mut app = create_app();
        let flyers: Vec<Entity> = (0..40)
            .map(|i| {
                let i = i as f32;
                let heading = Vec3::new((i * 2.1).sin(), (i * 1.3).cos(), (i * 0.7).sin());
                app.world_mut()
                    .spawn((
                        Transform::default(),
                        Velocity(heading.normalize() * 100.0),
                        Wander::default().with_frame(frame),
                    ))
                    .id()
            })
            .collect();
        let (mut sum, mut count) = (Vec3::ZERO, 0.0);
        for step in 0..2400 {
            app.update();
            if step >= 600 {
                for &flyer in &flyers {
                    sum += velocity(&app, flyer).normalize_or_zero();
                    count += 1.0;
                }
            }
        }
        let mean = sum / count;
        assert!(mean.length() < 0.2, "{frame:?}: mean heading {mean}");
    }
}

#[derive(Component)]
struct Walker;

/// Queue's personal space between agents at different heights: a ground unit walking past one
/// that stands on a hill 12 above its ground, and past a flyer hovering 10 above it, keeps its
/// `min_distance` from each (measured in 3D), as on level ground.
#[test]
fn queue_personal_space_holds_between_agents_at_different_heights() {
    for (height, other_is_planar) in [(0.0, true), (12.0, true), (10.0, false)] {
        let mut app = create_app();
        app.add_plugins(SpatialIndexPlugin::<Walker>::new(40.0))
            .add_queue::<Walker>();
        let spaced = Queue::default().with_min_distance(20.0);
        let other = app
            .world_mut()
            .spawn((Transform::from_xyz(200.0, height, 0.0), Walker, spaced))
            .id();
        if other_is_planar {
            app.world_mut()
                .entity_mut(other)
                .insert(Planar::new(Dir3::Y));
        }
        let walker = app
            .world_mut()
            .spawn((
                Transform::default(),
                Planar::new(Dir3::Y),
                Walker,
                Seek::new(Vec3::new(400.0, 0.0, 0.0)),
                spaced,
            ))
            .id();
        let mut closest = f32::INFINITY;
        for _ in 0..600 {
            app.update();
            closest = closest.min(position(&app, walker).distance(position(&app, other)));
        }
        assert!(
            closest >= 20.0 * 0.999,
            "the other at height {height}: came within {closest}"
        );
    }
}

/// A ground unit between a wall and a sphere centred below its plane (within its clearance of
/// the sphere in 3D, not of the sphere's cross-section in its plane), heading along the wall: the
/// way out of the sphere's room straight through the wall is no way out, so the unit stays on its
/// side (it was pushed through the wall within 12 steps). From a black-box test.
#[test]
fn a_ground_unit_between_a_wall_and_a_sphere_below_its_plane_stays_on_its_side_of_the_wall() {
    let mut app = create_app();
    let normal = Vec3::new(-0.962_042_3, 0.0, 0.272_900_5);
    let centre = Vec3::new(-125.192_99, 0.0, 295.576);
    app.world_mut()
        .spawn(Obstacle::wall(centre, normal, Vec3::Y, 147.538_5, 400.0));
    app.world_mut().spawn((
        Obstacle::sphere(55.0),
        Transform::from_xyz(-63.294, -30.0, 305.106),
    ));
    let unit = app
        .world_mut()
        .spawn((
            Transform::from_xyz(-107.816_34, 14.987_72, 310.454_47),
            Velocity(Vec3::new(20.573_8, 0.0, 87.340_4)),
            Planar::default(),
            AvoidObstacles::default(),
        ))
        .id();
    // The wall is 147.5 wide along its horizontal direction and 400 tall.
    let along = normal.cross(Vec3::Y).normalize();
    let side = |point: Vec3| (point - centre).dot(normal);
    let mut before = position(&app, unit);
    assert!(side(before) < 0.0);
    for step in 0..240 {
        app.update();
        let here = position(&app, unit);
        let crossed = side(before) < 0.0
            && side(here) >= 0.0
            && ((before + here) / 2.0 - centre).dot(along).abs() <= 147.538_5 / 2.0;
        assert!(
            !crossed,
            "step {step}: through the wall, from {before} to {here}"
        );
        before = here;
    }
}

/// A ground unit with up +X wandering in the wedge between a wall (a rotated box of no thickness)
/// and a sphere whose centre is off its plane, or on it: it brakes for the sphere while near the
/// wall, each stop planned along the obstacle's own normal in its plane, and its centre never
/// gets inside either (it went 1.8 inside the sphere before). From a black-box test.
#[test]
fn a_ground_unit_in_the_wedge_between_a_wall_and_a_sphere_stays_out_of_both() {
    // The unit's plane is x = 10.04: the sphere's centre 10 off it, or on it.
    for (seed, off_plane) in [(1, 10.040_4), (2, 10.040_4), (1, 0.0), (3, 0.0)] {
        let step = Duration::from_secs_f64(1.0 / STEPS_PER_SECOND);
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, SteeringPlugin::default().with_seed(seed)))
            .insert_resource(Time::<Fixed>::from_duration(step))
            .insert_resource(TimeUpdateStrategy::ManualDuration(step));
        let obstacles = [
            (
                Obstacle {
                    shape: ObstacleShape::RotatedBox {
                        half_size: Vec3::new(76.628_7, 200.0, 0.0),
                        rotation: Quat::from_xyzw(
                            0.631_099_2,
                            0.631_099_2,
                            -0.318_926_1,
                            0.318_926_1,
                        ),
                    },
                },
                Vec3::new(0.0, -146.357, -340.423),
            ),
            (
                Obstacle::sphere(49.889_78),
                Vec3::new(10.040_4 - off_plane, -234.543, -280.659),
            ),
        ];
        for (obstacle, at) in &obstacles {
            app.world_mut()
                .spawn((*obstacle, Transform::from_translation(*at)));
        }
        let unit = app
            .world_mut()
            .spawn((
                Transform::from_xyz(10.040_4, -173.039_5, -325.503_75),
                Velocity(Vec3::new(0.0, -80.023_1, 131.554_5)),
                Planar::new(Dir3::X),
                AvoidObstacles::default(),
                Wander::default(),
            ))
            .id();
        let mut deepest = f32::NEG_INFINITY;
        for _ in 0..200 {
            app.update();
            let here = position(&app, unit);
            for (obstacle, at) in &obstacles {
                deepest = deepest.max(-obstacle.shape.signed_distance(*at, here));
            }
        }
        assert!(
            deepest <= 0.0,
            "seed {seed}, sphere {off_plane} off the plane: the centre went {deepest} inside"
        );
    }
}

/// Ground units keeping a personal space on uneven ground (their heights differ by up to 5),
/// crowding behind one standing still in their way: queue brakes along the line to the agent
/// ahead, which leaves their plane, and predicts the step as the integration makes it, from the
/// parts in their plane, so the space holds. (A black-box crowd of ground units at a door on
/// uneven ground broke it by a hundredth when the brake's part out of the plane took a share of
/// `MaxForce` in queue's prediction only; that crowd is chaotic, and this scene, which keeps the
/// space either way, guards the promise rather than reproducing it.)
#[test]
fn queue_personal_space_holds_for_ground_units_at_different_heights_crowding_behind_one() {
    let mut app = create_app();
    app.add_plugins(SpatialIndexPlugin::<Walker>::new(40.0))
        .add_queue::<Walker>();
    let spaced = Queue::default().with_min_distance(16.0);
    let mut walkers = vec![
        app.world_mut()
            .spawn((
                Transform::from_xyz(0.0, 2.0, 0.0),
                Planar::new(Dir3::Y),
                Walker,
                spaced,
            ))
            .id(),
    ];
    for i in 0..30 {
        let height = ((i * 37) % 11) as f32 * 0.5;
        let start = Vec3::new(
            -60.0 - 20.0 * (i / 5) as f32,
            height,
            -40.0 + 20.0 * (i % 5) as f32,
        );
        walkers.push(
            app.world_mut()
                .spawn((
                    Transform::from_translation(start),
                    Planar::new(Dir3::Y),
                    Walker,
                    Seek::new(Vec3::new(300.0, height, 0.0)).with_weight(8.0),
                    MaxSpeed(120.0),
                    spaced,
                ))
                .id(),
        );
    }
    let mut closest = f32::INFINITY;
    for _ in 0..600 {
        app.update();
        for (i, &one) in walkers.iter().enumerate() {
            for &other in &walkers[i + 1..] {
                closest = closest.min(position(&app, one).distance(position(&app, other)));
            }
        }
    }
    assert!(closest >= 16.0 * 0.9999, "came within {closest}");
}
