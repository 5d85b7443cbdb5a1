//! The values the panel tunes, the groups of agents it tunes them for, and the systems that apply
//! them. None of this needs egui: [`SteeringTuningPlugin`] works headless.
//!
//! What can be tuned is found by reflection, not kept in a list: every component registered in the
//! app's type registry (`app.register_type::<C>()`) with `#[reflect(Component)]` whose `f32` fields
//! carry a [`Tunable`] range (`#[reflect(@Tunable::linear(0.0, 10.0))]`): every built-in behaviour,
//! [`MaxSpeed`], [`MaxForce`], [`Mass`], and your own behaviours declared the same way.

use core::any::TypeId;
use core::ops::RangeInclusive;
use std::collections::BTreeMap;

use bevy::platform::collections::HashMap;

use bevy::ecs::archetype::Archetype;
use bevy::ecs::component::ComponentId;
use bevy::ecs::reflect::ReflectComponent;
use bevy::prelude::*;
use bevy::reflect::{ReflectMut, ReflectRef, TypeInfo, TypePath, TypeRegistry};
use bevy_steer_core::prelude::*;
use serde::{Deserialize, Serialize};

/// One tunable field: an `f32` field of a component, with a [`Tunable`] attribute.
#[derive(Clone, Debug, PartialEq)]
pub struct TunableField {
    /// The field's name, or its index (`"0"`) in a tuple struct such as [`MaxSpeed`]: its key in
    /// [`TuningValues`] and preset files.
    pub name: String,
    /// The slider's label.
    pub label: String,
    /// The allowed range and the slider's scale.
    pub tunable: Tunable,
    /// The field's position in its struct.
    index: usize,
}

/// A component with tunable fields.
#[derive(Clone)]
pub struct TunableComponent {
    /// Its short type path (`"Wander"`), or its whole path if it shares the short one with another
    /// component (bevy_steer's own keep the short one): its key in [`TuningValues`] and preset
    /// files.
    pub name: String,
    /// Its tunable fields, in declaration order.
    pub fields: Vec<TunableField>,
    type_id: TypeId,
    reflect: ReflectComponent,
}

impl TunableComponent {
    /// Whether the component is a tuple struct of one value, such as [`MaxSpeed`].
    pub fn is_newtype(&self) -> bool {
        matches!(self.fields.as_slice(), [field] if field.name == "0")
    }

    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&TunableField> {
        self.fields.iter().find(|field| field.name == name)
    }

    /// The tunable values of the component on `entity`, if it has one.
    fn read(&self, entity: EntityRef) -> Option<BTreeMap<String, f32>> {
        let component = self.reflect.reflect(entity)?;
        let values = self
            .fields
            .iter()
            .filter_map(|field| {
                let value = match component.reflect_ref() {
                    ReflectRef::Struct(fields) => fields.field_at(field.index),
                    ReflectRef::TupleStruct(fields) => fields.field(field.index),
                    _ => None,
                }?;
                Some((field.name.clone(), *value.try_downcast_ref::<f32>()?))
            })
            .collect();
        Some(values)
    }

    /// Writes `values` (by position in [`fields`](Self::fields)) into the component on `entity`,
    /// if it has one, calling `replaced` with each field's position and the value it had.
    fn write(
        &self,
        entity: EntityWorldMut,
        values: &[(usize, f32)],
        mut replaced: impl FnMut(usize, f32),
    ) {
        let Some(mut component) = self.reflect.reflect_mut(entity) else {
            return;
        };
        let mut component = component.reflect_mut();
        for &(position, value) in values {
            let index = self.fields[position].index;
            let slot = match &mut component {
                ReflectMut::Struct(fields) => fields.field_at_mut(index),
                ReflectMut::TupleStruct(fields) => fields.field_mut(index),
                _ => None,
            };
            if let Some(slot) = slot.and_then(|slot| slot.try_downcast_mut::<f32>()) {
                replaced(position, *slot);
                *slot = value;
            }
        }
    }

    /// `values` by field position; names that are not tunable fields are left out (presets are
    /// checked before they get here).
    fn positions(&self, values: &BTreeMap<String, f32>) -> Vec<(usize, f32)> {
        values
            .iter()
            .filter_map(|(name, &value)| {
                let position = self.fields.iter().position(|field| field.name == *name)?;
                Some((position, value))
            })
            .collect()
    }
}

/// Every component the panel can tune, found in the type registry: newtypes (the limits) first,
/// then by name.
#[derive(Resource, Default)]
pub struct TunableComponents {
    components: Vec<TunableComponent>,
    /// How many types the registry had when it was read, to read it again when types are added.
    registered_types: usize,
}

/// `MaxSpeed` -> `max speed`: a type name as words for a label.
fn words(name: &str) -> String {
    let mut words = String::new();
    for (index, c) in name.chars().enumerate() {
        if c.is_uppercase() && index > 0 {
            words.push(' ');
        }
        words.extend(c.to_lowercase());
    }
    words
}

impl TunableComponents {
    /// Reads the tunable components out of `registry`.
    pub fn from_registry(registry: &TypeRegistry) -> Self {
        let mut components: Vec<(TunableComponent, &'static str)> = registry
            .iter()
            .filter_map(|registration| {
                let reflect = registration.data::<ReflectComponent>()?.clone();
                let info = registration.type_info();
                let short_name = info.type_path_table().short_path();
                let field = |index: usize, name: String, tunable: Option<&Tunable>, is_f32| {
                    Some(TunableField {
                        label: name.replace('_', " "),
                        name,
                        tunable: *tunable.filter(|_| is_f32)?,
                        index,
                    })
                };
                let fields: Vec<TunableField> = match info {
                    TypeInfo::Struct(info) => info
                        .iter()
                        .enumerate()
                        .filter_map(|(index, named)| {
                            let tunable = named.get_attribute::<Tunable>();
                            field(index, named.name().to_owned(), tunable, named.is::<f32>())
                        })
                        .collect(),
                    TypeInfo::TupleStruct(info) => info
                        .iter()
                        .enumerate()
                        .filter_map(|(index, unnamed)| {
                            let tunable = unnamed.get_attribute::<Tunable>();
                            let mut tuned =
                                field(index, index.to_string(), tunable, unnamed.is::<f32>())?;
                            // A newtype's one value is labelled by the type.
                            tuned.label = if info.field_len() == 1 {
                                words(short_name)
                            } else {
                                format!("{} {index}", words(short_name))
                            };
                            Some(tuned)
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let component = TunableComponent {
                    name: short_name.to_owned(),
                    fields,
                    type_id: registration.type_id(),
                    reflect,
                };
                (!component.fields.is_empty()).then_some((component, info.type_path()))
            })
            .collect();
        // Two components with one short name are told apart by their whole paths; bevy_steer's own
        // keep the short one, so that a game's `Seek` does not change the keys of shipped presets.
        // Its own are those of the simulation crate of this build (2D's or 3D's).
        let own_crate = format!(
            "{}::",
            <MaxSpeed as TypePath>::crate_name().unwrap_or_default()
        );
        let names: Vec<String> = components.iter().map(|(c, _)| c.name.clone()).collect();
        for (component, path) in &mut components {
            let shared = names.iter().filter(|name| **name == component.name).count() > 1;
            if shared && !path.starts_with(&own_crate) {
                component.name = (*path).to_owned();
            }
        }
        let mut components: Vec<TunableComponent> = components
            .into_iter()
            .map(|(component, _)| component)
            .collect();
        components.sort_by_key(|component| (!component.is_newtype(), component.name.clone()));
        Self {
            components,
            registered_types: registry.iter().count(),
        }
    }

    /// The tunable components: newtypes first, then by name.
    pub fn components(&self) -> &[TunableComponent] {
        &self.components
    }

    /// The component called `name`.
    pub fn get(&self, name: &str) -> Option<&TunableComponent> {
        Some(&self.components[self.position(name)?])
    }

    /// `values` made fit to save: clamped into their ranges, leaving out what is not finite or
    /// names no tunable component or field. (A game may spawn agents with values outside the
    /// panel's ranges; the sliders show them clamped too.)
    pub fn clamp(&self, values: &TuningValues) -> TuningValues {
        let mut clamped = TuningValues::default();
        for (component, field, value) in values.iter() {
            let tunable = self
                .get(component)
                .and_then(|tunable| tunable.field(field))
                .map(|field| field.tunable);
            if let Some(tunable) = tunable.filter(|_| value.is_finite()) {
                clamped.set(component, field, tunable.clamp(value));
            }
        }
        clamped
    }

    /// The position of the component called `name` in [`components`](Self::components).
    fn position(&self, name: &str) -> Option<usize> {
        self.components
            .iter()
            .position(|component| component.name == name)
    }

    /// Reads the registry again when types were registered since it was last read.
    fn refresh(world: &mut World) {
        let registry = world.resource::<AppTypeRegistry>().clone();
        let registry = registry.read();
        let current = world.get_resource::<Self>();
        if current.is_none_or(|current| current.registered_types != registry.iter().count()) {
            world.insert_resource(Self::from_registry(&registry));
        }
    }

    /// Checks that every value names a tunable component and field and is within its range.
    pub fn check(&self, values: &TuningValues) -> Result<(), TuningError> {
        for (component_name, fields) in &values.0 {
            let component = self
                .get(component_name)
                .ok_or_else(|| TuningError::UnknownComponent(component_name.clone()))?;
            for (field_name, &value) in fields {
                let field =
                    component
                        .field(field_name)
                        .ok_or_else(|| TuningError::UnknownField {
                            component: component_name.clone(),
                            field: field_name.clone(),
                        })?;
                if !field.tunable.contains(value) {
                    return Err(TuningError::OutOfRange {
                        component: component_name.clone(),
                        field: field_name.clone(),
                        value,
                        range: field.tunable.range(),
                    });
                }
            }
        }
        Ok(())
    }
}

/// Tuned values by component name, then by field name: `{"Wander": {"circle_radius": 180.0}}`.
/// A group's values hold only the components its agents carry; a preset may hold fewer.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(transparent)]
pub struct TuningValues(pub BTreeMap<String, BTreeMap<String, f32>>);

impl TuningValues {
    /// The value of `field` of `component`.
    pub fn get(&self, component: &str, field: &str) -> Option<f32> {
        self.0.get(component)?.get(field).copied()
    }

    /// Sets the value of `field` of `component`.
    pub fn set(&mut self, component: &str, field: &str, value: f32) {
        self.0
            .entry(component.to_owned())
            .or_default()
            .insert(field.to_owned(), value);
    }

    /// Every value, as (component, field, value).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str, f32)> {
        self.0.iter().flat_map(|(component, fields)| {
            fields
                .iter()
                .map(move |(field, &value)| (component.as_str(), field.as_str(), value))
        })
    }

    /// Sets every value of `other` here too.
    pub fn merge(&mut self, other: &Self) {
        for (component, field, value) in other.iter() {
            self.set(component, field, value);
        }
    }

    /// Whether there is no value.
    pub fn is_empty(&self) -> bool {
        self.0.values().all(BTreeMap::is_empty)
    }
}

/// A value that is not allowed in a preset or a group.
#[derive(Clone, Debug, PartialEq)]
pub enum TuningError {
    /// No registered component of this name has tunable fields.
    UnknownComponent(String),
    /// The component has no tunable field of this name.
    UnknownField {
        /// The component's name.
        component: String,
        /// The field's name.
        field: String,
    },
    /// The value is outside the field's [`Tunable`] range (NaN always is).
    OutOfRange {
        /// The component's name.
        component: String,
        /// The field's name.
        field: String,
        /// The value found.
        value: f32,
        /// What is allowed.
        range: RangeInclusive<f32>,
    },
}

impl core::fmt::Display for TuningError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::UnknownComponent(component) => write!(
                f,
                "{component:?} is not a registered component with tunable fields"
            ),
            Self::UnknownField { component, field } => {
                write!(f, "{component} has no tunable field {field:?}")
            }
            Self::OutOfRange {
                component,
                field,
                value,
                range,
            } => write!(
                f,
                "{component}.{field} = {value} is outside {}..={}",
                range.start(),
                range.end()
            ),
        }
    }
}

impl std::error::Error for TuningError {}

/// The agents one group tunes, and its values.
#[derive(Clone, Debug)]
pub struct TuningGroup {
    /// The name shown in the panel and used in preset files.
    pub label: String,
    /// The values the panel shows: each component's read from the lowest agent of the group that
    /// carries it, when the group first has one, until they are edited.
    pub values: TuningValues,
    /// The values the agents had when the panel first saw them: what "reset" restores.
    pub defaults: TuningValues,
    /// How many agents the group had on the last update.
    pub agents: usize,
    /// The group's marker component; `None` for "All" (every agent with `Steering`).
    marker: Option<ComponentId>,
    /// The values edited so far: agents that join the group later get them too.
    edits: TuningValues,
    /// Values changed that the agents have not been given yet.
    pending: TuningValues,
}

impl TuningGroup {
    /// What a preset saves of the group: its [`values`](Self::values), and the values set for
    /// components none of its agents carries yet (from a preset loaded, or "All"), which agents
    /// that join it later get.
    pub fn saved_values(&self) -> TuningValues {
        let mut saved = self.edits.clone();
        saved.merge(&self.values);
        saved
    }

    fn new(label: String, marker: Option<ComponentId>) -> Self {
        Self {
            label,
            values: TuningValues::default(),
            defaults: TuningValues::default(),
            agents: 0,
            marker,
            edits: TuningValues::default(),
            pending: TuningValues::default(),
        }
    }
}

/// The label of the group every agent belongs to.
pub const ALL_AGENTS: &str = "All";

/// Every tuning group, "All" first.
#[derive(Resource, Debug)]
pub struct TuningGroups {
    groups: Vec<TuningGroup>,
    /// What each value the panel changed was before its first change, by agent, component type
    /// and field position: what "reset" restores. (By type, not by the component's place in
    /// [`TunableComponents`], which moves when a type registered later sorts before it.)
    originals: HashMap<(Entity, TypeId, usize), f32>,
    /// Set by [`reset`](Self::reset), done on the next update.
    reset_requested: bool,
}

impl Default for TuningGroups {
    fn default() -> Self {
        Self {
            groups: vec![TuningGroup::new(ALL_AGENTS.to_owned(), None)],
            originals: HashMap::default(),
            reset_requested: false,
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
        Some(&self.groups[self.index_of(label)?])
    }

    /// The index of the group called `label` in [`groups`](Self::groups).
    pub fn index_of(&self, label: &str) -> Option<usize> {
        self.groups.iter().position(|group| group.label == label)
    }

    /// Sets one value of the group at `index`, applied to its agents on the next update (and to
    /// agents that join the group later). Setting a value of "All" sets it in every group, since
    /// every agent gets it. An index past the last group changes nothing.
    pub fn set_value(&mut self, index: usize, component: &str, field: &str, value: f32) {
        let targets = match index {
            0 => 0..self.groups.len(),
            _ if index < self.groups.len() => index..index + 1,
            _ => return,
        };
        for group in &mut self.groups[targets] {
            group.edits.set(component, field, value);
            // Only groups whose agents carry the component show it.
            if group.values.0.contains_key(component) {
                group.values.set(component, field, value);
            }
        }
        self.groups[index].pending.set(component, field, value);
    }

    /// Sets every value in `values` for the group at `index` (see [`set_value`](Self::set_value)).
    pub fn set_values(&mut self, index: usize, values: &TuningValues) {
        for (component, field, value) in values.iter() {
            self.set_value(index, component, field, value);
        }
    }

    /// Restores, on the next update, every value the panel changed to what each agent had before
    /// (agents spawned after a change: what they were spawned with), and forgets the edits.
    pub fn reset(&mut self) {
        for group in &mut self.groups {
            group.values = group.defaults.clone();
            group.edits = TuningValues::default();
            group.pending = TuningValues::default();
        }
        self.reset_requested = true;
    }

    fn push(&mut self, label: String, marker: ComponentId) {
        self.groups.push(TuningGroup::new(label, Some(marker)));
    }
}

/// Registers tuning groups on an [`App`].
pub trait TuningGroupAppExt {
    /// Adds a group of the agents with marker component `M`, shown as `label`.
    fn add_tuning_group<M: Component>(&mut self, label: impl Into<String>) -> &mut Self;
}

impl TuningGroupAppExt for App {
    fn add_tuning_group<M: Component>(&mut self, label: impl Into<String>) -> &mut Self {
        let marker = self.world_mut().register_component::<M>();
        self.world_mut()
            .get_resource_or_init::<TuningGroups>()
            .push(label.into(), marker);
        self
    }
}

/// The system set in `Update` that applies tuning to the agents.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TuningSystems;

/// Adds the "All" group and the system that applies tuning to agents; no user interface.
pub struct SteeringTuningPlugin;

impl Plugin for SteeringTuningPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<TuningGroups>()
            .init_resource::<TunableComponents>()
            .init_resource::<NewAgents>()
            .add_observer(|added: On<Add, Steering>, mut new: ResMut<NewAgents>| {
                new.0.push(added.entity);
            })
            .add_systems(Update, sync_tuning_groups.in_set(TuningSystems));
    }

    fn finish(&self, app: &mut App) {
        // Ready before the first update, so that presets load in `Startup`.
        TunableComponents::refresh(app.world_mut());
    }
}

/// Agents spawned since the last update: they get their groups' edited values.
#[derive(Resource, Default)]
struct NewAgents(Vec<Entity>);

/// The archetypes that hold every component of `ids`.
fn archetypes_with<'w>(
    world: &'w World,
    ids: &'w [ComponentId],
) -> impl Iterator<Item = &'w Archetype> + 'w {
    world
        .archetypes()
        .iter()
        .filter(|archetype| ids.iter().all(|&id| archetype.contains(id)))
}

/// The entities that hold every component of `ids`.
fn members<'w>(world: &'w World, ids: &'w [ComponentId]) -> impl Iterator<Item = Entity> + 'w {
    archetypes_with(world, ids)
        .flat_map(|archetype| archetype.entities().iter().map(|entity| entity.id()))
}

/// Keeps every group and its agents in step: counts the agents, reads the values of components
/// seen for the first time, applies changed values to every agent of the group, and edited values
/// to agents spawned since the last update ("All" first, so a named group's values win); restores
/// the changed values on a reset.
fn sync_tuning_groups(world: &mut World) {
    TunableComponents::refresh(world);
    let new_agents = core::mem::take(&mut world.resource_mut::<NewAgents>().0);
    let Some(steering) = world.component_id::<Steering>() else {
        return;
    };
    world.resource_scope(|world, tunables: Mut<TunableComponents>| {
        world.resource_scope(|world, mut groups: Mut<TuningGroups>| {
            let TuningGroups {
                groups,
                originals,
                reset_requested,
            } = &mut *groups;
            if core::mem::take(reset_requested) {
                for ((agent, type_id, field), value) in originals.drain() {
                    let component = tunables.components.iter().find(|c| c.type_id == type_id);
                    if let (Some(component), Ok(agent)) = (component, world.get_entity_mut(agent)) {
                        component.write(agent, &[(field, value)], |_, _| {});
                    }
                }
                info!("bevy_steer_egui: reset every changed value");
            }
            for group in groups {
                // A group's agents: the entities with `Steering` (and its marker).
                let ids = [steering, group.marker.unwrap_or(steering)];
                group.agents = archetypes_with(world, &ids)
                    .map(Archetype::len)
                    .sum::<u32>() as usize;
                read_new_components(world, &tunables, group, ids);
                if !group.pending.is_empty() {
                    let pending = core::mem::take(&mut group.pending);
                    let changed = write(world, &tunables, originals, ids, None, &pending);
                    info!(
                        "bevy_steer_egui: {}: applied {:?} to {changed} agents",
                        group.label, pending.0
                    );
                }
                if !group.edits.is_empty() && !new_agents.is_empty() {
                    write(
                        world,
                        &tunables,
                        originals,
                        ids,
                        Some(&new_agents),
                        &group.edits,
                    );
                }
            }
        });
    });
}

/// Reads into `group` the values of the tunable components its agents (the entities with
/// `Steering` and its marker: the same for "All") carry that it has not read yet, each from the lowest-numbered agent that
/// carries it (so that what is shown does not depend on iteration order), with the edits made
/// before any agent had it on top.
fn read_new_components(
    world: &World,
    tunables: &TunableComponents,
    group: &mut TuningGroup,
    [steering, marker]: [ComponentId; 2],
) {
    for component in tunables.components() {
        if group.values.0.contains_key(&component.name) {
            continue;
        }
        let Some(id) = world.components().get_id(component.type_id) else {
            continue;
        };
        // By index: `Entity`'s own order is by its bits, in which the index is inverted.
        let lowest = members(world, &[steering, marker, id]).min_by_key(|agent| agent.index_u32());
        let Some(read) = lowest.and_then(|agent| component.read(world.entity(agent))) else {
            continue;
        };
        let mut shown = read.clone();
        if let Some(edited) = group.edits.0.get(&component.name) {
            shown.extend(edited.iter().map(|(field, &value)| (field.clone(), value)));
        }
        group.values.0.insert(component.name.clone(), shown);
        group.defaults.0.insert(component.name.clone(), read);
    }
}

/// Writes `values` into the agents with `Steering` and `marker` (only those of `only`, when
/// given) that carry each component, noting in `originals` what each value was before its first
/// change. Returns how many components were written.
fn write(
    world: &mut World,
    tunables: &TunableComponents,
    originals: &mut HashMap<(Entity, TypeId, usize), f32>,
    [steering, marker]: [ComponentId; 2],
    only: Option<&[Entity]>,
    values: &TuningValues,
) -> usize {
    let mut written = 0;
    for (name, fields) in &values.0 {
        let Some(position) = tunables.position(name) else {
            continue;
        };
        let component = &tunables.components[position];
        let Some(id) = world.components().get_id(component.type_id) else {
            continue;
        };
        let fields = component.positions(fields);
        let agents: Vec<Entity> = match only {
            Some(agents) => agents
                .iter()
                .copied()
                .filter(|&agent| {
                    world.get_entity(agent).is_ok_and(|agent| {
                        [steering, marker, id]
                            .iter()
                            .all(|&id| agent.contains_id(id))
                    })
                })
                .collect(),
            None => members(world, &[steering, marker, id]).collect(),
        };
        let type_id = component.type_id;
        for &agent in &agents {
            component.write(world.entity_mut(agent), &fields, |field, old| {
                originals.entry((agent, type_id, field)).or_insert(old);
            });
        }
        written += agents.len();
    }
    written
}
