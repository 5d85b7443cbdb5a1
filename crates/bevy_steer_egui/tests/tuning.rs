//! Tuning groups applied to running agents, headless.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_steer_core::prelude::*;
use bevy_steer_egui::prelude::*;
use bevy_steer_egui::tuning::TuningError;

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

/// A component of the game's own, tunable like the built-in behaviours.
#[derive(Component, Reflect, Default)]
#[reflect(Component, Default)]
struct Orbit {
    #[reflect(@Tunable::logarithmic(1.0, 1000.0))]
    radius: f32,
    #[reflect(@Tunable::linear(-10.0, 10.0))]
    weight: f32,
    /// Not tunable: no range.
    turns: f32,
}

fn values(entries: &[(&str, &str, f32)]) -> TuningValues {
    let mut values = TuningValues::default();
    for &(component, field, value) in entries {
        values.set(component, field, value);
    }
    values
}

fn shown(app: &App, label: &str, component: &str, field: &str) -> Option<f32> {
    let groups = app.world().resource::<TuningGroups>();
    groups.get(label).unwrap().values.get(component, field)
}

#[test]
fn groups_show_their_agents_values_and_counts() {
    let mut app = create_app();
    spawn(&mut app, Hunter, 10.0);
    spawn(&mut app, Prey, 20.0);
    spawn(&mut app, Prey, 20.0);
    app.update();
    let groups = app.world().resource::<TuningGroups>();
    assert_eq!(groups.get("Hunter").unwrap().agents, 1);
    assert_eq!(groups.get("Prey").unwrap().agents, 2);
    assert_eq!(groups.get("All").unwrap().agents, 3);
    assert_eq!(shown(&app, "Hunter", "Wander", "circle_radius"), Some(10.0));
    assert_eq!(shown(&app, "Prey", "MaxSpeed", "0"), Some(100.0));
    assert_eq!(shown(&app, "Prey", "Mass", "0"), Some(1.0));
    // Only what the agents carry.
    assert_eq!(shown(&app, "Prey", "Separation", "radius"), None);
}

#[test]
fn every_behaviours_numeric_fields_are_found_by_reflection() {
    let mut app = create_app();
    app.update();
    let tunables = app.world().resource::<TunableComponents>();
    let fields = |name: &str| -> Vec<String> {
        let component = tunables
            .get(name)
            .unwrap_or_else(|| panic!("{name} not tunable"));
        component
            .fields
            .iter()
            .map(|field| field.name.clone())
            .collect()
    };
    assert_eq!(
        fields("Separation"),
        ["radius", "field_of_view", "strength", "weight"]
    );
    assert_eq!(
        fields("Alignment"),
        ["radius", "field_of_view", "strength", "weight"]
    );
    assert_eq!(
        fields("Cohesion"),
        ["radius", "field_of_view", "strength", "weight"]
    );
    assert_eq!(
        fields("Wander"),
        ["circle_distance", "circle_radius", "angle_change", "weight"]
    );
    assert_eq!(
        fields("Seek"),
        [
            "slowing_radius",
            "arrival_tolerance",
            "arrival_speed",
            "weight"
        ]
    );
    assert_eq!(
        fields("Queue"),
        [
            "ahead_distance",
            "radius",
            "brake",
            "hard_stop",
            "min_distance",
            "weight"
        ]
    );
    assert_eq!(
        fields("FollowLeader"),
        [
            "behind_distance",
            "sight_radius",
            "slowing_radius",
            "evade_scale",
            "weight"
        ]
    );
    for name in ["Flee", "Pursue", "Evade"] {
        assert_eq!(fields(name), ["weight"]);
    }
    let max_speed = tunables.get("MaxSpeed").unwrap();
    assert_eq!(max_speed.fields[0].name, "0");
    assert_eq!(max_speed.fields[0].label, "max speed");
    assert!(
        tunables.get("Velocity").is_none(),
        "velocity is state, not tuning"
    );
}

#[test]
fn a_games_own_component_is_tuned_like_the_built_in_ones() {
    let mut app = create_app();
    app.register_type::<Orbit>();
    let orbiter = app
        .world_mut()
        .spawn((
            Prey,
            Wander::default(),
            Orbit {
                radius: 50.0,
                weight: 1.0,
                turns: 3.0,
            },
        ))
        .id();
    app.update();
    let tunables = app.world().resource::<TunableComponents>();
    let orbit = tunables.get("Orbit").unwrap();
    assert_eq!(
        orbit.fields.len(),
        2,
        "a field without a range is not tunable"
    );
    assert_eq!(shown(&app, "Prey", "Orbit", "radius"), Some(50.0));

    let index = app
        .world()
        .resource::<TuningGroups>()
        .index_of("Prey")
        .unwrap();
    groups(&mut app).set_value(index, "Orbit", "radius", 250.0);
    app.update();
    let orbit = app.world().get::<Orbit>(orbiter).unwrap();
    assert_eq!((orbit.radius, orbit.weight, orbit.turns), (250.0, 1.0, 3.0));
}

#[test]
fn editing_a_flocking_rule_changes_the_agents_that_have_it() {
    let mut app = create_app();
    let flocker = app
        .world_mut()
        .spawn((Prey, Separation::default(), Cohesion::default()))
        .id();
    let wanderer = spawn(&mut app, Prey, 20.0);
    app.update();
    assert_eq!(shown(&app, "Prey", "Separation", "radius"), Some(30.0));
    let index = app
        .world()
        .resource::<TuningGroups>()
        .index_of("Prey")
        .unwrap();
    groups(&mut app).set_value(index, "Separation", "radius", 80.0);
    groups(&mut app).set_value(index, "Cohesion", "weight", 0.5);
    app.update();
    assert_eq!(app.world().get::<Separation>(flocker).unwrap().radius, 80.0);
    assert_eq!(app.world().get::<Cohesion>(flocker).unwrap().weight, 0.5);
    assert!(
        app.world().get::<Separation>(wanderer).is_none(),
        "nothing added"
    );
}

#[test]
fn editing_a_group_changes_only_its_agents_at_once_and_new_ones_too() {
    let mut app = create_app();
    let hunter = spawn(&mut app, Hunter, 10.0);
    let prey = spawn(&mut app, Prey, 20.0);
    app.update();
    let index = index_of(&app, "Prey");
    groups(&mut app).set_values(
        index,
        &values(&[("Wander", "circle_radius", 333.0), ("Mass", "0", 4.0)]),
    );
    app.update();
    assert_eq!(radius(&app, prey), 333.0);
    assert_eq!(app.world().get::<Mass>(prey).unwrap().0, 4.0);
    assert_eq!(radius(&app, hunter), 10.0);
    // A prey spawned later gets the tuned values, and keeps those not edited.
    let late = spawn(&mut app, Prey, 20.0);
    app.update();
    assert_eq!(radius(&app, late), 333.0);
    assert_eq!(app.world().get::<MaxSpeed>(late).unwrap().0, 100.0);
}

#[test]
fn editing_all_changes_every_agent_and_groups_can_then_differ() {
    let mut app = create_app();
    let hunter = spawn(&mut app, Hunter, 10.0);
    let prey = spawn(&mut app, Prey, 20.0);
    app.update();
    groups(&mut app).set_value(0, "Wander", "circle_radius", 111.0);
    app.update();
    assert_eq!((radius(&app, hunter), radius(&app, prey)), (111.0, 111.0));
    assert_eq!(
        shown(&app, "Hunter", "Wander", "circle_radius"),
        Some(111.0)
    );

    let hunter_index = index_of(&app, "Hunter");
    groups(&mut app).set_value(hunter_index, "Wander", "circle_radius", 5.0);
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
fn reset_restores_each_agents_starting_values() {
    let mut app = create_app();
    let hunter = spawn(&mut app, Hunter, 10.0);
    let prey = spawn(&mut app, Prey, 20.0);
    app.update();
    groups(&mut app).set_value(0, "Wander", "circle_radius", 999.0);
    app.update();
    groups(&mut app).reset();
    app.update();
    assert_eq!((radius(&app, hunter), radius(&app, prey)), (10.0, 20.0));
}

#[test]
fn reset_restores_what_each_agent_had_and_only_what_was_changed() {
    let mut app = create_app();
    let speeds: Vec<Entity> = (0..3)
        .map(|index| {
            let prey = spawn(&mut app, Prey, 20.0 + index as f32);
            app.world_mut().get_mut::<MaxSpeed>(prey).unwrap().0 = 100.0 + index as f32;
            prey
        })
        .collect();
    app.update();
    groups(&mut app).set_value(0, "MaxSpeed", "0", 50.0);
    app.update();
    // A prey spawned after the change gets it, and is restored to what it was spawned with.
    let late = spawn(&mut app, Prey, 30.0);
    app.update();
    assert_eq!(app.world().get::<MaxSpeed>(late).unwrap().0, 50.0);
    groups(&mut app).reset();
    app.update();
    for (index, &prey) in speeds.iter().enumerate() {
        assert_eq!(
            app.world().get::<MaxSpeed>(prey).unwrap().0,
            100.0 + index as f32
        );
        // Not changed, so not reset to the group's shown value.
        assert_eq!(radius(&app, prey), 20.0 + index as f32);
    }
    assert_eq!(app.world().get::<MaxSpeed>(late).unwrap().0, 100.0);
}

#[test]
fn an_edit_of_all_shows_only_in_groups_that_have_the_component() {
    let mut app = create_app();
    spawn(&mut app, Hunter, 10.0);
    let prey = spawn(&mut app, Prey, 20.0);
    app.world_mut()
        .entity_mut(prey)
        .insert(Separation::default());
    app.update();
    groups(&mut app).set_value(0, "Separation", "radius", 60.0);
    app.update();
    assert_eq!(shown(&app, "Prey", "Separation", "radius"), Some(60.0));
    assert_eq!(shown(&app, "Hunter", "Separation", "radius"), None);
    // A hunter that has separation later joins with the edited value, shown in full.
    let late = app
        .world_mut()
        .spawn((Hunter, Separation::default().with_strength(99.0)))
        .id();
    app.update();
    assert_eq!(app.world().get::<Separation>(late).unwrap().radius, 60.0);
    assert_eq!(shown(&app, "Hunter", "Separation", "radius"), Some(60.0));
    assert_eq!(shown(&app, "Hunter", "Separation", "strength"), Some(99.0));
}

#[test]
fn a_loaded_preset_applies_all_then_named_groups() {
    let mut app = create_app();
    let hunter = spawn(&mut app, Hunter, 10.0);
    let prey = spawn(&mut app, Prey, 20.0);
    app.update();
    let preset = Preset {
        groups: [
            (
                "All".to_owned(),
                values(&[("Wander", "circle_radius", 70.0)]),
            ),
            (
                "Hunter".to_owned(),
                values(&[("Wander", "circle_radius", 7.0)]),
            ),
        ]
        .into_iter()
        .collect(),
    };
    groups(&mut app).apply_preset(&preset).unwrap();
    app.update();
    assert_eq!((radius(&app, hunter), radius(&app, prey)), (7.0, 70.0));
}

/// A group of its own, with no agent yet when a preset is loaded.
#[derive(Component)]
struct Scout;

/// Loading a preset then saving it loses nothing: values for components none of a group's agents
/// carries yet (which agents that join later get) are in the preset saved, as is a group with no
/// agent yet.
#[test]
fn a_preset_loaded_then_saved_keeps_values_no_agent_carries_yet() {
    let mut app = create_app();
    app.add_tuning_group::<Scout>("Scout");
    spawn(&mut app, Hunter, 10.0);
    app.update();
    let loaded = Preset {
        groups: [
            (
                "Hunter".to_owned(),
                values(&[("Separation", "radius", 44.0)]),
            ),
            ("Scout".to_owned(), values(&[("MaxSpeed", "0", 99.0)])),
        ]
        .into_iter()
        .collect(),
    };
    groups(&mut app).apply_preset(&loaded).unwrap();
    app.update();
    let saved = app.world().resource::<TuningGroups>().to_preset();
    let value = |label: &str, component: &str, field: &str| {
        saved
            .groups
            .get(label)
            .and_then(|values| values.get(component, field))
    };
    assert_eq!(value("Hunter", "Separation", "radius"), Some(44.0));
    assert_eq!(value("Scout", "MaxSpeed", "0"), Some(99.0));
    // What the agents carry is saved as before.
    assert_eq!(value("Hunter", "Wander", "circle_radius"), Some(10.0));
}

/// Components of the game's own whose ranges are declared backwards or with a NaN end.
#[derive(Component, Reflect, Default)]
#[reflect(Component, Default)]
struct OddRanges {
    #[reflect(@Tunable::linear(10.0, 0.0))]
    reversed: f32,
    #[reflect(@Tunable::linear(f32::NAN, 1.0))]
    nan_end: f32,
}

/// Saving clamps each value into its range, and a range of the game's own making that is reversed
/// or has a NaN end does not make it panic.
#[test]
fn saving_values_with_odd_ranges_does_not_panic() {
    let mut app = create_app();
    app.register_type::<OddRanges>();
    app.world_mut().spawn((
        Hunter,
        Wander::default(),
        OddRanges {
            reversed: 5.0,
            nan_end: 0.5,
        },
    ));
    app.update();
    let world = app.world();
    let preset = world.resource::<TuningGroups>().to_preset();
    let tunables = world.resource::<TunableComponents>();
    let hunter = tunables.clamp(&preset.groups["Hunter"]);
    assert_eq!(hunter.get("OddRanges", "reversed"), Some(0.0));
    assert_eq!(hunter.get("OddRanges", "nan_end"), Some(0.5));
}

#[test]
fn values_are_checked_against_the_components_and_their_ranges() {
    let mut app = create_app();
    app.update();
    let tunables = app.world().resource::<TunableComponents>();
    assert_eq!(
        tunables.check(&values(&[("Separation", "radius", 50.0)])),
        Ok(())
    );
    assert!(matches!(
        tunables.check(&values(&[("Separation", "radius", -1.0)])),
        Err(TuningError::OutOfRange { .. })
    ));
    assert!(matches!(
        tunables.check(&values(&[("Separation", "radius", f32::NAN)])),
        Err(TuningError::OutOfRange { .. })
    ));
    assert!(matches!(
        tunables.check(&values(&[("Separation", "enabled", 1.0)])),
        Err(TuningError::UnknownField { .. })
    ));
    assert!(matches!(
        tunables.check(&values(&[("Velocity", "0", 1.0)])),
        Err(TuningError::UnknownComponent(_))
    ));
}

/// A newtype of the game's, registered while the panel runs: it sorts among the limits (newtypes
/// first, then by name), before `MaxForce` and `MaxSpeed`.
#[derive(Component, Reflect, Default)]
#[reflect(Component, Default)]
struct Aaa(#[reflect(@Tunable::linear(0.0, 1.0))] f32);

#[test]
fn reset_after_a_type_is_registered_while_tuning_restores_the_components_changed() {
    let mut app = create_app();
    let hunter = spawn(&mut app, Hunter, 10.0);
    app.update();
    let max_force = app.world().get::<MaxForce>(hunter).unwrap().0;
    groups(&mut app).set_value(0, "MaxSpeed", "0", 10.0);
    groups(&mut app).set_value(0, "Wander", "circle_radius", 3.0);
    app.update();
    app.register_type::<Aaa>();
    app.update();
    groups(&mut app).reset();
    app.update();
    assert_eq!(app.world().get::<MaxSpeed>(hunter).unwrap().0, 100.0);
    assert_eq!(radius(&app, hunter), 10.0);
    assert_eq!(app.world().get::<MaxForce>(hunter).unwrap().0, max_force);
}

#[test]
fn a_group_shows_its_lowest_numbered_agents_values_and_counts_only_agents() {
    let mut app = create_app();
    let first = spawn(&mut app, Prey, 11.0);
    let second = spawn(&mut app, Prey, 22.0);
    assert!(first.index_u32() < second.index_u32());
    // Marked, but no agent (no `Steering`): not counted, not tuned.
    let marked = app.world_mut().spawn((Prey, MaxSpeed(5.0))).id();
    app.update();
    assert_eq!(shown(&app, "Prey", "Wander", "circle_radius"), Some(11.0));
    assert_eq!(shown(&app, "Prey", "MaxSpeed", "0"), Some(100.0));
    assert_eq!(
        app.world()
            .resource::<TuningGroups>()
            .get("Prey")
            .unwrap()
            .agents,
        2
    );
    let index = index_of(&app, "Prey");
    groups(&mut app).set_value(index, "MaxSpeed", "0", 50.0);
    app.update();
    assert_eq!(app.world().get::<MaxSpeed>(marked).unwrap().0, 5.0);
    assert_eq!(app.world().get::<MaxSpeed>(second).unwrap().0, 50.0);
}
