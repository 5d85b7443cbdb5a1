//! Issue 26: crowds through doors of several widths, with and without `Queue`: with it, no two
//! walkers ever overlap and at least as many get through in the same time. Prints its figures.

use crate::common::doors::*;
use crate::common::steer::prelude::*;
use crate::common::*;
use bevy::prelude::*;
use rand::rngs::Xoshiro128PlusPlus;
use rand::{RngExt, SeedableRng};

/// The walkers are discs of this radius.
const RADIUS: f32 = 8.0;
const WALKERS: usize = 30;
const SECONDS: u32 = 60;

fn scene(door_width: f32, crowd: Crowd) -> DoorScene {
    let door_half_width = door_width / 2.0;
    DoorScene {
        radius: RADIUS,
        door_half_width,
        wall_half_thickness: 6.0,
        wall_length: 600.0,
        // Crowds going both ways keep right: each aims at the middle of its half of the room
        // the doorway leaves a walker's centre.
        keep_right: match crowd {
            Crowd::Opposite => (door_half_width - RADIUS) / 2.0,
            _ => 0.0,
        },
    }
}

/// How the crowd starts.
#[derive(Clone, Copy, Debug)]
enum Crowd {
    /// A jittered block of 5 by 6 in front of the door.
    Block,
    /// Two lines of 15 along the wall, above and below the door, walking towards it from both
    /// sides (each walker's front neighbour from the other side is in front of it).
    BothSides,
    /// Two blocks of 3 by 5, one on each side of the wall, going through the door in opposite
    /// directions at the same time.
    Opposite,
}

impl Crowd {
    /// Which way walker `index` crosses.
    fn direction(self, index: usize) -> f32 {
        match self {
            Crowd::Opposite if index % 2 == 1 => -1.0,
            _ => 1.0,
        }
    }
}

#[derive(Debug)]
struct Outcome {
    through: usize,
    /// Of them, those going towards +x and towards -x.
    through_each: [usize; 2],
    /// Pairs of walkers that overlapped (centres closer than `2 r`) at some step.
    overlapping_pairs: usize,
    closest_pair: f32,
}

fn run(door_width: f32, crowd: Crowd, queue: Option<Queue>, seed: u64) -> Outcome {
    let scene = scene(door_width, crowd);
    let half = scene.door_half_width;
    let (mut app, _) = scene.app();
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(seed);
    let starts: Vec<Vector> = (0..WALKERS)
        .map(|index| {
            let jitter =
                v(rng.random_range(-1.0..=1.0), rng.random_range(-1.0..=1.0)) * (RADIUS * 0.4);
            let pitch = 4.0 * RADIUS;
            match crowd {
                Crowd::Block => {
                    let (column, row) = ((index % 5) as f32, (index / 5) as f32);
                    v(-60.0 - column * pitch, (row - 2.5) * pitch) + jitter
                }
                Crowd::BothSides => {
                    let side = if index % 2 == 0 { 1.0 } else { -1.0 };
                    let (column, row) = (((index / 2) % 3) as f32, (index / 6) as f32);
                    v(-40.0 - column * pitch, side * (half + 40.0 + row * pitch)) + jitter
                }
                Crowd::Opposite => {
                    let (column, row) = (((index / 2) % 3) as f32, (index / 6) as f32);
                    let start = v(-60.0 - column * pitch, (row - 2.0) * pitch) + jitter;
                    v(start.x * crowd.direction(index), start.y)
                }
            }
        })
        .collect();
    let walkers: Vec<Entity> = starts
        .iter()
        .enumerate()
        .map(|(index, &start)| scene.spawn_walker(&mut app, start, crowd.direction(index), queue))
        .collect();
    let mut spacing = Spacing::new();
    let mut through = 0;
    let mut through_each = [0; 2];
    let mut positions = Vec::with_capacity(WALKERS);
    for _ in 0..60 * SECONDS {
        step(&mut app, 1);
        assert_agents_sane(&mut app);
        positions.clear();
        positions.extend(walkers.iter().map(|&walker| position(&app, walker)));
        spacing.watch(&positions, RADIUS);
        through_each = [1.0, -1.0].map(|direction| {
            positions
                .iter()
                .enumerate()
                .filter(|&(index, &p)| {
                    crowd.direction(index) == direction && scene.through(p, direction)
                })
                .count()
        });
        through = through_each[0] + through_each[1];
        if through == WALKERS {
            break;
        }
    }
    Outcome {
        through,
        through_each,
        overlapping_pairs: spacing.overlapping.len(),
        closest_pair: spacing.closest_pair,
    }
}

/// How many fewer walkers may get through with Queue than without, as a fraction: a crowd at a
/// door is chaotic, and where Queue neither helps nor hinders, which of two runs gets one or two
/// more through is a coin toss. Crossing both ways through the widest door, these seeds give 89
/// against 89 in 2D and 87 against 89 in 3D (the same sums rounded differently send its crowds
/// other ways); the seeds below changed to 20 to 39 gave 594 against 598 in 2D, 589 against 596
/// in 3D (a one-off run, `-- --nocapture` prints the counts).
const CHAOS: f32 = 0.03;

/// The crowd: radius 8, personal space 16 (`2 r`, as the docs recommend), the default
/// queue; doors three, five and eight radii wide; a block in front, two lines along the wall, and
/// two blocks going through the door in opposite directions (keeping right). Each scene is run
/// from three jittered starts, and the counts summed: a crowd at a narrow door is chaotic, one run
/// says little. With Queue, no two walkers ever overlap, and as many get through as without it,
/// on every layout, give or take [`CHAOS`]. Crowds going both ways get through a door eight radii
/// wide (room for two side by side with space to spare), at least 80 % of each; through narrower
/// doors the counts are only printed and held to as many as without Queue: a door three radii
/// wide takes one walker at a time, and two crowds pressing into it from both sides jam with or
/// without Queue.
#[test]
fn queued_crowds_flow_through_doors_without_overlap_and_no_slower() {
    let queue = Queue::default().with_min_distance(2.0 * RADIUS);
    let mut failures = Vec::new();
    for door in [3.0 * RADIUS, 5.0 * RADIUS, 8.0 * RADIUS] {
        for crowd in [Crowd::Block, Crowd::BothSides, Crowd::Opposite] {
            let (mut queued, mut free, mut overlaps, mut free_overlaps) = (0, 0, 0, 0);
            let (mut queued_each, mut free_each) = ([0; 2], [0; 2]);
            let mut closest = f32::INFINITY;
            for seed in [26, 27, 28] {
                let with = run(door, crowd, Some(queue), seed);
                let without = run(door, crowd, None, seed);
                queued += with.through;
                free += without.through;
                for side in 0..2 {
                    queued_each[side] += with.through_each[side];
                    free_each[side] += without.through_each[side];
                }
                overlaps += with.overlapping_pairs;
                free_overlaps += without.overlapping_pairs;
                closest = closest.min(with.closest_pair);
            }
            println!(
                "door {door} wide, {crowd:?}, 3 runs of {WALKERS} for {SECONDS} s: with Queue \
                 {queued} through ({} towards +x, {} towards -x), {overlaps} overlapping pairs \
                 (closest {closest:.2}); without {free} through ({} and {}), {free_overlaps} \
                 overlapping pairs",
                queued_each[0], queued_each[1], free_each[0], free_each[1],
            );
            let each_way = 3 * WALKERS / 2;
            let mostly = !matches!(crowd, Crowd::Opposite)
                || door < 8.0 * RADIUS
                || queued_each
                    .iter()
                    .all(|&n| n as f32 >= 0.8 * each_way as f32);
            let as_many = queued as f32 >= (1.0 - CHAOS) * free as f32;
            if overlaps > 0 || !as_many || !mostly {
                failures.push(format!(
                    "door {door}, {crowd:?}: {queued} through {queued_each:?} with {overlaps} \
                     overlaps, {free} {free_each:?} without"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The README's door figures, over more seeds: every layout from seeds 20 to 39, the walkers
/// through with and without Queue, and no two queued walkers ever overlapping. Ignored (3 min):
/// run with `cargo test -p bevy_steer_core --test integration queue_doors -- --ignored --nocapture`.
#[test]
#[ignore = "measures the README's door figures over 20 seeds (3 min)"]
fn crowds_through_doors_over_twenty_seeds() {
    let queue = Queue::default().with_min_distance(2.0 * RADIUS);
    for door in [3.0 * RADIUS, 5.0 * RADIUS, 8.0 * RADIUS] {
        for crowd in [Crowd::Block, Crowd::BothSides, Crowd::Opposite] {
            let (mut queued, mut free, mut overlaps) = (0, 0, 0);
            for seed in 20..40 {
                let with = run(door, crowd, Some(queue), seed);
                queued += with.through;
                overlaps += with.overlapping_pairs;
                free += run(door, crowd, None, seed).through;
            }
            println!(
                "door {door} wide, {crowd:?}, 20 runs of {WALKERS}: {queued} through with Queue, \
                 {free} without"
            );
            assert_eq!(overlaps, 0, "door {door}, {crowd:?}");
        }
    }
}

/// Two queueing walkers (personal space and separation) converging, head-on or from the sides,
/// never both brake in the same step: one goes first (the one further along their shared
/// heading, or the lesser entity). Both get on (the one going first well over 100 units; head-on
/// on nearly one line, the other is pushed back part of the way by separation before it slides
/// past, so only 30), and they never overlap.
#[test]
fn converging_walkers_never_both_brake() {
    let cases = [
        ("head-on", v(-100.0, 4.0), v(100.0, -4.0)),
        ("from the sides", v(-50.0, -100.0), v(-50.0, 100.0)),
        ("from the sides, uneven", v(-50.0, -90.0), v(-60.0, 100.0)),
    ];
    for (name, a, b) in cases {
        let mut app = create_app(60.0);
        app.add_plugins(SpatialIndexPlugin::<Walker>::new(30.0))
            .add_queue::<Walker>()
            .add_neighbour_behaviour::<Separation, Walker>();
        let goal = |from: Vector| {
            if from.y == 0.0 { -from } else { v(40.0, 0.0) }
        };
        let walkers = [a, b].map(|start| {
            spawn(
                &mut app,
                (
                    Walker,
                    at(start.x, start.y),
                    MaxSpeed(60.0),
                    MaxForce(324.0),
                    Seek::new(goal(start)).with_slowing_radius(0.0),
                    Queue::default().with_min_distance(2.0 * RADIUS),
                    Separation::new(3.0 * RADIUS)
                        .with_method(SeparationMethod::ByDistance)
                        .with_strength(240.0),
                ),
            )
        });
        let mut both_braked = 0;
        let mut one_braked = 0;
        let mut closest = f32::INFINITY;
        step_checking(&mut app, 60 * 6, |app, _| {
            assert_agents_sane(app);
            let braking = walkers
                .iter()
                .filter(|&&walker| {
                    app.world().get::<Queue>(walker).unwrap().last_brake != Vector::ZERO
                })
                .count();
            both_braked += u32::from(braking == 2);
            one_braked += u32::from(braking == 1);
            closest = closest.min(position(app, walkers[0]).distance(position(app, walkers[1])));
        });
        let progress: Vec<f32> = [a, b]
            .iter()
            .zip(walkers)
            .map(|(&start, walker)| {
                let goal = goal(start);
                start.distance(goal) - position(&app, walker).distance(goal)
            })
            .collect();
        println!(
            "{name}: at {} and {}; steps with both braking {both_braked}, with one {one_braked}; closest \
             {closest:.2}; progress towards their goals {:.0} and {:.0}",
            position(&app, walkers[0]),
            position(&app, walkers[1]),
            progress[0],
            progress[1]
        );
        assert_eq!(both_braked, 0, "{name}");
        assert!(closest >= 2.0 * RADIUS - 1e-3, "{name}: {closest}");
        assert!(
            progress.iter().all(|&p| p > 30.0) && progress.iter().any(|&p| p > 100.0),
            "{name}: {progress:?}"
        );
    }
}
