//! Results agree across step rates: the same scene at 30, 60 and 120 fixed steps per second.

use crate::common::steer::prelude::*;
use crate::common::*;

/// Where a seeker and a pursuer are after each whole second, at `steps_per_second`.
fn trajectory_per_second(steps_per_second: u32, seconds: u32) -> Vec<(Vector, Vector)> {
    let mut app = create_app(steps_per_second as f64);
    let seeker = app
        .world_mut()
        .spawn((
            at(0.0, 0.0),
            Velocity(v(0.0, 150.0)),
            Seek::new(v(500.0, -200.0)).with_slowing_radius(250.0),
        ))
        .id();
    let runner = app
        .world_mut()
        .spawn((
            at(300.0, 300.0),
            Velocity(v(100.0, 0.0)),
            Steering::default(),
        ))
        .id();
    let pursuer = app
        .world_mut()
        .spawn((at(-100.0, 0.0), Pursue::new(runner)))
        .id();
    (0..seconds)
        .map(|_| {
            step(&mut app, steps_per_second);
            (position(&app, seeker), position(&app, pursuer))
        })
        .collect()
}

#[test]
fn results_agree_at_30_60_and_120_steps_per_second() {
    let reference = trajectory_per_second(120, 5);
    for rate in [30, 60] {
        for (second, (ours, fine)) in trajectory_per_second(rate, 5)
            .iter()
            .zip(&reference)
            .enumerate()
        {
            // Relative to the distance covered so far, which is at least 100 units per second. The
            // step is explicit Euler, as the tutorials' update: the error shrinks with the step,
            // measured at most 3.1% at 30 steps per second and 1.0% at 60, after the first second.
            let scale = 100.0 * (second + 1) as f32;
            for (coarse, fine) in [(ours.0, fine.0), (ours.1, fine.1)] {
                let error = coarse.distance(fine) / scale;
                assert!(
                    error < 0.04,
                    "{rate} steps/s, second {}: {coarse} vs {fine} ({:.1}%)",
                    second + 1,
                    error * 100.0
                );
            }
        }
    }
}

/// A very light agent (a mass shorter than the step: `dt / mass` above 1, here up to 33 at 30
/// steps a second) takes each step's force whole instead of overshooting it: arriving, it comes to
/// rest on the target at every rate, as the README's advice to lower the mass promises. The
/// plain update (the force times `dt / mass`) flipped between full speed one way and the other,
/// step after step, short of the target, at 30 steps a second for masses up to 0.016 and at 60
/// for masses up to 0.008.
#[test]
fn a_very_light_agent_arrives_at_rest_at_30_60_and_120_steps_per_second() {
    let target = v(300.0, 0.0);
    for rate in [30, 60, 120] {
        for mass in [0.1, 0.02, 0.005, 0.001] {
            for max_force in [600.0, 1e6] {
                let mut app = create_app(rate as f64);
                let agent = spawn(
                    &mut app,
                    (
                        at(0.0, 0.0),
                        Mass(mass),
                        MaxForce(max_force),
                        Seek::new(target).with_slowing_radius(100.0),
                    ),
                );
                step(&mut app, 10 * rate);
                let mut fastest = 0.0_f32;
                step_checking(&mut app, 2 * rate, |app, _| {
                    fastest = fastest.max(velocity(app, agent).length());
                });
                let end = position(&app, agent);
                assert!(
                    end.distance(target) < 1.0 && fastest < 5.0,
                    "{rate} steps/s, mass {mass}, max force {max_force}: at {end}, \
                     up to {fastest} units/s after 10 s"
                );
            }
        }
    }
}
