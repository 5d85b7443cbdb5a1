//! The Path Following tutorial's demo: agents patrol a path of nodes, one way (arriving at rest at
//! the end), round a loop or back and forth, seeking node after node as the tutorial does or
//! keeping within the path's radius as Reynolds does. Click to extend the path; the panel tunes
//! the following live, per group.
//!
//! | control | action |
//! | --- | --- |
//! | left click (outside the panel) | add a node to the end of the path, at the cursor |
//! | `Backspace` | remove the path's last node (one always stays) |
//! | `1` / `2` / `3` | one way / loop / ping-pong (patrol) |
//! | `M` | switch between the tutorial's method (seek node after node, moving on once a node is reached or passed) and Reynolds' (steer for a point a look-ahead along the path, slowing for bends too tight to turn) |
//! | `P` | switch the path: the zigzag, an ellipse of 400 by 250 through 20 nodes, a hairpin (the last two of radius 20) |
//! | `F` | show / hide force vectors and the path: white velocity, sienna path following (the path, its radius as a faint band, the node each agent seeks), separation in a colour of its own |
//! | the panel | tune path following (prediction and lookahead, which add to Reynolds' automatic look-ahead; slowing radius), separation and the limits for Swift, Steady or All; save, load or reset presets (`path_following`) |
//!
//! `STEER_PATH=ellipse` or `hairpin` and `STEER_METHOD=reynolds` start with that path and method
//! (for scripted runs; see `support`).

mod support;

use bevy::input::common_conditions::input_just_pressed;
use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy::window::PrimaryWindow;
use bevy_steer::prelude::*;
use support::{
    ScriptedRunPlugin, arrow_mesh, cursor_world_position, default_plugins, force_vectors_plugin,
    half_extents, setting, smooth_motion, toggle_force_vectors,
};

/// The faster agents, that cut corners wider.
#[derive(Component)]
struct Swift;

/// The slower, tighter-turning agents.
#[derive(Component)]
struct Steady;

/// The on-screen text saying the mode and method.
#[derive(Component)]
struct RouteText;

/// The path every agent follows, and how: the keys and clicks change this, and
/// [`apply_the_route`] hands it to the followers.
#[derive(Resource)]
struct Route {
    path: Path,
    mode: PathMode,
    method: PathMethod,
}

const AGENTS: usize = 12;

/// The paths `P` switches between.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    ZigZag,
    Ellipse,
    Hairpin,
}

impl Shape {
    fn path(self) -> Path {
        match self {
            Self::ZigZag => Path::new(NODES, 30.0),
            // Clear of the panel on the left.
            Self::Ellipse => (0..20)
                .map(|i| {
                    let angle = i as f32 * std::f32::consts::TAU / 20.0;
                    Vec2::new(200.0 + 200.0 * angle.cos(), 125.0 * angle.sin())
                })
                .collect(),
            Self::Hairpin => Path::new(
                [
                    Vec2::new(-150.0, -120.0),
                    Vec2::new(550.0, -120.0),
                    Vec2::new(550.0, -20.0),
                    Vec2::new(-150.0, -20.0),
                    Vec2::new(-150.0, 80.0),
                    Vec2::new(550.0, 80.0),
                ],
                20.0,
            ),
        }
    }

    fn next(self) -> Self {
        match self {
            Self::ZigZag => Self::Ellipse,
            Self::Ellipse => Self::Hairpin,
            Self::Hairpin => Self::ZigZag,
        }
    }
}

/// The path shown, for `P`.
#[derive(Resource)]
struct CurrentShape(Shape);

/// The starting path: a zigzag across the window, clear of the panel on the left.
const NODES: [Vec2; 7] = [
    Vec2::new(-170.0, -210.0),
    Vec2::new(-90.0, 190.0),
    Vec2::new(90.0, -50.0),
    Vec2::new(230.0, 250.0),
    Vec2::new(390.0, 10.0),
    Vec2::new(540.0, 240.0),
    Vec2::new(520.0, -250.0),
];

fn main() {
    App::new()
        .add_plugins((
            default_plugins("bevy_steer: path following"),
            SteeringPlugin::default(),
            // The agents keep apart, so that a faster one overtakes rather than runs through.
            SpatialIndexPlugin::<Steering>::new(24.0),
            SteeringEguiPlugin::with_preset_directory(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/presets"
            ))
            .with_preset_name("path_following"),
            ScriptedRunPlugin,
            force_vectors_plugin,
            smooth_motion,
        ))
        .add_neighbour_behaviour::<Separation, Steering>()
        .add_tuning_group::<Swift>("Swift")
        .add_tuning_group::<Steady>("Steady")
        .insert_resource(ClearColor(Color::srgb(0.08, 0.09, 0.11)))
        .insert_resource(start_shape())
        .insert_resource(Route {
            path: start_shape().0.path(),
            mode: PathMode::Loop,
            method: match setting("STEER_METHOD").as_deref() {
                Some("reynolds") => PathMethod::Reynolds,
                _ => PathMethod::Tutorial,
            },
        })
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                (
                    add_a_node.run_if(
                        input_just_pressed(MouseButton::Left)
                            .and_then(not(egui_wants_any_pointer_input)),
                    ),
                    remove_the_last_node.run_if(input_just_pressed(KeyCode::Backspace)),
                    set_mode(PathMode::OneWay).run_if(input_just_pressed(KeyCode::Digit1)),
                    set_mode(PathMode::Loop).run_if(input_just_pressed(KeyCode::Digit2)),
                    set_mode(PathMode::PingPong).run_if(input_just_pressed(KeyCode::Digit3)),
                    switch_method.run_if(input_just_pressed(KeyCode::KeyM)),
                    switch_path.run_if(input_just_pressed(KeyCode::KeyP)),
                    toggle_force_vectors.run_if(input_just_pressed(KeyCode::KeyF)),
                ),
                apply_the_route.run_if(resource_changed::<Route>),
            )
                .chain(),
        )
        // With the force vectors hidden, the path is still shown, plainly.
        .add_systems(Update, draw_the_path.run_if(not(steering_gizmos_enabled)))
        .run();
}

fn setup(
    mut commands: Commands,
    window: Single<&Window, With<PrimaryWindow>>,
    route: Res<Route>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    commands.spawn(Camera2d);
    let half = half_extents(&window);
    commands.spawn((
        RouteText,
        Text2d::new(route_text(&route)),
        TextFont::from_font_size(18.0),
        TextColor(Color::srgb(0.85, 0.87, 0.9)),
        Anchor::BOTTOM_RIGHT,
        Transform::from_xyz(half.x - 16.0, -half.y + 12.0, 10.0),
    ));

    let swift = materials.add(Color::srgb(0.95, 0.6, 0.3));
    let steady = materials.add(Color::srgb(0.45, 0.75, 1.0));
    let mesh = meshes.add(arrow_mesh(18.0));
    // Spaced evenly along the closed path, each heading for the node after its segment.
    let points = &route.path.points;
    let segments: Vec<(Vec2, Vec2)> = (0..points.len())
        .map(|index| (points[index], points[(index + 1) % points.len()]))
        .collect();
    let total: f32 = segments
        .iter()
        .map(|(start, end)| start.distance(*end))
        .sum();
    for agent in 0..AGENTS {
        let mut along = total * agent as f32 / AGENTS as f32;
        let mut segment = 0;
        while segment + 1 < segments.len()
            && along > segments[segment].0.distance(segments[segment].1)
        {
            along -= segments[segment].0.distance(segments[segment].1);
            segment += 1;
        }
        let (start, end) = segments[segment];
        let direction = (end - start).normalize_or_zero();
        let position = start + direction * along;
        let follower = (
            Mesh2d(mesh.clone()),
            Transform::from_translation(position.extend(0.0))
                .with_rotation(Quat::from_rotation_z(direction.to_angle())),
            FollowPath {
                current: (segment + 1) % points.len(),
                ..FollowPath::new(route.path.clone())
                    .with_mode(route.mode)
                    .with_method(route.method)
                    .with_weight(4.0)
            },
            Separation::new(28.0).with_strength(300.0),
            FaceVelocity::default(),
        );
        if agent % 2 == 0 {
            commands.spawn((
                follower,
                Swift,
                MeshMaterial2d(swift.clone()),
                Velocity(direction * 100.0),
                MaxSpeed(170.0),
                MaxForce(1000.0),
            ));
        } else {
            commands.spawn((
                follower,
                Steady,
                MeshMaterial2d(steady.clone()),
                Velocity(direction * 60.0),
                MaxSpeed(120.0),
                MaxForce(800.0),
            ));
        }
    }
}

fn route_text(route: &Route) -> String {
    let mode = match route.mode {
        PathMode::OneWay => "one way",
        PathMode::Loop => "loop",
        PathMode::PingPong => "ping-pong",
    };
    let method = match route.method {
        PathMethod::Tutorial => "tutorial",
        PathMethod::Reynolds => "Reynolds",
    };
    format!(
        "mode: {mode} (1 / 2 / 3)\nmethod: {method} (M)\nnodes: {} (click / Backspace; P: \
         another path)",
        route.path.points.len()
    )
}

fn add_a_node(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform)>,
    mut route: ResMut<Route>,
) {
    if let Some(cursor) = cursor_world_position(&window, camera.0, camera.1) {
        route.path.points.push(cursor);
        info!("node {} added at {cursor}", route.path.points.len());
    }
}

fn remove_the_last_node(mut route: ResMut<Route>) {
    if route.path.points.len() > 1 {
        route.path.points.pop();
        info!("last node removed: {} left", route.path.points.len());
    }
}

fn set_mode(mode: PathMode) -> impl FnMut(ResMut<Route>) {
    move |mut route: ResMut<Route>| {
        route.mode = mode;
        info!("mode: {mode:?}");
    }
}

/// The path to start with: `STEER_PATH`, else the zigzag.
fn start_shape() -> CurrentShape {
    CurrentShape(match setting("STEER_PATH").as_deref() {
        Some("ellipse") => Shape::Ellipse,
        Some("hairpin") => Shape::Hairpin,
        _ => Shape::ZigZag,
    })
}

fn switch_path(mut shape: ResMut<CurrentShape>, mut route: ResMut<Route>) {
    shape.0 = shape.0.next();
    route.path = shape.0.path();
    info!("path: {:?}", shape.0);
}

fn switch_method(mut route: ResMut<Route>) {
    route.method = match route.method {
        PathMethod::Tutorial => PathMethod::Reynolds,
        PathMethod::Reynolds => PathMethod::Tutorial,
    };
    info!("method: {:?}", route.method);
}

/// Hands the route to every follower (keeping its progress along the path) and says it on screen.
fn apply_the_route(
    route: Res<Route>,
    mut followers: Query<&mut FollowPath>,
    mut text: Single<&mut Text2d, With<RouteText>>,
) {
    let last = route.path.points.len().saturating_sub(1);
    for mut follow in &mut followers {
        if follow.path != route.path {
            follow.path.clone_from(&route.path);
        }
        follow.current = follow.current.min(last);
        follow.mode = route.mode;
        follow.method = route.method;
    }
    text.0 = route_text(&route);
}

/// The path's spine and nodes, dim, for when the force vectors (which draw it in full) are hidden.
fn draw_the_path(mut gizmos: Gizmos, route: Res<Route>) {
    let color = Color::srgba(0.6, 0.45, 0.35, 0.5);
    let points = &route.path.points;
    gizmos.linestrip_2d(points.iter().copied(), color);
    if route.mode == PathMode::Loop && points.len() > 2 {
        gizmos.line_2d(points[points.len() - 1], points[0], color);
    }
    for &node in points {
        gizmos.circle_2d(node, 4.0, color);
    }
}
