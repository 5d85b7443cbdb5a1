//! Shared test helpers: a headless app stepped one fixed step at a time.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
/// The build under test: the tests that mean the same in 2D and in 3D are compiled by both
/// `bevy_steer_core` and `bevy_steer_core3d`, and name it `steer`.
#[cfg(feature = "2d")]
pub use bevy_steer_core as steer;
#[cfg(feature = "3d")]
pub use bevy_steer_core3d as steer;
pub use steer::Vector;
use steer::math::position_of;
use steer::prelude::*;

/// The position of an agent whose translation is `translation`.
pub fn as_position(translation: Vec3) -> Vector {
    position_of(&Transform::from_translation(translation))
}

/// The area between two corners, where a random-target wanderer draws its targets (a rectangle in
/// 2D, a box in 3D).
pub fn area(corner: Vector, opposite_corner: Vector) -> steer::behaviours::WanderArea {
    #[cfg(feature = "2d")]
    return Rect::from_corners(corner, opposite_corner);
    #[cfg(feature = "3d")]
    return bevy::math::bounding::Aabb3d {
        min: corner.min(opposite_corner).into(),
        max: corner.max(opposite_corner).into(),
    };
}

/// The unit vector at `angle` radians from +X towards +Y (`Vec2::from_angle`, in the XY plane).
pub fn from_angle(angle: f32) -> Vector {
    let (sin, cos) = angle.sin_cos();
    v(cos, sin)
}

/// The vector `(x, y)`: in 3D at z = 0, so that a scene of the XY plane runs unchanged.
pub fn v(x: f32, y: f32) -> Vector {
    #[cfg(feature = "2d")]
    return Vector::new(x, y);
    #[cfg(feature = "3d")]
    return Vector::new(x, y, 0.0);
}

/// The angle of `vector`'s XY part from +X towards +Y, in `(-PI, PI]` (`Vec2::to_angle`).
pub fn angle_of(vector: Vector) -> f32 {
    vector.y.atan2(vector.x)
}

/// What keeps an agent of a scene in the XY plane there: in 3D a ground unit with +Z up (else
/// wander would roam a sphere, and avoidance could pass over or under a wall).
#[cfg(feature = "3d")]
pub fn ground_unit() -> impl Bundle {
    Planar::new(Dir3::Z)
}

/// In 2D every agent is in the XY plane: nothing.
#[cfg(feature = "2d")]
pub fn ground_unit() -> impl Bundle {}

/// How tall the 3D stand-ins for the 2D shapes below are, centred on z = 0: ground units at z = 0
/// meet their cross-section, which is the 2D shape, and an arena's floor and ceiling lie far
/// beyond its margin.
#[cfg(feature = "3d")]
pub const HEIGHT: f32 = 1000.0;

/// A disc obstacle of `radius` (in 3D a sphere).
pub fn disc(radius: f32) -> Obstacle {
    #[cfg(feature = "2d")]
    return Obstacle::circle(radius);
    #[cfg(feature = "3d")]
    return Obstacle::sphere(radius);
}

/// An axis-aligned box obstacle `width` by `height` (in 3D, [`HEIGHT`] tall along z).
pub fn rectangle(width: f32, height: f32) -> Obstacle {
    #[cfg(feature = "2d")]
    return Obstacle::rectangle(Vector::new(width, height));
    #[cfg(feature = "3d")]
    return Obstacle::cuboid(Vector::new(width, height, HEIGHT));
}

/// A wall from `from` to `to`, with the `Transform` that places it (in 3D a rectangle of no
/// thickness, [`HEIGHT`] tall along z, standing on that line).
pub fn wall(from: Vector, to: Vector) -> (Obstacle, Transform) {
    #[cfg(feature = "2d")]
    return Obstacle::wall(from, to);
    #[cfg(feature = "3d")]
    return Obstacle::wall(
        (from + to) / 2.0,
        (to - from).cross(Vector::Z),
        Vector::Z,
        from.distance(to),
        HEIGHT,
    );
}

/// Containment within the axis-aligned box `width` by `height` round `centre` (in 3D, [`HEIGHT`]
/// tall along z).
pub fn arena(centre: Vector, width: f32, height: f32) -> Containment {
    #[cfg(feature = "2d")]
    return Containment::rectangle(centre, Vector::new(width, height));
    #[cfg(feature = "3d")]
    return Containment::cuboid(centre, Vector::new(width, height, HEIGHT));
}

/// How far inside an obstacle the agent's centre is (positive inside), the deepest one.
pub fn depth_inside(app: &mut App, point: Vector) -> f32 {
    let mut obstacles = app.world_mut().query::<(&Obstacle, &Transform)>();
    obstacles
        .iter(app.world())
        .map(|(obstacle, transform)| {
            -obstacle
                .shape
                .signed_distance(as_position(transform.translation), point)
        })
        .fold(f32::NEG_INFINITY, f32::max)
}

/// The door scene: walls are boxes, walkers ground units.
pub mod doors;
pub mod threads;

/// Counts the fixed steps run so far.
#[derive(Resource, Default)]
pub struct StepCount(pub u32);

fn count_step(mut count: ResMut<StepCount>) {
    count.0 += 1;
}

/// An app with `MinimalPlugins` and `SteeringPlugin` in `FixedUpdate` at `steps_per_second`, where
/// each `app.update()` advances time by exactly one step.
pub fn create_app(steps_per_second: f64) -> App {
    create_app_with(steps_per_second, SteeringPlugin::default())
}

/// Like [`create_app`], with a plugin configured by the caller.
pub fn create_app_with(steps_per_second: f64, plugin: SteeringPlugin) -> App {
    create_app_with_step(Duration::from_secs_f64(1.0 / steps_per_second), plugin)
}

/// Like [`create_app_with`], with the length of a step given directly.
///
/// Steps longer than `Time<Virtual>`'s default maximum delta (a quarter of a second) are let
/// through whole, so that each `app.update()` is still exactly one step.
pub fn create_app_with_step(step: Duration, plugin: SteeringPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, plugin));
    allow_frame_time(&mut app, step);
    app.insert_resource(Time::<Fixed>::from_duration(step))
        .insert_resource(TimeUpdateStrategy::ManualDuration(step))
        .init_resource::<StepCount>()
        .add_systems(
            SteeringSchedule,
            count_step.after(SteeringSystems::Integrate),
        );
    app
}

/// Raises `Time<Virtual>`'s maximum delta to `frame_time` if it is lower, so that a frame that long
/// (a hitch) advances the clock by all of it instead of being clamped.
pub fn allow_frame_time(app: &mut App, frame_time: Duration) {
    let mut time = app.world_mut().resource_mut::<Time<Virtual>>();
    let max_delta = time.max_delta().max(frame_time);
    time.set_max_delta(max_delta);
}

/// Runs exactly `steps` fixed steps.
pub fn step(app: &mut App, steps: u32) {
    let target = app.world().resource::<StepCount>().0 + steps;
    let mut updates = 0;
    while app.world().resource::<StepCount>().0 < target {
        app.update();
        updates += 1;
        assert!(
            updates < 3 * steps + 10,
            "the fixed schedule is not running"
        );
    }
}

/// Runs `steps` fixed steps, calling `check` after each with the step number (from 1).
pub fn step_checking(app: &mut App, steps: u32, mut check: impl FnMut(&mut App, u32)) {
    for number in 1..=steps {
        step(app, 1);
        check(app, number);
    }
}

pub fn spawn(app: &mut App, bundle: impl Bundle) -> Entity {
    app.world_mut().spawn(bundle).id()
}

pub fn position(app: &App, entity: Entity) -> Vector {
    position_of(
        app.world()
            .get::<Transform>(entity)
            .expect("agent has a Transform"),
    )
}

pub fn velocity(app: &App, entity: Entity) -> Vector {
    app.world()
        .get::<Velocity>(entity)
        .expect("agent has a Velocity")
        .0
}

pub fn problems(app: &App, entity: Entity) -> ReportedProblems {
    app.world()
        .get::<ReportedProblems>(entity)
        .expect("agent has ReportedProblems")
        .clone()
}

pub fn at(x: f32, y: f32) -> Transform {
    Transform::from_xyz(x, y, 0.0)
}

/// Asserts that every agent's position, velocity and steering are finite and its speed within its
/// limit (plus a float tolerance).
pub fn assert_agents_sane(app: &mut App) {
    let mut agents = app
        .world_mut()
        .query::<(Entity, &Transform, &Velocity, &Steering, &MaxSpeed)>();
    for (entity, transform, velocity, steering, max_speed) in agents.iter(app.world()) {
        assert!(
            transform.translation.is_finite(),
            "{entity}: position {}",
            transform.translation
        );
        assert!(velocity.is_finite(), "{entity}: velocity {}", velocity.0);
        assert!(steering.is_finite(), "{entity}: steering {}", steering.0);
        let limit = max_speed.effective();
        assert!(
            velocity.length() <= limit * (1.0 + 1e-5) + 1e-5,
            "{entity}: speed {} above {limit}",
            velocity.length()
        );
    }
}

/// A behaviour of a game's own, as a user would write one: circle `centre` at `radius`,
/// counter-clockwise, by seeking a point ahead on the circle.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(Steering)]
pub struct Orbit {
    pub centre: Vector,
    pub radius: f32,
    pub weight: f32,
}

impl Orbit {
    pub fn new(radius: f32) -> Self {
        Self {
            centre: Vector::ZERO,
            radius,
            weight: 1.0,
        }
    }
}

impl SteeringBehaviour for Orbit {
    const NAME: &'static str = "orbit";

    fn weight(&self) -> f32 {
        self.weight
    }

    fn force(
        &self,
        agent: &steer::forces::Boid,
        _lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vector, NoTarget> {
        let out = steer::forces::direction_or_zero(agent.position - self.centre);
        // Counter-clockwise about +Z (in 3D too: the orbit lies in the XY plane).
        let ahead = self.centre + out * self.radius + v(-out.y, out.x) * self.radius * 0.5;
        Ok(steer::forces::seek(agent, ahead, 0.0))
    }

    // No entity target to forget.
    fn forget_target(&mut self) {}
}
