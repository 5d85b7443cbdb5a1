//! Steers a crowd with no window and reports how long each step takes: the hunter / prey rules
//! with N prey and N / 100 hunters, N wanderers, or N flocking boids.
//!
//! | argument | default | meaning |
//! | --- | --- | --- |
//! | `--agents N` | 100000 | prey (hunter / prey), wanderers or boids |
//! | `--steps N` | 2000 | steps of 1/60 s to run |
//! | `--scene hunter-prey`, `wander`, `flocking`, `flocking-by-distance`, `flocking-field-of-view`, `flocking-classic`, `flocking-weighted`, `flocking-own-rules`, `obstacles` or `reference` | `hunter-prey` | what to simulate (the flocking scene as it is, with separation by distance, with a field of view of 270 degrees for each rule, with Reynolds' classic alignment and cohesion, with weights 1.5 / 0 / 0.75 (alignment off), or with the rules as neighbour behaviours of a user's own; `reference`: the reference loop's scene, see `benches/reference_loop.sh`) |
//! | `--pools every-core` or `default` | `every-core` | the compute pool: every core, or what Bevy's default task pools give it (one thread on a 2-core machine) |
//! | `--threads N` | | a compute pool of N threads (instead of `--pools`) |
//! | `--warmup N` | 0 | steps run before the timed ones, not timed |
//!
//! `cargo run --release --example stress -- --agents 100000 --steps 2000` shows a progress bar,
//! then prints steps per second, the time per step (median and 99th percentile, and the median of
//! each tenth of the run, since a scene changes as it runs) and the memory an agent's steering
//! components take. For the flocking scenes it also prints how many neighbours a boid has on average at the
//! start and at the end of each tenth. It also splits the median step into its parts: the spatial
//! indexes' rebuild, the forces (decisions, behaviours, custom forces), and the rest (queue,
//! integration, the scene's own systems after them).

mod scenes;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_steer::prelude::*;
use indicatif::{ProgressBar, ProgressStyle};
use scenes::Scene;

struct Options {
    scene: Scene,
    agents: usize,
    steps: usize,
    /// Bevy's default task pools rather than every core for compute.
    default_pools: bool,
    /// A compute pool of this many threads.
    threads: Option<usize>,
    /// Steps run before the timed ones.
    warmup: usize,
}

/// The scenes `--scene` names.
const SCENES: [(&str, Scene); 10] = [
    ("hunter-prey", Scene::HunterPrey),
    ("wander", Scene::Wander),
    ("flocking", Scene::Flocking),
    ("flocking-by-distance", Scene::FlockingByDistance),
    ("flocking-field-of-view", Scene::FlockingFieldOfView),
    ("flocking-classic", Scene::FlockingClassic),
    ("flocking-weighted", Scene::FlockingWeighted),
    ("flocking-own-rules", Scene::FlockingOwnRules),
    ("obstacles", Scene::Obstacles),
    ("reference", Scene::Reference),
];

impl Options {
    fn from_args() -> Result<Self, String> {
        let mut options = Self {
            scene: Scene::HunterPrey,
            agents: 100_000,
            steps: 2000,
            default_pools: false,
            threads: None,
            warmup: 0,
        };
        let mut args = std::env::args().skip(1);
        while let Some(name) = args.next() {
            let value = args.next().ok_or_else(|| format!("{name} needs a value"))?;
            let count = || {
                value
                    .parse::<usize>()
                    .map_err(|_| format!("{name} wants a whole number, not {value:?}"))
            };
            match name.as_str() {
                "--agents" => options.agents = count()?,
                "--steps" => options.steps = count()?.max(1),
                "--threads" => options.threads = Some(count()?.max(1)),
                "--warmup" => options.warmup = count()?,
                "--scene" => {
                    options.scene = SCENES
                        .iter()
                        .find(|(scene_name, _)| *scene_name == value)
                        .map(|&(_, scene)| scene)
                        .ok_or_else(|| {
                            let names: Vec<_> = SCENES.iter().map(|(name, _)| *name).collect();
                            format!("unknown scene {value:?}: {}", names.join(", "))
                        })?;
                }
                "--pools" => {
                    options.default_pools = match value.as_str() {
                        "every-core" => false,
                        "default" => true,
                        _ => return Err(format!("unknown pools {value:?}: every-core or default")),
                    }
                }
                _ => return Err(format!("unknown argument {name:?}")),
            }
        }
        Ok(options)
    }

    fn describe(&self) -> String {
        match self.scene {
            Scene::Wander => format!("{} wanderers", self.agents),
            Scene::HunterPrey => format!("{} prey and {} hunters", self.agents, self.agents / 100),
            Scene::Flocking => format!("{} boids", self.agents),
            Scene::FlockingByDistance => {
                format!("{} boids, separating by distance", self.agents)
            }
            Scene::FlockingFieldOfView => format!(
                "{} boids, each rule with a field of view of {} degrees",
                self.agents,
                scenes::FIELD_OF_VIEW.to_degrees()
            ),
            Scene::FlockingClassic => format!(
                "{} boids, alignment matching the mean velocity and cohesion seeking the centre",
                self.agents
            ),
            Scene::FlockingWeighted => format!(
                "{} boids, weighted: separation 1.5, alignment off, cohesion 0.75",
                self.agents
            ),
            Scene::FlockingOwnRules => {
                format!(
                    "{} boids, the rules as neighbour behaviours of a user's own",
                    self.agents
                )
            }
            Scene::Obstacles => format!(
                "{} wanderers avoiding {} obstacles",
                self.agents,
                self.agents / 100
            ),
            Scene::Reference => format!("{} boids, the reference loop's scene", self.agents),
        }
    }
}

/// The steering components a wanderer carries (its `Transform` is the game's anyway): names and
/// sizes in bytes.
fn wanderer_components() -> [(&'static str, usize); 8] {
    use core::mem::size_of;
    [
        ("Wander", size_of::<Wander>()),
        ("SteeringRng", size_of::<SteeringRng>()),
        ("Velocity", size_of::<Velocity>()),
        ("Steering", size_of::<Steering>()),
        ("Mass", size_of::<Mass>()),
        ("MaxSpeed", size_of::<MaxSpeed>()),
        ("MaxForce", size_of::<MaxForce>()),
        ("ReportedProblems", size_of::<ReportedProblems>()),
    ]
}

/// The components a flocking boid carries beyond a wanderer's: its three neighbour behaviours and
/// the scene's zero-sized marker.
fn flocking_components() -> [(&'static str, usize); 4] {
    use core::mem::size_of;
    [
        ("Separation", size_of::<Separation>()),
        ("Alignment", size_of::<Alignment>()),
        ("Cohesion", size_of::<Cohesion>()),
        ("the marker", size_of::<scenes::Boid>()),
    ]
}

/// The bytes of `components`, one by one, and of the change ticks Bevy keeps beside each (an added
/// and a changed tick of 4 bytes).
fn describe_footprint(components: &[(&str, usize)]) -> String {
    let total: usize = components.iter().map(|(_, size)| size).sum();
    let each: Vec<String> = components
        .iter()
        .map(|(name, size)| format!("{name} {size}"))
        .collect();
    format!(
        "{total} bytes of components ({}) + {} bytes of change ticks",
        each.join(", "),
        components.len() * 8
    )
}

/// The mean neighbour counts within the scene's separation and flocking radii.
fn neighbour_counts(world: &mut World, [separation, flocking]: [f32; 2]) -> (f64, f64) {
    (
        scenes::mean_neighbours(world, separation),
        scenes::mean_neighbours(world, flocking),
    )
}

/// When the step crossed the boundaries between its parts: after the indexes' rebuild, and after
/// every force was added.
#[derive(Resource, Default)]
struct PartClock([Option<Instant>; 2]);

fn mark_part<const BOUNDARY: usize>(mut clock: ResMut<PartClock>) {
    clock.0[BOUNDARY] = Some(Instant::now());
}

/// Times the parts of each step (see [`PartClock`]).
fn time_parts(app: &mut App) {
    app.init_resource::<PartClock>().add_systems(
        SteeringSchedule,
        (
            mark_part::<0>
                .after(SteeringSystems::Index)
                .before(SteeringSystems::Decide),
            mark_part::<1>
                .after(SteeringSystems::CustomForces)
                .before(SteeringSystems::Queue),
        ),
    );
}

/// The parts of a step that began at `started` and ended at `ended`, from the clock's marks, which
/// it clears (so that a step without them counts as zero, not as the last one's).
fn parts(clock: &mut PartClock, started: Instant, ended: Instant) -> [Duration; 3] {
    match core::mem::take(&mut clock.0) {
        [Some(indexed), Some(forced)] => [indexed - started, forced - indexed, ended - forced],
        _ => [Duration::ZERO; 3],
    }
}

/// The value below which `fraction` of the sorted `durations` lie.
fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() - 1) as f64 * fraction).round() as usize;
    sorted[index]
}

fn main() -> ExitCode {
    let options = match Options::from_args() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("stress: {message}");
            return ExitCode::FAILURE;
        }
    };
    if cfg!(debug_assertions) {
        eprintln!("stress: a debug build; add --release for figures worth comparing");
    }
    eprintln!("setting up {}", options.describe());
    // Made before the app's, which then keeps them.
    if let Some(threads) = options.threads {
        let mut pools = TaskPoolOptions::default();
        pools.compute.min_threads = threads;
        pools.compute.max_threads = threads;
        pools.create_default_pools();
    } else if options.default_pools {
        TaskPoolOptions::default().create_default_pools();
    }
    let mut app = options.scene.app(options.agents);
    time_parts(&mut app);
    let flocking = matches!(
        options.scene,
        Scene::Flocking
            | Scene::FlockingByDistance
            | Scene::FlockingFieldOfView
            | Scene::FlockingOwnRules
            | Scene::Reference
    );
    // The radii within which the boids see neighbours: separation's, then the other rules'.
    let radii = if options.scene == Scene::Reference {
        [scenes::REFERENCE_RADIUS; 2]
    } else {
        [scenes::SEPARATION_RADIUS, scenes::FLOCK_RADIUS]
    };
    for _ in 0..options.warmup {
        scenes::step(&mut app);
    }
    // The neighbour counts at the start and after each tenth of the steps (flocking only).
    let mut neighbours = Vec::new();
    if flocking {
        neighbours.push(neighbour_counts(app.world_mut(), radii));
    }
    let tenth = (options.steps / 10).max(1);
    eprintln!(
        "{} compute threads",
        bevy::tasks::ComputeTaskPool::get().thread_num()
    );

    let progress = ProgressBar::new(options.steps as u64).with_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} steps, {per_sec}, {eta} left",
        )
        .expect("the template is valid")
        .progress_chars("=> "),
    );
    let mut durations = Vec::with_capacity(options.steps);
    let mut part_durations: [Vec<Duration>; 3] = Default::default();
    let started = Instant::now();
    let mut counting = Duration::ZERO;
    for step in 1..=options.steps {
        let step_started = Instant::now();
        scenes::step(&mut app);
        let step_ended = Instant::now();
        durations.push(step_ended - step_started);
        let mut clock = app.world_mut().resource_mut::<PartClock>();
        for (part, duration) in
            part_durations
                .iter_mut()
                .zip(parts(&mut clock, step_started, step_ended))
        {
            part.push(duration);
        }
        if flocking && step % tenth == 0 {
            let counting_started = Instant::now();
            neighbours.push(neighbour_counts(app.world_mut(), radii));
            counting += counting_started.elapsed();
        }
        progress.inc(1);
    }
    // Not the counting's time.
    let total = started.elapsed() - counting;
    progress.finish_and_clear();

    // The median of each tenth, before the sort below.
    let tenths: Vec<f64> = durations
        .chunks(tenth)
        .map(|steps| {
            let mut steps = steps.to_vec();
            steps.sort_unstable();
            percentile(&steps, 0.5).as_secs_f64() * 1e3
        })
        .collect();
    durations.sort_unstable();
    let agents = app
        .world_mut()
        .query_filtered::<(), With<Steering>>()
        .iter(app.world())
        .count();
    println!(
        "{} ({agents} agents), {} steps in {:.2} s",
        options.describe(),
        options.steps,
        total.as_secs_f64()
    );
    println!(
        "steps per second: {:.1}",
        options.steps as f64 / total.as_secs_f64()
    );
    println!(
        "time per step: median {:.3} ms, 99th percentile {:.3} ms",
        percentile(&durations, 0.5).as_secs_f64() * 1e3,
        percentile(&durations, 0.99).as_secs_f64() * 1e3
    );
    let [index, forces, rest] = part_durations.map(|mut part| {
        part.sort_unstable();
        percentile(&part, 0.5).as_secs_f64() * 1e3
    });
    println!(
        "median time per step of each part, in ms: index rebuild {index:.3}, forces (decide, \
         behaviours, custom forces) {forces:.3}, the rest (queue, integration, the scene's own \
         systems) {rest:.3}"
    );
    let tenths: Vec<String> = tenths.iter().map(|ms| format!("{ms:.3}")).collect();
    println!(
        "median time per step of each tenth of the steps, in ms: {}",
        tenths.join(", ")
    );
    println!(
        "memory per wanderer: {}",
        describe_footprint(&wanderer_components())
    );
    if flocking {
        let index = SpatialIndex::<scenes::Boid>::BYTES_PER_ENTITY;
        println!(
            "memory per boid: a wanderer's + {}; {index} bytes in the spatial index",
            describe_footprint(&flocking_components())
        );
        let counts = |pick: fn(&(f64, f64)) -> f64| {
            let counts: Vec<String> = neighbours
                .iter()
                .map(|c| format!("{:.1}", pick(c)))
                .collect();
            counts.join(", ")
        };
        println!(
            "mean neighbours per boid within {} (separation), at the start and after each tenth: {}",
            radii[0],
            counts(|c| c.0)
        );
        println!(
            "mean neighbours per boid within {} (alignment, cohesion), likewise: {}",
            radii[1],
            counts(|c| c.1)
        );
    }
    ExitCode::SUCCESS
}
