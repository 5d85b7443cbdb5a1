//! Headless scenes shared by the `stress` example and the benchmarks (`benches/steering.rs`): N
//! wanderers, the hunter / prey rules with N prey and N / 100 hunters, N flocking boids (also as
//! the reference loop's scene), or N wanderers avoiding N / 100 obstacles inside a containment
//! area, stepped one fixed step at a time with no window.
//!
//! The arena grows with the number of agents so that the crowd is as dense at every N (as dense as
//! 2 000 prey in the example's 1280 x 720 window): the neighbour queries then find as many
//! neighbours per agent at every N, and a step should cost time linear in N.

use core::time::Duration;

use bevy::app::TaskPoolOptions;
use bevy::prelude::*;
use bevy_steer::forces;
use bevy_steer::prelude::*;

#[path = "../hunter_prey/rules.rs"]
pub mod rules;

use rules::{HunterPreyPlugin, HunterPreySettings, hunter, prey, spread};

/// The length of one step: the tutorials' 60 frames per second.
pub const STEP: Duration = Duration::from_nanos(16_666_667);

/// Square world units per agent.
const AREA_PER_AGENT: f32 = 1280.0 * 720.0 / 2000.0;

/// The scenes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scene {
    /// Wanderers: the circle method with the default parameters, nothing else.
    Wander,
    /// The hunter / prey example's rules: N prey and N / 100 hunters.
    HunterPrey,
    /// Boids: separation, alignment, cohesion and wander (the circle method, default parameters),
    /// wrapping round the arena's edges.
    Flocking,
    /// The boids of `Flocking` with separation by distance (Reynolds' method).
    FlockingByDistance,
    /// The boids of `Flocking` with a field of view of [`FIELD_OF_VIEW`] for each rule.
    FlockingFieldOfView,
    /// The boids of `Flocking` with Reynolds' classic forms: alignment that matches the
    /// neighbours' mean velocity, cohesion that seeks their centre at full speed.
    FlockingClassic,
    /// The boids of `Flocking` with weights: separation 1.5, alignment off (weight 0), cohesion
    /// 0.75.
    FlockingWeighted,
    /// The boids of `Flocking` with the three rules as neighbour behaviours of a user's own
    /// ([`OwnRule`]), stepped as any user's are rather than by the built-in flocking system.
    FlockingOwnRules,
    /// Wanderers avoiding N / 100 obstacles (circles and boxes) spread over the arena, kept in it by
    /// containment.
    Obstacles,
    /// Reynolds' classic boids, as the hand-written reference loop
    /// (`../shared/reference/flocking-loop`) flocks them: separation by distance, alignment with the
    /// neighbours' mean velocity and cohesion that seeks their centre at full speed, all within
    /// [`REFERENCE_RADIUS`], and wander, in a square the boids wrap round, started as the loop
    /// starts them (see [`reference_flock`]).
    Reference,
}

impl Scene {
    /// A headless app holding this scene with `agents` agents (prey, for hunter / prey).
    pub fn app(self, agents: usize) -> App {
        match self {
            Self::Wander => wanderers(agents),
            Self::HunterPrey => hunter_prey(agents),
            Self::Flocking => flock(agents, |rules| rules),
            Self::FlockingByDistance => flock(agents, |(separation, alignment, cohesion)| {
                (
                    separation.with_method(SeparationMethod::ByDistance),
                    alignment,
                    cohesion,
                )
            }),
            Self::FlockingFieldOfView => flock(agents, |(separation, alignment, cohesion)| {
                (
                    separation.with_field_of_view(FIELD_OF_VIEW),
                    alignment.with_field_of_view(FIELD_OF_VIEW),
                    cohesion.with_field_of_view(FIELD_OF_VIEW),
                )
            }),
            Self::FlockingClassic => flock(agents, |(separation, alignment, cohesion)| {
                (
                    separation,
                    alignment.with_method(AlignmentMethod::MeanVelocity),
                    cohesion.with_method(CohesionMethod::Seek),
                )
            }),
            Self::FlockingWeighted => flock(agents, |(separation, alignment, cohesion)| {
                (
                    separation.with_weight(1.5),
                    alignment.with_weight(0.0),
                    cohesion.with_weight(0.75),
                )
            }),
            Self::FlockingOwnRules => own_rules_flock(agents),
            Self::Obstacles => obstacle_field(agents, 0),
            Self::Reference => reference_flock(agents),
        }
    }
}

/// Task pools that give the compute pool every core.
///
/// Bevy's default pools give the compute pool what is left after the I/O and async pools have taken
/// a quarter of the cores each, at least one: on a two-core machine that leaves one thread, and
/// `par_iter` then runs sequentially.
pub fn task_pool_options() -> TaskPoolOptions {
    let mut options = TaskPoolOptions::default();
    options.compute.min_threads = bevy::tasks::available_parallelism();
    options
}

/// An arena with the aspect of the example's window that holds `agents` at the scenes' density.
pub fn arena_for(agents: usize) -> Rect {
    let area = agents.max(1) as f32 * AREA_PER_AGENT;
    let half_width = (area * 16.0 / 9.0).sqrt() / 2.0;
    Rect::from_center_half_size(Vec2::ZERO, Vec2::new(half_width, half_width * 9.0 / 16.0))
}

/// `MinimalPlugins` with every core for compute, and the steering plugin.
fn headless_app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: task_pool_options(),
        }),
        SteeringPlugin::default(),
    ));
    app
}

/// Ends the app's set-up, as `App::run` would, so that its schedules can be run by hand.
fn ready(mut app: App) -> App {
    app.finish();
    app.cleanup();
    app
}

fn wanderers(agents: usize) -> App {
    let mut app = ready(headless_app());
    let wanderers = spread(agents, arena_for(agents), 0.0).map(|(position, heading)| {
        (
            Transform::from_translation(position.extend(0.0)),
            Velocity(heading * 60.0),
            Wander::default().with_angle(heading.to_angle()),
        )
    });
    app.world_mut().spawn_batch(wanderers);
    app
}

fn hunter_prey(prey_count: usize) -> App {
    let settings = HunterPreySettings {
        arena: arena_for(prey_count),
        ..default()
    };
    let mut app = headless_app();
    app.add_plugins(HunterPreyPlugin {
        settings: settings.clone(),
    });
    let mut app = ready(app);
    let world = app.world_mut();
    for (position, heading) in spread(prey_count / 100, settings.arena, 0.37) {
        world.spawn(hunter(position, heading, &settings));
    }
    for (position, heading) in spread(prey_count, settings.arena, 0.0) {
        world.spawn(prey(position, heading));
    }
    app
}

/// The flocking scene's marker: its boids, the flock [`FlockingPlugin`] indexes.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Boid;

/// The flocking scene's separation radius.
///
/// At the scenes' density (one agent per [`AREA_PER_AGENT`], 460.8 square units) a circle of
/// radius r holds on average pi r^2 / 460.8 other boids while they are spread evenly, as they start:
/// 4.3 within 25 units, for separation.
pub const SEPARATION_RADIUS: f32 = 25.0;

/// The flocking scene's alignment and cohesion radius, and the spatial index's cell size: 13.8
/// other boids within 45 units while they are spread evenly (see [`SEPARATION_RADIUS`]). Boids near
/// the arena's edges have fewer: the index does not see across the wrap.
pub const FLOCK_RADIUS: f32 = 45.0;

/// Where the flocking scene's boids live: they wrap round its edges, so that the crowd stays as
/// dense as it started.
#[derive(Resource, Clone, Copy, Debug)]
pub struct FlockArena(pub Rect);

/// `position` brought back into `arena` across the opposite edge when it has left it (the hunter /
/// prey rules' wrap), or `None` when it is inside (or not finite).
pub fn wrapped(arena: Rect, position: Vec2) -> Option<Vec2> {
    (!arena.contains(position) && position.is_finite())
        .then(|| arena.min + (position - arena.min).rem_euclid(arena.size()))
}

/// Boids that leave the arena come back on the opposite side.
fn wrap_boids(arena: Res<FlockArena>, mut boids: Query<&mut Transform, With<Boid>>) {
    let arena = arena.0;
    boids.par_iter_mut().for_each(|mut transform| {
        if let Some(position) = wrapped(arena, transform.translation.truncate()) {
            transform.translation.x = position.x;
            transform.translation.y = position.y;
        }
    });
}

/// The mean number of other boids within `radius` of a boid, over every boid of `world` (as the
/// spatial index counts them: not across the arena's wrap).
pub fn mean_neighbours(world: &mut World, radius: f32) -> f64 {
    let boids: Vec<(Entity, Vec2)> = world
        .query_filtered::<(Entity, &Transform), With<Boid>>()
        .iter(world)
        .map(|(entity, transform)| (entity, transform.translation.truncate()))
        .collect();
    let mut index = SpatialIndex::<Boid>::new(radius);
    index.rebuild(boids.iter().copied());
    let mut found = 0_usize;
    for (_, position) in &boids {
        index.for_each_within(*position, radius, |_| found += 1);
    }
    // Each boid found itself.
    (found - boids.len()) as f64 / boids.len().max(1) as f64
}

/// The field of view of [`Scene::FlockingFieldOfView`]'s rules: three quarters of a turn, a wedge
/// behind each boid left out.
pub const FIELD_OF_VIEW: f32 = core::f32::consts::TAU * 0.75;

/// A headless app, ready to step, whose [`Boid`]s flock with a spatial index of `cell_size` cells
/// and wrap round `arena`: the built-in flocking system steps the rules.
fn flock_app(arena: Rect, cell_size: f32) -> App {
    own_rules_app(arena, |app| {
        app.add_plugins(FlockingPlugin::<Boid>::new(cell_size));
    })
}

/// A headless app, ready to step, whose [`Boid`]s wrap round `arena`, and whose flocking rules
/// `flocking` registers.
fn own_rules_app(arena: Rect, flocking: impl FnOnce(&mut App)) -> App {
    let mut app = headless_app();
    flocking(&mut app);
    app.insert_resource(FlockArena(arena)).add_systems(
        SteeringSchedule,
        wrap_boids.after(SteeringSystems::Integrate),
    );
    ready(app)
}

/// The flocking scene's `agents` boids, spread over `arena`, with the default limits (`Mass`,
/// `MaxSpeed`, `MaxForce`) and the rules `rules` makes of the default ones.
fn flock_boids<R: Bundle + Copy>(
    agents: usize,
    arena: Rect,
    rules: impl Fn((Separation, Alignment, Cohesion)) -> R,
) -> impl Iterator<Item = (Boid, Transform, Velocity, R, Wander)> {
    let rules = rules((
        Separation::new(SEPARATION_RADIUS),
        Alignment::new(FLOCK_RADIUS),
        Cohesion::new(FLOCK_RADIUS),
    ));
    spread(agents, arena, 0.0).map(move |(position, heading)| {
        (
            Boid,
            Transform::from_translation(position.extend(0.0)),
            Velocity(heading * 60.0),
            rules,
            Wander::default().with_angle(heading.to_angle()),
        )
    })
}

/// The flocking scene with `agents` boids, whose rules `rules` may change from the defaults.
fn flock(
    agents: usize,
    rules: impl Fn((Separation, Alignment, Cohesion)) -> (Separation, Alignment, Cohesion),
) -> App {
    let arena = arena_for(agents);
    let mut app = flock_app(arena, FLOCK_RADIUS);
    app.world_mut()
        .spawn_batch(flock_boids(agents, arena, rules));
    app
}

/// A flocking rule as a user's own [`NeighbourBehaviour`]: the built-in rule's settings and
/// force, stepped as any user's neighbour behaviour is (registered with
/// `add_neighbour_behaviour`), not by the built-in flocking system.
#[derive(Component, Clone, Copy, Debug)]
pub struct OwnRule<R>(pub R);

impl<R: NeighbourBehaviour + Copy> NeighbourBehaviour for OwnRule<R> {
    const NAME: &'static str = R::NAME;

    fn weight(&self) -> f32 {
        self.0.weight()
    }

    fn enabled(&self) -> bool {
        self.0.enabled()
    }

    fn radius(&self) -> f32 {
        self.0.radius()
    }

    fn field_of_view(&self) -> f32 {
        self.0.field_of_view()
    }

    fn force(&self, agent: &forces::Boid, neighbours: &[Neighbour]) -> Vec2 {
        self.0.force(agent, neighbours)
    }
}

/// [`Scene::FlockingOwnRules`] with `agents` boids: the flocking scene's boids and rules, the rules
/// as [`OwnRule`]s.
fn own_rules_flock(agents: usize) -> App {
    let arena = arena_for(agents);
    let mut app = own_rules_app(arena, |app| {
        app.add_plugins(SpatialIndexPlugin::<Boid>::new(FLOCK_RADIUS))
            .add_neighbour_behaviour::<OwnRule<Separation>, Boid>()
            .add_neighbour_behaviour::<OwnRule<Alignment>, Boid>()
            .add_neighbour_behaviour::<OwnRule<Cohesion>, Boid>();
    });
    app.world_mut().spawn_batch(flock_boids(
        agents,
        arena,
        |(separation, alignment, cohesion)| {
            (OwnRule(separation), OwnRule(alignment), OwnRule(cohesion))
        },
    ));
    app
}

/// The radius of every rule of [`Scene::Reference`], and its index's cell size.
pub const REFERENCE_RADIUS: f32 = 50.0;

/// The top speed of [`Scene::Reference`]'s boids.
const REFERENCE_MAX_SPEED: f32 = 180.0;

/// splitmix64, the generator the reference loop draws its start state from.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A number in `[0, 1)` from the top 24 bits of the next splitmix64 draw.
fn unit(state: &mut u64) -> f32 {
    (splitmix(state) >> 40) as f32 / 16_777_216.0
}

/// [`Scene::Reference`] with `agents` boids: the reference loop's scene through the plugin's
/// public API. The square's side gives each boid [`AREA_PER_AGENT`]; from splitmix64 seeded with
/// 42, each boid draws its x, y, heading, speed (half to full), wander angle and a seed of its own
/// (which the plugin does not use: its wander draws from each agent's `SteeringRng`).
fn reference_flock(agents: usize) -> App {
    let side = (agents as f64 * f64::from(AREA_PER_AGENT)).sqrt() as f32;
    let arena = Rect::new(0.0, 0.0, side, side);
    let mut app = flock_app(arena, REFERENCE_RADIUS);
    // The loop's separation, the sum of `(self - other) / distance²` at weight 1.5, is the push by
    // distance (`radius / distance` along the way away) at a strength of `1 / radius`.
    let separation = Separation {
        strength: 1.0 / REFERENCE_RADIUS,
        weight: 1.5,
        ..Separation::new(REFERENCE_RADIUS).with_method(SeparationMethod::ByDistance)
    };
    // The loop does not truncate alignment and cohesion: their forces are at most twice the top
    // speed long, so a strength of that never cuts them.
    let alignment = Alignment {
        strength: 2.0 * REFERENCE_MAX_SPEED,
        ..Alignment::new(REFERENCE_RADIUS).with_method(AlignmentMethod::MeanVelocity)
    };
    let cohesion = Cohesion {
        strength: 2.0 * REFERENCE_MAX_SPEED,
        ..Cohesion::new(REFERENCE_RADIUS).with_method(CohesionMethod::Seek)
    };
    let mut seed = 42;
    let boids: Vec<_> = (0..agents)
        .map(|_| {
            let x = (unit(&mut seed) * side).min(side * 0.999_999);
            let y = (unit(&mut seed) * side).min(side * 0.999_999);
            let heading = unit(&mut seed) * core::f32::consts::TAU;
            let speed = REFERENCE_MAX_SPEED * (0.5 + 0.5 * unit(&mut seed));
            let angle = unit(&mut seed) * core::f32::consts::TAU - core::f32::consts::PI;
            splitmix(&mut seed);
            (
                (
                    Boid,
                    Transform::from_xyz(x, y, 0.0),
                    Velocity(Vec2::from_angle(heading) * speed),
                    MaxSpeed(REFERENCE_MAX_SPEED),
                    MaxForce(600.0),
                    Mass(1.0),
                ),
                (
                    separation,
                    alignment,
                    cohesion,
                    // The circle method's defaults are the loop's: 90 ahead, radius 180, an angle
                    // change of 1 radian.
                    Wander::default().with_angle(angle),
                ),
            )
        })
        .collect();
    app.world_mut().spawn_batch(boids);
    app
}

/// Runs the steering schedule once, one [`STEP`] long.
pub fn step(app: &mut App) {
    let world = app.world_mut();
    world.resource_mut::<Time>().advance_by(STEP);
    world.run_schedule(SteeringSchedule);
}

/// The obstacle scene with `agents` wanderers and `agents / 100` obstacles among them, plus
/// `far_obstacles` more outside the containment area, nowhere near an agent (to show that
/// obstacles far away cost nothing).
pub fn obstacle_field(agents: usize, far_obstacles: usize) -> App {
    let arena = arena_for(agents);
    let mut app = ready(headless_app());
    let world = app.world_mut();
    let obstacle = |index: usize, position: Vec2| {
        let size = 8.0 + (index % 5) as f32 * 3.0;
        let shape = if index.is_multiple_of(2) {
            Obstacle::circle(size)
        } else {
            Obstacle::rectangle(Vec2::splat(size * 1.6))
        };
        (shape, Transform::from_translation(position.extend(0.0)))
    };
    let near: Vec<_> = spread(agents / 100, arena, 0.61)
        .enumerate()
        .map(|(index, (position, _))| obstacle(index, position))
        .collect();
    world.spawn_batch(near);
    // A ring of the same density round the arena, a whole arena away from it.
    let outside = Rect::from_center_half_size(Vec2::ZERO, arena.half_size() * 5.0);
    let far: Vec<_> = spread(far_obstacles * 3, outside, 0.29)
        .filter(|(position, _)| !arena.inflate(arena.width()).contains(*position))
        .take(far_obstacles)
        .enumerate()
        .map(|(index, (position, _))| obstacle(index, position))
        .collect();
    world.spawn_batch(far);
    let agents = spread(agents, arena, 0.0).map(move |(position, heading)| {
        (
            Transform::from_translation(position.extend(0.0)),
            Velocity(heading * 60.0),
            Wander::default().with_angle(heading.to_angle()),
            AvoidObstacles::new(60.0, 4.0),
            Containment::rectangle(arena.center(), arena.size()),
        )
    });
    world.spawn_batch(agents);
    app
}
