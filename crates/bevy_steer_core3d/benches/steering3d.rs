//! The 3D benchmarks of `docs/performance.md` ("3D"): `cargo bench -p bevy_steer_core3d` runs them
//! all and ends with a table; `cargo bench -p bevy_steer_core3d -- flocking` runs one group.
//!
//! - `flocking`: one step of N boids in a cube (they wrap round its faces) with separation,
//!   alignment, cohesion and the sphere wander, the index rebuilt each step, at the 2D flocking
//!   scene's radii, strengths and mean neighbour count; beside a hand-written baseline that
//!   computes the same forces as fast as a loop can (a counting sort into cells each step with
//!   per-thread histograms, the state kept in cell order, the 3 x 3 x 3 cells round a boid scanned
//!   as 9 contiguous row ranges on SIMD lanes, the three sums in one pass, wander and integration
//!   in the same pass), checked at start-up to move the boids as the plugin does. The ratio plugin /
//!   baseline is measured in alternate blocks over the same steps of fresh scenes.
//! - `wander`: one step of N flyers wandering on the sphere, beside a plain parallel loop.
//! - `obstacles`: one step of N wanderers avoiding N / 100 spheres and boxes in a containment box.

#[path = "../../../benches/shared/timing.rs"]
mod timing;

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use bevy::app::TaskPoolOptions;
use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, ParallelSliceMut, TaskPool};
use bevy_steer_core3d::prelude::*;
use criterion::Criterion;
use rand::RngExt;
use timing::{
    Medians, WINDOW, Windowed, block, chunk_size, measure_against_baseline, measure_in_windows,
    median, steps_for,
};

/// The length of one step: the tutorials' 60 frames per second (as the 2D scenes').
const STEP: Duration = Duration::from_nanos(16_666_667);

/// The 2D flocking scene's separation radius.
const SEPARATION_RADIUS: f32 = 25.0;

/// The 2D flocking scene's alignment and cohesion radius, and the index's cell size.
const FLOCK_RADIUS: f32 = 45.0;

/// The mean number of other boids within [`FLOCK_RADIUS`] of a boid in the 2D flocking scene
/// while they are spread evenly: pi 45^2 / 460.8.
const NEIGHBOURS_2D: f32 = 13.8;

/// Cubic units per boid: a sphere of radius [`FLOCK_RADIUS`] then holds [`NEIGHBOURS_2D`] other
/// boids on average, (4/3) pi 45^3 / 13.8 = 27 660 (a cube 30.2 units wide). As in 2D, boids near
/// the faces have fewer: the index does not see across the wrap.
fn volume_per_boid() -> f32 {
    4.0 / 3.0 * core::f32::consts::PI * FLOCK_RADIUS.powi(3) / NEIGHBOURS_2D
}

/// The width of the cube that holds `agents` at the scenes' density.
fn cube_side(agents: usize) -> f32 {
    (agents.max(1) as f32 * volume_per_boid()).cbrt()
}

/// `count` positions spread evenly through the cube of side `side` centred on the origin (the
/// three-dimensional golden sequence, in f64 so that a large index keeps its fraction's bits),
/// each with a unit heading spread evenly over the sphere.
fn spread(count: usize, side: f32, salt: f64) -> impl Iterator<Item = (Vec3, Vec3)> {
    // The root of x^4 = x + 1 and its powers: the R3 sequence's steps.
    const PHI: f64 = 1.220_744_084_605_759_5;
    const GOLDEN: f64 = 0.618_033_988_749_895;
    (0..count).map(move |index| {
        let i = index as f64 + salt;
        let fraction = |step: f64, offset: f64| (i * step + offset).fract() as f32;
        let unit = Vec3::new(
            fraction(1.0 / PHI, 0.5),
            fraction(1.0 / (PHI * PHI), 0.5),
            fraction(1.0 / (PHI * PHI * PHI), 0.5),
        );
        // Uniform on the sphere: the height uniform, the turn round it a golden angle apart.
        let height = 2.0 * fraction(0.5 * GOLDEN, 0.25) - 1.0;
        let (sin, cos) = (fraction(GOLDEN, 0.0) * core::f32::consts::TAU).sin_cos();
        let across = (1.0 - height * height).max(0.0).sqrt();
        let heading = Vec3::new(across * cos, across * sin, height);
        ((unit - 0.5) * side, heading)
    })
}

/// Task pools that give the compute pool every core (Bevy's defaults leave one on two cores).
fn task_pool_options() -> TaskPoolOptions {
    let mut options = TaskPoolOptions::default();
    options.compute.min_threads = bevy::tasks::available_parallelism();
    options
}

/// `MinimalPlugins` with every core for compute, and the steering plugin, set up to be stepped by
/// hand.
fn headless_app(add: impl FnOnce(&mut App)) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: task_pool_options(),
        }),
        SteeringPlugin::default(),
    ));
    add(&mut app);
    app.finish();
    app.cleanup();
    app
}

/// Runs the steering schedule once, one [`STEP`] long.
fn step(app: &mut App) {
    let world = app.world_mut();
    world.resource_mut::<Time>().advance_by(STEP);
    world.run_schedule(SteeringSchedule);
}

/// The flocking scene's marker.
#[derive(Component, Clone, Copy, Debug, Default)]
struct Boid;

/// The cube the boids fly in: its least corner and its width.
#[derive(Resource, Clone, Copy, Debug)]
struct Cube {
    min: Vec3,
    side: f32,
}

impl Cube {
    /// The cube that holds `agents` at the scenes' density, centred on the origin.
    fn for_agents(agents: usize) -> Self {
        let side = cube_side(agents);
        Self {
            min: Vec3::splat(-side / 2.0),
            side,
        }
    }

    /// `position` brought back into the cube across the opposite face when it has left it (or
    /// `None` when it is inside, or not finite): the 2D scene's wrap in 3D.
    #[inline]
    fn wrapped(self, position: Vec3) -> Option<Vec3> {
        let max = self.min + self.side;
        let inside = position.cmpge(self.min).all() && position.cmple(max).all();
        (!inside && position.is_finite())
            .then(|| self.min + (position - self.min).rem_euclid(Vec3::splat(self.side)))
    }
}

/// Boids that leave the cube come back on the opposite side.
fn wrap_boids(cube: Res<Cube>, mut boids: Query<&mut Transform, With<Boid>>) {
    let cube = *cube;
    boids.par_iter_mut().for_each(|mut transform| {
        if let Some(position) = cube.wrapped(transform.translation) {
            transform.translation = position;
        }
    });
}

/// The flocking scene: `agents` boids with the 2D scene's rules (separation 25, alignment and
/// cohesion 45, default strengths and limits) and the sphere wander, heading where their wander
/// displacement points, at 60 units per second. `wander` off leaves wander out (for the check).
fn flock(agents: usize, wander: bool) -> App {
    flock_with(agents, wander, true)
}

/// [`flock`], or with `rules` off the same scene without the three rules: the index rebuild,
/// wander, integration and wrap alone, to tell what the flocking system costs.
fn flock_with(agents: usize, wander: bool, rules: bool) -> App {
    let cube = Cube::for_agents(agents);
    let mut app = headless_app(|app| {
        app.add_plugins(FlockingPlugin::<Boid>::new(FLOCK_RADIUS))
            .insert_resource(cube)
            .add_systems(
                SteeringSchedule,
                wrap_boids.after(SteeringSystems::Integrate),
            );
    });
    let world = app.world_mut();
    let boids = spread(agents, cube.side, 0.0).map(|(position, heading)| {
        (
            (
                Boid,
                Transform::from_translation(position),
                Velocity(heading * 60.0),
            ),
            (
                Separation::new(SEPARATION_RADIUS),
                Alignment::new(FLOCK_RADIUS),
                Cohesion::new(FLOCK_RADIUS),
            ),
            Wander {
                displacement: heading,
                ..default()
            },
        )
    });
    match (wander, rules) {
        (true, true) => drop(world.spawn_batch(boids)),
        (false, true) => drop(world.spawn_batch(boids.map(|(boid, rules, _)| (boid, rules)))),
        (true, false) => drop(world.spawn_batch(boids.map(|(boid, _, wander)| (boid, wander)))),
        (false, false) => drop(world.spawn_batch(boids.map(|(boid, ..)| boid))),
    }
    app
}

/// The mean number of other boids within `radius` of a boid of `world` (as the index counts them:
/// not across the wrap).
fn mean_neighbours(world: &mut World, radius: f32) -> f64 {
    let boids: Vec<(Entity, Vec3)> = world
        .query_filtered::<(Entity, &Transform), With<Boid>>()
        .iter(world)
        .map(|(entity, transform)| (entity, transform.translation))
        .collect();
    let mut index = SpatialIndex::<Boid>::new(radius);
    index.rebuild(boids.iter().copied());
    let mut found = 0_usize;
    for (_, position) in &boids {
        index.for_each_within(*position, radius, |_| found += 1);
    }
    (found - boids.len()) as f64 / boids.len().max(1) as f64
}

/// The most lanes the baseline's neighbour scan takes at a time (AVX-512's 16 `f32`): the sorted
/// columns are padded with as many entries.
const MOST_LANES: usize = 16;

/// The baseline's columns: position, velocity and wander displacement, one axis each.
const COLUMNS: usize = 9;
const VX: usize = 3;
const WX: usize = 6;

/// The flocking scene's rules and limits as the baseline's constants.
#[derive(Clone, Copy)]
struct Rules {
    separation_squared: f32,
    flock_radius: f32,
    flock_squared: f32,
    separation_strength: f32,
    alignment_strength: f32,
    cohesion_strength: f32,
    circle_distance: f32,
    circle_radius: f32,
    /// The wander nudge's scale: `angle_change * sqrt(dt * 60)`.
    nudge: f32,
    max_speed: f32,
    max_force: f32,
    /// `dt / mass`.
    step_per_mass: f32,
    dt: f32,
}

impl Rules {
    /// The flocking scene's (with `wander` off, wander's force left out).
    fn of_scene(wander: bool) -> Self {
        let dt = STEP.as_secs_f32();
        let defaults = Wander::default();
        let (circle_distance, circle_radius) = if wander {
            (defaults.circle_distance, defaults.circle_radius)
        } else {
            (0.0, 0.0)
        };
        Self {
            separation_squared: SEPARATION_RADIUS * SEPARATION_RADIUS,
            flock_radius: FLOCK_RADIUS,
            flock_squared: FLOCK_RADIUS * FLOCK_RADIUS,
            separation_strength: Separation::default().strength,
            alignment_strength: Alignment::default().strength,
            cohesion_strength: Cohesion::default().strength,
            circle_distance,
            circle_radius,
            nudge: defaults.angle_change * (dt * 60.0).sqrt(),
            max_speed: MaxSpeed::default().0,
            max_force: MaxForce::default().0,
            step_per_mass: dt / Mass::default().0,
            dt,
        }
    }
}

/// Unit vector along `v`, zero for a zero vector (the plugin's `direction_or_zero` for the
/// lengths a scene has).
#[inline]
fn direction(v: Vec3) -> Vec3 {
    let squared = v.length_squared();
    if squared > 0.0 {
        v * squared.sqrt().recip()
    } else {
        Vec3::ZERO
    }
}

/// `v` shortened to at most `max` long.
#[inline]
fn truncate(v: Vec3, max: f32) -> Vec3 {
    let length = v.length();
    if length <= max { v } else { v / length * max }
}

/// A flock's state as columns: [`COLUMNS`] of `f32` (position, velocity, wander displacement),
/// the boids' generators and their numbers in the plugin's query order.
#[derive(Clone, Default)]
struct Columns {
    floats: [Vec<f32>; COLUMNS],
    rngs: Vec<SteeringRng>,
    ids: Vec<u32>,
}

/// The sums of one boid's scan of its neighbourhood (itself included).
struct Sums {
    /// Of the offsets (`neighbour - boid`) within the separation radius.
    separation: Vec3,
    /// Of the offsets within the flocking radius.
    offsets: Vec3,
    /// Of the velocities within the flocking radius.
    velocities: Vec3,
    /// Of the boids within the flocking radius.
    count: f32,
}

/// The `N` entries of the sorted `column` from `first` on.
#[inline(always)]
fn lanes_at<const N: usize>(
    sorted: &[Vec<f32>; COLUMNS],
    column: usize,
    first: usize,
) -> &[f32; N] {
    sorted[column][first..first + N]
        .try_into()
        .expect("N entries")
}

/// The sum of `lanes` in a fixed pairwise order.
#[inline(always)]
fn lane_total<const N: usize>(mut lanes: [f32; N]) -> f32 {
    let mut width = N;
    while width > 1 {
        width /= 2;
        for lane in 0..width {
            lanes[lane] += lanes[lane + width];
        }
    }
    lanes[0]
}

/// Scans `ranges` of the sorted columns (padded with [`MOST_LANES`] entries) for the boid at
/// `position`, `N` candidates at a time on `[f32; N]` lanes: the three rules' sums in one pass.
/// Lanes past a range's end (the next cells' boids, or the padding) are masked out. Inlined into
/// [`force_band`], compiled there for the widest instructions the CPU has, where the compiler
/// makes each `[f32; N]` loop one or two SIMD instructions.
#[inline(always)]
fn scan<const N: usize>(
    sorted: &[Vec<f32>; COLUMNS],
    ranges: &[(usize, usize)],
    position: Vec3,
    rules: Rules,
) -> Sums {
    let zero = [0.0_f32; N];
    let (mut sx, mut sy, mut sz) = (zero, zero, zero);
    let (mut ox, mut oy, mut oz) = (zero, zero, zero);
    let (mut vx, mut vy, mut vz) = (zero, zero, zero);
    let mut count = zero;
    let [px, py, pz] = position.to_array();
    for &(start, end) in ranges {
        let mut first = start;
        while first < end {
            let (x, y, z) = (
                lanes_at::<N>(sorted, 0, first),
                lanes_at::<N>(sorted, 1, first),
                lanes_at::<N>(sorted, 2, first),
            );
            let (ux, uy, uz) = (
                lanes_at::<N>(sorted, VX, first),
                lanes_at::<N>(sorted, VX + 1, first),
                lanes_at::<N>(sorted, VX + 2, first),
            );
            for lane in 0..N {
                let (dx, dy, dz) = (x[lane] - px, y[lane] - py, z[lane] - pz);
                let squared = dx * dx + dy * dy + dz * dz;
                let in_range = first + lane < end;
                // Masks as 0 or 1, multiplied in: the form the compiler vectorises.
                let near = if in_range && squared <= rules.flock_squared {
                    1.0
                } else {
                    0.0
                };
                let close = if in_range && squared <= rules.separation_squared {
                    1.0
                } else {
                    0.0
                };
                sx[lane] += dx * close;
                sy[lane] += dy * close;
                sz[lane] += dz * close;
                ox[lane] += dx * near;
                oy[lane] += dy * near;
                oz[lane] += dz * near;
                vx[lane] += ux[lane] * near;
                vy[lane] += uy[lane] * near;
                vz[lane] += uz[lane] * near;
                count[lane] += near;
            }
            first += N;
        }
    }
    let total = lane_total::<N>;
    let (sx, sy, sz) = (total(sx), total(sy), total(sz));
    let (ox, oy, oz) = (total(ox), total(oy), total(oz));
    let (vx, vy, vz) = (total(vx), total(vy), total(vz));
    let count = total(count);
    Sums {
        separation: Vec3::new(sx, sy, sz),
        offsets: Vec3::new(ox, oy, oz),
        velocities: Vec3::new(vx, vy, vz),
        count,
    }
}

/// The counting sort's grid: cells [`FLOCK_RADIUS`] wide from the cube's least corner, numbered
/// x fastest, then y, then z.
#[derive(Default)]
struct Grid {
    per_side: usize,
    /// Where each cell's boids start in the sorted columns, and the end.
    starts: Vec<u32>,
    /// One histogram per sort chunk, then its cells' next free places.
    histograms: Vec<Vec<u32>>,
    cells: Vec<u32>,
    /// The sorted place's boid in the state before the sort, written by every chunk at once.
    order: Vec<AtomicU32>,
}

/// `slice` cut at `ends` (ascending, the last its length).
fn split_at_ends<'a, T>(mut slice: &'a mut [T], ends: &[usize]) -> Vec<&'a mut [T]> {
    let mut start = 0;
    ends.iter()
        .map(|&end| {
            let (part, rest) = core::mem::take(&mut slice).split_at_mut(end - start);
            slice = rest;
            start = end;
            part
        })
        .collect()
}

/// Runs `tasks`: on this thread when there is one (a scope's cost is worth it only for more), else
/// all in one scope of `pool`.
fn run_tasks<'env, T: FnOnce() + Send + 'env>(pool: &TaskPool, tasks: Vec<T>) {
    if tasks.len() == 1 {
        tasks.into_iter().for_each(|task| task());
    } else {
        pool.scope(|scope| {
            for task in tasks {
                scope.spawn(async move { task() });
            }
        });
    }
}

/// The fewest boids a chunk of the sort takes: fewer are sorted on one thread.
const SORT_CHUNK: usize = 8192;

/// About the boids a band of the force pass takes.
const BAND: usize = 4096;

/// The hand-written 3D flock.
struct FastFlock {
    /// The state after the last step, in the order of that step's sort.
    state: Columns,
    /// The state at the start of the step, sorted by cell, the float columns padded with
    /// [`MOST_LANES`] zeros so that a scan may read whole lanes past a range's end.
    sorted: Columns,
    grid: Grid,
    cube: Cube,
    rules: Rules,
}

impl FastFlock {
    /// The boids of the flocking scene's `world`, in its query order.
    fn of(world: &mut World, wander: bool) -> Self {
        let mut state = Columns::default();
        let mut query = world.query_filtered::<(
            &Transform,
            &Velocity,
            Option<&Wander>,
            Option<&SteeringRng>,
        ), With<Boid>>();
        for (id, (transform, velocity, wanderer, rng)) in query.iter(world).enumerate() {
            let displacement = wanderer.map_or(Vec3::X, |wander| wander.displacement);
            let values = [transform.translation, velocity.0, displacement];
            for (axis, column) in state.floats.iter_mut().enumerate() {
                column.push(values[axis / 3][axis % 3]);
            }
            state.rngs.push(rng.cloned().unwrap_or_default());
            state.ids.push(id as u32);
        }
        let boids = state.ids.len();
        let mut sorted = state.clone();
        for column in &mut sorted.floats {
            column.resize(boids + MOST_LANES, 0.0);
        }
        let cube = *world.resource::<Cube>();
        let per_side = ((cube.side / FLOCK_RADIUS).ceil() as usize).max(1);
        Self {
            state,
            sorted,
            grid: Grid {
                per_side,
                starts: vec![0; per_side.pow(3) + 1],
                cells: vec![0; boids],
                order: (0..boids).map(|_| AtomicU32::new(0)).collect(),
                ..default()
            },
            cube,
            rules: Rules::of_scene(wander),
        }
    }

    /// The number of boids.
    fn len(&self) -> usize {
        self.state.ids.len()
    }

    /// Sorts the state into `sorted` by cell: each chunk's cells and histogram, the places by a
    /// prefix sum over (cell, chunk), each chunk's boids' places written, then the columns
    /// gathered in parallel ranges.
    fn sort(&mut self, pool: &TaskPool) {
        let boids = self.len();
        let Self {
            state,
            sorted,
            grid,
            cube,
            ..
        } = self;
        let per_side = grid.per_side;
        let cell_count = per_side.pow(3);
        let chunk = boids
            .div_ceil((boids / SORT_CHUNK).clamp(1, pool.thread_num()))
            .max(1);
        let chunks = boids.div_ceil(chunk);
        grid.histograms.resize_with(chunks, || vec![0; cell_count]);
        let (min, inverse) = (cube.min, FLOCK_RADIUS.recip());
        let last = per_side as i32 - 1;
        let [xs, ys, zs] = [0, 1, 2].map(|axis| state.floats[axis].as_slice());
        // Each chunk's cells and histogram.
        let counts = grid
            .cells
            .chunks_mut(chunk)
            .zip(&mut grid.histograms)
            .enumerate()
            .map(|(index, (cells, histogram))| {
                move || {
                    histogram.fill(0);
                    let at = |value: f32, min: f32| {
                        (((value - min) * inverse) as i32).clamp(0, last) as usize
                    };
                    for (boid, cell) in (index * chunk..).zip(cells.iter_mut()) {
                        let (x, y, z) = (
                            at(xs[boid], min.x),
                            at(ys[boid], min.y),
                            at(zs[boid], min.z),
                        );
                        let number = (z * per_side + y) * per_side + x;
                        *cell = number as u32;
                        histogram[number] += 1;
                    }
                }
            })
            .collect();
        run_tasks(pool, counts);
        // Each (cell, chunk)'s first place.
        let mut next = 0;
        for cell in 0..cell_count {
            grid.starts[cell] = next;
            for histogram in &mut grid.histograms {
                let count = histogram[cell];
                histogram[cell] = next;
                next += count;
            }
        }
        grid.starts[cell_count] = next;
        // Each chunk's boids' places.
        let order = &grid.order;
        let places = grid
            .cells
            .chunks(chunk)
            .zip(&mut grid.histograms)
            .enumerate()
            .map(|(index, (cells, places))| {
                move || {
                    for (boid, &cell) in (index * chunk..).zip(cells) {
                        let place = &mut places[cell as usize];
                        order[*place as usize].store(boid as u32, Ordering::Relaxed);
                        *place += 1;
                    }
                }
            })
            .collect();
        run_tasks(pool, places);
        // The columns gathered, each chunk of places by one task.
        let ends: Vec<usize> = (1..=chunks)
            .map(|index| (index * chunk).min(boids))
            .collect();
        let state = &*state;
        let mut floats: Vec<_> = sorted
            .floats
            .iter_mut()
            .map(|column| split_at_ends(&mut column[..boids], &ends).into_iter())
            .collect();
        let rngs = split_at_ends(&mut sorted.rngs, &ends);
        let ids = split_at_ends(&mut sorted.ids, &ends);
        let gathers = rngs
            .into_iter()
            .zip(ids)
            .enumerate()
            .map(|(index, (rngs, ids))| {
                let columns: [&mut [f32]; COLUMNS] =
                    core::array::from_fn(|column| floats[column].next().expect("a part"));
                let order = &order[index * chunk..];
                move || {
                    let from = |place: usize| order[place].load(Ordering::Relaxed) as usize;
                    for (column, source) in columns.into_iter().zip(&state.floats) {
                        for (place, value) in column.iter_mut().enumerate() {
                            *value = source[from(place)];
                        }
                    }
                    for (place, (rng, id)) in rngs.iter_mut().zip(ids.iter_mut()).enumerate() {
                        rng.clone_from(&state.rngs[from(place)]);
                        *id = state.ids[from(place)];
                    }
                }
            })
            .collect();
        run_tasks(pool, gathers);
    }

    /// One step: the sort, then every boid's forces, wander, integration and wrap in one pass over
    /// the sorted cells, in bands of cell rows (about [`BAND`] boids each) spread over the pool,
    /// the new state written at the boid's sorted place.
    fn step(&mut self, pool: &TaskPool) {
        self.sort(pool);
        let boids = self.len();
        let Self {
            state,
            sorted,
            grid,
            cube,
            rules,
        } = self;
        let per_side = grid.per_side;
        let rows = per_side * per_side;
        let rows_per_band = (BAND * rows).div_ceil(boids.max(1)).max(1);
        let bands = rows.div_ceil(rows_per_band);
        let band_rows = |band: usize| band * rows_per_band..((band + 1) * rows_per_band).min(rows);
        let starts = &grid.starts;
        let ends: Vec<usize> = (0..bands)
            .map(|band| starts[band_rows(band).end * per_side] as usize)
            .collect();
        let mut floats: Vec<_> = state
            .floats
            .iter_mut()
            .map(|column| split_at_ends(column, &ends).into_iter())
            .collect();
        let rngs = split_at_ends(&mut state.rngs, &ends);
        let ids = split_at_ends(&mut state.ids, &ends);
        let (sorted, cube, rules) = (&*sorted, *cube, *rules);
        let tasks = rngs
            .into_iter()
            .zip(ids)
            .enumerate()
            .map(|(band, (rngs, ids))| {
                let columns: [&mut [f32]; COLUMNS] =
                    core::array::from_fn(|column| floats[column].next().expect("a part"));
                let band = Band {
                    rows: band_rows(band),
                    per_side,
                    starts,
                    sorted,
                    columns,
                    rngs,
                    ids,
                    cube,
                    rules,
                };
                move || band.run()
            })
            .collect();
        run_tasks(pool, tasks);
    }

    /// The largest differences in position and in velocity between this flock and the plugin's in
    /// `world`.
    fn differences(&self, world: &mut World) -> (f32, f32) {
        let plugin: Vec<(Vec3, Vec3)> = world
            .query_filtered::<(&Transform, &Velocity), With<Boid>>()
            .iter(world)
            .map(|(transform, velocity)| (transform.translation, velocity.0))
            .collect();
        assert_eq!(plugin.len(), self.len());
        let column = |place: usize, first: usize| {
            Vec3::from_array([0, 1, 2].map(|axis| self.state.floats[first + axis][place]))
        };
        (0..self.len()).fold(
            (0.0_f32, 0.0_f32),
            |(worst_position, worst_velocity), place| {
                let (position, velocity) = plugin[self.state.ids[place] as usize];
                (
                    worst_position.max(position.distance(column(place, 0))),
                    worst_velocity.max(velocity.distance(column(place, VX))),
                )
            },
        )
    }
}

/// One band of cell rows of [`FastFlock::step`]: its boids' new state, written from the band's
/// first sorted place on.
struct Band<'a> {
    rows: core::ops::Range<usize>,
    per_side: usize,
    starts: &'a [u32],
    sorted: &'a Columns,
    columns: [&'a mut [f32]; COLUMNS],
    rngs: &'a mut [SteeringRng],
    ids: &'a mut [u32],
    cube: Cube,
    rules: Rules,
}

impl Band<'_> {
    /// Steps the band, scanning on the widest lanes the CPU has, as the plugin picks its lanes, so
    /// that the baseline is as good as the reference loop built for the machine: 16 with AVX-512
    /// (8 there measured the same), 8 with AVX2. Without either (SSE2 only) 8 lanes, which that
    /// build vectorises poorly: `[f32; N]` lanes measured two to three times slower there than
    /// glam's `Vec4`, so on such a CPU the baseline is weaker than it could be.
    // The one unsafe here: calling code compiled for a feature the CPU was just checked to have.
    #[allow(unsafe_code)]
    fn run(self) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU supports AVX-512F, checked just above.
                return unsafe { self.run_avx512() };
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                return unsafe { self.run_avx2() };
            }
        }
        self.run_on::<8>();
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn run_avx512(self) {
        self.run_on::<16>();
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_avx2(self) {
        self.run_on::<8>();
    }

    /// Steps the band, scanning `N` candidates at a time.
    #[inline(always)]
    fn run_on<const N: usize>(self) {
        let Self {
            rows,
            per_side,
            starts,
            sorted,
            mut columns,
            rngs,
            ids,
            cube,
            rules,
        } = self;
        let base = starts[rows.start * per_side] as usize;
        let near = |at: usize| at.saturating_sub(1)..=(at + 1).min(per_side - 1);
        let mut ranges = [(0, 0); 9];
        for row in rows {
            let (y, z) = (row % per_side, row / per_side);
            for x in 0..per_side {
                let cell = row * per_side + x;
                let (first, end) = (starts[cell] as usize, starts[cell + 1] as usize);
                if first == end {
                    continue;
                }
                // The 3 x 3 x 3 cells round it: 9 rows of 3 cells, each one range.
                let (x0, x1) = (x.saturating_sub(1), (x + 1).min(per_side - 1));
                let mut count = 0;
                for zz in near(z) {
                    for yy in near(y) {
                        let row_start = (zz * per_side + yy) * per_side;
                        ranges[count] = (
                            starts[row_start + x0] as usize,
                            starts[row_start + x1 + 1] as usize,
                        );
                        count += 1;
                    }
                }
                for place in first..end {
                    let at = |column: usize| {
                        Vec3::new(
                            sorted.floats[column][place],
                            sorted.floats[column + 1][place],
                            sorted.floats[column + 2][place],
                        )
                    };
                    let (position, velocity) = (at(0), at(VX));
                    let sums = scan::<N>(&sorted.floats, &ranges[..count], position, rules);
                    let mut rng = sorted.rngs[place].clone();
                    let (position, velocity, displacement) =
                        advance(position, velocity, at(WX), &sums, &mut rng, cube, rules);
                    let out = place - base;
                    let values = [position, velocity, displacement];
                    for (axis, column) in columns.iter_mut().enumerate() {
                        column[out] = values[axis / 3][axis % 3];
                    }
                    rngs[out] = rng;
                    ids[out] = sorted.ids[place];
                }
            }
        }
    }
}

/// One boid's step from its scan's `sums` (itself included): the three rules as the plugin's
/// formulas give them (separation away from the mean offset, alignment to the mean heading,
/// cohesion as seek with arrival), the sphere wander, the sum truncated to the force limit and
/// integrated with the mass and speed limit, the position moved and wrapped round the cube.
/// Returns the new position, velocity and wander displacement.
#[inline]
fn advance(
    position: Vec3,
    velocity: Vec3,
    displacement: Vec3,
    sums: &Sums,
    rng: &mut SteeringRng,
    cube: Cube,
    rules: Rules,
) -> (Vec3, Vec3, Vec3) {
    // The scan found the boid itself: no offset, but its velocity and one in the count.
    let count = sums.count - 1.0;
    let velocities = sums.velocities - velocity;
    let separation = direction(-sums.separation) * rules.separation_strength;
    let heading = direction(velocities);
    let alignment = if heading == Vec3::ZERO {
        Vec3::ZERO
    } else {
        truncate(
            heading * rules.max_speed - velocity,
            rules.alignment_strength,
        )
    };
    let cohesion = if count > 0.0 {
        let offset = sums.offsets / count;
        let distance = offset.length();
        let speed = if distance < rules.flock_radius {
            rules.max_speed * (distance / rules.flock_radius)
        } else {
            rules.max_speed
        };
        truncate(
            direction(offset) * speed - velocity,
            rules.cohesion_strength,
        )
    } else {
        Vec3::ZERO
    };
    let wander = direction(velocity) * rules.circle_distance + displacement * rules.circle_radius;
    let random = Vec3::new(rng.random(), rng.random(), rng.random());
    let nudged = direction(displacement + (random - 0.5) * rules.nudge);
    let displacement = if nudged == Vec3::ZERO {
        displacement
    } else {
        nudged
    };
    let force = truncate(wander + separation + alignment + cohesion, rules.max_force);
    let velocity = truncate(velocity + force * rules.step_per_mass, rules.max_speed);
    let position = position + velocity * rules.dt;
    let position = cube.wrapped(position).unwrap_or(position);
    (position, velocity, displacement)
}

/// Checks the baseline against the plugin on `agents` boids over a few steps: without wander
/// (`wander` false) and with it (both draw the same numbers from the same generators). The sums
/// add up in other orders, so positions agree to rounding, not to the bit.
fn check_baseline(agents: usize, wander: bool, pool: &TaskPool) -> (f32, f32) {
    let mut app = flock(agents, wander);
    let mut flock = FastFlock::of(app.world_mut(), wander);
    for _ in 0..3 {
        step(&mut app);
        flock.step(pool);
    }
    let (position, velocity) = flock.differences(app.world_mut());
    assert!(
        position < 1e-2 && velocity < 1e-1,
        "the baseline moved {agents} boids (wander {wander}) unlike the plugin: positions up to \
         {position} apart, velocities up to {velocity}"
    );
    (position, velocity)
}

/// The time per step of the baseline's sort alone, and of its whole step, over `steps` steps of a
/// fresh flock of `agents`.
fn baseline_split(agents: usize, pool: &TaskPool, steps: u32) -> (f64, f64) {
    let mut flock = FastFlock::of(flock(agents, true).world_mut(), true);
    flock.step(pool);
    let (mut sorts, mut whole) = (Vec::new(), Vec::new());
    for _ in 0..steps {
        let started = Instant::now();
        flock.sort(pool);
        sorts.push(started.elapsed().as_secs_f64());
        let started = Instant::now();
        flock.step(pool);
        whole.push(started.elapsed().as_secs_f64());
    }
    (median(sorts), median(whole))
}

/// Plugin time / baseline time per step in alternate blocks of about 10 ms, for `budget`, both
/// stepping in lockstep over the windows of fresh scenes, so that each pair is timed on the same
/// states (as the 2D `flocking_paired_ratio`, without the bit check: the baseline adds in another
/// order).
fn flocking_paired_ratio(agents: usize, pool: &TaskPool, budget: Duration) -> f64 {
    let mut both = Windowed::new(
        || {
            let mut app = flock(agents, true);
            let baseline = FastFlock::of(app.world_mut(), true);
            (app, baseline)
        },
        |(app, flock): &mut (App, FastFlock)| {
            step(app);
            flock.step(pool);
        },
    );
    let warm_up = 3;
    let (app, flock) = both.ahead(warm_up);
    let steps = steps_for(block(&mut || step(app), warm_up)).min(WINDOW as u32);
    block(&mut || flock.step(pool), warm_up);
    let mut ratios = Vec::new();
    let started = Instant::now();
    while ratios.len() < 11 || started.elapsed() < budget {
        let (app, flock) = both.ahead(steps);
        let plugin_time = block(&mut || step(app), steps);
        ratios.push(plugin_time / block(&mut || flock.step(pool), steps));
    }
    median(ratios)
}

/// The flocking group: the baseline checked against the plugin, then at each N the plugin, the
/// plugin without the three rules and the baseline timed over windows of fresh scenes, their
/// paired ratio, and the figures the summary prints beside them.
fn flocking(criterion: &mut Criterion, medians: &mut Medians) {
    // The first app sets up the compute pool the baselines share.
    drop(flock(1, true));
    let pool = ComputeTaskPool::get();
    for (agents, wander) in [(1_000, false), (1_000, true), (10_000, true)] {
        let (position, velocity) = check_baseline(agents, wander, pool);
        println!(
            "baseline check, {agents} boids, wander {wander}: after 3 steps positions within \
             {position:.2e}, velocities within {velocity:.2e} of the plugin's"
        );
    }
    let mut group = criterion.benchmark_group("flocking");
    for agents in [1_000, 10_000, 100_000] {
        let mut app = flock(agents, true);
        let mut baseline = FastFlock::of(app.world_mut(), true);
        let neighbours = |world: &mut World| {
            [SEPARATION_RADIUS, FLOCK_RADIUS].map(|radius| mean_neighbours(world, radius))
        };
        let first_steps = [
            block(&mut || step(&mut app), 1),
            block(&mut || baseline.step(pool), 1),
        ];
        let at_start = neighbours(app.world_mut());
        for _ in 0..WINDOW {
            step(&mut app);
        }
        let at_end = neighbours(app.world_mut());
        drop((app, baseline));
        measure_in_windows(
            &mut group,
            "flocking",
            medians,
            "plugin",
            agents,
            || flock(agents, true),
            step,
        );
        measure_in_windows(
            &mut group,
            "flocking",
            medians,
            "plugin without the rules",
            agents,
            || flock_with(agents, true, false),
            step,
        );
        measure_in_windows(
            &mut group,
            "flocking",
            medians,
            "baseline",
            agents,
            || FastFlock::of(flock(agents, true).world_mut(), true),
            |flock| flock.step(pool),
        );
        if medians.get("flocking", "plugin", agents).is_some() {
            let ratio = flocking_paired_ratio(agents, pool, Duration::from_secs(4));
            medians.0.push(("flocking", "paired", agents, ratio));
            let (sort, whole) = baseline_split(agents, pool, 20);
            for (name, value) in [
                ("plugin's first step", first_steps[0]),
                ("baseline's first step", first_steps[1]),
                ("separation neighbours at the start", at_start[0]),
                ("separation neighbours at the end", at_end[0]),
                ("neighbours at the start", at_start[1]),
                ("neighbours at the end", at_end[1]),
                ("baseline's sort", sort),
                ("baseline's step, with the sort", whole),
            ] {
                medians.0.push(("flocking", name, agents, value));
            }
        }
    }
    group.finish();
}

/// The wander scene: `agents` flyers with the default sphere wander, heading where their
/// displacement points at 60 units per second, nothing else.
fn wanderers(agents: usize) -> App {
    let mut app = headless_app(|_| {});
    let side = cube_side(agents);
    let wanderers: Vec<_> = spread(agents, side, 0.0).map(wanderer).collect();
    app.world_mut().spawn_batch(wanderers);
    app
}

/// A flyer at `position` with the default sphere wander, heading along `heading` (a unit vector) at
/// 60 units per second, its displacement pointing the same way.
fn wanderer((position, heading): (Vec3, Vec3)) -> (Transform, Velocity, Wander) {
    (
        Transform::from_translation(position),
        Velocity(heading * 60.0),
        Wander {
            displacement: heading,
            ..default()
        },
    )
}

/// A flyer as a straightforward hand-written simulation keeps it.
struct PlainWanderer {
    position: Vec3,
    velocity: Vec3,
    displacement: Vec3,
    rng: SteeringRng,
}

impl PlainWanderer {
    /// The sphere wander and the update, with three random numbers each step.
    #[inline]
    fn step(&mut self, rules: Rules) {
        let force = direction(self.velocity) * rules.circle_distance
            + self.displacement * rules.circle_radius;
        let random = Vec3::new(self.rng.random(), self.rng.random(), self.rng.random());
        let nudged = direction(self.displacement + (random - 0.5) * rules.nudge);
        if nudged != Vec3::ZERO {
            self.displacement = nudged;
        }
        let force = truncate(force, rules.max_force);
        self.velocity = truncate(self.velocity + force * rules.step_per_mass, rules.max_speed);
        self.position += self.velocity * rules.dt;
    }
}

/// The wander group: the plugin and the plain loop at each N, and their paired ratio.
fn wander(criterion: &mut Criterion, medians: &mut Medians) {
    let mut group = criterion.benchmark_group("wander");
    let rules = Rules::of_scene(true);
    for agents in [1_000, 10_000, 100_000] {
        let mut app = wanderers(agents);
        let pool = ComputeTaskPool::get();
        let mut plain: Vec<PlainWanderer> = app
            .world_mut()
            .query::<(&Transform, &Velocity, &Wander, &SteeringRng)>()
            .iter(app.world())
            .map(|(transform, velocity, wander, rng)| PlainWanderer {
                position: transform.translation,
                velocity: velocity.0,
                displacement: wander.displacement,
                rng: rng.clone(),
            })
            .collect();
        let chunk = chunk_size(agents, pool);
        let plugin = || step(&mut app);
        let baseline = || {
            plain.par_chunk_map_mut(pool, chunk, |_, wanderers| {
                wanderers
                    .iter_mut()
                    .for_each(|wanderer| wanderer.step(rules));
            });
        };
        measure_against_baseline(&mut group, "wander", medians, agents, plugin, baseline);
    }
    group.finish();
}

/// The obstacle scene: `agents` wanderers avoiding `agents / 100` spheres and boxes spread through
/// the cube, kept in it by containment.
fn obstacle_field(agents: usize) -> App {
    let mut app = headless_app(|_| {});
    let side = cube_side(agents);
    let world = app.world_mut();
    let obstacles: Vec<_> = spread(agents / 100, side, 0.61)
        .enumerate()
        .map(|(index, (position, _))| {
            let size = 8.0 + (index % 5) as f32 * 3.0;
            let shape = if index.is_multiple_of(2) {
                Obstacle::sphere(size)
            } else {
                Obstacle::cuboid(Vec3::splat(size * 1.6))
            };
            (shape, Transform::from_translation(position))
        })
        .collect();
    world.spawn_batch(obstacles);
    let wanderers: Vec<_> = spread(agents, side, 0.0)
        .map(|start| {
            (
                wanderer(start),
                AvoidObstacles::new(60.0, 4.0),
                Containment::cuboid(Vec3::ZERO, Vec3::splat(side)),
            )
        })
        .collect();
    world.spawn_batch(wanderers);
    app
}

/// The obstacles group: the plugin alone at each N, over windows of fresh scenes.
fn obstacles(criterion: &mut Criterion, medians: &mut Medians) {
    let mut group = criterion.benchmark_group("obstacles");
    for agents in [1_000, 10_000, 100_000] {
        measure_in_windows(
            &mut group,
            "obstacles",
            medians,
            "plugin",
            agents,
            || obstacle_field(agents),
            step,
        );
    }
    group.finish();
}

/// Prints the figures `docs/performance.md` quotes.
fn print_summary(medians: &Medians) {
    let ms = |seconds: f64| format!("{:.3}", seconds * 1e3);
    println!(
        "\nflocking: {:.0} cubic units a boid (cube side {:.0} / {:.0} / {:.0} at 1k / 10k / 100k)",
        volume_per_boid(),
        cube_side(1_000),
        cube_side(10_000),
        cube_side(100_000)
    );
    println!(
        "\n| scene | N | plugin (ms) | baseline (ms) | ratio of medians | plugin / baseline, paired |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for group in ["flocking", "wander", "obstacles"] {
        for agents in [1_000, 10_000, 100_000] {
            let get = |name| medians.get(group, name, agents);
            let Some(plugin) = get("plugin") else {
                continue;
            };
            let baseline = get("baseline");
            println!(
                "| {group} | {agents} | {} | {} | {} | {} |",
                ms(plugin),
                baseline.map_or("-".into(), ms),
                baseline.map_or("-".into(), |baseline| format!("{:.2}", plugin / baseline)),
                get("paired").map_or("-".into(), |ratio| format!("{ratio:.2}")),
            );
        }
    }
    for boids in [1_000, 10_000, 100_000] {
        let get = |name| medians.get("flocking", name, boids).unwrap_or(f64::NAN);
        if medians.get("flocking", "plugin", boids).is_some() {
            println!(
                "flocking, {boids} boids: neighbours within {FLOCK_RADIUS} from {:.1} to {:.1} over \
                 the window of {WINDOW} steps ({:.1} to {:.1} within {SEPARATION_RADIUS}); first \
                 step (not timed) plugin {} ms, baseline {} ms; baseline's sort {} ms of its \
                 {} ms step; the plugin without the three rules (index, wander, integration, \
                 wrap) {} ms of its {} ms",
                get("neighbours at the start"),
                get("neighbours at the end"),
                get("separation neighbours at the start"),
                get("separation neighbours at the end"),
                ms(get("plugin's first step")),
                ms(get("baseline's first step")),
                ms(get("baseline's sort")),
                ms(get("baseline's step, with the sort")),
                ms(get("plugin without the rules")),
                ms(get("plugin")),
            );
        }
    }
}

/// Runs the three groups (20 samples each, as the 2D benchmarks), then prints the summary.
fn main() {
    let mut criterion = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args();
    let mut medians = Medians::default();
    flocking(&mut criterion, &mut medians);
    wander(&mut criterion, &mut medians);
    obstacles(&mut criterion, &mut medians);
    criterion.final_summary();
    print_summary(&medians);
}
