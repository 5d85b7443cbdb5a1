//! Ground units in a 3D scene: three squads on hilly ground patrol loops round rocks, buildings and
//! walls, keeping apart and clear of the obstacles; a click on the ground sends the selected squad
//! there (seek with arrival). `Planar` keeps their steering on the ground plane, and a system of
//! the example's own sets each unit's height from the terrain (see `follow_terrain`).
//!
//! | control | action |
//! | --- | --- |
//! | `1` / `2` / `3` | select the red, green or blue squad (circled on the ground) |
//! | left click on the ground (outside the panel) | send the selected squad there |
//! | `P` | put the selected squad back on its patrol |
//! | `F` | show / hide force vectors and paths |
//! | the panel | tune each squad's behaviours and limits; save, load or reset presets (`ground_units`) |

mod support;

use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::input::common_conditions::input_just_pressed;
use bevy::mesh::VertexAttributeValues;
use bevy::prelude::*;
use bevy_steer3d::prelude::*;
use support::{
    ScriptedRunPlugin, default_plugins, force_vectors_plugin_3d, multisampling, smooth_motion,
};

/// Half the width of the ground.
const HALF_GROUND: f32 = 700.0;
/// Units per squad.
const SQUAD: usize = 24;

/// A unit of a squad.
#[derive(Component, Clone, Copy, PartialEq, Eq, Debug)]
struct Unit {
    squad: usize,
}

/// The squads' markers, so that each keeps apart from its own kind and is tuned as a group.
#[derive(Component, Default)]
struct Red;
#[derive(Component, Default)]
struct Green;
#[derive(Component, Default)]
struct Blue;

/// The squad the next click commands.
#[derive(Resource, Default)]
struct Selected(usize);

/// The terrain's height at a point of the ground: gentle hills.
fn height_at(x: f32, z: f32) -> f32 {
    25.0 * (x / 180.0).sin() * (z / 230.0).cos()
}

fn main() {
    App::new()
        .add_plugins((
            default_plugins("bevy_steer: ground units"),
            SteeringPlugin::default(),
            // Every unit keeps apart from every other, whatever its squad.
            FlockingPlugin::<Unit>::new(30.0),
            force_vectors_plugin_3d,
            SteeringEguiPlugin::with_preset_directory(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/presets"
            ))
            .with_preset_name("ground_units"),
            ScriptedRunPlugin,
            smooth_motion,
        ))
        .add_tuning_group::<Red>("Red")
        .add_tuning_group::<Green>("Green")
        .add_tuning_group::<Blue>("Blue")
        .insert_resource(ClearColor(Color::srgb(0.55, 0.68, 0.8)))
        .init_resource::<Selected>()
        .add_systems(Startup, setup)
        // The height is the game's: set from the terrain after each steering step.
        .add_systems(
            SteeringSchedule,
            follow_terrain.after(SteeringSystems::Integrate),
        )
        .add_systems(
            Update,
            (
                select_squad,
                send_squad.run_if(
                    input_just_pressed(MouseButton::Left)
                        .and_then(not(egui_wants_any_pointer_input)),
                ),
                back_to_patrol.run_if(input_just_pressed(KeyCode::KeyP)),
                circle_selected_squad,
            ),
        )
        .run();
}

/// The ground: a grid of quads lifted to the terrain's height.
fn terrain_mesh() -> Mesh {
    let mut mesh = Plane3d::default()
        .mesh()
        .size(2.0 * HALF_GROUND, 2.0 * HALF_GROUND)
        .subdivisions(60)
        .build();
    if let Some(VertexAttributeValues::Float32x3(positions)) =
        mesh.attribute_mut(Mesh::ATTRIBUTE_POSITION)
    {
        for position in positions.iter_mut() {
            position[1] = height_at(position[0], position[2]);
        }
    }
    mesh.compute_smooth_normals();
    mesh
}

/// The patrol loop of squad `squad`: round a different part of the ground.
fn patrol(squad: usize) -> Path {
    let centre = [
        Vec3::new(-300.0, 0.0, -200.0),
        Vec3::new(250.0, 0.0, -250.0),
        Vec3::new(0.0, 0.0, 300.0),
    ][squad];
    let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
    Path::new(
        corners.map(|(x, z)| centre + Vec3::new(x * 180.0, 0.0, z * 150.0)),
        25.0,
    )
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    // No tone mapping: the default one needs Bevy's `tonemapping_luts` feature, which the
    // examples leave out (it pulls in texture decoders).
    commands.spawn((
        Camera3d::default(),
        Tonemapping::None,
        multisampling(),
        Transform::from_xyz(0.0, 900.0, 900.0).looking_at(Vec3::new(0.0, 0.0, 50.0), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 9000.0,
            ..default()
        },
        Transform::from_xyz(400.0, 900.0, 200.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight {
        brightness: 500.0,
        ..default()
    });
    commands.spawn((
        Mesh3d(meshes.add(terrain_mesh())),
        MeshMaterial3d(materials.add(Color::srgb(0.35, 0.5, 0.3))),
    ));

    // Rocks (spheres half sunk into the ground), buildings (boxes, some turned) and walls.
    let stone = materials.add(Color::srgb(0.5, 0.48, 0.45));
    for (x, z, radius) in [
        (-300.0, -200.0, 45.0),
        (250.0, -250.0, 60.0),
        (0.0, 300.0, 40.0),
        (-80.0, 0.0, 35.0),
    ] {
        let centre = Vec3::new(x, height_at(x, z), z);
        commands.spawn((
            Obstacle::sphere(radius),
            Mesh3d(meshes.add(Sphere::new(radius))),
            MeshMaterial3d(stone.clone()),
            Transform::from_translation(centre),
        ));
    }
    let walls = materials.add(Color::srgb(0.75, 0.7, 0.62));
    for (x, z, turn) in [
        (120.0, 60.0, 0.0),
        (-200.0, 180.0, 0.6),
        (380.0, 150.0, -0.4),
    ] {
        let size = Vec3::new(90.0, 60.0, 70.0);
        let rotation = Quat::from_rotation_y(turn);
        let centre = Vec3::new(x, height_at(x, z) + 20.0, z);
        commands.spawn((
            Obstacle::rotated_cuboid(size, rotation),
            Mesh3d(meshes.add(Cuboid::from_size(size))),
            MeshMaterial3d(walls.clone()),
            Transform::from_translation(centre).with_rotation(rotation),
        ));
    }
    for (from, to) in [
        (
            Vec3::new(-500.0, 0.0, -450.0),
            Vec3::new(-150.0, 0.0, -450.0),
        ),
        (Vec3::new(450.0, 0.0, 0.0), Vec3::new(450.0, 0.0, 350.0)),
    ] {
        let centre = (from + to) / 2.0;
        let centre = centre.with_y(height_at(centre.x, centre.z) + 15.0);
        let length = from.distance(to);
        let (wall, transform) =
            Obstacle::wall(centre, (to - from).cross(Vec3::Y), Vec3::Y, length, 40.0);
        // The mesh turned as the wall is (the obstacle's shape carries its own rotation; its
        // `Transform`'s is only drawn): its rectangle's normal along local +Z.
        let rotation = match wall.shape {
            ObstacleShape::RotatedBox { rotation, .. } => rotation,
            _ => Quat::IDENTITY,
        };
        commands.spawn((
            wall,
            transform.with_rotation(rotation),
            Mesh3d(meshes.add(Cuboid::new(length, 40.0, 4.0))),
            MeshMaterial3d(walls.clone()),
        ));
    }

    // The squads: capsules, each squad on its own patrol.
    let body = meshes.add(Capsule3d::new(6.0, 10.0));
    let colours = [
        Color::srgb(0.9, 0.3, 0.25),
        Color::srgb(0.3, 0.85, 0.35),
        Color::srgb(0.3, 0.5, 0.95),
    ];
    for (squad, colour) in colours.into_iter().enumerate() {
        let material = materials.add(colour);
        let path = patrol(squad);
        for index in 0..SQUAD {
            let start = path.points[0]
                + Vec3::new((index % 6) as f32 * 16.0, 0.0, (index / 6) as f32 * 16.0);
            let mut unit = commands.spawn((
                Unit { squad },
                Mesh3d(body.clone()),
                MeshMaterial3d(material.clone()),
                Transform::from_translation(start.with_y(height_at(start.x, start.z) + 11.0)),
                Planar::default(),
                MaxSpeed(70.0),
                MaxForce(150.0),
                FollowPath::new(path.clone()).with_mode(PathMode::Loop),
                Seek::new(start)
                    .with_slowing_radius(60.0)
                    .with_enabled(false),
                Separation::new(16.0).with_weight(2.0),
                AvoidObstacles::new(60.0, 8.0),
                FaceVelocity::default(),
            ));
            match squad {
                0 => unit.insert(Red),
                1 => unit.insert(Green),
                _ => unit.insert(Blue),
            };
        }
    }
}

/// Terrain following, the game's part of a ground unit: each unit's height set from the ground
/// under it, after the steering step (which never changes it).
fn follow_terrain(mut units: Query<&mut Transform, With<Planar>>) {
    for mut transform in &mut units {
        let ground = height_at(transform.translation.x, transform.translation.z);
        transform.translation.y = ground + 11.0;
    }
}

/// `1`, `2`, `3`: the squad the next click commands.
fn select_squad(keys: Res<ButtonInput<KeyCode>>, mut selected: ResMut<Selected>) {
    for (key, squad) in [
        (KeyCode::Digit1, 0),
        (KeyCode::Digit2, 1),
        (KeyCode::Digit3, 2),
    ] {
        if keys.just_pressed(key) {
            selected.0 = squad;
        }
    }
}

/// The point of the ground under the cursor (found on the plane y = 0, then lifted onto the
/// terrain: near enough on gentle hills).
fn clicked_ground(window: &Window, camera: &Camera, at: &GlobalTransform) -> Option<Vec3> {
    let ray = camera
        .viewport_to_world(at, window.cursor_position()?)
        .ok()?;
    let distance = ray.intersect_plane(Vec3::ZERO, InfinitePlane3d::new(Vec3::Y))?;
    let point = ray.get_point(distance);
    (point.x.abs() < HALF_GROUND && point.z.abs() < HALF_GROUND).then_some(point)
}

/// A click: the selected squad leaves its patrol and walks to the point, arriving.
fn send_squad(
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    selected: Res<Selected>,
    mut units: Query<(&Unit, &mut Seek, &mut FollowPath)>,
) {
    let (camera, at) = *camera;
    let Some(point) = clicked_ground(&window, camera, at) else {
        return;
    };
    for (unit, mut seek, mut follow) in &mut units {
        if unit.squad == selected.0 {
            seek.target = Some(point.into());
            seek.enabled = true;
            follow.enabled = false;
        }
    }
}

/// `P`: the selected squad back on its patrol.
fn back_to_patrol(selected: Res<Selected>, mut units: Query<(&Unit, &mut Seek, &mut FollowPath)>) {
    for (unit, mut seek, mut follow) in &mut units {
        if unit.squad == selected.0 {
            seek.enabled = false;
            follow.enabled = true;
        }
    }
}

/// A ring on the ground round each unit of the selected squad.
fn circle_selected_squad(
    mut gizmos: Gizmos,
    selected: Res<Selected>,
    units: Query<(&Unit, &Transform)>,
) {
    for (unit, transform) in &units {
        if unit.squad == selected.0 {
            let ground = transform.translation.with_y(transform.translation.y - 10.0);
            gizmos.circle(
                Isometry3d::new(ground, Quat::from_rotation_x(core::f32::consts::FRAC_PI_2)),
                9.0,
                Color::WHITE,
            );
        }
    }
}
