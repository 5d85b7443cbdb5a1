//! The Movement Manager tutorial's demo: hunters pursue the closest prey until they tire, then rest
//! and wander; prey evade hunters in range, seek the cursor when it is near and no hunter is, and
//! otherwise wander. A panel tunes each group live. An addition to the tutorial: prey keep apart
//! (separation), so the prey at the cursor gather as a crowd, not on one point.
//!
//! | control | action |
//! | --- | --- |
//! | move the mouse | prey within 300 px with no hunter near come to the cursor (not while it is over the panel) |
//! | left click (outside the panel) or `F` | show / hide force vectors: white velocity, grey wander, green seek, orange pursuit, red evade |
//! | `Space` | pause / resume |
//! | the panel | tune every behaviour the agents carry (wander, pursuit, evasion, seek, separation) and their limits, for Hunter, Prey or All; save, load or reset presets (`assets/presets/*.ron`) |
//!
//! Agent counts: `cargo run --example hunter_prey -- --hunters 20 --prey 2000` (or the variables
//! `HUNTER_PREY_HUNTERS` and `HUNTER_PREY_PREY`). Hunters are red, prey pale blue; both wrap round
//! the window's edges. With `STEER_STATE_FILE=path`, each group's agent count and mean tuning are
//! written to that file twice a second (the end-to-end test reads it).

mod rules;
#[path = "../support/mod.rs"]
mod support;

use std::fmt::Write as _;

use bevy::input::common_conditions::input_just_pressed;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use bevy_steer::prelude::*;
use rules::{Cursor, Hunter, HunterPreyPlugin, HunterPreySettings, Prey, hunter, prey, spread};
use support::{
    ScriptedRunPlugin, arrow_mesh, cursor_world_position, default_plugins, force_vectors_plugin,
    half_extents, smooth_motion, toggle_force_vectors,
};

/// Marks the prey that keep apart from each other.
#[derive(Component)]
struct Spacing;

/// How far apart prey keep.
const PREY_SPACING: f32 = 24.0;

/// How many of each, from the command line or the environment.
#[derive(Resource, Clone, Copy, Debug)]
struct Counts {
    hunters: usize,
    prey: usize,
}

impl Counts {
    fn from_args_and_env() -> Self {
        let mut counts = Self {
            hunters: 4,
            prey: 40,
        };
        let from_env = |name: &str| support::setting(name).and_then(|v| v.parse().ok());
        counts.hunters = from_env("HUNTER_PREY_HUNTERS").unwrap_or(counts.hunters);
        counts.prey = from_env("HUNTER_PREY_PREY").unwrap_or(counts.prey);
        let args: Vec<String> = std::env::args().collect();
        for pair in args.windows(2) {
            match (pair[0].as_str(), pair[1].parse()) {
                ("--hunters", Ok(n)) => counts.hunters = n,
                ("--prey", Ok(n)) => counts.prey = n,
                _ => {}
            }
        }
        counts
    }
}

fn main() {
    let counts = Counts::from_args_and_env();
    App::new()
        .add_plugins((
            default_plugins("bevy_steer: hunter / prey"),
            SteeringPlugin::default(),
            HunterPreyPlugin {
                settings: HunterPreySettings::default(),
            },
            SteeringEguiPlugin::with_preset_directory(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/presets"
            )),
            ScriptedRunPlugin,
            force_vectors_plugin,
            smooth_motion,
        ))
        // The prey's neighbours for separation are the other prey, in an index of its own with
        // cells the separation radius wide (the prey index's are as wide as a hunter's sight).
        .add_plugins(SpatialIndexPlugin::<Spacing>::new(PREY_SPACING))
        .add_neighbour_behaviour::<Separation, Spacing>()
        .add_tuning_group::<Hunter>("Hunter")
        .add_tuning_group::<Prey>("Prey")
        .insert_resource(counts)
        .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.11)))
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                follow_cursor,
                fit_arena_to_window,
                toggle_force_vectors.run_if(
                    input_just_pressed(KeyCode::KeyF).or_else(
                        input_just_pressed(MouseButton::Left)
                            .and_then(not(egui_wants_any_pointer_input)),
                    ),
                ),
                toggle_pause.run_if(input_just_pressed(KeyCode::Space)),
                write_state_file,
            ),
        )
        .run();
}

fn setup(
    mut commands: Commands,
    counts: Res<Counts>,
    settings: Res<HunterPreySettings>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    commands.spawn(Camera2d);
    let hunter_look = (
        Mesh2d(meshes.add(arrow_mesh(26.0))),
        MeshMaterial2d(materials.add(Color::srgb(0.95, 0.3, 0.25))),
    );
    let prey_look = (
        Mesh2d(meshes.add(arrow_mesh(14.0))),
        MeshMaterial2d(materials.add(Color::srgb(0.6, 0.85, 1.0))),
    );
    for (position, heading) in spread(counts.hunters, settings.arena, 0.37) {
        commands.spawn((hunter(position, heading, &settings), hunter_look.clone()));
    }
    for (position, heading) in spread(counts.prey, settings.arena, 0.0) {
        commands.spawn((
            prey(position, heading),
            prey_look.clone(),
            Spacing,
            Separation::new(PREY_SPACING).with_method(SeparationMethod::ByDistance),
        ));
    }
}

/// The cursor in the game, not over the panel: prey drawn to a cursor tuning sliders would gather
/// out of sight under the panel, and the hunters after them.
fn follow_cursor(
    mut cursor: ResMut<Cursor>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    panel: Res<EguiWantsInput>,
) {
    cursor.0 = if panel.wants_any_pointer_input() {
        None
    } else {
        cursor_world_position(&window, camera.0, camera.1)
    };
}

fn fit_arena_to_window(
    mut settings: ResMut<HunterPreySettings>,
    window: Single<&Window, (With<PrimaryWindow>, Changed<Window>)>,
) {
    settings.arena = Rect::from_center_half_size(Vec2::ZERO, half_extents(&window));
}

fn toggle_pause(mut time: ResMut<Time<Virtual>>) {
    if time.is_paused() {
        time.unpause();
    } else {
        time.pause();
    }
}

/// Each group's agent count and mean tuning, every 30 frames, to `STEER_STATE_FILE`.
fn write_state_file(
    mut frames: Local<u32>,
    hunters: Query<(&Wander, &MaxSpeed, &Mass), With<Hunter>>,
    prey: Query<(&Wander, &MaxSpeed, &Mass), With<Prey>>,
    separations: Query<&Separation, With<Prey>>,
) {
    let Some(path) = std::env::var_os("STEER_STATE_FILE") else {
        return;
    };
    *frames += 1;
    if !frames.is_multiple_of(30) {
        return;
    }
    let mut text = String::new();
    for (label, agents) in [
        ("Hunter", hunters.iter().collect::<Vec<_>>()),
        ("Prey", prey.iter().collect()),
    ] {
        let count = agents.len().max(1) as f32;
        let mean = |value: fn(&(&Wander, &MaxSpeed, &Mass)) -> f32| {
            agents.iter().map(value).sum::<f32>() / count
        };
        let _ = writeln!(
            text,
            "{label} agents={} circle_distance={:.3} circle_radius={:.3} angle_change={:.3} max_speed={:.3} mass={:.3}",
            agents.len(),
            mean(|(wander, ..)| wander.circle_distance),
            mean(|(wander, ..)| wander.circle_radius),
            mean(|(wander, ..)| wander.angle_change),
            mean(|(_, max_speed, _)| max_speed.0),
            mean(|(.., mass)| mass.0),
        );
    }
    let count = separations.iter().len().max(1) as f32;
    let _ = writeln!(
        text,
        "Prey separation_radius={:.3}",
        separations.iter().map(|rule| rule.radius).sum::<f32>() / count
    );
    if let Err(error) = std::fs::write(&path, text) {
        warn!("could not write the state file: {error}");
    }
}
