//! The Queue tutorial's scene through the ECS: a crowd seeks a doorway one agent wide in a wall and
//! goes through it one at a time, no two agents ever overlapping.

use crate::common::doors::*;
use crate::common::steer::prelude::*;
use crate::common::*;
use bevy::prelude::*;
use rand::rngs::Xoshiro128PlusPlus;
use rand::{RngExt, SeedableRng};

/// The walkers are discs of this radius: two overlap when their centres are closer than `2 r`.
const RADIUS: f32 = 5.0;
/// The wall across the x axis at x = 0, its doorway (16) wider than one walker (10) and narrower
/// than two (20), so only one fits through at a time; it reaches far beyond the crowd up and down,
/// so the only way past it is the doorway.
const SCENE: DoorScene = DoorScene {
    radius: RADIUS,
    door_half_width: 8.0,
    wall_half_thickness: 6.0,
    wall_length: 400.0,
    keep_right: 0.0,
};
const WALKERS: usize = 30;
/// The time the crowd has to get through, in seconds.
const SECONDS: u32 = 90;

/// What happened in a run.
#[derive(Debug)]
struct Outcome {
    /// How many walkers got through.
    through: usize,
    /// The time when the last of them got through, in seconds (`None` if not all did).
    all_through_at: Option<f32>,
    /// The least distance between two walkers' centres at any step.
    closest_pair: f32,
    /// The least distance from a walker's centre to the wall at any step (negative: inside it).
    nearest_wall: f32,
}

/// Thirty walkers, a jittered block of 5 by 6 at twice their radius apart (edge to edge) in front
/// of the wall, centred on the doorway's axis, seek the doorway, queue with `queue`, keep apart
/// with separation and steer round the wall; the run ends when all are through or after
/// [`SECONDS`]. Every step, checks that all are sane and that none has gone round the wall.
fn run_through_the_door(queue: Queue) -> Outcome {
    let (mut app, walls) = SCENE.app();
    let pitch = 4.0 * RADIUS;
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(13);
    let walkers: Vec<Entity> = (0..WALKERS)
        .map(|index| {
            let (column, row) = ((index % 5) as f32, (index / 5) as f32);
            let jitter =
                v(rng.random_range(-1.0..=1.0), rng.random_range(-1.0..=1.0)) * (RADIUS * 0.4);
            let start = v(-60.0 - column * pitch, (row - 2.5) * pitch) + jitter;
            SCENE.spawn_walker(&mut app, start, 1.0, Some(queue))
        })
        .collect();
    let mut outcome = Outcome {
        through: 0,
        all_through_at: None,
        closest_pair: f32::INFINITY,
        nearest_wall: f32::INFINITY,
    };
    let mut positions = Vec::with_capacity(WALKERS);
    for number in 1..=60 * SECONDS {
        step(&mut app, 1);
        assert_agents_sane(&mut app);
        positions.clear();
        positions.extend(walkers.iter().map(|&walker| position(&app, walker)));
        for (i, a) in positions.iter().enumerate() {
            assert!(
                a.y.abs() < SCENE.door_half_width + SCENE.wall_length,
                "walker {i} went round the wall: {a}"
            );
            for b in &positions[i + 1..] {
                outcome.closest_pair = outcome.closest_pair.min(a.distance(*b));
            }
            for &(centre, block) in &walls {
                let distance = block.shape.signed_distance(centre, *a);
                outcome.nearest_wall = outcome.nearest_wall.min(distance);
            }
        }
        outcome.through = positions.iter().filter(|&&p| SCENE.through(p, 1.0)).count();
        if outcome.through == WALKERS {
            outcome.all_through_at = Some(number as f32 / 60.0);
            break;
        }
    }
    outcome
}

/// Issue 13: the queue puts 30 agents through a one-agent-wide door with no two agents ever
/// overlapping.
///
/// The agents are discs of radius `r` = [`RADIUS`]; the doorway is `3.2 r` wide (wider than `2 r`,
/// narrower than `4 r`: one at a time); two agents overlap when their centres are closer than
/// `2 r`, checked after every step, not just at the end. The crowd starts as a crowd: a block of 5
/// by 6, `2 r` apart edge to edge and jittered, in front of the wall. With a personal space of
/// `2 r + 1` ([`Queue::min_distance`]) and the queue's look-ahead scaled to the agents' size, all
/// 30 get through within [`SECONDS`] and no two ever overlap; nor does any walker's centre come
/// within half its radius of the wall.
#[test]
fn the_queue_puts_thirty_agents_through_a_one_agent_wide_door_without_overlap() {
    let queue = Queue {
        ahead_distance: 3.0 * RADIUS,
        radius: 2.0 * RADIUS,
        ..default()
    }
    .with_min_distance(2.0 * RADIUS + 1.0);
    let outcome = run_through_the_door(queue);
    println!("{outcome:?}");
    assert!(
        outcome.all_through_at.is_some(),
        "only {} of {WALKERS} got through in {SECONDS} s: {outcome:?}",
        outcome.through
    );
    assert!(
        outcome.closest_pair >= 2.0 * RADIUS,
        "two walkers overlapped: {outcome:?}"
    );
    assert!(
        outcome.nearest_wall > RADIUS / 2.0,
        "a walker pressed into the wall: {outcome:?}"
    );
}

/// The same crowd with the queue's brake alone (no personal space) overlaps: the door test
/// above is not passed by the scene being easy.
#[test]
fn without_personal_space_the_same_crowd_overlaps_at_the_door() {
    let queue = Queue {
        ahead_distance: 3.0 * RADIUS,
        radius: 2.0 * RADIUS,
        ..default()
    };
    let outcome = run_through_the_door(queue);
    println!("{outcome:?}");
    assert!(
        outcome.closest_pair < 2.0 * RADIUS,
        "no overlap even so: {outcome:?}"
    );
}
