//! Flocking: two flocks of boids, each keeping apart (separation), heading together (alignment)
//! and closing in (cohesion) with its own kind only, wandering a little, round the window's edges.
//!
//! | control | action |
//! | --- | --- |
//! | `1` / `2` / `3` | switch separation / alignment / cohesion on or off for every boid (the rules keep their tuning) |
//! | `F` or left click (outside the panel) | show / hide force vectors: white velocity, grey wander, and the three rules in colours of their own |
//! | `N` | with the force vectors shown, show / hide each rule's neighbourhood (its radius) |
//! | the panel | tune the three rules (radius, field of view, strength, weight), wander and the limits for Red, Blue or All; save, load or reset presets (`flocking`, `flocking-swarms`) |
//!
//! Boid count: `cargo run --example flocking -- --boids 3000` (default 2 000, half in each flock).

mod support;

use bevy::ecs::component::Mutable;
use bevy::input::common_conditions::input_just_pressed;
use bevy::prelude::*;
use bevy_steer::prelude::*;
use support::{
    ScriptedRunPlugin, arrow_mesh, default_plugins, force_vectors_plugin, smooth_motion,
    toggle_force_vectors, wrap_round_the_window,
};

/// A boid of the red flock.
#[derive(Component, Default)]
struct Red;

/// A boid of the blue flock.
#[derive(Component, Default)]
struct Blue;

fn boid_count() -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .find(|pair| pair[0] == "--boids")
        .and_then(|pair| pair[1].parse().ok())
        .unwrap_or(2000)
}

fn main() {
    App::new()
        .add_plugins((
            default_plugins("bevy_steer: flocking"),
            SteeringPlugin::default(),
            // Each flock's neighbours are its own boids; cells as wide as the largest radius.
            FlockingPlugin::<Red>::new(50.0),
            FlockingPlugin::<Blue>::new(50.0),
            SteeringEguiPlugin::with_preset_directory(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/presets"
            ))
            .with_preset_name("flocking"),
            ScriptedRunPlugin,
            force_vectors_plugin,
            smooth_motion,
        ))
        .add_tuning_group::<Red>("Red")
        .add_tuning_group::<Blue>("Blue")
        .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.11)))
        .add_systems(Startup, setup)
        .add_systems(
            SteeringSchedule,
            wrap_round_the_window.after(SteeringSystems::Integrate),
        )
        .add_systems(
            Update,
            (
                toggle_neighbourhoods.run_if(input_just_pressed(KeyCode::KeyN)),
                switch_rule(|rule: &mut Separation| rule.enabled = !rule.enabled)
                    .run_if(input_just_pressed(KeyCode::Digit1)),
                switch_rule(|rule: &mut Alignment| rule.enabled = !rule.enabled)
                    .run_if(input_just_pressed(KeyCode::Digit2)),
                switch_rule(|rule: &mut Cohesion| rule.enabled = !rule.enabled)
                    .run_if(input_just_pressed(KeyCode::Digit3)),
                toggle_force_vectors.run_if(
                    input_just_pressed(KeyCode::KeyF).or_else(
                        input_just_pressed(MouseButton::Left)
                            .and_then(not(egui_wants_any_pointer_input)),
                    ),
                ),
            ),
        )
        .run();
}

fn setup(
    mut commands: Commands,
    window: Single<&Window>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    commands.spawn(Camera2d);
    let mesh = meshes.add(arrow_mesh(10.0));
    let red = materials.add(Color::srgb(0.95, 0.45, 0.35));
    let blue = materials.add(Color::srgb(0.45, 0.7, 1.0));
    let half = window.size() / 2.0;
    let boids = boid_count();
    for index in 0..boids {
        // An even spread over the window (a low-discrepancy sequence), headings a golden angle
        // apart: the flocks start mixed and scattered.
        let (x, y) = (
            (index as f32 * 0.618_034).fract(),
            (index as f32 * 0.754_878 + 0.5).fract(),
        );
        let position = (Vec2::new(x, y) * 2.0 - 1.0) * half;
        let heading = Vec2::from_angle(index as f32 * 2.399_963);
        let boid = (
            Mesh2d(mesh.clone()),
            Transform::from_translation(position.extend(0.0)),
            Velocity(heading * 80.0),
            MaxSpeed(140.0),
            MaxForce(500.0),
            Separation::new(18.0).with_strength(400.0),
            Alignment::new(45.0),
            Cohesion::new(45.0).with_strength(120.0),
            Wander::default()
                .with_weight(0.2)
                .with_angle(heading.to_angle()),
            FaceVelocity::default(),
        );
        if index % 2 == 0 {
            commands.spawn((boid, Red, MeshMaterial2d(red.clone())));
        } else {
            commands.spawn((boid, Blue, MeshMaterial2d(blue.clone())));
        }
    }
}

fn toggle_neighbourhoods(mut store: ResMut<GizmoConfigStore>) {
    let (_, config) = store.config_mut::<SteeringGizmos>();
    config.neighbourhoods = !config.neighbourhoods;
}

/// A system that flips every boid's rule `R` with `flip`.
fn switch_rule<R: Component<Mutability = Mutable>>(flip: fn(&mut R)) -> impl FnMut(Query<&mut R>) {
    move |mut rules| {
        for mut rule in &mut rules {
            flip(&mut rule);
        }
    }
}
