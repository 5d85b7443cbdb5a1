//! The Leader Following tutorial's demo: a leader goes where the mouse is; its followers gather
//! behind it, keep apart from each other, and step out of its way when they stand in front of it.
//! One change from the demo: the followers keep apart with Reynolds' separation (the closest push
//! hardest, radius 30) rather than the tutorial's mean (radius 50), so that they do not bunch up
//! into clumps when the leader stops.
//!
//! | control | action |
//! | --- | --- |
//! | move the mouse | the leader's target (it arrives and stops there) |
//! | `F` or left click | show / hide force vectors: white velocity, blue leader following, and separation in a colour of its own |

mod support;

use bevy::input::common_conditions::input_just_pressed;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_steer::prelude::*;
use support::{
    ScriptedRunPlugin, arrow_mesh, cursor_world_position, default_plugins, force_vectors_plugin,
    smooth_motion, toggle_force_vectors,
};

/// The leader.
#[derive(Component)]
struct Leader;

/// A follower: its neighbours, for separation, are the other followers.
#[derive(Component)]
struct Follower;

const FOLLOWERS: usize = 30;

fn main() {
    App::new()
        .add_plugins((
            default_plugins("bevy_steer: leader following"),
            SteeringPlugin::default(),
            SpatialIndexPlugin::<Follower>::new(30.0),
            ScriptedRunPlugin,
            force_vectors_plugin,
            smooth_motion,
        ))
        .add_neighbour_behaviour::<Separation, Follower>()
        .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.11)))
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                lead_to_the_cursor,
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
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    commands.spawn(Camera2d);
    // The tutorial's numbers at 60 frames per second: MAX_VELOCITY 3 is 180 units a second,
    // MAX_FORCE 5.4 is 324, and MAX_SEPARATION 2.0 a separation strength of 120. The leader is a
    // little slower than its followers, so they can keep up.
    let leader = commands
        .spawn((
            Leader,
            Mesh2d(meshes.add(arrow_mesh(30.0))),
            MeshMaterial2d(materials.add(Color::srgb(0.95, 0.75, 0.3))),
            Transform::from_xyz(0.0, 0.0, 1.0),
            MaxSpeed(150.0),
            MaxForce(324.0),
            // Until the mouse is over the window, the leader heads right.
            Seek::new(Vec2::new(450.0, 0.0)).with_slowing_radius(100.0),
            FaceVelocity::default(),
        ))
        .id();
    let look = (
        Mesh2d(meshes.add(arrow_mesh(16.0))),
        MeshMaterial2d(materials.add(Color::srgb(0.55, 0.8, 1.0))),
    );
    for index in 0..FOLLOWERS {
        let start = Vec2::from_angle(index as f32 * 2.4) * (60.0 + 8.0 * index as f32);
        commands.spawn((
            Follower,
            look.clone(),
            Transform::from_translation(start.extend(0.0)),
            MaxSpeed(180.0),
            MaxForce(324.0),
            FollowLeader::new(leader),
            // Reynolds' separation, the closest pushing hardest, so that followers do not bunch
            // up when the leader stops.
            Separation::new(30.0)
                .with_strength(120.0)
                .with_method(SeparationMethod::ByDistance),
            FaceVelocity::default(),
        ));
    }
}

fn lead_to_the_cursor(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut leader: Single<&mut Seek, With<Leader>>,
) {
    if let Some(cursor) = cursor_world_position(&window, camera.0, camera.1) {
        leader.target = Some(Target::Point(cursor));
    }
}
