//! The values the panel tunes, the groups of agents it tunes them for, and the systems that apply
//! them. None of this needs egui: [`SteeringTuningPlugin`] works headless.

use core::ops::RangeInclusive;

use bevy::ecs::query::ArchetypeFilter;
use bevy::prelude::*;
use bevy_steer_core::prelude::*;
use serde::{Deserialize, Serialize};

use crate::preset::Preset;

/// What the panel tunes for one group of agents: the wander circle and the agents' limits.
#[derive(Serialize, Deserialize, Reflect, Clone, Copy, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
#[reflect(Default, Debug, PartialEq, Clone)]
pub struct TuningValues {
    /// [`Wander::circle_distance`].
    pub circle_distance: f32,
    /// [`Wander::circle_radius`].
    pub circle_radius: f32,
    /// [`Wander::angle_change`].
    pub angle_change: f32,
    /// [`MaxSpeed`].
    pub max_speed: f32,
    /// [`MaxForce`].
    pub max_force: f32,
    /// [`Mass`].
    pub mass: f32,
}

impl Default for TuningValues {
    /// The components' own defaults.
    fn default() -> Self {
        let wander = Wander::default();
        Self {
            circle_distance: wander.circle_distance,
            circle_radius: wander.circle_radius,
            angle_change: wander.angle_change,
            max_speed: MaxSpeed::default().0,
            max_force: MaxForce::default().0,
            mass: Mass::default().0,
        }
    }
}

/// One tunable value: its name in files, its label in the panel, its allowed range, and how to
/// read and write it. The sliders and the preset checks both use [`TUNING_FIELDS`].
pub struct TuningField {
    /// The field's name in [`TuningValues`] and in preset files.
    pub name: &'static str,
    /// The slider's label.
    pub label: &'static str,
    /// Allowed values: the slider's range, and what a preset may contain.
    pub range: RangeInclusive<f32>,
    /// Whether the slider is logarithmic (for ranges spanning orders of magnitude).
    pub logarithmic: bool,
    /// Reads the value.
    pub get: fn(&TuningValues) -> f32,
    /// Writes the value.
    pub set: fn(&mut TuningValues, f32),
}

/// Every tunable value, in panel order.
pub const TUNING_FIELDS: [TuningField; 6] = [
    TuningField {
        name: "circle_distance",
        label: "wander circle distance",
        range: 0.0..=2000.0,
        logarithmic: true,
        get: |values| values.circle_distance,
        set: |values, value| values.circle_distance = value,
    },
    TuningField {
        name: "circle_radius",
        label: "wander circle radius",
        range: 0.0..=2000.0,
        logarithmic: true,
        get: |values| values.circle_radius,
        set: |values, value| values.circle_radius = value,
    },
    TuningField {
        name: "angle_change",
        label: "wander angle change (rad)",
        range: 0.0..=core::f32::consts::TAU,
        logarithmic: false,
        get: |values| values.angle_change,
        set: |values, value| values.angle_change = value,
    },
    TuningField {
        name: "max_speed",
        label: "max speed",
        range: 0.0..=2000.0,
        logarithmic: true,
        get: |values| values.max_speed,
        set: |values, value| values.max_speed = value,
    },
    TuningField {
        name: "max_force",
        label: "max force",
        range: 0.0..=10000.0,
        logarithmic: true,
        get: |values| values.max_force,
        set: |values, value| values.max_force = value,
    },
    TuningField {
        name: "mass",
        label: "mass",
        range: 0.01..=100.0,
        logarithmic: true,
        get: |values| values.mass,
        set: |values, value| values.mass = value,
    },
];

/// A tuning value outside its [`TuningField::range`].
#[derive(Clone, Debug, PartialEq)]
pub struct OutOfRange {
    /// The field's name.
    pub field: &'static str,
    /// The value found.
    pub value: f32,
    /// What is allowed.
    pub range: RangeInclusive<f32>,
}

impl core::fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} = {} is outside {}..={}",
            self.field,
            self.value,
            self.range.start(),
            self.range.end()
        )
    }
}

impl TuningValues {
    /// The values of one agent.
    pub fn of_agent(
        wander: Option<&Wander>,
        max_speed: MaxSpeed,
        max_force: MaxForce,
        mass: Mass,
    ) -> Self {
        let wander = wander.copied().unwrap_or_default();
        Self {
            circle_distance: wander.circle_distance,
            circle_radius: wander.circle_radius,
            angle_change: wander.angle_change,
            max_speed: max_speed.0,
            max_force: max_force.0,
            mass: mass.0,
        }
    }

    /// Checks every value against its field's range (NaN is never in range).
    pub fn check(&self) -> Result<(), OutOfRange> {
        for field in &TUNING_FIELDS {
            let value = (field.get)(self);
            if !field.range.contains(&value) {
                return Err(OutOfRange {
                    field: field.name,
                    value,
                    range: field.range.clone(),
                });
            }
        }
        Ok(())
    }
}

/// The agents one group tunes, and its values.
#[derive(Clone, Debug)]
pub struct TuningGroup {
    /// The name shown in the panel and used in preset files.
    pub label: String,
    /// The values the panel shows: read from the group's first agent until they are edited.
    pub values: Option<TuningValues>,
    /// The values the group's agents had when the panel first saw them: what "reset" restores.
    pub defaults: Option<TuningValues>,
    /// How many agents the group had on the last update.
    pub agents: usize,
    /// Set once the values were edited: from then on new agents of the group get them too.
    edited: bool,
    /// Set when the values changed and the agents have not been given them yet.
    pending: bool,
}

impl TuningGroup {
    fn new(label: String) -> Self {
        Self {
            label,
            values: None,
            defaults: None,
            agents: 0,
            edited: false,
            pending: false,
        }
    }
}

/// The label of the group every agent belongs to.
pub const ALL_AGENTS: &str = "All";

/// Every tuning group, "All" first.
#[derive(Resource, Debug)]
pub struct TuningGroups {
    groups: Vec<TuningGroup>,
}

impl Default for TuningGroups {
    fn default() -> Self {
        Self {
            groups: vec![TuningGroup::new(ALL_AGENTS.to_owned())],
        }
    }
}

impl TuningGroups {
    /// The groups, "All" first, then in registration order.
    pub fn groups(&self) -> &[TuningGroup] {
        &self.groups
    }

    /// The group called `label`.
    pub fn get(&self, label: &str) -> Option<&TuningGroup> {
        self.groups.iter().find(|group| group.label == label)
    }

    /// Gives the group at `index` new values, applied to its agents on the next update. Giving
    /// "All" values gives them to every group, since every agent gets them.
    pub fn set_values(&mut self, index: usize, values: TuningValues) {
        let targets = if self.groups[index].label == ALL_AGENTS {
            0..self.groups.len()
        } else {
            index..index + 1
        };
        for group in &mut self.groups[targets] {
            group.values = Some(values);
            group.edited = true;
        }
        self.groups[index].pending = true;
    }

    /// Restores the values the agents started with: each named group's, or "All"'s when there is
    /// no named group. (Applying "All"'s starting values, read from one agent, to every agent would
    /// not restore the others.)
    pub fn reset(&mut self) {
        let named_groups = self.groups.len() > 1;
        for (index, group) in self.groups.iter_mut().enumerate() {
            if let Some(defaults) = group.defaults {
                group.values = Some(defaults);
                group.pending = index > 0 || !named_groups;
            }
        }
    }

    /// The current values of every group that has some, by label.
    pub fn to_preset(&self) -> Preset {
        Preset {
            groups: self
                .groups
                .iter()
                .filter_map(|group| Some((group.label.clone(), group.values?)))
                .collect(),
        }
    }

    /// Gives each group named in `preset` its values ("All" first, so named groups override it).
    /// A preset naming a group this app does not have changes nothing.
    pub fn apply_preset(&mut self, preset: &Preset) -> Result<(), UnknownGroup> {
        if let Some(label) = preset.groups.keys().find(|label| self.get(label).is_none()) {
            return Err(UnknownGroup(label.clone()));
        }
        for index in 0..self.groups.len() {
            if let Some(values) = preset.groups.get(&self.groups[index].label) {
                self.set_values(index, *values);
            }
        }
        Ok(())
    }

    fn push(&mut self, label: String) -> usize {
        self.groups.push(TuningGroup::new(label));
        self.groups.len() - 1
    }
}

/// A preset names a group the app has not registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownGroup(pub String);

impl core::fmt::Display for UnknownGroup {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "this app has no tuning group called {:?}", self.0)
    }
}

/// The order tuning is applied in: "All" first, so that a named group's values win.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TuningSystems {
    /// The "All" group.
    All,
    /// The groups added with [`TuningGroupAppExt::add_tuning_group`].
    Groups,
}

/// Registers tuning groups on an [`App`].
pub trait TuningGroupAppExt {
    /// Adds a group of the agents with marker component `M`, shown as `label`.
    fn add_tuning_group<M: Component>(&mut self, label: impl Into<String>) -> &mut Self;
}

impl TuningGroupAppExt for App {
    fn add_tuning_group<M: Component>(&mut self, label: impl Into<String>) -> &mut Self {
        let index = self
            .world_mut()
            .get_resource_or_init::<TuningGroups>()
            .push(label.into());
        self.add_systems(
            Update,
            sync_tuning_group::<With<M>>(index).in_set(TuningSystems::Groups),
        )
    }
}

/// Adds the "All" group and the systems that apply tuning to agents; no user interface.
pub struct SteeringTuningPlugin;

impl Plugin for SteeringTuningPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TuningGroups>()
            .register_type::<TuningValues>()
            .configure_sets(Update, (TuningSystems::All, TuningSystems::Groups).chain())
            .add_systems(
                Update,
                sync_tuning_group::<With<Steering>>(0).in_set(TuningSystems::All),
            );
    }
}

type TunedAgent = (
    Entity,
    Option<&'static mut Wander>,
    &'static mut MaxSpeed,
    &'static mut MaxForce,
    &'static mut Mass,
);

/// The system that keeps group `index` (agents matching `F`) and its values in step.
fn sync_tuning_group<F: ArchetypeFilter + 'static>(
    index: usize,
) -> impl FnMut(ResMut<TuningGroups>, Query<TunedAgent, F>, Query<Entity, (F, Added<Steering>)>) {
    move |mut groups, mut agents, added| {
        let group = &mut groups.groups[index];
        group.agents = agents.iter().len();
        if group.values.is_none() {
            // Show what the agents have: the lowest entity's values, so it does not depend on
            // iteration order.
            let first = agents.iter().min_by_key(|(entity, ..)| *entity);
            if let Some((_, wander, max_speed, max_force, mass)) = first {
                let values = TuningValues::of_agent(wander, *max_speed, *max_force, *mass);
                group.values = Some(values);
                group.defaults = Some(values);
            }
            return;
        }
        let Some(values) = group.values else { return };
        if group.pending {
            group.pending = false;
            for agent in &mut agents {
                apply(values, agent);
            }
            info!(
                "bevy_steer_egui: {}: applied {values:?} to {} agents",
                group.label, group.agents
            );
        } else if group.edited {
            for entity in &added {
                if let Ok(agent) = agents.get_mut(entity) {
                    apply(values, agent);
                }
            }
        }
    }
}

fn apply(
    values: TuningValues,
    (_, wander, mut max_speed, mut max_force, mut mass): (
        Entity,
        Option<Mut<Wander>>,
        Mut<MaxSpeed>,
        Mut<MaxForce>,
        Mut<Mass>,
    ),
) {
    if let Some(mut wander) = wander {
        wander.circle_distance = values.circle_distance;
        wander.circle_radius = values.circle_radius;
        wander.angle_change = values.angle_change;
    }
    max_speed.0 = values.max_speed;
    max_force.0 = values.max_force;
    mass.0 = values.mass;
}
