//! The Collision Avoidance tutorial's demo: agents seek the mouse across a field of circles and
//! boxes and get round them, looking ahead along their velocity; a containment area keeps them on
//! the screen, and they keep apart (separation). The panel tunes the look-ahead, clearance,
//! strength and braking live, per group.
//!
//! | control | action |
//! | --- | --- |
//! | move the mouse | the agents seek the cursor |
//! | left click (outside the panel) | drop a circle obstacle at the cursor |
//! | right click | drop a box obstacle at the cursor |
//! | `P` | switch between the weighted sum and prioritised combination (avoidance first) |
//! | `F` | show / hide force vectors and look-aheads: white velocity, green seek, tomato avoidance (the obstacle about to be touched is outlined), khaki containment |
//! | the panel | tune avoidance, containment, seek, separation and the limits for Red, Blue or All; save, load or reset presets |

mod support;

use bevy::input::common_conditions::input_just_pressed;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_steer::prelude::*;
use support::{
    ScriptedRunPlugin, arrow_mesh, cursor_world_position, default_plugins, force_vectors_plugin,
    half_extents, smooth_motion, toggle_force_vectors,
};

/// The faster, bolder agents.
#[derive(Component)]
struct Red;

/// The slower, more careful agents.
#[derive(Component)]
struct Blue;

const AGENTS: usize = 60;

fn main() {
    App::new()
        .add_plugins((
            default_plugins("bevy_steer: obstacles"),
            SteeringPlugin::default(),
            // The agents keep apart, so that a crowd at the cursor is a crowd, not a point.
            SpatialIndexPlugin::<Steering>::new(24.0),
            SteeringEguiPlugin::with_preset_directory(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/presets"
            ))
            .with_preset_name("obstacles"),
            ScriptedRunPlugin,
            force_vectors_plugin,
            smooth_motion,
        ))
        .add_neighbour_behaviour::<Separation, Steering>()
        .add_tuning_group::<Red>("Red")
        .add_tuning_group::<Blue>("Blue")
        .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.11)))
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                seek_the_cursor,
                drop_an_obstacle::<false>.run_if(
                    input_just_pressed(MouseButton::Left)
                        .and_then(not(egui_wants_any_pointer_input)),
                ),
                drop_an_obstacle::<true>.run_if(
                    input_just_pressed(MouseButton::Right)
                        .and_then(not(egui_wants_any_pointer_input)),
                ),
                switch_combination.run_if(input_just_pressed(KeyCode::KeyP)),
                toggle_force_vectors.run_if(input_just_pressed(KeyCode::KeyF)),
            ),
        )
        .run();
}

/// The meshes and material obstacles are drawn with.
#[derive(Resource)]
struct ObstacleLook {
    circle: Handle<Mesh>,
    square: Handle<Mesh>,
    material: Handle<ColorMaterial>,
}

fn setup(
    mut commands: Commands,
    window: Single<&Window, With<PrimaryWindow>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    commands.spawn(Camera2d);
    let half = half_extents(&window);
    let look = ObstacleLook {
        circle: meshes.add(Circle::new(1.0)),
        square: meshes.add(Rectangle::new(1.0, 1.0)),
        material: materials.add(Color::srgb(0.32, 0.34, 0.4)),
    };
    // The tutorial's field: circles and boxes of a few sizes, spread over the right two thirds
    // (a low-discrepancy sequence, the same on every run).
    for index in 0..14 {
        let (x, y) = (
            (index as f32 * 0.618_034 + 0.2).fract(),
            (index as f32 * 0.754_878 + 0.4).fract(),
        );
        let position = Vec2::new(
            -half.x * 0.2 + x * half.x * 1.1,
            (y * 2.0 - 1.0) * half.y * 0.75,
        );
        let size = 25.0 + (index % 4) as f32 * 12.0;
        spawn_obstacle(&mut commands, &look, position, size, index % 3 == 0);
    }
    let red = materials.add(Color::srgb(0.95, 0.45, 0.35));
    let blue = materials.add(Color::srgb(0.45, 0.7, 1.0));
    let mesh = meshes.add(arrow_mesh(16.0));
    let arena = Containment::rectangle(Vec2::ZERO, half * 2.0 - 20.0);
    for index in 0..AGENTS {
        let start = Vec2::new(
            -half.x + 60.0 + (index % 6) as f32 * 30.0,
            ((index / 6) as f32 - 4.5) * 50.0,
        );
        let agent = (
            Mesh2d(mesh.clone()),
            Transform::from_translation(start.extend(0.0)),
            // Across the field until the mouse gives them a target.
            Seek::new(Vec2::new(half.x * 0.85, 0.0)).with_slowing_radius(60.0),
            AvoidObstacles::new(100.0, 10.0),
            Separation::new(24.0).with_strength(300.0),
            arena,
            FaceVelocity::default(),
        );
        if index % 2 == 0 {
            commands.spawn((
                agent,
                Red,
                MeshMaterial2d(red.clone()),
                MaxSpeed(220.0),
                MaxForce(900.0),
            ));
        } else {
            commands.spawn((
                agent,
                Blue,
                MeshMaterial2d(blue.clone()),
                MaxSpeed(140.0),
                MaxForce(700.0),
            ));
        }
    }
    commands.insert_resource(look);
}

fn spawn_obstacle(
    commands: &mut Commands,
    look: &ObstacleLook,
    position: Vec2,
    size: f32,
    square: bool,
) {
    let (obstacle, mesh, scale) = if square {
        let side = size * 1.6;
        (Obstacle::rectangle(Vec2::splat(side)), &look.square, side)
    } else {
        (Obstacle::circle(size), &look.circle, size)
    };
    commands.spawn((
        obstacle,
        Mesh2d(mesh.clone()),
        MeshMaterial2d(look.material.clone()),
        Transform::from_translation(position.extend(-1.0)).with_scale(Vec3::splat(scale)),
    ));
}

fn seek_the_cursor(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut seekers: Query<&mut Seek>,
) {
    if let Some(cursor) = cursor_world_position(&window, camera.0, camera.1) {
        for mut seek in &mut seekers {
            seek.target = Some(Target::Point(cursor));
        }
    }
}

fn drop_an_obstacle<const SQUARE: bool>(
    mut commands: Commands,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    look: Res<ObstacleLook>,
) {
    if let Some(cursor) = cursor_world_position(&window, camera.0, camera.1) {
        spawn_obstacle(&mut commands, &look, cursor, 30.0, SQUARE);
    }
}

fn switch_combination(
    mut commands: Commands,
    agents: Query<(Entity, Option<&SteeringCombination>), With<AvoidObstacles>>,
) {
    let prioritised = agents
        .iter()
        .any(|(_, combination)| combination == Some(&SteeringCombination::Prioritised));
    let next = if prioritised {
        SteeringCombination::WeightedSum
    } else {
        SteeringCombination::Prioritised
    };
    info!("combination: {next:?}");
    for (agent, _) in &agents {
        commands.entity(agent).insert(next);
    }
}
