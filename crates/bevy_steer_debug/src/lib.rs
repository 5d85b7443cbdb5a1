//! Force-vector gizmos for [bevy_steer](https://crates.io/crates/bevy_steer): each agent's velocity
//! and each behaviour's force, in the tutorials' colours, and for wanderers the wander circle and
//! displacement (the tutorial's figure, live), for obstacle avoiders the look-ahead, and for path
//! followers the path, its radius and the node sought.
//!
//! Add [`SteeringDebugPlugin`] and switch the drawing on and off through the [`SteeringGizmos`]
//! config group; when it is off, the drawing systems do not run at all. It draws with Bevy's
//! gizmos, whose assets `DefaultPlugins` sets up. Without them (a headless app with
//! `MinimalPlugins` only) it draws nothing and says so once, when the app is finished
//! (`App::finish`, which `App::run` calls): the [`SteeringGizmos`] group is then not registered.
//!
//! ```no_run
//! use bevy::prelude::*;
#![doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::prelude::*;")]
//!
//! fn toggle(mut store: ResMut<GizmoConfigStore>) {
//!     let (config, _) = store.config_mut::<SteeringGizmos>();
//!     config.enabled = !config.enabled;
//! }
//! # App::new().add_plugins(SteeringDebugPlugin).add_systems(Update, toggle);
//! ```
//!
//! Forces are drawn as the weighted force each behaviour adds this step, before truncation, as
//! computed by the same functions the simulation uses.

use bevy::color::palettes::css;
use bevy::ecs::system::SystemState;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy_steer_core::behaviours::{
    AvoidObstacles, FollowPath, PathMode, Queue, SteeringBehaviour, Wander, WanderMethod,
};
use bevy_steer_core::components::{Mass, MaxForce, MaxSpeed, Steering, Velocity};
use bevy_steer_core::math::{direction_or_zero, position_of, sideways};
use bevy_steer_core::obstacles::ObstacleIndex;
use bevy_steer_core::problems::BehaviourKind;
use bevy_steer_core::systems::boid;
use bevy_steer_core::{SteeringBehaviours, Vector};

mod draw;

/// The gizmo config group of the steering debug drawing, with its own settings.
#[derive(Reflect, GizmoConfigGroup, Clone, Debug)]
#[reflect(Default)]
pub struct SteeringGizmos {
    /// Seconds of velocity to draw: a velocity arrow ends where the agent will be after this long.
    /// Default `0.25`.
    pub velocity_scale: f32,
    /// World units drawn per unit of force. Default `0.1`.
    pub force_scale: f32,
    /// Whether to draw each wanderer's circle and displacement. Default `true`.
    pub wander_circle: bool,
    /// Whether to draw each neighbour behaviour's neighbourhood (its radius round the agent), in
    /// the behaviour's colour. Default `false`.
    pub neighbourhoods: bool,
    /// Whether to draw each obstacle-avoiding agent's look-ahead, and the outline of the obstacle
    /// it is about to touch, with the point of contact. Default `true`.
    pub look_ahead: bool,
    /// Whether to draw each path follower's path in the path-following colour: its spine (closed
    /// for a [`PathMode::Loop`]) and its radius as a faint band, each distinct path once, and a
    /// small circle on the node the follower seeks (`current`). Default `true`.
    pub paths: bool,
    /// Colour of the velocity arrows. Default white.
    pub velocity_color: Color,
    /// Colours of the behaviours' forces. The built-in ones default to the tutorials' colours:
    /// grey wander, green seek, purple flee, orange pursuit, red evade, and blue leader following.
    /// A registered behaviour not
    /// listed gets a colour of its own when it is first drawn (see
    /// [`assign_colors`](Self::assign_colors)); set one here to choose it.
    pub behaviour_colors: HashMap<BehaviourKind, Color>,
}

impl Default for SteeringGizmos {
    fn default() -> Self {
        Self {
            velocity_scale: 0.25,
            force_scale: 0.1,
            wander_circle: true,
            neighbourhoods: false,
            look_ahead: true,
            paths: true,
            velocity_color: Color::WHITE,
            behaviour_colors: [
                (BehaviourKind::WANDER, css::GRAY.into()),
                (BehaviourKind::SEEK, css::LIME.into()),
                (BehaviourKind::FLEE, css::MEDIUM_PURPLE.into()),
                (BehaviourKind::PURSUE, css::ORANGE.into()),
                (BehaviourKind::EVADE, css::RED.into()),
                (BehaviourKind::FOLLOW_LEADER, css::DODGER_BLUE.into()),
                (BehaviourKind::AVOID_OBSTACLES, css::TOMATO.into()),
                (BehaviourKind::CONTAINMENT, css::KHAKI.into()),
                (BehaviourKind::FOLLOW_PATH, css::SIENNA.into()),
                (BehaviourKind::QUEUE, css::GOLD.into()),
            ]
            .into_iter()
            .collect(),
        }
    }
}

impl SteeringGizmos {
    /// The colour `kind`'s force is drawn in (white for a kind with none).
    pub fn color(&self, kind: BehaviourKind) -> Color {
        self.behaviour_colors
            .get(&kind)
            .copied()
            .unwrap_or(Color::WHITE)
    }

    /// Gives each of `kinds` that has no colour yet the next bright hue that none of the built-in
    /// colours is near: behaviours of your own, in registration order, get distinct colours (five
    /// before they repeat), the same on every run.
    pub fn assign_colors(&mut self, kinds: impl IntoIterator<Item = BehaviourKind>) {
        /// Cyan, magenta, yellow, spring green, pink: far from the built-in behaviours' grey,
        /// green, purple, orange, red, blue and brown.
        const HUES: [f32; 5] = [185.0, 300.0, 58.0, 160.0, 330.0];
        for kind in kinds {
            if self.behaviour_colors.contains_key(&kind) {
                continue;
            }
            let assigned = self
                .behaviour_colors
                .keys()
                .filter(|kind| !BehaviourKind::BUILT_IN.contains(kind))
                .count();
            let hue = HUES[assigned % HUES.len()];
            self.behaviour_colors
                .insert(kind, Color::hsl(hue, 0.9, 0.6));
        }
    }

    /// Draws `kind`'s force in `color`.
    pub fn set_color(&mut self, kind: BehaviourKind, color: impl Into<Color>) -> &mut Self {
        self.behaviour_colors.insert(kind, color.into());
        self
    }
}

/// Draws steering forces with gizmos of the [`SteeringGizmos`] group, in `Update`: every frame,
/// from the agents' current state, whatever schedule the steering runs in.
pub struct SteeringDebugPlugin;

impl Plugin for SteeringDebugPlugin {
    fn build(&self, app: &mut App) {
        // Usually Bevy's gizmos are set up by now (`DefaultPlugins` added first); else the
        // drawing waits for `finish`, when every plugin is.
        if gizmos_set_up(app) {
            draw_steering_gizmos(app);
        }
    }

    fn finish(&self, app: &mut App) {
        if app
            .world()
            .contains_resource::<bevy::gizmos::gizmos::GizmoStorage<SteeringGizmos, ()>>()
        {
            return;
        }
        if gizmos_set_up(app) {
            draw_steering_gizmos(app);
        } else {
            // Bevy's gizmo systems would fail on every update without their assets.
            warn!(
                "SteeringDebugPlugin: Bevy's gizmos are not set up (no `GizmoPlugin`, which \
                 `DefaultPlugins` adds): steering gizmos are not drawn"
            );
        }
    }
}

/// Whether Bevy's gizmo assets, which its gizmo systems write to, are in `app`.
fn gizmos_set_up(app: &App) -> bool {
    app.world().contains_resource::<Assets<GizmoAsset>>()
}

/// Registers the [`SteeringGizmos`] group and the systems that draw with it.
fn draw_steering_gizmos(app: &mut App) {
    app.init_gizmo_group::<SteeringGizmos>().add_systems(
        Update,
        (
            draw_velocities,
            draw_behaviour_forces,
            draw_wander_circles,
            draw_look_aheads,
            draw_queue_brakes,
            draw_paths,
        )
            .run_if(steering_gizmos_enabled),
    );
}

/// Whether the [`SteeringGizmos`] group is enabled: the drawing systems' run condition.
pub fn steering_gizmos_enabled(store: Res<GizmoConfigStore>) -> bool {
    store.config::<SteeringGizmos>().0.enabled
}

/// An arrow from `start` along `vector`, unless the vector is zero or not finite.
fn arrow(gizmos: &mut Gizmos<SteeringGizmos>, start: Vector, vector: Vector, color: Color) {
    if vector != Vector::ZERO && vector.is_finite() && start.is_finite() {
        draw::arrow(gizmos, start, start + vector, color);
    }
}

fn draw_velocities(
    mut gizmos: Gizmos<SteeringGizmos>,
    agents: Query<(&Transform, &Velocity), With<Steering>>,
) {
    let (scale, color) = (
        gizmos.config_ext.velocity_scale,
        gizmos.config_ext.velocity_color,
    );
    for (transform, velocity) in &agents {
        arrow(
            &mut gizmos,
            position_of(transform),
            velocity.0 * scale,
            color,
        );
    }
}

/// Draws the weighted force of every registered behaviour, built-in or your own, as its system
/// computes it (the same functions), in the behaviour's colour.
fn draw_behaviour_forces(
    world: &mut World,
    gizmos: &mut SystemState<Gizmos<SteeringGizmos>>,
    mut forces: Local<Vec<(Vector, Vector)>>,
    mut arrows: Local<Vec<(Vector, Vector, Color)>>,
    mut radii: Local<Vec<(Vector, f32)>>,
    mut circles: Local<Vec<(Vector, f32, Color)>>,
) {
    let config = world.resource_scope(|world, mut store: Mut<GizmoConfigStore>| {
        let config = store.config_mut::<SteeringGizmos>().1;
        if let Some(behaviours) = world.get_resource::<SteeringBehaviours>() {
            config.assign_colors(behaviours.kinds());
        }
        config.clone()
    });
    arrows.clear();
    circles.clear();
    world.try_resource_scope(|world, behaviours: Mut<SteeringBehaviours>| {
        for behaviour in behaviours.iter() {
            forces.clear();
            behaviour.weighted_forces(world, &mut forces);
            let color = config.color(behaviour.kind());
            arrows.extend(
                forces
                    .iter()
                    .map(|&(start, force)| (start, force * config.force_scale, color)),
            );
            radii.clear();
            if config.neighbourhoods && behaviour.neighbourhoods(world, &mut radii) {
                let faint = color.with_alpha(0.3);
                circles.extend(
                    radii
                        .iter()
                        .map(|&(centre, radius)| (centre, radius, faint)),
                );
            }
        }
    });
    // The gizmo group exists (the plugin adds it), so the parameter is always valid.
    if let Ok(mut gizmos_now) = gizmos.get_mut(world) {
        for &(start, vector, color) in arrows.iter() {
            arrow(&mut gizmos_now, start, vector, color);
        }
        for &(centre, radius, color) in circles.iter() {
            if centre.is_finite() && radius > 0.0 && radius.is_finite() {
                draw::circle(&mut gizmos_now, centre, radius, color);
            }
        }
    }
    gizmos.apply(world);
}

/// Each obstacle-avoiding agent's look-ahead in the avoidance colour, faint; the obstacle it is
/// about to touch outlined, and the point of contact.
fn draw_look_aheads(
    mut gizmos: Gizmos<SteeringGizmos>,
    agents: Query<(
        &AvoidObstacles,
        &Transform,
        &Velocity,
        &MaxSpeed,
        &Mass,
        &MaxForce,
    )>,
    index: Option<Res<ObstacleIndex>>,
) {
    let config = gizmos.config_ext.clone();
    let Some(index) = index.filter(|_| config.look_ahead) else {
        return;
    };
    let color = config.color(BehaviourKind::AVOID_OBSTACLES);
    for (avoid, transform, velocity, max_speed, mass, max_force) in &agents {
        if !avoid.active() {
            continue;
        }
        let agent = boid(transform, velocity, max_speed);
        let acceleration = AvoidObstacles::largest_acceleration(*mass, *max_force);
        let ahead = avoid.ahead(&agent, acceleration);
        if agent.position.is_finite() && ahead.is_finite() {
            draw::line(&mut gizmos, agent.position, ahead, color.with_alpha(0.4));
        }
        if let Some(threat) = avoid.threat(&agent, &index, acceleration) {
            draw::outline(
                &mut gizmos,
                threat.obstacle.position,
                threat.obstacle.shape,
                color,
            );
            if threat.point.is_finite() {
                draw::circle(&mut gizmos, threat.point, 3.0, color);
            }
        }
    }
}

/// The segments of the spine through `points`, closed by a segment from the last point back to the
/// first when `closed` (and there are more than two points). Segments with an end that is not
/// finite are left out.
fn path_segments(points: &[Vector], closed: bool) -> impl Iterator<Item = (Vector, Vector)> + '_ {
    let closing = (closed && points.len() > 2)
        .then(|| (points[points.len() - 1], points[0]))
        .into_iter();
    points
        .windows(2)
        .map(|pair| (pair[0], pair[1]))
        .chain(closing)
        .filter(|(start, end)| start.is_finite() && end.is_finite())
}

/// A key for a path as drawn (its points, radius and whether it is closed), so that a path many
/// followers share is drawn once (faint colours drawn over one another would not stay faint).
fn path_key(follow: &FollowPath) -> u64 {
    use core::hash::{BuildHasher, Hash, Hasher};
    let mut hasher = bevy::platform::hash::FixedHasher.build_hasher();
    (follow.mode == PathMode::Loop).hash(&mut hasher);
    follow.path.radius.to_bits().hash(&mut hasher);
    for point in &follow.path.points {
        for value in point.to_array() {
            value.to_bits().hash(&mut hasher);
        }
    }
    hasher.finish()
}

/// Each active path follower's path in the path-following colour: the spine faint, the radius as
/// a fainter band (a circle of the radius round each node and lines the radius either side of
/// each segment), each distinct path once; and a small circle on the node each follower seeks.
fn draw_paths(
    mut gizmos: Gizmos<SteeringGizmos>,
    followers: Query<&FollowPath>,
    mut drawn: Local<bevy::platform::collections::HashSet<u64>>,
) {
    let config = gizmos.config_ext.clone();
    if !config.paths {
        return;
    }
    let color = config.color(BehaviourKind::FOLLOW_PATH);
    let (spine, band) = (color.with_alpha(0.6), color.with_alpha(0.25));
    drawn.clear();
    for follow in &followers {
        if !follow.active() {
            continue;
        }
        let points = follow.path.points.as_slice();
        if let Some(&node) = points.get(follow.current.min(points.len().saturating_sub(1)))
            && node.is_finite()
        {
            draw::circle(&mut gizmos, node, 5.0, color);
        }
        if !drawn.insert(path_key(follow)) {
            continue;
        }
        let radius = follow.path.radius;
        let radius = (radius > 0.0 && radius.is_finite()).then_some(radius);
        for (start, end) in path_segments(points, follow.mode == PathMode::Loop) {
            draw::line(&mut gizmos, start, end, spine);
            let Some(radius) = radius else { continue };
            // The band's edges either side (in 3D, the sides level with the ground, +Y up).
            let offset = sideways(direction_or_zero(end - start), Vector::Y) * radius;
            if offset != Vector::ZERO && offset.is_finite() {
                draw::line(&mut gizmos, start + offset, end + offset, band);
                draw::line(&mut gizmos, start - offset, end - offset, band);
            }
        }
        for &node in points.iter().filter(|node| node.is_finite()) {
            match radius {
                Some(radius) => draw::circle(&mut gizmos, node, radius, band),
                None => draw::circle(&mut gizmos, node, 2.0, spine),
            };
        }
    }
}

/// Each queueing agent's brake in the last step, in the queue's colour (the brake runs after every
/// other force, from the step's sum, so it is drawn from what the step recorded).
fn draw_queue_brakes(mut gizmos: Gizmos<SteeringGizmos>, agents: Query<(&Queue, &Transform)>) {
    let config = gizmos.config_ext.clone();
    let color = config.color(BehaviourKind::QUEUE);
    for (queue, transform) in &agents {
        arrow(
            &mut gizmos,
            position_of(transform),
            queue.last_brake * config.force_scale,
            color,
        );
    }
}

/// The tutorial's figure for each wanderer: the circle ahead and the displacement from its centre.
fn draw_wander_circles(
    mut gizmos: Gizmos<SteeringGizmos>,
    agents: Query<(&Wander, &Transform, &Velocity, draw::WanderPlane)>,
) {
    let config = gizmos.config_ext.clone();
    if !config.wander_circle {
        return;
    }
    let color = config.color(BehaviourKind::WANDER);
    for (wander, transform, velocity, plane) in &agents {
        let up = draw::wander_up(plane);
        if !wander.active() || wander.method != WanderMethod::Circle {
            continue;
        }
        let weighted_scale = wander.weight * config.force_scale;
        let centre = position_of(transform)
            + velocity.normalize_or_zero() * wander.circle_distance * weighted_scale;
        let radius = wander.circle_radius * weighted_scale;
        let displacement = wander.displacement_direction_in(velocity.0, up) * radius;
        if centre.is_finite() && radius.is_finite() && radius > 0.0 {
            draw::wander_circle(&mut gizmos, centre, radius, up, color.with_alpha(0.5));
            draw::line(&mut gizmos, centre, centre + displacement, color);
        }
    }
}

/// The plugin, the config group and the gizmo types needed to toggle it.
pub mod prelude {
    pub use crate::{SteeringDebugPlugin, SteeringGizmos, steering_gizmos_enabled};
    pub use bevy::gizmos::config::GizmoConfigStore;
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy_steer_core::behaviours::Path;

    /// An app with the steering, the debug drawing and one agent, `gizmo_assets` added after the
    /// debug plugin or not, finished, after a few updates.
    fn app_with_debug_drawing(gizmo_assets: bool) -> App {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            bevy_steer_core::SteeringPlugin::default(),
            SteeringDebugPlugin,
        ));
        if gizmo_assets {
            app.add_plugins(AssetPlugin::default())
                .init_asset::<GizmoAsset>();
        }
        app.finish();
        app.cleanup();
        app.world_mut().spawn(Steering::default());
        for _ in 0..3 {
            app.update();
        }
        app
    }

    #[test]
    fn without_bevy_s_gizmos_nothing_is_drawn_and_nothing_panics() {
        let app = app_with_debug_drawing(false);
        assert!(!app.world().contains_resource::<GizmoConfigStore>());
    }

    #[test]
    fn gizmos_set_up_after_the_debug_plugin_are_drawn_with() {
        let app = app_with_debug_drawing(true);
        let store = app.world().resource::<GizmoConfigStore>();
        assert!(store.config::<SteeringGizmos>().0.enabled);
    }

    #[test]
    fn behaviours_of_your_own_get_colours_of_their_own_on_every_run() {
        let (orbit, flock) = (BehaviourKind::new("orbit"), BehaviourKind::new("flock"));
        let mut config = SteeringGizmos::default();
        config.assign_colors(BehaviourKind::BUILT_IN.into_iter().chain([orbit, flock]));
        let mut again = SteeringGizmos::default();
        again.assign_colors([orbit, flock]);
        assert_eq!(config.color(orbit), again.color(orbit));
        assert_ne!(config.color(orbit), config.color(flock));
        for built_in in BehaviourKind::BUILT_IN {
            assert_ne!(config.color(orbit), config.color(built_in), "{built_in}");
            assert_ne!(config.color(flock), config.color(built_in), "{built_in}");
        }
        assert_eq!(config.color(BehaviourKind::SEEK), css::LIME.into());

        config.set_color(orbit, css::GOLD);
        config.assign_colors([orbit]);
        assert_eq!(config.color(orbit), css::GOLD.into());
    }

    #[test]
    fn path_segments_close_loops_and_skip_non_finite_points() {
        // In the XY plane, whatever the build's dimension.
        let v = |x: f32, y: f32| Vector::X * x + Vector::Y * y;
        let square = [v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)];
        assert_eq!(path_segments(&square, false).count(), 3);
        let closed: Vec<_> = path_segments(&square, true).collect();
        assert_eq!(closed.len(), 4);
        assert_eq!(closed[3], (v(0.0, 1.0), v(0.0, 0.0)));
        // Two nodes: the closing segment would retrace the only one.
        assert_eq!(path_segments(&square[..2], true).count(), 1);
        assert_eq!(path_segments(&square[..1], true).count(), 0);
        assert_eq!(path_segments(&[], true).count(), 0);
        let broken = [v(0.0, 0.0), v(f32::NAN, 0.0), v(1.0, 1.0), v(2.0, 1.0)];
        let segments: Vec<_> = path_segments(&broken, true).collect();
        assert_eq!(
            segments,
            [(v(1.0, 1.0), v(2.0, 1.0)), (v(2.0, 1.0), v(0.0, 0.0))]
        );
    }

    #[test]
    fn a_shared_path_has_one_key_and_a_loop_another() {
        let path = Path::new([Vector::ZERO, Vector::X * 100.0], 20.0);
        let one = FollowPath::new(path.clone());
        let other = FollowPath {
            current: 1,
            ..FollowPath::new(path.clone())
        };
        assert_eq!(path_key(&one), path_key(&other));
        let looping = FollowPath::new(path.clone()).with_mode(PathMode::Loop);
        assert_ne!(path_key(&one), path_key(&looping));
        assert_ne!(
            path_key(&one),
            path_key(&FollowPath::new(path.with_radius(30.0)))
        );
    }
}
