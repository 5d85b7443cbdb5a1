//! A behaviour of your own: `Orbit` circles a point. It is one component and one pure force
//! function; `add_steering_behaviour` gives it parallel stepping, its weight and switch, bad-input
//! checks and force-vector gizmos in a colour of its own, and it adds up with the built-in wander.
//! Its fields declare their ranges (`#[reflect(@Tunable::...)]`), so the panel tunes it live like
//! the built-in behaviours.
//!
//! | control | action |
//! | --- | --- |
//! | left click (outside the panel) | move the orbit's centre to the cursor |
//! | `O` | switch the orbit on / off (the ships keep their tuning and just wander meanwhile, round the window's edges) |
//! | `F` | show / hide force vectors: white velocity, grey wander, the orbit in its own colour |
//! | the panel | tune the orbit's radius, lead and weight, wander and the limits, live; save (as `custom_behaviour`, the first time), load or reset presets |

mod support;

use bevy::input::common_conditions::input_just_pressed;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_steer::forces::{self, Boid};
use bevy_steer::prelude::*;
use support::{
    ScriptedRunPlugin, arrow_mesh, cursor_world_position, default_plugins, force_vectors_plugin,
    smooth_motion, toggle_force_vectors, wrap_round_the_window,
};

/// Circle `centre` at `radius`, counter-clockwise: seek a point a little ahead on the circle.
#[derive(Component, Reflect, Clone, Copy, Debug)]
#[reflect(Component)]
// One behaviour component brings a whole agent, as the built-in ones do.
#[require(Steering)]
struct Orbit {
    centre: Vec2,
    #[reflect(@Tunable::logarithmic(1.0, 1000.0))]
    radius: f32,
    /// How far ahead along the circle to aim, as a fraction of the radius.
    #[reflect(@Tunable::linear(0.0, 2.0))]
    lead: f32,
    #[reflect(@Tunable::linear(-10.0, 10.0))]
    weight: f32,
    enabled: bool,
}

impl SteeringBehaviour for Orbit {
    const NAME: &'static str = "orbit";

    fn weight(&self) -> f32 {
        self.weight
    }

    fn enabled(&self) -> bool {
        self.enabled
    }

    fn force(
        &self,
        agent: &Boid,
        _lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vec2, NoTarget> {
        let out = forces::direction_or_zero(agent.position - self.centre);
        let on_circle = self.centre + out * self.radius;
        let ahead = on_circle + out.perp() * self.radius * self.lead;
        Ok(forces::seek(agent, ahead, 0.0))
    }

    // No entity target to forget.
    fn forget_target(&mut self) {}
}

const SHIPS: usize = 24;

fn main() {
    App::new()
        .add_plugins((
            default_plugins("bevy_steer: a custom behaviour"),
            SteeringPlugin::default(),
            SteeringEguiPlugin::with_preset_directory(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/presets"
            ))
            .with_preset_name("custom_behaviour"),
            ScriptedRunPlugin,
            force_vectors_plugin,
            smooth_motion,
        ))
        .add_steering_behaviour::<Orbit>()
        // Registered for reflection, so the panel finds its tunable fields.
        .register_type::<Orbit>()
        .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.11)))
        .add_systems(Startup, setup)
        .add_systems(
            SteeringSchedule,
            wrap_round_the_window.after(SteeringSystems::Integrate),
        )
        .add_systems(
            Update,
            (
                move_the_centre.run_if(
                    input_just_pressed(MouseButton::Left)
                        .and_then(not(egui_wants_any_pointer_input)),
                ),
                switch_the_orbit.run_if(input_just_pressed(KeyCode::KeyO)),
                toggle_force_vectors.run_if(input_just_pressed(KeyCode::KeyF)),
            ),
        )
        .run();
}

/// The marker drawn at the orbit's centre.
#[derive(Component)]
struct Centre;

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    commands.spawn(Camera2d);
    commands.spawn((
        Centre,
        Mesh2d(meshes.add(Circle::new(6.0))),
        MeshMaterial2d(materials.add(Color::srgb(0.9, 0.5, 0.2))),
    ));
    let mesh = meshes.add(arrow_mesh(20.0));
    for index in 0..SHIPS {
        let angle = index as f32 / SHIPS as f32 * std::f32::consts::TAU;
        let shade = index as f32 / SHIPS as f32;
        commands.spawn((
            Mesh2d(mesh.clone()),
            MeshMaterial2d(materials.add(Color::srgb(0.4 + 0.5 * shade, 0.8, 0.9 - 0.4 * shade))),
            Transform::from_translation((Vec2::from_angle(angle) * 320.0).extend(0.0)),
            MaxSpeed(160.0 + 4.0 * index as f32),
            Orbit {
                centre: Vec2::ZERO,
                radius: 150.0 + 8.0 * index as f32,
                lead: 0.5,
                weight: 1.0,
                enabled: true,
            },
            // A little wander on top, so the rings breathe.
            Wander::default().with_weight(0.3).with_angle(angle),
            FaceVelocity::default(),
        ));
    }
}

fn move_the_centre(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut orbits: Query<&mut Orbit>,
    mut centre: Single<&mut Transform, With<Centre>>,
) {
    if let Some(cursor) = cursor_world_position(&window, camera.0, camera.1) {
        for mut orbit in &mut orbits {
            orbit.centre = cursor;
        }
        centre.translation = cursor.extend(0.0);
    }
}

fn switch_the_orbit(mut orbits: Query<&mut Orbit>) {
    for mut orbit in &mut orbits {
        orbit.enabled = !orbit.enabled;
    }
}
