//! Timing helpers shared by the 2D benchmarks (`benches/steering.rs`) and the 3D ones
//! (`crates/bevy_steer_core3d/benches/steering3d.rs`), each of which includes this file with
//! `#[path = ...] mod timing;`: criterion's per-call medians, blocks of steps, plugin / baseline
//! ratios measured in alternate blocks, and scenes timed in windows of their life.

use std::time::{Duration, Instant};

use bevy::tasks::TaskPool;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId};

/// Medians of the per-step times criterion measured, by group, benchmark and N (and the paired
/// ratios, and the flocking scene's first steps and neighbour counts).
#[derive(Default)]
pub(crate) struct Medians(pub(crate) Vec<(&'static str, &'static str, usize, f64)>);

impl Medians {
    pub(crate) fn get(&self, group: &str, name: &str, agents: usize) -> Option<f64> {
        self.0
            .iter()
            .find(|(g, n, a, _)| *g == group && *n == name && *a == agents)
            .map(|(.., median)| *median)
    }
}

pub(crate) fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Benchmarks `step` as `name` at `agents` in `group` (named `group_name`), and keeps the median
/// time of one call.
pub(crate) fn measure(
    group: &mut BenchmarkGroup<WallTime>,
    group_name: &'static str,
    medians: &mut Medians,
    name: &'static str,
    agents: usize,
    mut step: impl FnMut(),
) {
    let mut samples = Vec::new();
    group.bench_function(BenchmarkId::new(name, agents), |bencher| {
        bencher.iter_custom(|iterations| {
            let started = Instant::now();
            for _ in 0..iterations {
                step();
            }
            let elapsed = started.elapsed();
            samples.push(elapsed.as_secs_f64() / iterations as f64);
            elapsed
        });
    });
    // Empty when a filter on the command line skipped the benchmark.
    if !samples.is_empty() {
        medians.0.push((group_name, name, agents, median(samples)));
    }
}

/// [`measure`] for a scene that changes as it runs: `step` steps a scene made by `fresh`, and every
/// [`WINDOW`] steps a fresh scene takes its place (made and stepped once outside the timing), so
/// that every N is timed over the same stretch of the scene's life.
pub(crate) fn measure_in_windows<S>(
    group: &mut BenchmarkGroup<WallTime>,
    group_name: &'static str,
    medians: &mut Medians,
    name: &'static str,
    agents: usize,
    fresh: impl FnMut() -> S,
    step: impl FnMut(&mut S),
) {
    let mut samples = Vec::new();
    let mut scene = Windowed::new(fresh, step);
    group.bench_function(BenchmarkId::new(name, agents), |bencher| {
        bencher.iter_custom(|iterations| {
            let mut elapsed = 0.0;
            let mut left = iterations;
            while left > 0 {
                let steps = left.min(scene.room());
                elapsed += scene.block(steps as u32) * steps as f64;
                left -= steps;
            }
            samples.push(elapsed / iterations as f64);
            Duration::from_secs_f64(elapsed)
        });
    });
    if !samples.is_empty() {
        medians.0.push((group_name, name, agents, median(samples)));
    }
}

/// Chunks as `par_iter` cuts them: one per compute thread.
pub(crate) fn chunk_size(items: usize, pool: &TaskPool) -> usize {
    items.div_ceil(pool.thread_num()).max(1)
}

/// The time per step of a block of `steps` calls of `step`.
pub(crate) fn block(step: &mut dyn FnMut(), steps: u32) -> f64 {
    let started = Instant::now();
    for _ in 0..steps {
        step();
    }
    started.elapsed().as_secs_f64() / f64::from(steps)
}

/// How many steps of `seconds` each make a block of about 10 ms.
pub(crate) fn steps_for(seconds: f64) -> u32 {
    ((0.01 / seconds) as u32).max(1)
}

/// [`measure`]s `plugin` and `baseline` as `"plugin"` and `"baseline"` at `agents` in `group`,
/// then, when criterion ran them (a command-line filter may have skipped the group), keeps their
/// [`paired_ratio`] over four seconds as `"paired"`.
pub(crate) fn measure_against_baseline(
    group: &mut BenchmarkGroup<WallTime>,
    group_name: &'static str,
    medians: &mut Medians,
    agents: usize,
    mut plugin: impl FnMut(),
    mut baseline: impl FnMut(),
) {
    measure(group, group_name, medians, "plugin", agents, &mut plugin);
    measure(
        group,
        group_name,
        medians,
        "baseline",
        agents,
        &mut baseline,
    );
    if medians.get(group_name, "plugin", agents).is_some() {
        let ratio = paired_ratio(&mut plugin, &mut baseline, Duration::from_secs(4));
        medians.0.push((group_name, "paired", agents, ratio));
    }
}

/// Runs `plugin` and `baseline` in alternate blocks of about 10 ms each for `budget`, and returns
/// the median over block pairs of plugin time / baseline time per step. On a shared machine the two
/// halves of a pair see the same load, so this ratio moves far less from run to run than the ratio
/// of two medians measured seconds apart.
pub(crate) fn paired_ratio(
    mut plugin: impl FnMut(),
    mut baseline: impl FnMut(),
    budget: Duration,
) -> f64 {
    // Warm both up, and size the blocks from that.
    let plugin_steps = steps_for(block(&mut plugin, 3));
    let baseline_steps = steps_for(block(&mut baseline, 3));
    let mut ratios = Vec::new();
    let started = Instant::now();
    while ratios.len() < 11 || started.elapsed() < budget {
        let plugin_time = block(&mut plugin, plugin_steps);
        ratios.push(plugin_time / block(&mut baseline, baseline_steps));
    }
    median(ratios)
}

/// The steps a scene is timed for before a fresh one takes its place: half a second of its life,
/// while each flocking boid has about as many neighbours as when the boids were spread evenly (the
/// summary prints the counts at both ends of the window). Flocks form later, and boids then have
/// more neighbours (see `stress --scene flocking`).
///
/// The window starts after a fresh scene's first step, which is not timed: in it the app builds
/// its schedule and fills its buffers (0.4 ms more than the next step at 1 000 boids), which a game
/// does once, in its first frame.
pub(crate) const WINDOW: u64 = 30;

/// A scene that changes as it runs, timed in blocks over the same stretch of its life: a fresh one
/// (made and stepped once outside the timing, see [`WINDOW`]) takes its place before a block would
/// take it past [`WINDOW`] steps.
pub(crate) struct Windowed<S, F, T> {
    fresh: F,
    step: T,
    scene: S,
    /// The steps timed since the scene's first.
    age: u64,
}

impl<S, F: FnMut() -> S, T: FnMut(&mut S)> Windowed<S, F, T> {
    pub(crate) fn new(mut fresh: F, mut step: T) -> Self {
        let scene = Self::past_first_step(&mut fresh, &mut step);
        Self {
            fresh,
            step,
            scene,
            age: 0,
        }
    }

    /// A fresh scene, stepped once.
    fn past_first_step(fresh: &mut F, step: &mut T) -> S {
        let mut scene = fresh();
        step(&mut scene);
        scene
    }

    /// The steps the scene has left before a fresh one takes its place (a whole window when it
    /// has none left, since the next block starts a fresh one).
    pub(crate) fn room(&self) -> u64 {
        match WINDOW - self.age {
            0 => WINDOW,
            left => left,
        }
    }

    /// The scene, to be stepped `steps` more times (at most [`WINDOW`]): a fresh one when they
    /// would take this one past its window.
    pub(crate) fn ahead(&mut self, steps: u32) -> &mut S {
        assert!(u64::from(steps) <= WINDOW, "a block longer than a window");
        if self.age + u64::from(steps) > WINDOW {
            self.scene = Self::past_first_step(&mut self.fresh, &mut self.step);
            self.age = 0;
        }
        self.age += u64::from(steps);
        &mut self.scene
    }

    /// The time per step of a block of `steps` steps (at most [`WINDOW`]).
    pub(crate) fn block(&mut self, steps: u32) -> f64 {
        self.ahead(steps);
        let Self { scene, step, .. } = self;
        block(&mut || step(scene), steps)
    }
}
