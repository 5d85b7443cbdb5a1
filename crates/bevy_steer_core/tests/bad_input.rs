//! Every bad input of the issue list: none panics, none produces a NaN, each does what the docs say.

use crate::common::steer::prelude::*;
use crate::common::*;
use bevy::prelude::*;

#[test]
fn a_new_agent_at_rest_starts_every_behaviour_without_nan() {
    let mut app = create_app(60.0);
    let other = spawn(&mut app, (at(50.0, 50.0), Steering::default()));
    let agents = [
        spawn(&mut app, (at(0.0, 0.0), Wander::default())),
        spawn(
            &mut app,
            (
                at(0.0, 0.0),
                Wander::default().with_frame(WanderFrame::Heading),
            ),
        ),
        spawn(&mut app, (at(0.0, 0.0), Seek::new(v(10.0, 0.0)))),
        spawn(&mut app, (at(0.0, 0.0), Flee::new(v(10.0, 0.0)))),
        spawn(&mut app, (at(0.0, 0.0), Pursue::new(other))),
        spawn(&mut app, (at(0.0, 0.0), Evade::new(other))),
    ];
    step_checking(&mut app, 30, |app, _| assert_agents_sane(app));
    for agent in agents {
        assert!(
            velocity(&app, agent).length() > 1.0,
            "{agent} did not start moving"
        );
        assert!(problems(&app, agent).is_empty());
    }
}

#[test]
fn a_target_on_the_agent_itself_gives_a_safe_force() {
    let mut app = create_app(60.0);
    // Seek: brakes to rest. Flee: keeps running along its heading, or stays at rest.
    let seeker = spawn(
        &mut app,
        (at(5.0, 5.0), Velocity(v(40.0, 0.0)), Seek::new(v(5.0, 5.0))),
    );
    let moving_fleer = spawn(
        &mut app,
        (
            at(0.0, 0.0),
            Velocity(v(40.0, 0.0)),
            Flee::new(Vector::ZERO),
        ),
    );
    let resting_fleer = spawn(&mut app, (at(0.0, 0.0), Flee::new(Vector::ZERO)));
    step(&mut app, 1);
    assert_agents_sane(&mut app);
    assert!(velocity(&app, seeker).x < 40.0);
    assert!(velocity(&app, moving_fleer).x > 40.0);
    assert_eq!(velocity(&app, resting_fleer), Vector::ZERO);
    // An agent told to seek or pursue itself has nothing to steer by: it coasts, and says why.
    let self_seeker = spawn(&mut app, (at(9.0, 9.0), Velocity(v(0.0, 30.0))));
    app.world_mut()
        .entity_mut(self_seeker)
        .insert((Seek::new(self_seeker), Pursue::new(self_seeker)));
    step_checking(&mut app, 600, |app, _| assert_agents_sane(app));
    assert_eq!(velocity(&app, self_seeker), v(0.0, 30.0));
    for kind in [BehaviourKind::SEEK, BehaviourKind::PURSUE] {
        assert!(problems(&app, self_seeker).contains(Problem::TargetIsItself(kind)));
    }
}

#[test]
fn an_invalid_mass_makes_the_agent_coast_and_is_reported_once() {
    for mass in [0.0, -2.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut app = create_app(60.0);
        let agent = spawn(
            &mut app,
            (
                at(0.0, 0.0),
                Velocity(v(30.0, 0.0)),
                Mass(mass),
                Seek::new(v(0.0, 500.0)),
            ),
        );
        step_checking(&mut app, 60, |app, _| assert_agents_sane(app));
        assert_eq!(velocity(&app, agent), v(30.0, 0.0), "mass {mass}");
        assert!(
            (position(&app, agent) - v(30.0, 0.0)).length() < 1e-3,
            "mass {mass}"
        );
        assert!(
            problems(&app, agent).contains(Problem::InvalidMass),
            "mass {mass}"
        );
    }
}

#[test]
fn a_tiny_mass_reaches_full_speed_at_once_without_overflow() {
    let mut app = create_app(60.0);
    let agent = spawn(
        &mut app,
        (
            at(0.0, 0.0),
            Mass(f32::MIN_POSITIVE),
            Seek::new(v(0.0, 500.0)),
        ),
    );
    step(&mut app, 1);
    assert_agents_sane(&mut app);
    assert!((velocity(&app, agent) - v(0.0, 180.0)).length() < 1e-2);
    assert!(problems(&app, agent).is_empty());
}

#[test]
fn an_invalid_max_speed_counts_as_zero() {
    for max_speed in [-1.0, f32::NAN, f32::INFINITY] {
        let mut app = create_app(60.0);
        let agent = spawn(
            &mut app,
            (
                at(0.0, 0.0),
                Velocity(v(30.0, 0.0)),
                MaxSpeed(max_speed),
                Wander::default(),
            ),
        );
        step_checking(&mut app, 60, |app, _| assert_agents_sane(app));
        assert_eq!(velocity(&app, agent), Vector::ZERO, "max speed {max_speed}");
        assert!(problems(&app, agent).contains(Problem::InvalidMaxSpeed));
    }
    // Zero is a valid limit: the agent stands still and nothing is reported.
    let mut app = create_app(60.0);
    let agent = spawn(
        &mut app,
        (at(0.0, 0.0), MaxSpeed(0.0), Seek::new(v(100.0, 0.0))),
    );
    step(&mut app, 10);
    assert_eq!(position(&app, agent), Vector::ZERO);
    assert!(problems(&app, agent).is_empty());
}

#[test]
fn an_invalid_max_force_counts_as_zero() {
    for max_force in [-1.0, f32::NAN, f32::INFINITY] {
        let mut app = create_app(60.0);
        let agent = spawn(
            &mut app,
            (
                at(0.0, 0.0),
                Velocity(v(30.0, 0.0)),
                MaxForce(max_force),
                Seek::new(v(0.0, 500.0)),
            ),
        );
        step_checking(&mut app, 60, |app, _| assert_agents_sane(app));
        assert_eq!(velocity(&app, agent), v(30.0, 0.0), "max force {max_force}");
        assert!(problems(&app, agent).contains(Problem::InvalidMaxForce));
    }
}

#[test]
fn a_non_finite_target_or_weight_drops_that_force_only() {
    for bad in [f32::NAN, f32::INFINITY] {
        let mut app = create_app(60.0);
        let bad_point = spawn(
            &mut app,
            (
                at(0.0, 0.0),
                Seek::new(v(bad, 0.0)),
                Flee::new(v(-10.0, 0.0)),
            ),
        );
        let bad_weight = spawn(&mut app, (at(0.0, 0.0), Wander::default().with_weight(bad)));
        step_checking(&mut app, 30, |app, _| assert_agents_sane(app));
        // The flee force still applies.
        assert!(velocity(&app, bad_point).x > 1.0);
        let reported = problems(&app, bad_point);
        assert!(
            reported.contains(Problem::NonFiniteTarget(BehaviourKind::SEEK)),
            "{bad}"
        );
        assert!(!reported.contains(Problem::NonFiniteTarget(BehaviourKind::FLEE)));
        assert!(
            problems(&app, bad_weight).contains(Problem::NonFiniteForce(BehaviourKind::WANDER))
        );
    }
}

#[test]
fn a_despawned_target_stops_the_force_and_is_reported() {
    let mut app = create_app(60.0);
    let prey = spawn(
        &mut app,
        (at(100.0, 0.0), Velocity(v(0.0, 50.0)), Steering::default()),
    );
    let hunter = spawn(&mut app, (at(0.0, 0.0), Pursue::new(prey)));
    let seeker = spawn(&mut app, (at(0.0, 0.0), Seek::new(prey)));
    let evader = spawn(&mut app, (at(0.0, 0.0), Evade::new(prey)));
    step(&mut app, 30);
    app.world_mut().despawn(prey);
    step_checking(&mut app, 30, |app, _| assert_agents_sane(app));
    for (agent, kind) in [
        (hunter, BehaviourKind::PURSUE),
        (seeker, BehaviourKind::SEEK),
        (evader, BehaviourKind::EVADE),
    ] {
        assert!(
            problems(&app, agent).contains(Problem::MissingTarget(kind)),
            "{kind:?}"
        );
    }
    // With no force, the hunter coasts at the velocity it had.
    let before = velocity(&app, hunter);
    step(&mut app, 5);
    assert_eq!(velocity(&app, hunter), before);
}

#[test]
fn a_zero_weight_switches_a_behaviour_off_silently() {
    let mut app = create_app(60.0);
    let gone = spawn(&mut app, at(100.0, 0.0));
    app.world_mut().despawn(gone);
    let moving = Velocity(v(30.0, 0.0));
    let off = (
        at(0.0, 0.0),
        moving,
        Seek::new(gone).with_weight(0.0),
        Flee::new(v(f32::NAN, 0.0)).with_weight(0.0),
        Pursue::new(gone).with_weight(0.0),
        Evade::new(gone).with_weight(0.0),
        Wander::default().with_angle(1.0).with_weight(0.0),
    );
    let agent = spawn(&mut app, off);
    let wander = |app: &App| *app.world().get::<Wander>(agent).unwrap();
    let before = wander(&app);
    step(&mut app, 30);
    // No force: the agent coasts, nothing is reported and the wander state (the angle; in 3D the
    // displacement) has not moved on.
    assert_eq!(velocity(&app, agent), moving.0);
    assert!(problems(&app, agent).is_empty());
    assert_eq!(wander(&app), before);

    // A weight other than zero switches it back on.
    app.world_mut().get_mut::<Wander>(agent).unwrap().weight = 1.0;
    step(&mut app, 1);
    assert_ne!(
        Wander {
            weight: 0.0,
            ..wander(&app)
        },
        before
    );
    assert_ne!(velocity(&app, agent), moving.0);
}

#[test]
fn a_target_without_velocity_is_pursued_where_it_stands() {
    let mut app = create_app(60.0);
    let post = spawn(&mut app, at(200.0, 0.0));
    let hunter = spawn(&mut app, (at(0.0, 0.0), Pursue::new(post)));
    step(&mut app, 60);
    let velocity = velocity(&app, hunter);
    assert!(velocity.x > 50.0 && velocity.y.abs() < 1e-3, "{velocity}");
    assert!(problems(&app, hunter).is_empty());
}

#[test]
fn non_finite_motion_is_stopped_and_does_not_spread() {
    let mut app = create_app(60.0);
    let broken = spawn(
        &mut app,
        (
            at(f32::NAN, 0.0),
            Velocity(v(f32::NAN, 1.0)),
            Steering::default(),
        ),
    );
    let fast = spawn(
        &mut app,
        (
            at(0.0, 0.0),
            Velocity(v(f32::INFINITY, 0.0)),
            Steering::default(),
        ),
    );
    let hunter = spawn(
        &mut app,
        (at(0.0, 0.0), Pursue::new(broken), Evade::new(broken)),
    );
    step(&mut app, 10);
    assert_eq!(velocity(&app, broken), Vector::ZERO);
    assert!(problems(&app, broken).contains(Problem::NonFiniteMotion));
    assert_eq!(velocity(&app, fast), Vector::ZERO);
    assert_eq!(position(&app, fast), Vector::ZERO);
    assert!(position(&app, hunter).is_finite());
    assert!(velocity(&app, hunter).is_finite());
    assert!(problems(&app, hunter).contains(Problem::NonFiniteTarget(BehaviourKind::PURSUE)));
    assert!(problems(&app, hunter).contains(Problem::NonFiniteTarget(BehaviourKind::EVADE)));
}

#[test]
fn a_non_finite_custom_force_is_dropped() {
    let mut app = create_app(60.0);
    let agent = spawn(
        &mut app,
        (at(0.0, 0.0), Velocity(v(10.0, 0.0)), Steering(Vector::NAN)),
    );
    step(&mut app, 1);
    assert_eq!(velocity(&app, agent), v(10.0, 0.0));
    assert!(problems(&app, agent).contains(Problem::NonFiniteSteering));
}
