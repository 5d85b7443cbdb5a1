//! The Wander tutorial's demo: a few dozen agents wander by Reynolds' circle method and are
//! respawned at the centre when they leave the window.
//!
//! | control | action |
//! | --- | --- |
//! | left click or `F` | show / hide force vectors (velocity white, wander grey, with the wander circle) |
//! | `Space` | pause / resume |
//! | `H` | switch every agent's wander angle between the world frame and the heading frame |

mod support;

use bevy::input::common_conditions::input_just_pressed;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_steer::prelude::*;
use support::{
    ScriptedRunPlugin, arrow_mesh, default_plugins, force_vectors_plugin, outside_window,
    smooth_motion, toggle_force_vectors,
};

const WANDERERS: usize = 40;

fn main() {
    App::new()
        .add_plugins((
            default_plugins("bevy_steer: wander"),
            SteeringPlugin::default(),
            ScriptedRunPlugin,
            force_vectors_plugin,
            smooth_motion,
        ))
        .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.11)))
        .add_systems(Startup, setup)
        .add_systems(
            SteeringSchedule,
            respawn_at_centre.after(SteeringSystems::Integrate),
        )
        .add_systems(
            Update,
            (
                toggle_pause.run_if(input_just_pressed(KeyCode::Space)),
                toggle_frame.run_if(input_just_pressed(KeyCode::KeyH)),
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
    let mesh = meshes.add(arrow_mesh(18.0));
    for index in 0..WANDERERS {
        // Spread the starting headings round the circle so they fan out from the centre.
        let heading = Vec2::from_angle(index as f32 / WANDERERS as f32 * std::f32::consts::TAU);
        let hue = 360.0 * index as f32 / WANDERERS as f32;
        commands.spawn((
            Mesh2d(mesh.clone()),
            MeshMaterial2d(materials.add(Color::hsl(hue, 0.7, 0.65))),
            Transform::default(),
            Velocity(heading * 60.0),
            Wander::default().with_angle(heading.to_angle()),
            FaceVelocity::default(),
        ));
    }
}

/// The tutorial's rule: an agent that leaves the screen comes back at the centre.
fn respawn_at_centre(
    window: Single<&Window, With<PrimaryWindow>>,
    mut agents: Query<&mut Transform, With<Wander>>,
) {
    for mut transform in &mut agents {
        if outside_window(&window, transform.translation.truncate()) {
            transform.translation = Vec3::ZERO;
        }
    }
}

fn toggle_pause(mut time: ResMut<Time<Virtual>>) {
    if time.is_paused() {
        time.unpause();
    } else {
        time.pause();
    }
}

fn toggle_frame(mut wanderers: Query<&mut Wander>) {
    for mut wander in &mut wanderers {
        wander.frame = match wander.frame {
            WanderFrame::World => WanderFrame::Heading,
            WanderFrame::Heading => WanderFrame::World,
        };
    }
}
