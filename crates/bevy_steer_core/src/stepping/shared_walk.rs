//! The shared walk of the neighbour behaviours registered with
//! [`add_neighbour_behaviour`](crate::plugin::SteeringAppExt::add_neighbour_behaviour): those
//! registered for one marker one after another (no other behaviour between them) are stepped by one
//! system, which walks the marker's [`SpatialIndex`] once per agent, over the widest radius of its
//! active behaviours, and works out every behaviour's force from that walk, each settled in its
//! own slot, in registration order.
//!
//! Each behaviour keeps its own neighbours from the walk ([`NeighbourScratch::force`]), so the
//! forces are the very ones that a walk per behaviour gave, to the bit. Behaviours with another
//! behaviour registered between them are stepped by systems of their own, each walking once for
//! its run: adding their forces earlier would change the float sum and, for prioritised agents,
//! the force budget left to the behaviour between. A run of one behaviour (the usual case) is
//! stepped through its own column, as [`apply_neighbour_behaviour`] steps it.
//!
//! [`apply_neighbour_behaviour`]: super::neighbours::apply_neighbour_behaviour

use core::any::TypeId;

use bevy::ecs::world::EntityRefExcept;
use bevy::prelude::*;

use super::behaviour::BehaviourAgents;
use super::columns::{AgentColumns, BudgetColumns, log_not_dense, settle, table_jobs};
use super::jobs::{MIN_QUERYING_AGENTS_PER_JOB, run_jobs};
use super::neighbours::{
    NeighbourBehaviour, NeighbourScratch, neighbourhood_radius, step_neighbour_behaviour,
};
use super::registry::{BehaviourSlot, SteeringBehaviours};
use crate::components::{MaxSpeed, Steering, Velocity};
use crate::formulas::Boid;
use crate::math::Vector;
use crate::problems::{BehaviourKind, ReportedProblems, record};
use crate::schedule::SteeringSchedule;
use crate::spatial::{Neighbours, SpatialIndex};
use crate::targets::NoTarget;

/// A neighbour behaviour as the shared walk steps it, its type erased.
trait WalkedBehaviour {
    /// The radius to walk for it: `None` when it is off or its radius holds no neighbour.
    fn reach(&self) -> Option<f32>;

    /// Its weighted force from the candidates of `walk`, which reach at least as far as
    /// [`reach`](Self::reach); `None` when it is off.
    fn weighted_force(
        &self,
        agent: &Boid,
        walk: &mut NeighbourScratch,
    ) -> Option<Result<Vector, NoTarget>>;
}

impl<B: NeighbourBehaviour> WalkedBehaviour for B {
    fn reach(&self) -> Option<f32> {
        self.active()
            .then(|| neighbourhood_radius(self).ok())
            .flatten()
    }

    fn weighted_force(
        &self,
        agent: &Boid,
        walk: &mut NeighbourScratch,
    ) -> Option<Result<Vector, NoTarget>> {
        self.active().then(|| walk.force(self, agent))
    }
}

/// The components the group system writes, left out of what it reads of each agent.
type Written = (Steering, ReportedProblems);

/// An agent's components, read to find its neighbour behaviours.
type AgentRef<'w, 's> = EntityRefExcept<'w, 's, Written>;

/// One behaviour of a [`NeighbourGroup`].
struct GroupMember {
    kind: BehaviourKind,
    /// The agent's behaviour, when it has it.
    of: for<'w, 's> fn(&AgentRef<'w, 's>) -> Option<&'w dyn WalkedBehaviour>,
}

fn behaviour_of<'w, B: NeighbourBehaviour>(
    agent: &AgentRef<'w, '_>,
) -> Option<&'w dyn WalkedBehaviour> {
    agent
        .get::<B>()
        .map(|behaviour| behaviour as &dyn WalkedBehaviour)
}

/// Neighbour behaviours of one marker registered one after another, stepped by one system in the
/// first one's slot. Kept in [`SteeringBehaviours`] rather than in a resource of their own, which
/// would be an entity of its own (resources are), and shift the entities spawned after it.
pub(crate) struct NeighbourGroup {
    marker: TypeId,
    /// In registration order.
    members: Vec<GroupMember>,
    /// The last member's slot.
    last_slot: BehaviourSlot,
}

/// Steps neighbour behaviour `B` for marker `M` in `slot`: in the group of the behaviour
/// registered for `M` just before it, when that one was (its slot is the one before `slot`), or
/// else in a new group, whose system this adds.
pub(crate) fn add_to_group<B: NeighbourBehaviour, M: Component>(
    app: &mut App,
    slot: BehaviourSlot,
) {
    let member = GroupMember {
        kind: BehaviourKind::of_neighbour::<B>(),
        of: behaviour_of::<B>,
    };
    let marker = TypeId::of::<M>();
    let mut registry = app.world_mut().resource_mut::<SteeringBehaviours>();
    let groups = &mut registry.neighbour_groups;
    if let Some(group) = groups
        .last_mut()
        .filter(|group| group.marker == marker && group.last_slot.next() == slot)
    {
        group.members.push(member);
        group.last_slot = slot;
        return;
    }
    let group = groups.len();
    groups.push(NeighbourGroup {
        marker,
        members: vec![member],
        last_slot: slot,
    });
    app.add_systems(
        SteeringSchedule,
        (move |index: Neighbours<M>,
               registry: Res<SteeringBehaviours>,
               mut agents: ParamSet<(
            BehaviourAgents<B, With<M>>,
            (GroupAgents<M>, Query<AgentRef, With<M>>),
        )>,
               mut logged_not_dense: Local<bool>| {
            let Some(index) = index.index() else {
                return;
            };
            let group = &registry.neighbour_groups[group];
            if group.members.len() == 1 {
                // A run of one (the usual case): the behaviour's own column, no type erasure and
                // no entity lookups, as a system of its own would.
                step_neighbour_behaviour(index, &mut agents.p0(), &mut logged_not_dense);
            } else {
                let (agents, behaviours) = agents.p1();
                step_group(index, group, agents, behaviours, &mut logged_not_dense);
            }
        })
        .in_set(slot),
    );
}

type GroupAgents<'w, 's, M> = Query<
    'w,
    's,
    (
        Entity,
        &'static Transform,
        &'static Velocity,
        &'static MaxSpeed,
        &'static mut Steering,
        &'static mut ReportedProblems,
        BudgetColumns,
    ),
    With<M>,
>;

/// A job's scratch: the walk, and the agent's behaviours with their members' places.
#[derive(Default)]
struct GroupScratch<'w> {
    walk: NeighbourScratch,
    behaviours: Vec<(usize, &'w dyn WalkedBehaviour)>,
}

/// Adds the weighted forces of `group`'s behaviours, in registration order, for every agent with
/// marker `M` that has any of them, from one walk of its neighbours in the index.
fn step_group<M: Component>(
    index: &SpatialIndex<M>,
    group: &NeighbourGroup,
    mut agents: GroupAgents<M>,
    behaviours: Query<AgentRef, With<M>>,
    logged_not_dense: &mut bool,
) {
    let Ok(tables) = agents.contiguous_iter_mut() else {
        return log_not_dense(logged_not_dense, group.members[0].kind.name());
    };
    let mut tables: Vec<_> = tables.collect();
    let mut jobs = Vec::new();
    for (table, (entities, transforms, velocities, max_speeds, steering, problems, budgets)) in
        tables.iter_mut().enumerate()
    {
        // The members the table's agents have (every row of a table has the same components).
        let Some(first) = entities
            .first()
            .and_then(|&entity| behaviours.get(entity).ok())
        else {
            continue;
        };
        let members: Vec<usize> = (0..group.members.len())
            .filter(|&member| (group.members[member].of)(&first).is_some())
            .collect();
        if members.is_empty() {
            continue;
        }
        let columns = AgentColumns::new(transforms, velocities, max_speeds, problems, *budgets);
        // Steering is the plugin's own per-step scratch: no change ticks for it.
        jobs.extend(table_jobs(
            table,
            entities,
            columns,
            steering.bypass_change_detection(),
            MIN_QUERYING_AGENTS_PER_JOB,
            |_| members.clone(),
        ));
    }
    let behaviours = &behaviours;
    let findings = run_jobs(
        jobs,
        |(rows, entities, members, columns, steering), found| {
            let mut scratch = GroupScratch::default();
            for row in 0..rows.len {
                let Ok(agent_ref) = behaviours.get(entities[row]) else {
                    continue;
                };
                scratch.behaviours.clear();
                scratch
                    .behaviours
                    .extend(members.iter().filter_map(|&member| {
                        (group.members[member].of)(&agent_ref).map(|behaviour| (member, behaviour))
                    }));
                let agent = columns.boid(row);
                let reach = scratch
                    .behaviours
                    .iter()
                    .filter_map(|(_, behaviour)| behaviour.reach())
                    .reduce(f32::max);
                if let Some(reach) = reach {
                    scratch.walk.walk(index, &agent, entities[row], reach);
                }
                let agent_row = columns.agent(rows, row);
                for &(member, behaviour) in &scratch.behaviours {
                    if let Some(force) = behaviour.weighted_force(&agent, &mut scratch.walk) {
                        let kind = group.members[member].kind;
                        settle(force, kind, &mut steering[row], agent_row, found);
                    }
                }
            }
        },
    );
    for finding in findings {
        let (entities, .., problems, _) = &mut tables[finding.table];
        record(problems, entities[finding.row], finding);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::{Alignment, Cohesion, Separation};
    use crate::plugin::{SteeringAppExt, SteeringPlugin};
    use bevy::MinimalPlugins;

    #[derive(Component)]
    struct Red;

    #[derive(Component)]
    struct Blue;

    #[derive(Component)]
    struct Green;

    /// Each group's marker and its members' kinds, in registration order.
    fn groups(app: &App) -> Vec<(TypeId, Vec<BehaviourKind>)> {
        app.world()
            .resource::<SteeringBehaviours>()
            .neighbour_groups
            .iter()
            .map(|group| {
                let kinds = group.members.iter().map(|member| member.kind).collect();
                (group.marker, kinds)
            })
            .collect()
    }

    #[test]
    fn behaviours_registered_one_after_another_for_a_marker_share_one_walk() {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, SteeringPlugin::default()))
            .add_neighbour_behaviour::<Separation, Red>()
            .add_neighbour_behaviour::<Alignment, Red>()
            .add_neighbour_behaviour::<Cohesion, Red>()
            // Registered before: nothing more.
            .add_neighbour_behaviour::<Alignment, Red>()
            // Another marker: another walk.
            .add_neighbour_behaviour::<Separation, Blue>()
            .add_neighbour_behaviour::<Cohesion, Blue>()
            // A behaviour between (another marker's): its force comes first, so the next one
            // walks on its own.
            .add_neighbour_behaviour::<Separation, Green>()
            .add_neighbour_behaviour::<Alignment, Blue>();
        let [separation, alignment, cohesion] = [
            BehaviourKind::of_neighbour::<Separation>(),
            BehaviourKind::of_neighbour::<Alignment>(),
            BehaviourKind::of_neighbour::<Cohesion>(),
        ];
        let [red, blue, green] = [
            TypeId::of::<Red>(),
            TypeId::of::<Blue>(),
            TypeId::of::<Green>(),
        ];
        assert_eq!(
            groups(&app),
            [
                (red, vec![separation, alignment, cohesion]),
                (blue, vec![separation, cohesion]),
                (green, vec![separation]),
                (blue, vec![alignment]),
            ]
        );
    }
}
