//! Flocking in 3D: a few thousand boids in a box, keeping apart, heading together and closing in,
//! steering round spheres and boxes, facing their heading and banking into their turns
//! (`bevy_steer3d`, the 3D build of the same source as the 2D examples).
//!
//! | control | action |
//! | --- | --- |
//! | drag with the left mouse button (outside the panel) | turn the camera round the box |
//! | mouse wheel | zoom in and out |
//! | `1` / `2` / `3` | switch separation / alignment / cohesion on or off for every boid |
//! | `F` | show / hide force vectors: white velocity, the three rules in colours of their own |
//! | the panel | tune the three rules (radius, field of view, strength, weight), wander and the limits; save, load or reset presets (`flocking_3d`) |
//!
//! Boid count: `cargo run --example flocking_3d -- --boids 5000` (default 3 000; on the web page,
//! `flocking_3d.html?STEER_BOIDS=5000`).

mod support;

use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::prelude::*;
use bevy_steer3d::prelude::*;
use support::{
    ScriptedRunPlugin, default_plugins, force_vectors_plugin_3d, multisampling, setting,
    smooth_motion,
};

/// Half the width of the box the boids fly in.
const HALF_ARENA: f32 = 400.0;

/// A boid of the flock.
#[derive(Component, Default)]
struct Boid;

/// Where the camera looks from: round the box's centre.
#[derive(Resource)]
struct Orbit {
    yaw: f32,
    pitch: f32,
    distance: f32,
}

/// `--boids N`, or the setting `STEER_BOIDS` (a web page's address query), or 3 000.
fn boid_count() -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .find(|pair| pair[0] == "--boids")
        .map(|pair| pair[1].clone())
        .or_else(|| setting("STEER_BOIDS"))
        .and_then(|count| count.parse().ok())
        .unwrap_or(3000)
}

fn main() {
    App::new()
        .add_plugins((
            default_plugins("bevy_steer: flocking in 3D"),
            SteeringPlugin::default(),
            // Neighbours are the flock's boids; cells as wide as the largest radius.
            FlockingPlugin::<Boid>::new(40.0),
            force_vectors_plugin_3d,
            SteeringEguiPlugin::with_preset_directory(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/presets"
            ))
            .with_preset_name("flocking_3d"),
            ScriptedRunPlugin,
            smooth_motion,
        ))
        .add_tuning_group::<Boid>("Flock")
        .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.11)))
        .insert_resource(Orbit {
            yaw: 0.6,
            pitch: 0.35,
            distance: 1500.0,
        })
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                orbit_camera.run_if(not(egui_wants_any_pointer_input)),
                toggle_rules,
                draw_arena,
            ),
        )
        .run();
}

fn setup(
    mut commands: Commands,
    orbit: Res<Orbit>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    // No tone mapping: the default one needs Bevy's `tonemapping_luts` feature, which the
    // examples leave out (it pulls in texture decoders).
    commands.spawn((
        Camera3d::default(),
        Tonemapping::None,
        multisampling(),
        orbit.camera(),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 8000.0,
            ..default()
        },
        Transform::from_xyz(300.0, 800.0, 400.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight {
        brightness: 400.0,
        ..default()
    });

    // Spheres and boxes among the flock, some of the boxes turned.
    let rock = materials.add(Color::srgb(0.45, 0.42, 0.4));
    for (index, centre) in [
        Vec3::new(-150.0, 50.0, 100.0),
        Vec3::new(200.0, -120.0, -50.0),
        Vec3::new(0.0, 200.0, -200.0),
        Vec3::new(-250.0, -200.0, -150.0),
        Vec3::new(150.0, 150.0, 250.0),
    ]
    .into_iter()
    .enumerate()
    {
        let radius = 40.0 + 15.0 * index as f32;
        commands.spawn((
            Obstacle::sphere(radius),
            Mesh3d(meshes.add(Sphere::new(radius))),
            MeshMaterial3d(rock.clone()),
            Transform::from_translation(centre),
        ));
    }
    for (index, centre) in [
        Vec3::new(250.0, 100.0, -250.0),
        Vec3::new(-200.0, -50.0, -300.0),
        Vec3::new(50.0, -250.0, 200.0),
    ]
    .into_iter()
    .enumerate()
    {
        let size = Vec3::new(120.0, 60.0, 90.0);
        let rotation = Quat::from_euler(EulerRot::XYZ, 0.3 * index as f32, 0.7 * index as f32, 0.0);
        commands.spawn((
            Obstacle::rotated_cuboid(size, rotation),
            Mesh3d(meshes.add(Cuboid::from_size(size))),
            MeshMaterial3d(rock.clone()),
            // The mesh is turned as the obstacle's shape is.
            Transform::from_translation(centre).with_rotation(rotation),
        ));
    }

    // The boids: cones modelled along +Y, pointing where they fly, flattened along their up (+Z)
    // into darts whose wings show them banking.
    let cone = meshes.add(Cone::new(3.0, 10.0));
    let dart = Vec3::new(1.6, 1.0, 0.3);
    let colours = [
        materials.add(Color::srgb(0.95, 0.55, 0.3)),
        materials.add(Color::srgb(0.35, 0.65, 0.95)),
        materials.add(Color::srgb(0.9, 0.85, 0.4)),
    ];
    let count = boid_count();
    // Spread through the box on a deterministic lattice-like sequence.
    let golden = [0.618_034, 0.754_878, 0.569_840];
    for index in 0..count {
        let place = Vec3::from_array(golden.map(|step| (index as f32 * step).fract()));
        let position = (place * 2.0 - 1.0) * (HALF_ARENA - 60.0);
        commands.spawn((
            Boid,
            Mesh3d(cone.clone()),
            MeshMaterial3d(colours[index % colours.len()].clone()),
            Transform::from_translation(position).with_scale(dart),
            Velocity(Vec3::new(place.z - 0.5, place.x - 0.5, place.y - 0.5) * 200.0),
            MaxSpeed(140.0),
            MaxForce(300.0),
            Separation::new(14.0).with_weight(1.5),
            Alignment::new(30.0),
            Cohesion::new(40.0),
            Wander::default().with_weight(0.3),
            AvoidObstacles::new(80.0, 6.0),
            Containment::cuboid(Vec3::ZERO, Vec3::splat(2.0 * HALF_ARENA)),
            // Rolled towards the turn, up to 1.2 radians (about 70 degrees) at their whole
            // `MaxForce` across the heading.
            FaceVelocity::new(Dir3::Y)
                .with_local_up(Dir3::Z)
                .with_bank(0.004, 1.2),
        ));
    }
}

/// Drag to turn the camera round the box, the wheel to zoom (not while the pointer is on the panel).
fn orbit_camera(
    mut orbit: ResMut<Orbit>,
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    mut camera: Single<&mut Transform, With<Camera3d>>,
) {
    if buttons.pressed(MouseButton::Left) {
        orbit.yaw -= motion.delta.x * 0.005;
        orbit.pitch = (orbit.pitch + motion.delta.y * 0.005).clamp(-1.5, 1.5);
    }
    orbit.distance = (orbit.distance * (1.0 - scroll.delta.y * 0.1)).clamp(200.0, 4000.0);
    **camera = orbit.camera();
}

impl Orbit {
    /// The camera's transform: `distance` from the box's centre, looking at it.
    fn camera(&self) -> Transform {
        let offset = Quat::from_euler(EulerRot::YXZ, self.yaw, -self.pitch, 0.0) * Vec3::Z;
        Transform::from_translation(offset * self.distance).looking_at(Vec3::ZERO, Vec3::Y)
    }
}

/// `1`, `2`, `3`: separation, alignment, cohesion on or off.
fn toggle_rules(
    keys: Res<ButtonInput<KeyCode>>,
    mut rules: Query<(&mut Separation, &mut Alignment, &mut Cohesion)>,
) {
    for (key, rule) in [
        (KeyCode::Digit1, 0),
        (KeyCode::Digit2, 1),
        (KeyCode::Digit3, 2),
    ] {
        if !keys.just_pressed(key) {
            continue;
        }
        for (mut separation, mut alignment, mut cohesion) in &mut rules {
            match rule {
                0 => separation.enabled = !separation.enabled,
                1 => alignment.enabled = !alignment.enabled,
                _ => cohesion.enabled = !cohesion.enabled,
            }
        }
    }
}

/// The box's edges.
fn draw_arena(mut gizmos: Gizmos) {
    gizmos.cube(
        Transform::from_scale(Vec3::splat(2.0 * HALF_ARENA)),
        Color::srgb(0.4, 0.45, 0.5),
    );
}
