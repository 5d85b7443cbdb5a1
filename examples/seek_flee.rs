//! The Movement Manager tutorial's ships: each seeks the mouse cursor while fleeing the centre of
//! the screen, both at once, so they gather round the cursor but shy away from the middle.
//!
//! | control | action |
//! | --- | --- |
//! | move the mouse | the ships' seek target |
//! | left click or `F` | show / hide force vectors: white velocity, green seek, purple flee |

mod support;

use bevy::input::common_conditions::input_just_pressed;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_steer::prelude::*;
use support::{
    ScriptedRunPlugin, arrow_mesh, cursor_world_position, default_plugins, force_vectors_plugin,
    smooth_motion, toggle_force_vectors,
};

const SHIPS: usize = 12;

fn main() {
    App::new()
        .add_plugins((
            default_plugins("bevy_steer: seek and flee"),
            SteeringPlugin::default(),
            ScriptedRunPlugin,
            force_vectors_plugin,
            smooth_motion,
        ))
        .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.11)))
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                seek_the_cursor,
                toggle_force_vectors.run_if(
                    input_just_pressed(MouseButton::Left)
                        .or_else(input_just_pressed(KeyCode::KeyF)),
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
    let mesh = meshes.add(arrow_mesh(22.0));
    let material = materials.add(Color::srgb(0.9, 0.85, 0.5));
    // A marker at the centre the ships flee.
    commands.spawn((
        Mesh2d(meshes.add(Circle::new(6.0))),
        MeshMaterial2d(materials.add(Color::srgb(0.9, 0.5, 0.2))),
    ));
    for index in 0..SHIPS {
        let angle = index as f32 / SHIPS as f32 * std::f32::consts::TAU;
        commands.spawn((
            Mesh2d(mesh.clone()),
            MeshMaterial2d(material.clone()),
            Transform::from_translation((Vec2::from_angle(angle) * 250.0).extend(0.0)),
            // Ships differ a little, so they do not bunch up into one.
            MaxSpeed(200.0 + 12.0 * index as f32),
            MaxForce(600.0),
            Mass(0.4 + 0.05 * index as f32),
            // Plain seek, as the demo: ships overshoot the cursor and swing back round it. Until
            // the cursor enters the window, they seek a point off to the right.
            Seek::new(Vec2::new(350.0, 0.0)).with_slowing_radius(0.0),
            Flee::new(Vec2::ZERO).with_weight(0.7),
            FaceVelocity::default(),
        ));
    }
}

fn seek_the_cursor(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut ships: Query<&mut Seek>,
) {
    if let Some(cursor) = cursor_world_position(&window, camera.0, camera.1) {
        for mut seek in &mut ships {
            seek.target = Some(Target::Point(cursor));
        }
    }
}
