//! The API a game builds on: one schedule, registered behaviours of its own, switches, ranges,
//! events, and entity targets that survive cloning.

use std::time::Duration;

use crate::common::steer::prelude::*;
use crate::common::*;
use bevy::ecs::entity::{EntityCloner, EntityHashMap};
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use steer::plugin::misplaced_steering_systems;

#[derive(Component)]
struct Marked;

#[derive(Resource, Default)]
struct Found(Vec<usize>);

#[test]
fn the_spatial_index_follows_the_schedule_the_plugin_was_given() {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        SteeringPlugin::new(Update),
        SpatialIndexPlugin::<Marked>::new(50.0),
    ))
    .init_resource::<Found>()
    .add_systems(
        SteeringSchedule,
        (|index: Neighbours<Marked>, mut found: ResMut<Found>| {
            found.0.push(index.within(Vector::ZERO, 100.0).len());
        })
        .in_set(SteeringSystems::Decide),
    );
    // Steps far shorter than a fixed step: FixedUpdate never runs, Update does every frame.
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(1)));
    app.world_mut().spawn((at(10.0, 0.0), Marked));
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(app.world().resource::<SteeringStepStats>().steps, 3);
    assert_eq!(app.world().resource::<Found>().0, [1, 1, 1]);
}

/// A spatial index plugin beside a flocking plugin for the same marker, in either order, or added
/// twice: one index, the first one's, and the flock flocks (separation pushes two boids apart).
#[test]
fn a_spatial_index_added_beside_flocking_or_twice_is_kept_once() {
    type Add = fn(&mut App);
    let orders: [(&str, Add); 3] = [
        ("flocking, then the index", |app| {
            app.add_plugins(FlockingPlugin::<Marked>::new(40.0))
                .add_plugins(SpatialIndexPlugin::<Marked>::new(80.0));
        }),
        ("the index, then flocking", |app| {
            app.add_plugins(SpatialIndexPlugin::<Marked>::new(40.0))
                .add_plugins(FlockingPlugin::<Marked>::new(80.0));
        }),
        ("the index twice, then flocking", |app| {
            app.add_plugins(SpatialIndexPlugin::<Marked>::new(40.0))
                .add_plugins(SpatialIndexPlugin::<Marked>::new(40.0))
                .add_plugins(FlockingPlugin::<Marked>::new(40.0));
        }),
    ];
    for (order, add) in orders {
        let mut app = create_app(60.0);
        add(&mut app);
        let boid = |app: &mut App, x: f32| {
            spawn(
                app,
                (
                    at(x, 0.0),
                    Marked,
                    Separation::default(),
                    Alignment::default(),
                    Cohesion::default(),
                ),
            )
        };
        let (left, right) = (boid(&mut app, -5.0), boid(&mut app, 5.0));
        step(&mut app, 30);
        let apart = position(&app, right).x - position(&app, left).x;
        assert!(apart > 15.0, "{order}: {apart} apart");
    }
}

/// Whether the index the plugin rebuilt equals one rebuilt entity by entity from the same query.
#[derive(Resource, Default)]
struct SameIndex(Option<(usize, bool)>);

/// Components that put the entities that have them in tables of their own.
#[derive(Component)]
struct OtherTable;
#[derive(Component)]
struct AnotherTable;

#[test]
fn the_index_rebuilt_in_parts_on_the_pool_equals_one_rebuilt_entity_by_entity() {
    // Enough entities for the rebuild to be cut into parts on the compute pool (when it has two
    // threads or more), in eight tables of different sizes (with and without a velocity and two
    // other components), some not finite.
    let mut app = create_app(60.0);
    app.add_plugins(SpatialIndexPlugin::<Marked>::new(20.0))
        .init_resource::<SameIndex>()
        .add_systems(
            SteeringSchedule,
            (|index: Res<SpatialIndex<Marked>>,
              entities: Query<(Entity, &Transform, Option<&Velocity>), With<Marked>>,
              mut same: ResMut<SameIndex>| {
                let mut whole = SpatialIndex::<Marked>::new(20.0);
                whole.rebuild_moving(entities.iter().map(|(entity, transform, velocity)| {
                    Neighbour {
                        entity,
                        position: as_position(transform.translation),
                        velocity: velocity.map_or(Vector::ZERO, |velocity| velocity.0),
                    }
                }));
                let everywhere = |index: &SpatialIndex<Marked>| index.within(Vector::ZERO, 1e6);
                let found = everywhere(&index);
                same.0 = Some((found.len(), found == everywhere(&whole)));
            })
            .in_set(SteeringSystems::Decide),
        );
    for index in 0..12_000_u32 {
        let mut position = from_angle(index as f32 * 0.37) * (index % 997) as f32;
        if index % 1_001 == 5 {
            position.x = f32::NAN;
        }
        let mut entity = app.world_mut().spawn((at(position.x, position.y), Marked));
        if index % 3 == 0 {
            entity.insert(Velocity(v(index as f32, -1.0)));
        }
        if index % 4 == 1 {
            entity.insert(OtherTable);
        }
        if index % 7 == 3 {
            entity.insert(AnotherTable);
        }
    }
    step(&mut app, 2);
    assert_eq!(
        app.world().resource::<SameIndex>().0,
        Some((12_000 - 12, true))
    );
}

#[test]
fn steering_sets_in_another_schedule_are_found() {
    let mut app = create_app(60.0);
    app.add_systems(FixedUpdate, (|| {}).in_set(SteeringSystems::Decide));
    app.add_systems(SteeringSchedule, (|| {}).in_set(SteeringSystems::Decide));
    let misplaced = misplaced_steering_systems(app.world().resource::<Schedules>());
    assert_eq!(misplaced.len(), 1, "{misplaced:?}");
    assert_eq!(misplaced[0].0, FixedUpdate.intern());
    assert_eq!(misplaced[0].1, SteeringSystems::Decide);
}

#[test]
fn a_missing_spatial_index_finds_nothing_instead_of_failing() {
    let mut app = create_app(60.0);
    app.init_resource::<Found>().add_systems(
        SteeringSchedule,
        (|index: Neighbours<Marked>, mut found: ResMut<Found>| {
            found.0.push(index.within(Vector::ZERO, 100.0).len());
            assert!(index.closest(Vector::ZERO, 100.0, None).is_none());
        })
        .in_set(SteeringSystems::Decide),
    );
    app.world_mut().spawn((at(10.0, 0.0), Marked));
    step(&mut app, 2);
    assert_eq!(app.world().resource::<Found>().0, [0, 0]);
}

fn orbit_app() -> App {
    let mut app = create_app(60.0);
    app.add_steering_behaviour::<Orbit>();
    app
}

#[test]
fn a_registered_behaviour_is_stepped_and_weighted() {
    let mut app = orbit_app();
    let agents = [0.0, 1.0, 2.0].map(|weight| {
        spawn(
            &mut app,
            (
                at(300.0, 0.0),
                MaxForce(10_000.0),
                Orbit {
                    weight,
                    ..Orbit::new(300.0)
                },
            ),
        )
    });
    step(&mut app, 1);
    let [off, single, double] = agents.map(|agent| velocity(&app, agent));
    assert_eq!(off, Vector::ZERO, "a zero weight adds no force");
    assert!(single.y > 0.0, "turns counter-clockwise: {single}");
    assert!(
        double.abs_diff_eq(single * 2.0, 1e-3),
        "weight 2 doubles the force: {single} {double}"
    );
    // Over time the agent circles the centre near the radius.
    let agent = agents[1];
    let mut angle_travelled = 0.0;
    let mut previous = position(&app, agent);
    step_checking(&mut app, 1200, |app, _| {
        let now = position(app, agent);
        // The signed angle about +Z from the last position to this one.
        angle_travelled += (previous.x * now.y - previous.y * now.x)
            .atan2(previous.x * now.x + previous.y * now.y);
        previous = now;
    });
    assert!(angle_travelled > std::f32::consts::TAU, "{angle_travelled}");
    let distance = position(&app, agent).length();
    assert!((200.0..450.0).contains(&distance), "{distance}");
}

#[test]
fn a_registered_behaviour_is_listed_after_the_built_in_ones_and_its_forces_can_be_drawn() {
    let mut app = orbit_app();
    // Registering twice changes nothing.
    app.add_steering_behaviour::<Orbit>();
    let kinds: Vec<BehaviourKind> = app
        .world()
        .resource::<SteeringBehaviours>()
        .kinds()
        .collect();
    let mut expected = BehaviourKind::BUILT_IN.to_vec();
    expected.push(BehaviourKind::of::<Orbit>());
    assert_eq!(kinds, expected);

    spawn(&mut app, (at(300.0, 0.0), Orbit::new(300.0)));
    spawn(
        &mut app,
        (
            at(0.0, 300.0),
            Orbit {
                weight: 0.0,
                ..Orbit::new(300.0)
            },
        ),
    );
    let world = app.world_mut();
    let mut forces = Vec::new();
    world.resource_scope(|world, behaviours: Mut<SteeringBehaviours>| {
        let orbit = behaviours.iter().last().unwrap();
        orbit.weighted_forces(world, &mut forces);
    });
    assert_eq!(forces.len(), 1, "only the active one: {forces:?}");
    assert_eq!(forces[0].0, v(300.0, 0.0));
    assert!(forces[0].1.y > 0.0);
}

#[test]
fn a_registered_behaviour_reports_bad_input_under_its_own_name() {
    let mut app = orbit_app();
    let agent = spawn(
        &mut app,
        (
            at(100.0, 0.0),
            Orbit {
                weight: f32::NAN,
                ..Orbit::new(50.0)
            },
        ),
    );
    step_checking(&mut app, 10, |app, _| assert_agents_sane(app));
    let reported: Vec<Problem> = problems(&app, agent).iter().collect();
    assert_eq!(
        reported,
        [Problem::NonFiniteForce(BehaviourKind::new("orbit"))]
    );
    assert_eq!(velocity(&app, agent), Vector::ZERO);
    assert!(reported[0].to_string().contains("orbit"), "{}", reported[0]);
}

#[test]
fn a_disabled_behaviour_keeps_its_tuning_and_resumes() {
    let mut app = create_app(60.0);
    let seeker = spawn(
        &mut app,
        (
            at(0.0, 0.0),
            Seek::new(v(500.0, 0.0))
                .with_weight(0.7)
                .with_enabled(false),
        ),
    );
    let archetype = app.world().entity(seeker).archetype().id();
    step(&mut app, 30);
    assert_eq!(position(&app, seeker), Vector::ZERO);
    app.world_mut().get_mut::<Seek>(seeker).unwrap().enabled = true;
    step(&mut app, 30);
    assert!(position(&app, seeker).x > 0.0);
    let seek = app.world().get::<Seek>(seeker).unwrap();
    assert_eq!((seek.weight, seek.slowing_radius), (0.7, 100.0));
    assert_eq!(app.world().entity(seeker).archetype().id(), archetype);
}

#[test]
fn every_default_behaviour_idles() {
    let mut app = create_app(60.0);
    let agent = spawn(
        &mut app,
        (
            at(50.0, 50.0),
            Seek::default(),
            Flee::default(),
            Pursue::default(),
            Evade::default(),
        ),
    );
    step(&mut app, 30);
    assert_eq!(position(&app, agent), v(50.0, 50.0));
    assert!(problems(&app, agent).is_empty());
}

#[test]
fn flee_and_evade_act_only_within_their_panic_distance() {
    let mut app = create_app(60.0);
    let threat = spawn(&mut app, at(0.0, 0.0));
    let far_fleer = spawn(
        &mut app,
        (
            at(200.0, 0.0),
            Flee::new(Vector::ZERO).with_panic_distance(100.0),
        ),
    );
    let near_fleer = spawn(
        &mut app,
        (
            at(50.0, 0.0),
            Flee::new(Vector::ZERO).with_panic_distance(100.0),
        ),
    );
    let far_evader = spawn(
        &mut app,
        (
            at(0.0, 200.0),
            Evade::new(threat).with_panic_distance(100.0),
        ),
    );
    let near_evader = spawn(
        &mut app,
        (at(0.0, 50.0), Evade::new(threat).with_panic_distance(100.0)),
    );
    step(&mut app, 1);
    assert_eq!(velocity(&app, far_fleer), Vector::ZERO);
    assert_eq!(velocity(&app, far_evader), Vector::ZERO);
    assert!(velocity(&app, near_fleer).x > 0.0);
    assert!(velocity(&app, near_evader).y > 0.0);
    // The near ones run until they are out of range, then coast.
    step(&mut app, 300);
    for agent in [near_fleer, near_evader] {
        let distance = position(&app, agent).length();
        assert!(distance > 100.0, "{distance}");
    }
}

#[test]
fn pursuit_prediction_can_be_capped() {
    let boid = steer::forces::Boid {
        position: Vector::ZERO,
        velocity: Vector::ZERO,
        max_speed: 100.0,
    };
    let (target, target_velocity) = (v(1000.0, 0.0), v(0.0, 50.0));
    // Uncapped: ten seconds ahead, as the tutorial predicts.
    let uncapped = steer::forces::predict_position(&boid, target, target_velocity);
    assert_eq!(uncapped, v(1000.0, 500.0));
    let capped = steer::forces::predict_position_within(&boid, target, target_velocity, Some(2.0));
    assert_eq!(capped, v(1000.0, 100.0));
    for bad in [-1.0, f32::NAN] {
        let none =
            steer::forces::predict_position_within(&boid, target, target_velocity, Some(bad));
        assert_eq!(none, target, "cap {bad}");
    }
}

#[derive(Resource, Default)]
struct Heard {
    lost: Vec<TargetLost>,
    arrived: Vec<Arrived>,
    lost_messages: Vec<TargetLost>,
}

fn listening_app() -> App {
    let mut app = create_app(60.0);
    app.init_resource::<Heard>()
        .add_observer(|lost: On<TargetLost>, mut heard: ResMut<Heard>| {
            heard.lost.push(*lost);
        })
        .add_observer(|arrived: On<Arrived>, mut heard: ResMut<Heard>| {
            heard.arrived.push(*arrived);
        })
        .add_systems(
            Update,
            |mut messages: MessageReader<TargetLost>, mut heard: ResMut<Heard>| {
                heard.lost_messages.extend(messages.read().copied());
            },
        );
    app
}

#[test]
fn a_despawned_target_is_announced_once_and_forgotten() {
    let mut app = listening_app();
    let prey = spawn(&mut app, (at(300.0, 0.0), Velocity(Vector::Y * 30.0)));
    let hunter = spawn(&mut app, (at(0.0, 0.0), Pursue::new(prey)));
    let fleer = spawn(&mut app, (at(0.0, 50.0), Flee::new(prey)));
    step(&mut app, 10);
    assert!(app.world().resource::<Heard>().lost.is_empty());
    app.world_mut().despawn(prey);
    step_checking(&mut app, 20, |app, _| assert_agents_sane(app));
    let lost = &app.world().resource::<Heard>().lost;
    assert_eq!(
        lost,
        &[
            TargetLost {
                entity: fleer,
                target: prey,
                behaviour: BehaviourKind::FLEE,
            },
            TargetLost {
                entity: hunter,
                target: prey,
                behaviour: BehaviourKind::PURSUE,
            },
        ]
    );
    assert_eq!(app.world().get::<Pursue>(hunter).unwrap().target, None);
    assert_eq!(app.world().get::<Flee>(fleer).unwrap().target, None);
    assert!(problems(&app, hunter).contains(Problem::MissingTarget(BehaviourKind::PURSUE)));

    // The same events are written as messages.
    let heard = app.world().resource::<Heard>();
    assert_eq!(heard.lost_messages, heard.lost);

    // A new target lost later is announced again.
    let second = spawn(&mut app, at(100.0, 0.0));
    app.world_mut().get_mut::<Pursue>(hunter).unwrap().target = Some(second);
    step(&mut app, 2);
    app.world_mut().despawn(second);
    step(&mut app, 5);
    assert_eq!(app.world().resource::<Heard>().lost.len(), 3);
}

#[test]
fn arrival_is_announced_once_per_visit() {
    let mut app = listening_app();
    let goal = v(200.0, 0.0);
    let seeker = spawn(&mut app, (at(0.0, 0.0), Mass(0.2), Seek::new(goal)));
    step(&mut app, 60 * 20);
    let arrived = app.world().resource::<Heard>().arrived.clone();
    assert_eq!(
        arrived,
        [Arrived {
            entity: seeker,
            target: Target::Point(goal),
            position: goal,
        }]
    );
    assert!(position(&app, seeker).distance(goal) <= 2.0);
    // Sent away and back: a second arrival.
    app.world_mut().entity_mut(seeker).insert(at(-100.0, 0.0));
    step(&mut app, 60 * 20);
    assert_eq!(app.world().resource::<Heard>().arrived.len(), 2);
}

#[test]
fn cloned_agents_aim_at_the_clones_of_their_targets() {
    let mut app = create_app(60.0);
    let leader = spawn(&mut app, (at(0.0, 0.0), Wander::default()));
    let chaser = spawn(&mut app, (at(50.0, 0.0), Pursue::new(leader)));
    let shadow = spawn(
        &mut app,
        (
            at(-50.0, 0.0),
            Seek::new(chaser),
            Flee::new(leader),
            Evade::new(chaser),
        ),
    );
    let world = app.world_mut();
    let originals = [leader, chaser, shadow];
    let mut clones = EntityHashMap::<Entity>::default();
    for original in originals {
        clones.insert(original, world.spawn_empty().id());
    }
    let mut cloner = EntityCloner::default();
    for original in originals {
        cloner.clone_entity_mapped(world, original, &mut clones);
    }
    let clone_of = |entity: Entity| clones[&entity];
    assert_eq!(
        world.get::<Pursue>(clone_of(chaser)).unwrap().target,
        Some(clone_of(leader))
    );
    let shadow_clone = clone_of(shadow);
    assert_eq!(
        world.get::<Seek>(shadow_clone).unwrap().target,
        Some(Target::Entity(clone_of(chaser)))
    );
    assert_eq!(
        world.get::<Flee>(shadow_clone).unwrap().target,
        Some(Target::Entity(clone_of(leader)))
    );
    assert_eq!(
        world.get::<Evade>(shadow_clone).unwrap().target,
        Some(clone_of(chaser))
    );
    // The originals are untouched, and everyone steps.
    assert_eq!(world.get::<Pursue>(chaser).unwrap().target, Some(leader));
    step_checking(&mut app, 30, |app, _| assert_agents_sane(app));
}

/// A behaviour of a game's own with an entity target: keep `distance` from it.
#[derive(Component)]
#[require(Steering)]
struct Shadow {
    target: Option<Entity>,
}

impl SteeringBehaviour for Shadow {
    const NAME: &'static str = "shadow";

    fn force(
        &self,
        agent: &steer::forces::Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vector, NoTarget> {
        let target = target_state(self.target, lookup)?;
        Ok(steer::forces::seek(agent, target.position, 50.0))
    }

    fn forget_target(&mut self) {
        self.target = None;
    }
}

#[test]
fn a_registered_behaviour_loses_its_target_once() {
    let mut app = listening_app();
    app.add_steering_behaviour::<Shadow>();
    let target = spawn(&mut app, at(100.0, 0.0));
    let shadow = spawn(
        &mut app,
        (
            at(0.0, 0.0),
            Shadow {
                target: Some(target),
            },
        ),
    );
    step(&mut app, 5);
    assert!(velocity(&app, shadow).x > 0.0);
    app.world_mut().despawn(target);
    step(&mut app, 10);
    let lost = &app.world().resource::<Heard>().lost;
    assert_eq!(
        lost,
        &[TargetLost {
            entity: shadow,
            target,
            behaviour: BehaviourKind::new("shadow"),
        }]
    );
    assert_eq!(app.world().get::<Shadow>(shadow).unwrap().target, None);
}

#[test]
#[should_panic(expected = "before SteeringPlugin")]
fn registering_before_the_plugin_is_a_set_up_error() {
    App::new().add_steering_behaviour::<Orbit>();
}

#[test]
#[should_panic(expected = "two behaviours are named")]
fn two_behaviours_with_one_name_are_a_set_up_error() {
    #[derive(Component)]
    #[require(Steering)]
    struct AnotherOrbit;

    impl SteeringBehaviour for AnotherOrbit {
        const NAME: &'static str = "orbit";

        fn force(
            &self,
            _: &steer::forces::Boid,
            _: impl Fn(Entity) -> Option<TargetState>,
        ) -> Result<Vector, NoTarget> {
            Ok(Vector::ZERO)
        }

        fn forget_target(&mut self) {}
    }

    orbit_app().add_steering_behaviour::<AnotherOrbit>();
}

#[test]
fn evasion_prediction_can_be_capped_through_the_plugin() {
    let mut app = create_app(60.0);
    // A pursuer far off to the left, running up the screen fast: the uncapped evader predicts it
    // far up and flees downward; the capped one predicts it near where it is and flees right.
    let pursuer = spawn(&mut app, (at(-1000.0, 0.0), Velocity(v(0.0, 1000.0))));
    let uncapped = spawn(&mut app, (at(0.0, 0.0), Evade::new(pursuer)));
    let capped = spawn(
        &mut app,
        (at(0.0, 0.0), Evade::new(pursuer).with_max_prediction(0.1)),
    );
    step(&mut app, 1);
    let (uncapped, capped) = (velocity(&app, uncapped), velocity(&app, capped));
    assert!(uncapped.y < 0.0, "{uncapped}");
    assert!(capped.x > capped.y.abs() * 5.0, "{capped}");
}
