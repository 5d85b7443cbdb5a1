//! Tuning groups applied to running agents, headless.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_steer_core::prelude::*;
use bevy_steer_egui::prelude::*;

#[derive(Component)]
struct Hunter;

#[derive(Component)]
struct Prey;

fn create_app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        SteeringPlugin::default(),
        SteeringTuningPlugin,
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        16,
    )))
    .add_tuning_group::<Hunter>("Hunter")
    .add_tuning_group::<Prey>("Prey");
    app
}

fn spawn(app: &mut App, marker: impl Bundle, circle_radius: f32) -> Entity {
    app.world_mut()
        .spawn((
            marker,
            Wander::default().with_circle(50.0, circle_radius),
            MaxSpeed(100.0),
        ))
        .id()
}

fn radius(app: &App, entity: Entity) -> f32 {
    app.world().get::<Wander>(entity).unwrap().circle_radius
}

fn groups(app: &mut App) -> Mut<'_, TuningGroups> {
    app.world_mut().resource_mut::<TuningGroups>()
}

fn index_of(app: &App, label: &str) -> usize {
    let groups = app.world().resource::<TuningGroups>();
    groups
        .groups()
        .iter()
        .position(|group| group.label == label)
        .unwrap()
}

#[test]
fn groups_show_their_agents_values_and_counts() {
    let mut app = create_app();
    spawn(&mut app, Hunter, 10.0);
    spawn(&mut app, Prey, 20.0);
    spawn(&mut app, Prey, 20.0);
    app.update();
    let groups = app.world().resource::<TuningGroups>();
    let hunter = groups.get("Hunter").unwrap();
    assert_eq!(hunter.agents, 1);
    assert_eq!(hunter.values.unwrap().circle_radius, 10.0);
    let prey = groups.get("Prey").unwrap();
    assert_eq!(prey.agents, 2);
    assert_eq!(prey.values.unwrap().max_speed, 100.0);
    assert_eq!(groups.get("All").unwrap().agents, 3);
}

#[test]
fn editing_a_group_changes_only_its_agents_at_once_and_new_ones_too() {
    let mut app = create_app();
    let hunter = spawn(&mut app, Hunter, 10.0);
    let prey = spawn(&mut app, Prey, 20.0);
    app.update();
    let index = index_of(&app, "Prey");
    let mut values = groups(&mut app).groups()[index].values.unwrap();
    values.circle_radius = 333.0;
    values.mass = 4.0;
    groups(&mut app).set_values(index, values);
    app.update();
    assert_eq!(radius(&app, prey), 333.0);
    assert_eq!(app.world().get::<Mass>(prey).unwrap().0, 4.0);
    assert_eq!(radius(&app, hunter), 10.0);
    // A prey spawned later gets the tuned values.
    let late = spawn(&mut app, Prey, 20.0);
    app.update();
    assert_eq!(radius(&app, late), 333.0);
}

#[test]
fn editing_all_changes_every_agent_and_groups_can_then_differ() {
    let mut app = create_app();
    let hunter = spawn(&mut app, Hunter, 10.0);
    let prey = spawn(&mut app, Prey, 20.0);
    app.update();
    let mut values = TuningValues {
        circle_radius: 111.0,
        ..default()
    };
    groups(&mut app).set_values(0, values);
    app.update();
    assert_eq!((radius(&app, hunter), radius(&app, prey)), (111.0, 111.0));
    assert_eq!(
        groups(&mut app)
            .get("Hunter")
            .unwrap()
            .values
            .unwrap()
            .circle_radius,
        111.0
    );

    let hunter_index = index_of(&app, "Hunter");
    values.circle_radius = 5.0;
    groups(&mut app).set_values(hunter_index, values);
    app.update();
    // New agents get All's values, then their group's: a new hunter ends with the hunter's.
    let late_hunter = spawn(&mut app, Hunter, 10.0);
    app.update();
    assert_eq!(
        (
            radius(&app, hunter),
            radius(&app, prey),
            radius(&app, late_hunter)
        ),
        (5.0, 111.0, 5.0)
    );
}

#[test]
fn reset_restores_each_groups_starting_values() {
    let mut app = create_app();
    let hunter = spawn(&mut app, Hunter, 10.0);
    let prey = spawn(&mut app, Prey, 20.0);
    app.update();
    let values = TuningValues {
        circle_radius: 999.0,
        ..default()
    };
    groups(&mut app).set_values(0, values);
    app.update();
    groups(&mut app).reset();
    app.update();
    assert_eq!((radius(&app, hunter), radius(&app, prey)), (10.0, 20.0));
}

#[test]
fn a_loaded_preset_applies_all_then_named_groups() {
    let mut app = create_app();
    let hunter = spawn(&mut app, Hunter, 10.0);
    let prey = spawn(&mut app, Prey, 20.0);
    app.update();
    let all = TuningValues {
        circle_radius: 70.0,
        ..default()
    };
    let mut hunters = all;
    hunters.circle_radius = 7.0;
    let preset = Preset {
        groups: [("All".to_owned(), all), ("Hunter".to_owned(), hunters)]
            .into_iter()
            .collect(),
    };
    groups(&mut app).apply_preset(&preset).unwrap();
    app.update();
    assert_eq!((radius(&app, hunter), radius(&app, prey)), (7.0, 70.0));
}
