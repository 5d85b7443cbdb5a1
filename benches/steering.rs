//! The benchmarks of `docs/performance.md`: `cargo bench` runs them all and ends with the table of
//! ratios; `cargo bench -- wander` runs one group.
//!
//! - `wander`: one step of the steering schedule for N wanderers, and the same arithmetic as a plain
//!   loop over a `Vec` of structs, parallelised the same way (the baseline).
//! - `hunter_prey`: one step of the hunter / prey example's rules, N prey and N / 100 hunters.
//! - `neighbours`: the hunter / prey neighbour queries (each hunter's closest prey in sight, each
//!   prey's closest hunter in range) with `SpatialIndex`, with a k-d tree (kiddo) and with an
//!   all-pairs scan.
//! - `flocking`: one step of the flocking scene (N boids with separation, alignment, cohesion and
//!   wander, index rebuild included), and the same arithmetic as a plain loop over a `Vec` of
//!   structs with a grid, parallelised the same way (the baseline), checked to move every boid to
//!   the same bits. At 10 000 and 100 000 boids also the same scene with separation by distance,
//!   with a field of view of 270 degrees for each rule, with Reynolds' classic alignment and
//!   cohesion, with weights (alignment's 0: off), and the default rules written as a
//!   user's own neighbour behaviours (`Scene::FlockingOwnRules`, which must move every boid to the
//!   same bits), each timed against the default settings in alternate blocks.
//!
//! - `obstacles`: one step of N wanderers avoiding N / 100 obstacles inside a containment area, and
//!   at 100 000 the same with 9 000 more obstacles far outside it.
//! - `reference`: the hand-written reference loop's scene (`Scene::Reference`: Reynolds' classic
//!   boids) through the plugin, at 10 000 and 100 000 boids, and, when the loop is built
//!   (`FLOCKING_LOOP`, by default `~/.cache/flocking-loop/release/flock`, as its README builds it),
//!   the loop itself in a child process, the two in alternate rounds on the same thread count.
//!   `benches/reference_loop.sh` does the same on one and on two threads.
//!
//! Machines are shared and noisy, so the headline figures are ratios between benchmarks of one run;
//! for wander and flocking, a ratio measured with plugin and baseline in alternate blocks
//! (`paired_ratio`), and for flocking the growth from N to 10 N boids, measured with the two sizes
//! in alternate blocks (`paired_growth`).

#[path = "../examples/stress/scenes.rs"]
mod scenes;
#[path = "shared/timing.rs"]
mod timing;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bevy::math::{Rect, Vec2};
use bevy::prelude::{App, Entity, Transform, With, World};
use bevy::tasks::{ComputeTaskPool, ParallelSlice, ParallelSliceMut, TaskPool, TaskPoolBuilder};
use bevy_steer::forces;
use bevy_steer::prelude::*;
use criterion::Criterion;
use kiddo::SquaredEuclidean;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use scenes::rules::{Hunter, HunterPreySettings, Prey, spread};
use scenes::{Scene, arena_for};
use timing::{
    Medians, WINDOW, Windowed, block, chunk_size, measure, measure_against_baseline,
    measure_in_windows, median, steps_for,
};

/// The step length, in seconds.
const DT: f32 = 1.0 / 60.0;

/// A wanderer as a straightforward hand-written simulation keeps it.
struct PlainWanderer {
    position: Vec2,
    velocity: Vec2,
    wander_angle: f32,
    circle_distance: f32,
    circle_radius: f32,
    angle_change: f32,
    max_speed: f32,
    max_force: f32,
    mass: f32,
    rng: SmallRng,
}

impl PlainWanderer {
    /// The tutorial's wander and update, with `sin_cos` and a random number each step.
    fn step(&mut self, dt: f32) {
        let (sin, cos) = self.wander_angle.sin_cos();
        let circle_centre = self.velocity.normalize_or_zero() * self.circle_distance;
        let force = circle_centre + Vec2::new(cos, sin) * self.circle_radius;
        self.wander_angle += (self.rng.random::<f32>() - 0.5) * self.angle_change;
        let force = force.clamp_length_max(self.max_force);
        self.velocity = (self.velocity + force / self.mass * dt).clamp_length_max(self.max_speed);
        self.position += self.velocity * dt;
    }
}

/// The wander scene's agents, with the plugin's default parameters.
fn plain_wanderers(count: usize) -> Vec<PlainWanderer> {
    let defaults = Wander::default();
    spread(count, arena_for(count), 0.0)
        .enumerate()
        .map(|(index, (position, heading))| PlainWanderer {
            position,
            velocity: heading * 60.0,
            wander_angle: heading.to_angle(),
            circle_distance: defaults.circle_distance,
            circle_radius: defaults.circle_radius,
            angle_change: defaults.angle_change,
            max_speed: MaxSpeed::default().0,
            max_force: MaxForce::default().0,
            mass: Mass::default().0,
            rng: SmallRng::seed_from_u64(index as u64),
        })
        .collect()
}

fn wander(criterion: &mut Criterion, medians: &mut Medians) {
    let mut group = criterion.benchmark_group("wander");
    for agents in [1_000, 10_000, 100_000, 1_000_000] {
        let mut app = Scene::Wander.app(agents);
        let plugin = || scenes::step(&mut app);
        // The app above set up the compute pool; the baseline shares it.
        let pool = ComputeTaskPool::get();
        let mut wanderers = plain_wanderers(agents);
        let chunk = chunk_size(agents, pool);
        let baseline = || {
            wanderers.par_chunk_map_mut(pool, chunk, |_, wanderers| {
                wanderers.iter_mut().for_each(|wanderer| wanderer.step(DT));
            });
        };
        measure_against_baseline(&mut group, "wander", medians, agents, plugin, baseline);
    }
    group.finish();
}

fn hunter_prey(criterion: &mut Criterion, medians: &mut Medians) {
    let mut group = criterion.benchmark_group("hunter_prey");
    for prey in [1_000, 10_000, 100_000] {
        let mut app = Scene::HunterPrey.app(prey);
        measure(&mut group, "hunter_prey", medians, "step", prey, || {
            scenes::step(&mut app);
        });
    }
    group.finish();
}

/// The closest of `candidates` to `point` within `radius`, ties to the lesser entity, by looking
/// at every one: what [`SpatialIndex::closest`] answers.
fn closest_by_scan(candidates: &[(Entity, Vec2)], point: Vec2, radius: f32) -> Option<Entity> {
    candidates
        .iter()
        .map(|(entity, position)| (position.distance_squared(point), *entity))
        .filter(|(distance, _)| *distance <= radius * radius)
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, entity)| entity)
}

/// [`SpatialIndex::closest`] as a function of the point.
fn closest_in<M>(
    index: &SpatialIndex<M>,
    radius: f32,
) -> impl Fn(Vec2) -> Option<Entity> + Send + Sync + '_ {
    move |point| index.closest(point, radius, None).map(|found| found.entity)
}

/// kiddo's k-d tree with the fastest queries (built once, then read only), its items indices into
/// the slice it was built from.
type KdTree = kiddo::immutable::float::kdtree::ImmutableKdTree<f32, u32, 2, 32>;

/// A k-d tree of `candidates`' positions.
fn tree_of(candidates: &[(Entity, Vec2)]) -> KdTree {
    let points: Vec<[f32; 2]> = candidates.iter().map(|(_, p)| p.to_array()).collect();
    KdTree::new_from_slice(&points)
}

/// [`closest_by_scan`]'s answer from `tree`, a k-d tree of `candidates`.
fn closest_in_tree<'a>(
    tree: &'a KdTree,
    candidates: &'a [(Entity, Vec2)],
    radius: f32,
) -> impl Fn(Vec2) -> Option<Entity> + Send + Sync + 'a {
    move |point| {
        let nearest = tree.nearest_one::<SquaredEuclidean>(&point.to_array());
        (nearest.distance <= radius * radius).then(|| candidates[nearest.item as usize].0)
    }
}

/// The squared distance from each of `points` to its answer among `candidates`.
fn distances(
    points: &[(Entity, Vec2)],
    candidates: &[(Entity, Vec2)],
    answers: &[Option<Entity>],
) -> Vec<Option<f32>> {
    let position_of: HashMap<Entity, Vec2> = candidates.iter().copied().collect();
    points
        .iter()
        .zip(answers)
        .map(|((_, point), answer)| {
            answer.map(|entity| position_of[&entity].distance_squared(*point))
        })
        .collect()
}

/// Each query point's answer, computed in parallel chunks.
fn answer_all(
    pool: &TaskPool,
    points: &[(Entity, Vec2)],
    answer: impl Fn(Vec2) -> Option<Entity> + Send + Sync,
) -> Vec<Option<Entity>> {
    points
        .par_chunk_map(pool, chunk_size(points.len(), pool), |_, points| {
            points
                .iter()
                .map(|(_, point)| answer(*point))
                .collect::<Vec<_>>()
        })
        .concat()
}

fn neighbours(criterion: &mut Criterion, medians: &mut Medians) {
    let settings = HunterPreySettings::default();
    let (sight, alert) = (settings.hunter_sight, settings.prey_alert_range);
    let pool = ComputeTaskPool::get_or_init(|| {
        TaskPoolBuilder::new()
            .num_threads(scenes::task_pool_options().compute.min_threads)
            .build()
    });
    let mut group = criterion.benchmark_group("neighbours");
    group.sample_size(10);
    for prey_count in [1_000, 10_000, 100_000] {
        let arena: Rect = arena_for(prey_count);
        let with_entities = |count: usize, first: u32, salt: f32| -> Vec<(Entity, Vec2)> {
            spread(count, arena, salt)
                .zip(first..)
                .map(|((position, _), index)| {
                    (Entity::from_raw_u32(index).expect("small index"), position)
                })
                .collect()
        };
        let prey = with_entities(prey_count, 0, 0.0);
        let hunters = with_entities(prey_count / 100, prey_count as u32, 0.37);

        let mut prey_index = SpatialIndex::<Prey>::new(sight);
        let mut hunter_index = SpatialIndex::<Hunter>::new(alert);
        let mut by_index = || {
            prey_index.rebuild(prey.iter().copied());
            hunter_index.rebuild(hunters.iter().copied());
            (
                answer_all(pool, &hunters, closest_in(&prey_index, sight)),
                answer_all(pool, &prey, closest_in(&hunter_index, alert)),
            )
        };
        // The alternative the grid was chosen over, rebuilt each step as the grid is.
        let by_tree = || {
            let (prey_tree, hunter_tree) = (tree_of(&prey), tree_of(&hunters));
            (
                answer_all(pool, &hunters, closest_in_tree(&prey_tree, &prey, sight)),
                answer_all(pool, &prey, closest_in_tree(&hunter_tree, &hunters, alert)),
            )
        };
        let by_scan = || {
            (
                answer_all(pool, &hunters, |point| closest_by_scan(&prey, point, sight)),
                answer_all(pool, &prey, |point| closest_by_scan(&hunters, point, alert)),
            )
        };
        let answers = by_scan();
        assert!(
            by_index() == answers,
            "the index and the scan disagree at {prey_count} prey"
        );
        // The tree breaks ties between equally close candidates its own way: its answers are
        // checked by their distance.
        let tree_answers = by_tree();
        assert!(
            distances(&hunters, &prey, &tree_answers.0) == distances(&hunters, &prey, &answers.0)
                && distances(&prey, &hunters, &tree_answers.1)
                    == distances(&prey, &hunters, &answers.1),
            "the k-d tree and the scan disagree at {prey_count} prey"
        );
        measure(
            &mut group,
            "neighbours",
            medians,
            "index",
            prey_count,
            || {
                std::hint::black_box(by_index());
            },
        );
        measure(
            &mut group,
            "neighbours",
            medians,
            "kdtree",
            prey_count,
            || {
                std::hint::black_box(by_tree());
            },
        );
        measure(
            &mut group,
            "neighbours",
            medians,
            "scan",
            prey_count,
            || {
                std::hint::black_box(by_scan());
            },
        );
    }
    group.finish();
}

/// The flocking scene's radii and strengths, shared by every boid of the baseline.
#[derive(Clone, Copy)]
struct FlockRules {
    separation_radius: f32,
    separation_strength: f32,
    /// Alignment's and cohesion's radius (the scene gives both the same).
    flock_radius: f32,
    alignment_strength: f32,
    cohesion_strength: f32,
}

impl FlockRules {
    /// The flocking scene's: its radii, the behaviours' default strengths.
    fn of_scene() -> Self {
        Self {
            separation_radius: scenes::SEPARATION_RADIUS,
            separation_strength: Separation::default().strength,
            flock_radius: scenes::FLOCK_RADIUS,
            alignment_strength: Alignment::default().strength,
            cohesion_strength: Cohesion::default().strength,
        }
    }
}

/// A boid as a straightforward hand-written flocking simulation keeps it.
#[derive(Clone)]
struct PlainBoid {
    /// Its key in the grid: the plugin's entity for it, so that the grid holds the boids in the
    /// order the plugin's index does and the neighbours' terms add up in the same order.
    entity: Entity,
    position: Vec2,
    velocity: Vec2,
    wander_angle: f32,
    circle_distance: f32,
    circle_radius: f32,
    angle_change: f32,
    max_speed: f32,
    max_force: f32,
    mass: f32,
    /// The plugin's generator for the boid (xoshiro128++, 16 bytes), so that it draws the same
    /// numbers.
    rng: SteeringRng,
}

impl PlainBoid {
    /// One step: wander, separation, alignment and cohesion from `grid` (every boid as it was at
    /// the start of the step), then the integration and the wrap round `arena`. `neighbours` is
    /// scratch space.
    fn step(
        &mut self,
        grid: &SpatialIndex<scenes::Boid>,
        rules: FlockRules,
        arena: Rect,
        neighbours: &mut Vec<Neighbour>,
        dt: f32,
    ) {
        let agent = forces::Boid {
            position: self.position,
            velocity: self.velocity,
            max_speed: self.max_speed,
        };
        // Wander: the circle method in the world frame, then the angle moves on.
        let direction = forces::wander_displacement_direction(
            self.wander_angle,
            WanderFrame::World,
            self.velocity,
        );
        let wander = forces::wander_circle(
            self.velocity,
            self.circle_distance,
            self.circle_radius,
            direction,
        );
        self.wander_angle =
            forces::next_wander_angle(self.wander_angle, self.angle_change, self.rng.random(), dt);
        // One look at the grid, at the widest radius; separation keeps the closer neighbours. The
        // view is all round, so there is no field of view to test.
        neighbours.clear();
        let me = self.entity;
        grid.for_each_within(self.position, rules.flock_radius, |neighbour| {
            if neighbour.entity != me {
                neighbours.push(neighbour);
            }
        });
        let positions = || neighbours.iter().map(|neighbour| neighbour.position);
        let close = rules.separation_radius * rules.separation_radius;
        let separation = forces::separation(
            self.position,
            positions().filter(|position| position.distance_squared(self.position) <= close),
        ) * rules.separation_strength;
        let heading = forces::alignment(neighbours.iter().map(|neighbour| neighbour.velocity));
        let alignment = forces::steer_to_heading(&agent, heading, rules.alignment_strength);
        let cohesion = forces::mean(positions()).map_or(Vec2::ZERO, |centre| {
            forces::truncate(
                forces::seek(&agent, centre, rules.flock_radius),
                rules.cohesion_strength,
            )
        });
        // Summed in the plugin's order: wander, then the neighbour behaviours as registered.
        let steering = Vec2::ZERO + wander + separation + alignment + cohesion;
        self.velocity = forces::integrate_velocity(
            self.velocity,
            steering,
            self.mass,
            self.max_speed,
            self.max_force,
            dt,
        );
        self.position += self.velocity * dt;
        if let Some(position) = scenes::wrapped(arena, self.position) {
            self.position = position;
        }
    }
}

/// The baseline's flock: a `Vec` of boids, and a grid of them rebuilt every step.
///
/// The grid is bevy_steer's `SpatialIndex` (a uniform grid filled by a counting sort), fed from
/// the `Vec` in the order the plugin's index is fed: neighbours then come in the same order on both
/// sides, so that the sums over them round alike and both move every boid to the same bits, which
/// the benchmark checks. The ratio then measures what the plugin adds to the same grid and
/// arithmetic; how the grid compares with other structures is the `neighbours` group's question.
struct PlainFlock {
    boids: Vec<PlainBoid>,
    grid: SpatialIndex<scenes::Boid>,
    rules: FlockRules,
    arena: Rect,
    /// The plugin's step length, to the bit.
    dt: f32,
}

/// The components a boid of the flocking scene is read from.
type BoidState = (
    Entity,
    &'static Transform,
    &'static Velocity,
    &'static Wander,
    &'static SteeringRng,
    &'static MaxSpeed,
    &'static MaxForce,
    &'static Mass,
);

impl PlainFlock {
    /// The boids of the flocking scene's `world` as they are now, in the order its queries visit
    /// them.
    fn of(world: &mut World) -> Self {
        let boids = world
            .query_filtered::<BoidState, With<scenes::Boid>>()
            .iter(world)
            .map(
                |(entity, transform, velocity, wander, rng, max_speed, max_force, mass)| {
                    PlainBoid {
                        entity,
                        position: transform.translation.truncate(),
                        velocity: velocity.0,
                        wander_angle: wander.angle,
                        circle_distance: wander.circle_distance,
                        circle_radius: wander.circle_radius,
                        angle_change: wander.angle_change,
                        max_speed: max_speed.0,
                        max_force: max_force.0,
                        mass: mass.0,
                        rng: rng.clone(),
                    }
                },
            )
            .collect();
        Self {
            boids,
            grid: SpatialIndex::new(scenes::FLOCK_RADIUS),
            rules: FlockRules::of_scene(),
            arena: world.resource::<scenes::FlockArena>().0,
            dt: scenes::STEP.as_secs_f32(),
        }
    }

    /// A copy of this flock as it is now, with a grid of its own.
    fn restarted(&self) -> Self {
        Self {
            boids: self.boids.clone(),
            grid: SpatialIndex::new(scenes::FLOCK_RADIUS),
            ..*self
        }
    }

    /// One step: the grid rebuilt on one thread (as the plugin's index is), then the boids in one
    /// chunk per compute thread.
    fn step(&mut self, pool: &TaskPool) {
        let Self {
            boids,
            grid,
            rules,
            arena,
            dt,
        } = self;
        grid.rebuild_moving(boids.iter().map(|boid| Neighbour {
            entity: boid.entity,
            position: boid.position,
            velocity: boid.velocity,
        }));
        let (grid, rules, arena, dt) = (&*grid, *rules, *arena, *dt);
        let chunk = chunk_size(boids.len(), pool);
        boids.par_chunk_map_mut(pool, chunk, |_, boids| {
            let mut neighbours = Vec::new();
            for boid in boids {
                boid.step(grid, rules, arena, &mut neighbours, dt);
            }
        });
    }

    /// Whether every boid of `world` has the position and velocity of its baseline boid, to the
    /// bit.
    fn matches(&self, world: &mut World) -> bool {
        let bits = |v: Vec2| v.to_array().map(f32::to_bits);
        let plugin: Vec<_> = world
            .query_filtered::<(&Transform, &Velocity), With<scenes::Boid>>()
            .iter(world)
            .map(|(transform, velocity)| (bits(transform.translation.truncate()), bits(velocity.0)))
            .collect();
        plugin.len() == self.boids.len()
            && plugin
                .iter()
                .zip(&self.boids)
                .all(|(plugin, boid)| *plugin == (bits(boid.position), bits(boid.velocity)))
    }
}

/// Plugin time / baseline time per step in alternate blocks of about 10 ms, for `budget`, like
/// [`paired_ratio`], with both sides stepping in lockstep over the windows of fresh flocking
/// scenes ([`Windowed`]): each block runs as many steps on both, after which both are checked to
/// have moved every boid to the same bits. Each pair is thus timed on the same states.
/// Steps `app` and the baseline `flock` (the same boids) through the timing window side by side,
/// and checks that they moved the boids alike: `what` names the plugin's way of stepping them.
fn step_beside(app: &mut App, flock: &mut PlainFlock, pool: &TaskPool, what: &str, agents: usize) {
    for _ in 0..WINDOW {
        scenes::step(app);
        flock.step(pool);
    }
    assert!(
        flock.matches(app.world_mut()),
        "{what} and the baseline moved the boids differently at {agents} boids"
    );
}

fn flocking_paired_ratio(
    agents: usize,
    start: &PlainFlock,
    pool: &TaskPool,
    budget: Duration,
) -> f64 {
    let mut both = Windowed::new(
        || (Scene::Flocking.app(agents), start.restarted()),
        |(app, flock): &mut (App, PlainFlock)| {
            scenes::step(app);
            flock.step(pool);
        },
    );
    // Warm both up by as many steps, and size the blocks from that.
    let warm_up = 3;
    let (app, flock) = both.ahead(warm_up);
    let steps = steps_for(block(&mut || scenes::step(app), warm_up)).min(WINDOW as u32);
    block(&mut || flock.step(pool), warm_up);
    let mut ratios = Vec::new();
    let started = Instant::now();
    while ratios.len() < 11 || started.elapsed() < budget {
        let (app, flock) = both.ahead(steps);
        let plugin_time = block(&mut || scenes::step(app), steps);
        ratios.push(plugin_time / block(&mut || flock.step(pool), steps));
        assert!(
            flock.matches(app.world_mut()),
            "the plugin and the baseline moved the boids differently at {agents} boids"
        );
    }
    median(ratios)
}

/// How the time per step grows from N to 10 N, measured as [`paired_ratio`] measures plugin /
/// baseline: the two sizes in alternate blocks, for `budget`, each over the [`WINDOW`] of fresh
/// scenes; the median over block pairs of large / small. Criterion's medians of the two sizes are
/// taken a minute or more apart, and on a shared machine the load changes in between.
///
/// A block is up to 30 ms (three times [`paired_ratio`]'s, so that the small scene, whose data the
/// large one's block evicts from the caches, pays for reloading it over more steps), and a whole
/// number of blocks make a window, so that both sizes are timed over the same steps of their
/// scenes.
fn paired_growth<S, L>(
    mut small: Windowed<S, impl FnMut() -> S, impl FnMut(&mut S)>,
    mut large: Windowed<L, impl FnMut() -> L, impl FnMut(&mut L)>,
    budget: Duration,
) -> f64 {
    let blocks_of = |seconds: f64| {
        let most = steps_for(seconds / 3.0).min(WINDOW as u32);
        (1..=most)
            .rev()
            .find(|steps| WINDOW.is_multiple_of(u64::from(*steps)))
            .unwrap_or(1)
    };
    let small_steps = blocks_of(small.block(3));
    let large_steps = blocks_of(large.block(3));
    let mut ratios = Vec::new();
    let started = Instant::now();
    while ratios.len() < 11 || started.elapsed() < budget {
        let small_time = small.block(small_steps);
        ratios.push(large.block(large_steps) / small_time);
    }
    median(ratios)
}

/// The flocking scene's other settings the benchmark times: each one's name, the name of its time
/// over the default settings' (paired), and its scene.
const FLOCKING_SETTINGS: [(&str, &str, Scene); 5] = [
    (
        "plugin, by distance",
        "by distance / default, paired",
        Scene::FlockingByDistance,
    ),
    (
        "plugin, field of view",
        "field of view / default, paired",
        Scene::FlockingFieldOfView,
    ),
    (
        "plugin, classic forms",
        "classic forms / default, paired",
        Scene::FlockingClassic,
    ),
    (
        "plugin, weighted",
        "weighted / default, paired",
        Scene::FlockingWeighted,
    ),
    (
        "plugin, own rules",
        "own rules / default, paired",
        Scene::FlockingOwnRules,
    ),
];

fn flocking(criterion: &mut Criterion, medians: &mut Medians) {
    let mut group = criterion.benchmark_group("flocking");
    for agents in [1_000, 10_000, 100_000] {
        let mut app = Scene::Flocking.app(agents);
        // The app above set up the compute pool; the baseline shares it.
        let pool = ComputeTaskPool::get();
        let start = PlainFlock::of(app.world_mut());
        let neighbours = |world: &mut World| {
            [scenes::SEPARATION_RADIUS, scenes::FLOCK_RADIUS]
                .map(|radius| scenes::mean_neighbours(world, radius))
        };
        let mut flock = start.restarted();
        // The first step, left out of the timing (and timed here once, to show why).
        let first_steps = [
            block(&mut || scenes::step(&mut app), 1),
            block(&mut || flock.step(pool), 1),
        ];
        let at_start = neighbours(app.world_mut());
        step_beside(&mut app, &mut flock, pool, "the plugin", agents);
        let at_end = neighbours(app.world_mut());
        drop(app);
        measure_in_windows(
            &mut group,
            "flocking",
            medians,
            "plugin",
            agents,
            || Scene::Flocking.app(agents),
            scenes::step,
        );
        measure_in_windows(
            &mut group,
            "flocking",
            medians,
            "baseline",
            agents,
            || start.restarted(),
            |flock| flock.step(pool),
        );
        if medians.get("flocking", "plugin", agents).is_some() {
            let ratio = flocking_paired_ratio(agents, &start, pool, Duration::from_secs(4));
            medians.0.push(("flocking", "paired", agents, ratio));
            // Kept beside the times for the summary.
            for (name, value) in [
                ("plugin's first step", first_steps[0]),
                ("baseline's first step", first_steps[1]),
                ("separation neighbours at the start", at_start[0]),
                ("separation neighbours at the end", at_end[0]),
                ("neighbours at the start", at_start[1]),
                ("neighbours at the end", at_end[1]),
            ] {
                medians.0.push(("flocking", name, agents, value));
            }
        }
    }
    // The other settings of the rules, beside the defaults.
    for agents in [10_000, 100_000] {
        for (name, _, scene) in FLOCKING_SETTINGS {
            if scene == Scene::FlockingOwnRules {
                // The same rules, stepped another way: the same bits as the baseline's.
                let mut app = scene.app(agents);
                let mut flock = PlainFlock::of(app.world_mut());
                step_beside(
                    &mut app,
                    &mut flock,
                    ComputeTaskPool::get(),
                    "the own rules",
                    agents,
                );
            }
            measure_in_windows(
                &mut group,
                "flocking",
                medians,
                name,
                agents,
                || scene.app(agents),
                scenes::step,
            );
        }
    }
    group.finish();
    for agents in [10_000, 100_000] {
        for (name, paired, scene) in FLOCKING_SETTINGS {
            if medians.get("flocking", name, agents).is_none() {
                continue;
            }
            // `paired_growth` times any two scenes in alternate blocks: here the setting's
            // over the default's.
            let ratio = paired_growth(
                Windowed::new(move || Scene::Flocking.app(agents), scenes::step),
                Windowed::new(move || scene.app(agents), scenes::step),
                Duration::from_secs(4),
            );
            medians.0.push(("flocking", paired, agents, ratio));
        }
    }
    for agents in [1_000, 10_000] {
        let larger = agents * 10;
        if medians.get("flocking", "plugin", agents).is_none()
            || medians.get("flocking", "plugin", larger).is_none()
        {
            continue;
        }
        let plugin = |agents| Windowed::new(move || Scene::Flocking.app(agents), scenes::step);
        let growth = paired_growth(plugin(agents), plugin(larger), Duration::from_secs(6));
        medians
            .0
            .push(("flocking", "plugin growth, paired", agents, growth));
        let pool = ComputeTaskPool::get();
        let baseline = |agents| {
            let start = PlainFlock::of(Scene::Flocking.app(agents).world_mut());
            Windowed::new(
                move || start.restarted(),
                |flock: &mut PlainFlock| flock.step(pool),
            )
        };
        let growth = paired_growth(baseline(agents), baseline(larger), Duration::from_secs(6));
        medians
            .0
            .push(("flocking", "baseline growth, paired", agents, growth));
    }
}

/// Obstacle avoidance: N wanderers avoiding N / 100 obstacles inside a containment area (windows of
/// a fresh scene, as it changes while the agents first meet the obstacles), and at 100 000 the same
/// with 9 000 more obstacles far outside the area, which should cost nothing.
fn obstacles(criterion: &mut Criterion, medians: &mut Medians) {
    let mut group = criterion.benchmark_group("obstacles");
    for agents in [1_000, 10_000, 100_000] {
        measure_in_windows(
            &mut group,
            "obstacles",
            medians,
            "near only",
            agents,
            || Scene::Obstacles.app(agents),
            scenes::step,
        );
    }
    measure_in_windows(
        &mut group,
        "obstacles",
        medians,
        "with 9 000 far",
        100_000,
        || scenes::obstacle_field(100_000, 9_000),
        scenes::step,
    );
    group.finish();
}

/// Steps of the reference loop's scene timed per round, after warm-up steps: the loop's README's
/// `--steps 60 --warmup 10`.
const REFERENCE_STEPS: u32 = 60;
const REFERENCE_WARMUP: u32 = 10;

/// The reference loop's median step, in seconds, with `boids` boids on `threads` threads, from the
/// `RESULT` line of a run of `program`; `None` when it did not run.
fn reference_loop_step(program: &std::path::Path, boids: usize, threads: usize) -> Option<f64> {
    let output = std::process::Command::new(program)
        .args(["--agents", &boids.to_string()])
        .args(["--steps", &REFERENCE_STEPS.to_string()])
        .args(["--warmup", &REFERENCE_WARMUP.to_string()])
        .args(["--threads", &threads.to_string()])
        .output()
        .ok()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let milliseconds = stdout
        .split_whitespace()
        .find_map(|field| field.strip_prefix("median_ms="))?;
    milliseconds.parse::<f64>().ok().map(|ms| ms / 1e3)
}

/// The plugin's median step on a fresh reference scene of `boids` boids, as the loop times its own.
fn reference_plugin_step(boids: usize) -> f64 {
    let mut app = Scene::Reference.app(boids);
    for _ in 0..REFERENCE_WARMUP {
        scenes::step(&mut app);
    }
    median(
        (0..REFERENCE_STEPS)
            .map(|_| block(&mut || scenes::step(&mut app), 1))
            .collect(),
    )
}

fn reference(criterion: &mut Criterion, medians: &mut Medians) {
    let mut group = criterion.benchmark_group("reference");
    let program = std::env::var_os("FLOCKING_LOOP")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|home| std::path::Path::new(&home).join(".cache/flocking-loop/release/flock"))
        })
        .filter(|program| program.exists());
    for boids in [10_000, 100_000] {
        measure_in_windows(
            &mut group,
            "reference",
            medians,
            "plugin",
            boids,
            || Scene::Reference.app(boids),
            scenes::step,
        );
        if medians.get("reference", "plugin", boids).is_none() {
            continue;
        }
        let Some(program) = &program else {
            println!(
                "reference: no reference loop to time beside the plugin (build \
                 ../shared/reference/flocking-loop as its README says, or set FLOCKING_LOOP)"
            );
            continue;
        };
        // The loop in a child process and the plugin here, in alternate rounds, on the compute
        // pool's thread count.
        let threads = ComputeTaskPool::get().thread_num();
        let mut ratios = Vec::new();
        for round in 0..5 {
            let (plugin, reference) = if round % 2 == 0 {
                let plugin = reference_plugin_step(boids);
                (plugin, reference_loop_step(program, boids, threads))
            } else {
                let reference = reference_loop_step(program, boids, threads);
                (reference_plugin_step(boids), reference)
            };
            let Some(reference) = reference else {
                println!("reference: {} did not run", program.display());
                break;
            };
            ratios.push(plugin / reference);
        }
        if !ratios.is_empty() {
            medians.0.push((
                "reference",
                "plugin / loop, alternate rounds",
                boids,
                median(ratios),
            ));
        }
    }
    group.finish();
}

/// Prints the ratios: the figures `docs/performance.md` quotes.
fn print_summary(medians: &Medians) {
    let ms = |seconds: f64| format!("{:.3} ms", seconds * 1e3);
    let ratio_row = |name: &str, group: &str, agents: usize, numerator: &str, denominator: &str| {
        let (Some(top), Some(bottom)) = (
            medians.get(group, numerator, agents),
            medians.get(group, denominator, agents),
        ) else {
            return;
        };
        println!(
            "| {name} | {agents} | {} | {} | {:.2} |",
            ms(top),
            ms(bottom),
            top / bottom
        );
    };
    println!("\n| plugin / baseline, paired (the headline) | N | ratio |");
    println!("| --- | ---: | ---: |");
    for group in ["wander", "flocking"] {
        for agents in [1_000, 10_000, 100_000, 1_000_000] {
            if let Some(ratio) = medians.get(group, "paired", agents) {
                println!("| {group}, plugin / baseline, paired | {agents} | {ratio:.2} |");
            }
        }
    }
    for boids in [10_000, 100_000] {
        if let Some(ratio) = medians.get("reference", "plugin / loop, alternate rounds", boids) {
            println!(
                "| reference loop's scene, plugin / loop, alternate rounds, {} threads | {boids} | \
                 {ratio:.2} |",
                ComputeTaskPool::get().thread_num()
            );
        }
    }
    for (_, name, _) in FLOCKING_SETTINGS {
        for agents in [10_000, 100_000] {
            if let Some(ratio) = medians.get("flocking", name, agents) {
                println!("| flocking, {name} | {agents} | {ratio:.2} |");
            }
        }
    }
    println!("\n| benchmark | N | bevy_steer | compared with | ratio |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for agents in [1_000, 10_000, 100_000, 1_000_000] {
        ratio_row(
            "wander, plugin / baseline",
            "wander",
            agents,
            "plugin",
            "baseline",
        );
    }
    for agents in [1_000, 10_000, 100_000] {
        ratio_row(
            "flocking, plugin / baseline",
            "flocking",
            agents,
            "plugin",
            "baseline",
        );
    }
    // The settings against the defaults only paired (above): their windows and the defaults' are
    // timed minutes apart, on scenes of another age.
    ratio_row(
        "obstacles, 9 000 far ones more / near only",
        "obstacles",
        100_000,
        "with 9 000 far",
        "near only",
    );
    for agents in [1_000, 10_000, 100_000] {
        ratio_row(
            "neighbours, index / scan",
            "neighbours",
            agents,
            "index",
            "scan",
        );
        ratio_row(
            "neighbours, index / k-d tree",
            "neighbours",
            agents,
            "index",
            "kdtree",
        );
    }
    println!("\n| benchmark | N -> 10 N | time ratio |");
    println!("| --- | --- | ---: |");
    for (group, name) in [
        ("wander", "plugin"),
        ("hunter_prey", "step"),
        ("neighbours", "index"),
        ("neighbours", "kdtree"),
        ("flocking", "plugin"),
        ("flocking", "baseline"),
        ("obstacles", "near only"),
    ] {
        for agents in [1_000, 10_000, 100_000] {
            if let (Some(small), Some(large)) = (
                medians.get(group, name, agents),
                medians.get(group, name, agents * 10),
            ) {
                println!(
                    "| {group} {name} | {agents} -> {} | {:.2} |",
                    agents * 10,
                    large / small
                );
            }
        }
    }
    for name in ["plugin growth, paired", "baseline growth, paired"] {
        for agents in [1_000, 10_000] {
            if let Some(growth) = medians.get("flocking", name, agents) {
                println!(
                    "| flocking {name} | {agents} -> {} | {growth:.2} |",
                    agents * 10
                );
            }
        }
    }
    for prey in [1_000, 10_000, 100_000] {
        if let Some(step) = medians.get("hunter_prey", "step", prey) {
            println!(
                "hunter / prey, {prey} prey and {} hunters: {} per step",
                prey / 100,
                ms(step)
            );
        }
    }
    for boids in [1_000, 10_000, 100_000] {
        let get = |name| medians.get("flocking", name, boids).unwrap_or(f64::NAN);
        if let Some(step) = medians.get("flocking", "plugin", boids) {
            println!(
                "flocking, {boids} boids: {} per step (a fresh scene's first step, not timed in \
                 the window, one sample: plugin {}, baseline {}); neighbours per boid within {} from {:.1} \
                 to {:.1} over the window of {WINDOW} steps ({:.1} to {:.1} within {})",
                ms(step),
                ms(get("plugin's first step")),
                ms(get("baseline's first step")),
                scenes::FLOCK_RADIUS,
                get("neighbours at the start"),
                get("neighbours at the end"),
                get("separation neighbours at the start"),
                get("separation neighbours at the end"),
                scenes::SEPARATION_RADIUS,
            );
        }
    }
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    let mut medians = Medians::default();
    wander(&mut criterion, &mut medians);
    hunter_prey(&mut criterion, &mut medians);
    neighbours(&mut criterion, &mut medians);
    flocking(&mut criterion, &mut medians);
    obstacles(&mut criterion, &mut medians);
    reference(&mut criterion, &mut medians);
    criterion.final_summary();
    print_summary(&medians);
}
