//! The Queue tutorial's demo: two crowds, from above and from below the doorway, seek a doorway a
//! few bodies wide in a wall and go through it, each agent braking when another is just ahead,
//! instead of piling up at the door. Each also keeps a personal space (`Queue::min_distance`, this
//! crate's addition) as wide as an arrow's circle, so the arrows never overlap; two agents that
//! meet from the sides at the door do not both wait (one goes first).
//! Agents that reach the right edge start again on the left.
//!
//! | control | action |
//! | --- | --- |
//! | `Q` | switch queueing on / off, to see the pile-up it prevents |
//! | `F` or left click | show / hide force vectors: white velocity, green seek, gold queue brake, and separation in a colour of its own |

mod support;

use bevy::input::common_conditions::input_just_pressed;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_steer::prelude::*;
use support::{
    ScriptedRunPlugin, arrow_mesh, default_plugins, force_vectors_plugin, half_extents,
    smooth_motion, toggle_force_vectors,
};

/// An agent of the crowd.
#[derive(Component)]
struct Walker;

/// The way a walker goes through the wall: `1.0` from the left to the right (all of them here;
/// `-1.0` would walk back, and two crowds meeting head-on in a doorway jam it, as they do without
/// a pathfinder or rules of the road).
#[derive(Component, Clone, Copy)]
struct Heading(f32);

/// Half the doorway's width: room for about three agents abreast.
const DOOR_HALF_WIDTH: f32 = 26.0;
/// Half the wall's thickness.
const WALL_HALF_THICKNESS: f32 = 6.0;
/// Walkers in each crowd.
const WALKERS: usize = 24;

fn main() {
    App::new()
        .add_plugins((
            default_plugins("bevy_steer: queue"),
            SteeringPlugin::default(),
            SpatialIndexPlugin::<Walker>::new(30.0),
            ScriptedRunPlugin,
            force_vectors_plugin,
            smooth_motion,
        ))
        .add_queue::<Walker>()
        .add_neighbour_behaviour::<Separation, Walker>()
        .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.11)))
        .add_systems(Startup, setup)
        .add_systems(
            SteeringSchedule,
            (
                aim_through_the_door.in_set(SteeringSystems::Decide),
                (stop_at_the_wall, start_again_on_their_side)
                    .chain()
                    .after(SteeringSystems::Integrate),
            ),
        )
        .add_systems(
            Update,
            (
                switch_queueing.run_if(input_just_pressed(KeyCode::KeyQ)),
                toggle_force_vectors.run_if(
                    input_just_pressed(KeyCode::KeyF)
                        .or_else(input_just_pressed(MouseButton::Left)),
                ),
            ),
        )
        .run();
}

fn setup(
    mut commands: Commands,
    window: Single<&Window, With<PrimaryWindow>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    commands.spawn(Camera2d);
    let half = half_extents(&window);
    // The wall: two blocks, above and below the doorway.
    let wall_material = materials.add(Color::srgb(0.45, 0.45, 0.5));
    let block_length = half.y - DOOR_HALF_WIDTH;
    let block = meshes.add(Rectangle::new(WALL_HALF_THICKNESS * 2.0, block_length));
    for side in [1.0, -1.0] {
        commands.spawn((
            Mesh2d(block.clone()),
            MeshMaterial2d(wall_material.clone()),
            Transform::from_xyz(0.0, side * (DOOR_HALF_WIDTH + block_length / 2.0), 0.0),
        ));
    }
    let arrow = meshes.add(arrow_mesh(14.0));
    let colours = [
        materials.add(Color::srgb(0.6, 0.85, 1.0)),
        materials.add(Color::srgb(1.0, 0.75, 0.45)),
    ];
    for index in 0..2 * WALKERS {
        // Two crowds on the left, above and below the doorway, spread by a low-discrepancy
        // sequence: blue from above, orange from below.
        let (side, above) = (1.0, if index % 2 == 0 { 1.0 } else { -1.0 });
        let (x, y) = (
            (index as f32 * 0.618_034).fract(),
            (index as f32 * 0.754_878).fract(),
        );
        let start = Vec2::new(-half.x + 40.0 + x * 400.0, above * (60.0 + y * 220.0));
        let look = (
            Mesh2d(arrow.clone()),
            MeshMaterial2d(colours[index % 2].clone()),
        );
        // The tutorial's numbers at 60 frames per second: MAX_VELOCITY 6 would be 360 units a
        // second; slower here, so the line is easy to watch. MAX_FORCE 5.4 is 324.
        commands.spawn((
            Walker,
            Heading(side),
            look,
            Transform::from_translation(start.extend(0.0)),
            MaxSpeed(120.0),
            MaxForce(324.0),
            Seek::new(Vec2::ZERO).with_slowing_radius(0.0),
            // The tutorial's queue, plus a personal space (off by default) of twice the 8.4 from an
            // arrow's centre to its tip, so that no two arrows overlap however they turn.
            Queue::default().with_min_distance(17.0),
            Separation::new(18.0).with_strength(240.0),
            FaceVelocity::default(),
        ));
    }
}

/// On their own side of the wall, walkers make for the far end of the doorway; through it, for
/// the far edge.
fn aim_through_the_door(
    window: Single<&Window, With<PrimaryWindow>>,
    mut walkers: Query<(&Transform, &Heading, &mut Seek), With<Walker>>,
) {
    let exit = half_extents(&window).x + 100.0;
    for (transform, &Heading(side), mut seek) in &mut walkers {
        let target = if side * transform.translation.x < WALL_HALF_THICKNESS {
            Vec2::new(side * WALL_HALF_THICKNESS, 0.0)
        } else {
            Vec2::new(side * exit, 0.0)
        };
        seek.target = Some(Target::Point(target));
    }
}

/// The wall is solid: a walker that would step into it outside the doorway stays on its side.
fn stop_at_the_wall(mut walkers: Query<(&mut Transform, &mut Velocity), With<Walker>>) {
    for (mut transform, mut velocity) in &mut walkers {
        let position = transform.translation.truncate();
        let in_wall = position.x.abs() < WALL_HALF_THICKNESS + 4.0;
        if in_wall && position.y.abs() > DOOR_HALF_WIDTH - 4.0 {
            let side = if velocity.x > 0.0 { -1.0 } else { 1.0 };
            transform.translation.x = side * (WALL_HALF_THICKNESS + 4.0);
            velocity.x = 0.0;
        }
    }
}

/// Walkers that reached the far edge start again on their own side.
fn start_again_on_their_side(
    window: Single<&Window, With<PrimaryWindow>>,
    mut walkers: Query<(&mut Transform, &Heading), With<Walker>>,
) {
    let half = half_extents(&window);
    for (mut transform, &Heading(side)) in &mut walkers {
        if side * transform.translation.x > half.x {
            transform.translation.x = -side * (half.x - 20.0);
        }
    }
}

fn switch_queueing(mut queues: Query<&mut Queue>) {
    for mut queue in &mut queues {
        queue.enabled = !queue.enabled;
    }
}
