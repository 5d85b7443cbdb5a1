//! `SteeringInterpolationPlugin` with the steering: agents drawn between their last two steps, and
//! a move the game makes in `Update` drawn where the game put the agent.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_steer::prelude::*;

/// Frames of `frame_seconds`, 64 steps a second, one agent at the origin moving along +X at 100.
fn app_with_a_mover(frame_seconds: f64) -> (App, Entity) {
    app_with_a_mover_steered_by(SteeringPlugin::default(), frame_seconds)
}

fn app_with_a_mover_steered_by(steering: SteeringPlugin, frame_seconds: f64) -> (App, Entity) {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, steering, SteeringInterpolationPlugin))
        .insert_resource(Time::<Fixed>::from_hz(64.0))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            frame_seconds,
        )));
    let agent = app
        .world_mut()
        .spawn((
            Transform::default(),
            Steering::default(),
            Velocity(Vec2::new(100.0, 0.0)),
        ))
        .id();
    (app, agent)
}

fn drawn_x(app: &App, agent: Entity) -> f32 {
    app.world().get::<Transform>(agent).unwrap().translation.x
}

/// Where the game puts the agent in `Update` on frame [`TELEPORT_FRAME`].
const TELEPORT_TO: Vec3 = Vec3::new(5000.0, 0.0, 0.0);
const TELEPORT_FRAME: u32 = 20;

fn teleport(mut frame: Local<u32>, mut agents: Query<&mut Transform, With<Velocity>>) {
    *frame += 1;
    if *frame == TELEPORT_FRAME {
        for mut transform in &mut agents {
            transform.translation = TELEPORT_TO;
        }
    }
}

#[test]
fn a_move_made_in_update_is_drawn_where_the_game_put_the_agent() {
    // At 60 frames a second a step runs in nearly every frame; at 40, in every one; at 240, in one
    // frame of four.
    for frame_seconds in [1.0 / 60.0, 1.0 / 40.0, 1.0 / 240.0] {
        let (mut app, agent) = app_with_a_mover(frame_seconds);
        app.add_systems(Update, teleport);
        let mut last = f32::NEG_INFINITY;
        for frame in 1..=TELEPORT_FRAME + 40 {
            app.update();
            let x = drawn_x(&app, agent);
            if frame > TELEPORT_FRAME {
                // From the teleport on, no further than a frame's travel back, and moving on.
                assert!(
                    (TELEPORT_TO.x - 2.0..TELEPORT_TO.x + 100.0).contains(&x) && x >= last,
                    "frames of {frame_seconds} s: drawn at x = {x} on frame {frame} (before: {last})"
                );
            }
            last = x;
        }
        // 40 frames at 100 a second, less what interpolation holds back (at most a step).
        let travel = 100.0 * (40.0 * frame_seconds - 1.0 / 64.0) as f32;
        assert!(
            last - TELEPORT_TO.x > travel * 0.9,
            "frames of {frame_seconds} s: steered on to {last}"
        );
    }
}

#[test]
fn between_steps_agents_are_drawn_part_way() {
    // Four frames a step: each frame draws the agent a quarter of a step (100 / 256) further on.
    let (mut app, agent) = app_with_a_mover(1.0 / 256.0);
    for _ in 0..64 {
        app.update();
    }
    let mut last = drawn_x(&app, agent);
    for _ in 0..16 {
        app.update();
        let x = drawn_x(&app, agent);
        assert!(
            ((x - last) - 100.0 / 256.0).abs() < 0.01,
            "moved {} in a frame",
            x - last
        );
        last = x;
    }
}

/// Steering in `Update` (a step a frame, nothing to draw between): interpolation leaves the agent
/// where each frame's step put it.
#[test]
fn steering_in_update_moves_agents_as_without_interpolation() {
    let (mut app, agent) = app_with_a_mover_steered_by(SteeringPlugin::new(Update), 1.0 / 60.0);
    for _ in 0..60 {
        app.update();
    }
    let x = drawn_x(&app, agent);
    assert!((x - 100.0).abs() < 3.0, "after a second at 100: x = {x}");
}
