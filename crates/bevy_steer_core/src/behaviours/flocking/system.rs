//! The system that steps the three flocking rules together: most agents a group at a time on SIMD
//! lanes, in the spatial index's cell order, the rest by a walk of the index; one walk serves all
//! three rules of an agent.

use core::f32::consts::TAU;

use bevy::platform::sync::{RwLock, RwLockReadGuard};
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;

use super::lanes::{self, FlockAgent};
use super::{Alignment, AlignmentMethod, Cohesion, CohesionMethod, Separation, SeparationMethod};
use crate::components::{MaxSpeed, Steering, Velocity};
use crate::formulas::half_angle_cos;
use crate::math::Vector;
use crate::math::grid::CellBox;
use crate::math::wide::{Lanes, MOST_LANES, OnLanes, on_widest_lanes};
use crate::problems::{BehaviourKind, Finding, ReportedProblems, record};
use crate::spatial::{IndexCells, Neighbours};
use crate::stepping::NeighbourBehaviour;
use crate::stepping::columns::{AgentColumns, BudgetColumns, log_not_dense, settle, table_jobs};
use crate::stepping::jobs::{MIN_QUERYING_AGENTS_PER_JOB, agents_per_job};
use crate::stepping::neighbours::{NeighbourScratch, holds_neighbours, neighbourhood_radius};
use crate::tasks::{read, run_phases, write};

type FlockAgents<'w, 's, M> = Query<
    'w,
    's,
    (
        Entity,
        Option<&'static Separation>,
        Option<&'static Alignment>,
        Option<&'static Cohesion>,
        &'static Transform,
        &'static Velocity,
        &'static MaxSpeed,
        &'static mut Steering,
        &'static mut ReportedProblems,
        BudgetColumns,
    ),
    (
        With<M>,
        Or<(With<Separation>, With<Alignment>, With<Cohesion>)>,
    ),
>;

/// The rule of the agent `row` rows into a job, when the agent has it and it is active.
#[inline]
fn active_rule<B: NeighbourBehaviour>(rules: Option<&[B]>, row: usize) -> Option<&B> {
    rules.map(|rules| &rules[row]).filter(|rule| rule.active())
}

/// A job's columns of flocking rules.
type FlockColumns<'a> = (
    Option<&'a [Separation]>,
    Option<&'a [Alignment]>,
    Option<&'a [Cohesion]>,
);

/// The active flocking rules of one agent.
type FlockRules<'a> = (
    Option<&'a Separation>,
    Option<&'a Alignment>,
    Option<&'a Cohesion>,
);

/// The active rules of the agent `row` rows into a job.
#[inline]
fn rules_at<'a>(
    (separations, alignments, cohesions): &FlockColumns<'a>,
    row: usize,
) -> FlockRules<'a> {
    (
        active_rule(*separations, row),
        active_rule(*alignments, row),
        active_rule(*cohesions, row),
    )
}

/// What the lanes take of one active rule of an agent: read once an agent, compared as bits with
/// the previous agent's, made into the lanes' record only when they differ.
#[derive(Clone, Copy, Debug)]
struct LaneRule {
    radius: f32,
    field_of_view: f32,
    strength: f32,
    weight: f32,
    /// The rule's method as a [`FlockAgent`] method bit (0 for its default method).
    method: u8,
}

impl LaneRule {
    /// `rule`'s, its strength and method bit given by `strength_and_method`.
    #[inline]
    fn of<B: NeighbourBehaviour>(
        rule: Option<&B>,
        strength_and_method: impl Fn(&B) -> (f32, u8),
    ) -> Option<Self> {
        rule.map(|rule| {
            let (strength, method) = strength_and_method(rule);
            Self {
                radius: rule.radius(),
                field_of_view: rule.field_of_view(),
                strength,
                weight: rule.weight(),
                method,
            }
        })
    }
}

/// The active rules of one agent (separation, alignment, cohesion) as the lanes take them.
type LaneRules = [Option<LaneRule>; 3];

/// What the lanes take of the active `rules`.
#[inline]
fn lane_rules((separation, alignment, cohesion): FlockRules) -> LaneRules {
    let method = |uses: bool, bit: u8| if uses { bit } else { 0 };
    [
        LaneRule::of(separation, |rule| {
            let by_distance = rule.method == SeparationMethod::ByDistance;
            (rule.strength, method(by_distance, FlockAgent::BY_DISTANCE))
        }),
        LaneRule::of(alignment, |rule| {
            let mean_velocity = rule.method == AlignmentMethod::MeanVelocity;
            (
                rule.strength,
                method(mean_velocity, FlockAgent::MEAN_VELOCITY),
            )
        }),
        LaneRule::of(cohesion, |rule| {
            let seek = rule.method == CohesionMethod::Seek;
            (rule.strength, method(seek, FlockAgent::SEEK))
        }),
    ]
}

/// `rules` as bits, each rule's five words (all ones for a rule the agent lacks or has off): agents
/// with the same bits get the same [`flock_rules`].
#[inline]
fn rules_bits(rules: &LaneRules) -> [[u32; 5]; 3] {
    rules.map(|rule| {
        rule.map_or([u32::MAX; 5], |rule| {
            [
                rule.radius.to_bits(),
                rule.field_of_view.to_bits(),
                rule.strength.to_bits(),
                rule.weight.to_bits(),
                rule.method.into(),
            ]
        })
    })
}

/// Whether two [`rules_bits`] are the same: every word's differing bits or'ed together, with no
/// branch and no call to `memcmp` (which `==` on the arrays is, 4 % of the step).
#[inline]
fn same_bits(a: &[[u32; 5]; 3], b: &[[u32; 5]; 3]) -> bool {
    (a.as_flattened().iter())
        .zip(b.as_flattened())
        .fold(0, |differ, (a, b)| differ | (a ^ b))
        == 0
}

/// `rules` as [`lanes::flock_sums`] and [`lanes::flock_forces`] take them (a [`FlockAgent`] whose
/// other fields are unset), when they need nothing the lanes leave out: every active rule has a
/// valid radius and a finite strength and weight; alignment's and cohesion's strengths (which
/// their forces are truncated to) are not negative; at least one rule is on. Any field of view
/// and every method of the rules go on the lanes. `None` sends the agents with these rules down
/// the scalar walk, which handles everything.
#[inline]
fn flock_rules(rules: &LaneRules, cosines: &mut HalfAngleCosines) -> Option<FlockAgent> {
    let mut record = FlockAgent {
        radii: [f32::NAN; 3],
        view_cos: [-1.0; 3],
        ..FlockAgent::default()
    };
    for (index, rule) in rules.iter().enumerate() {
        let Some(rule) = rule else {
            continue;
        };
        let truncates = index > 0;
        if !(holds_neighbours(rule.radius)
            && rule.strength.is_finite()
            && rule.weight.is_finite()
            && (!truncates || rule.strength.is_sign_positive()))
        {
            return None;
        }
        record.radii[index] = rule.radius;
        record.strengths[index] = rule.strength;
        record.weights[index] = rule.weight;
        record.view_cos[index] = cosines.of(index, rule.field_of_view);
        record.methods |= rule.method;
    }
    // An agent with no rule on is left to the walk, which has nothing to do either.
    (record.reach() > 0.0).then_some(record)
}

/// The last field of view read for each rule, as bits, and its [`half_angle_cos`]: agents whose
/// rules differ in something else (a radius drawn for each agent, say) mostly share their fields
/// of view, and the cosine is a call to `cos` (three a record with fields of view). The same bits
/// give the same cosine, so the records do not change.
struct HalfAngleCosines([(u32, f32); 3]);

impl Default for HalfAngleCosines {
    fn default() -> Self {
        Self([(TAU.to_bits(), half_angle_cos(TAU)); 3])
    }
}

impl HalfAngleCosines {
    #[inline]
    fn of(&mut self, rule: usize, field_of_view: f32) -> f32 {
        let (bits, cosine) = &mut self.0[rule];
        if *bits != field_of_view.to_bits() {
            *bits = field_of_view.to_bits();
            *cosine = half_angle_cos(field_of_view);
        }
        *cosine
    }
}

/// What the lanes made of one agent: its rules' weighted forces (separation, alignment, cohesion),
/// when finishing them needed none of the scalar path's special cases. One aligned half cache line,
/// read once per step out of order.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct FlockOutcome {
    forces: [Vector; 3],
    /// Bit `i` set: the agent has the `i`th rule on. [`FlockOutcome::WALK`] set: the forces are
    /// not valid, and the agent walks the index instead.
    rules: u32,
}

impl FlockOutcome {
    const WALK: u32 = 1 << 3;

    /// An agent that walks the index.
    const WALKER: Self = Self {
        forces: [Vector::ZERO; 3],
        rules: Self::WALK,
    };
}

/// An agent on the lanes as the phases pass it round: what differs from agent to agent, and where
/// its rules are (a [`JobAgents::rules`]). A quarter of a [`FlockAgent`] in 2D, which is made
/// again from the two four agents at a time: the phases copy each agent three times, and most
/// agents share their rules.
#[derive(Clone, Copy, Debug, Default)]
struct PlacedAgent {
    position: Vector,
    velocity: Vector,
    max_speed: f32,
    /// The agent's slot in the spatial index.
    slot: u32,
    /// The table job whose [`JobAgents::rules`] hold the agent's rules, and which of them.
    job: u32,
    rules: u32,
}

impl PlacedAgent {
    /// The agent as the lanes take it, its rules from its job's.
    #[inline]
    fn with_rules(&self, jobs: &[RwLockReadGuard<JobAgents>]) -> FlockAgent {
        FlockAgent {
            position: self.position,
            velocity: self.velocity,
            max_speed: self.max_speed,
            slot: self.slot,
            ..jobs[self.job as usize].rules[self.rules as usize]
        }
    }
}

/// A table job's agents as the lanes take them.
#[derive(Default)]
struct JobAgents {
    /// The rules of the job's agents on the lanes, each as a [`FlockAgent`] whose rules they are
    /// (its other fields unused), once for each run of agents with the same rules.
    rules: Vec<FlockAgent>,
    /// Where each agent's outcome will be, in the job's order: its slot job, and its slot's place
    /// among that job's; `None` for one the lanes leave to the scalar walk.
    outcome_at: Vec<Option<(u32, u32)>>,
    /// The agents on the lanes, one list for each slot job (a run of the index's slots), each in
    /// the job's order: the slot job then reads its lists whole, rather than each agent from
    /// wherever it is.
    by_slot_job: Vec<Vec<PlacedAgent>>,
    /// What the lanes made of each agent, in the job's order: gathered in the last phase.
    outcomes: Vec<FlockOutcome>,
    /// The problems the last phase found.
    found: Vec<Finding>,
}

/// A slot job's agents on the lanes, and what the lanes made of them, in the index's order.
#[derive(Default)]
struct SlotAgents {
    agents: Vec<PlacedAgent>,
    /// One for each of the job's slots.
    outcomes: Vec<FlockOutcome>,
}

/// In [`SlotAgents::agents`] while they are put in order, a slot with no agent on the lanes.
const NO_SLOT: u32 = u32::MAX;

/// Where [`apply_flocking`] keeps its lanes' work between its phases, and its largest buffers
/// from step to step. Each phase's items lock what they write; nothing is locked by two at once
/// but for reading.
#[derive(Default)]
pub struct FlockScratch {
    /// One for each table job.
    jobs: Vec<RwLock<JobAgents>>,
    /// One for each slot job.
    slot_jobs: Vec<RwLock<SlotAgents>>,
}

/// One slot job's agents on the lanes: [`OnLanes::run`] fills `outcomes`, whose first is the
/// index's slot `first_slot`, with what the lanes make of the `agents`, given in the index's order
/// with their rules in `jobs`.
struct FlockSlots<'a> {
    index: IndexCells<'a>,
    first_slot: usize,
    agents: &'a [PlacedAgent],
    jobs: &'a [RwLockReadGuard<'a, JobAgents>],
    outcomes: &'a mut [FlockOutcome],
}

impl OnLanes for FlockSlots<'_> {
    type Output = ();

    #[inline(always)]
    fn run<L: Lanes>(self) {
        step_flock_slots::<L>(self);
    }
}

/// See [`FlockSlots`]: groups of up to [`Lanes::COUNT`] agents, cut where a group's cells would
/// grow too far over its widest agent's (by a third for four lanes; with more, to 8/3 of it, so
/// that 8 or 16 agents of a row of cells fit).
#[inline(always)]
fn step_flock_slots<L: Lanes>(
    FlockSlots {
        index,
        first_slot,
        agents,
        jobs,
        outcomes,
    }: FlockSlots,
) {
    // A function rather than a closure, so that it is inlined into the lanes' code.
    #[inline(always)]
    fn flush<L: Lanes>(
        index: IndexCells,
        first_slot: usize,
        group: &[FlockAgent],
        cells: CellBox,
        outcomes: &mut [FlockOutcome],
    ) {
        let forces = lanes::flock_forces(group, &lanes::flock_sums::<L>(index, cells, group));
        for (lane, agent) in group.iter().enumerate() {
            outcomes[agent.slot as usize - first_slot] = match forces.lane(lane) {
                Some(forces) => FlockOutcome {
                    forces,
                    rules: (0..3)
                        .filter(|&rule| agent.has_rule(rule))
                        .map(|rule| 1 << rule)
                        .sum(),
                },
                None => FlockOutcome::WALKER,
            };
        }
    }
    // The group is `group[..len]`, within `cells`, the widest agent's `widest` cells.
    let mut group = [FlockAgent::default(); MOST_LANES];
    // How many cells a group may cover for each of its widest agent's, in quarters.
    let growth = if L::COUNT > 4 { 8 } else { 4 };
    let mut len = 0;
    let mut bounds: Option<(CellBox, usize)> = None;
    for placed in agents {
        let agent = placed.with_rules(jobs);
        let Some(cells) = index.cell_box(agent.position, agent.reach()) else {
            // No cell in reach: the walk finds no neighbour either.
            outcomes[agent.slot as usize - first_slot] = FlockOutcome::WALKER;
            if let Some((cells, _)) = bounds.take() {
                flush::<L>(index, first_slot, &group[..len], cells, outcomes);
            }
            continue;
        };
        if let Some((joint, widest)) = bounds {
            let union = joint.union(cells);
            let widest = widest.max(cells.area());
            if len < L::COUNT && union.area() * 3 <= widest * growth {
                group[len] = agent;
                len += 1;
                bounds = Some((union, widest));
                continue;
            }
            flush::<L>(index, first_slot, &group[..len], joint, outcomes);
        }
        group[0] = agent;
        len = 1;
        bounds = Some((cells, cells.area()));
    }
    if let Some((cells, _)) = bounds {
        flush::<L>(index, first_slot, &group[..len], cells, outcomes);
    }
}

/// Adds the weighted forces of [`Separation`], [`Alignment`] and [`Cohesion`], in that order, for
/// every agent with marker `M`, from its neighbours in
/// [`SpatialIndex<M>`](crate::spatial::SpatialIndex): the system
/// [`FlockingPlugin`](super::FlockingPlugin) schedules.
///
/// Each rule's neighbours are those within its own radius and field of view, the agent itself
/// left out, in the index's order, so the forces are the very ones the three rules registered one
/// by one give; bad radii are reported the same way.
///
/// Most agents are stepped in three phases (in one scope of the compute pool, which wakes its
/// threads once rather than once a phase), so that the neighbour sums, which cost the most, are
/// made in the index's (cell) order rather than the tables' (scattered) one: their positions and
/// rules are read in table order; their neighbours are added up and their forces worked out in
/// the index's order, groups of agents of neighbouring cells on SIMD lanes (4, or 8 or 16 where
/// the CPU has AVX2 or AVX-512), one pass over the cells serving the group; the forces are
/// settled in table order. An agent the lanes leave
/// out walks the index on its own, over the widest of its rules' radii, each rule keeping its own
/// neighbours from the walk: one whose rules need a special case (a bad radius, a strength or
/// weight that is not finite, a negative strength of alignment or cohesion), whose position or
/// velocity is not finite, which is not in the index (or is in it twice), with no cell in reach,
/// or whose forces, cone tests or pushes need one of the scalar functions' special cases (a
/// square that under- or overflows, a speed limit that is not finite). Both give the same bits.
pub fn apply_flocking<M: Component>(
    index: Neighbours<M>,
    mut agents: FlockAgents<M>,
    mut scratch: Local<FlockScratch>,
    mut logged_not_dense: Local<bool>,
) {
    let Some(index) = index.index() else {
        return;
    };
    let Ok(tables) = agents.contiguous_iter_mut() else {
        return log_not_dense(&mut logged_not_dense, "flocking");
    };
    let mut tables: Vec<_> = tables.collect();
    let mut jobs = Vec::new();
    for (
        table,
        (
            entities,
            separations,
            alignments,
            cohesions,
            transforms,
            velocities,
            max_speeds,
            steering,
            problems,
            budgets,
        ),
    ) in tables.iter_mut().enumerate()
    {
        let columns = AgentColumns::new(transforms, velocities, max_speeds, problems, *budgets);
        let (separations, alignments, cohesions) = (*separations, *alignments, *cohesions);
        jobs.extend(table_jobs(
            table,
            entities,
            columns,
            steering.bypass_change_detection(),
            MIN_QUERYING_AGENTS_PER_JOB,
            |range| {
                (
                    separations.map(|rules| &rules[range.clone()]),
                    alignments.map(|rules| &rules[range.clone()]),
                    cohesions.map(|rules| &rules[range.clone()]),
                )
            },
        ));
    }
    if jobs.is_empty() {
        return;
    }
    // Phase 0, by table job: the agents that go on the lanes, and their slots, row by row, sorted
    // by the slot job that will step them. Phase 1, by slot job: the lanes' forces. Phase 2, by
    // table job: the forces settled, or walked for the agents the lanes left out.
    let slots_per_job = agents_per_job(index.len(), MIN_QUERYING_AGENTS_PER_JOB);
    let slot_jobs = index.len().div_ceil(slots_per_job);
    let scratch = &mut *scratch;
    scratch.jobs.resize_with(jobs.len(), RwLock::default);
    scratch.slot_jobs.resize_with(slot_jobs, RwLock::default);
    let FlockScratch {
        jobs: job_agents,
        slot_jobs: slot_agents,
    } = &*scratch;
    let jobs: Vec<_> = jobs.into_iter().map(RwLock::new).collect();
    let kinds = [
        BehaviourKind::of_neighbour::<Separation>(),
        BehaviourKind::of_neighbour::<Alignment>(),
        BehaviourKind::of_neighbour::<Cohesion>(),
    ];
    let items = [jobs.len(), slot_jobs, jobs.len()];
    run_phases(ComputeTaskPool::get(), items, |phase, item| match phase {
        0 => {
            let job = read(&jobs[item]);
            let (rows, entities, rules, columns, _) = &*job;
            let mut lists = write(&job_agents[item]);
            let JobAgents {
                rules: job_rules,
                outcome_at,
                by_slot_job,
                ..
            } = &mut *lists;
            job_rules.clear();
            outcome_at.clear();
            by_slot_job.resize_with(slot_jobs, Vec::new);
            by_slot_job.iter_mut().for_each(Vec::clear);
            let mut cosines = HalfAngleCosines::default();
            // The last run's rules: their bits, and where they are in `job_rules` (`None`: the
            // lanes cannot take them).
            let mut last: Option<([[u32; 5]; 3], Option<u32>)> = None;
            for row in 0..rows.len {
                let row_rules = lane_rules(rules_at(rules, row));
                let bits = rules_bits(&row_rules);
                let at = match last {
                    Some((last_bits, at)) if same_bits(&last_bits, &bits) => at,
                    _ => {
                        let at = flock_rules(&row_rules, &mut cosines).map(|record| {
                            job_rules.push(record);
                            job_rules.len() as u32 - 1
                        });
                        last = Some((bits, at));
                        at
                    }
                };
                let agent = columns.boid(row);
                let placed = at
                    .filter(|_| agent.position.is_finite() && agent.velocity.is_finite())
                    .and_then(|at| {
                        let slot = index.slot_of(entities[row])?;
                        let slot = (slot < lanes::MOST_SLOTS).then_some(slot as u32)?;
                        let slot_job = slot as usize / slots_per_job;
                        by_slot_job[slot_job].push(PlacedAgent {
                            position: agent.position,
                            velocity: agent.velocity,
                            max_speed: agent.max_speed,
                            slot,
                            job: item as u32,
                            rules: at,
                        });
                        let place = slot as usize - slot_job * slots_per_job;
                        Some((slot_job as u32, place as u32))
                    });
                outcome_at.push(placed);
            }
        }
        1 => step_slot_job(
            index.cells(),
            item,
            slots_per_job,
            job_agents,
            &slot_agents[item],
        ),
        _ => {
            let mut job = write(&jobs[item]);
            let (rows, entities, rules, columns, steering) = &mut *job;
            let mut lists = write(&job_agents[item]);
            let JobAgents {
                outcome_at,
                outcomes,
                found,
                ..
            } = &mut *lists;
            let slot_jobs: Vec<_> = slot_agents.iter().map(read).collect();
            // Gathered in a loop of their own, whose loads overlap.
            outcomes.clear();
            outcomes.extend(outcome_at.iter().map(|at| {
                at.map_or(FlockOutcome::WALKER, |(slot_job, place)| {
                    slot_jobs[slot_job as usize].outcomes[place as usize]
                })
            }));
            found.clear();
            let mut walk = NeighbourScratch::default();
            for (row, &outcome) in outcomes.iter().enumerate() {
                let forces = if outcome.rules & FlockOutcome::WALK == 0 {
                    core::array::from_fn(|rule| {
                        (outcome.rules >> rule & 1 == 1).then_some(Ok(outcome.forces[rule]))
                    })
                } else {
                    let agent = columns.boid(row);
                    let (separation, alignment, cohesion) = rules_at(rules, row);
                    let reach = [
                        separation.and_then(|rule| neighbourhood_radius(rule).ok()),
                        alignment.and_then(|rule| neighbourhood_radius(rule).ok()),
                        cohesion.and_then(|rule| neighbourhood_radius(rule).ok()),
                    ]
                    .into_iter()
                    .flatten()
                    .reduce(f32::max);
                    if let Some(reach) = reach {
                        walk.walk(index, &agent, entities[row], reach);
                    }
                    [
                        separation.map(|rule| walk.force(rule, &agent)),
                        alignment.map(|rule| walk.force(rule, &agent)),
                        cohesion.map(|rule| walk.force(rule, &agent)),
                    ]
                };
                let agent_row = columns.agent(*rows, row);
                for (force, kind) in forces.into_iter().zip(kinds) {
                    if let Some(force) = force {
                        settle(force, kind, &mut steering[row], agent_row, found);
                    }
                }
            }
        }
    });
    // The jobs borrow the tables' problem columns, written below.
    drop(jobs);
    for lists in job_agents {
        for finding in read(lists).found.iter().cloned() {
            let (entities, .., problems, _) = &mut tables[finding.table];
            record(problems, entities[finding.row], finding);
        }
    }
}

/// Phase 1 of [`apply_flocking`] for slot job `item`, whose slots are the index's
/// `item * slots_per_job..`: the lanes' forces of its agents. Not generic over the index's marker,
/// so that it is compiled in this crate, with its optimisation level (an unoptimised debug build
/// of a game steps its flocks many times slower on wide lanes).
fn step_slot_job(
    index: IndexCells,
    item: usize,
    slots_per_job: usize,
    job_agents: &[RwLock<JobAgents>],
    slot_agents: &RwLock<SlotAgents>,
) {
    // Each list read whole, each agent put at its slot (within the job's, a few hundred
    // kilobytes), then the slots without one dropped.
    let first_slot = item * slots_per_job;
    let slots = slots_per_job.min(index.entries().len() - first_slot);
    let mut slot_job = write(slot_agents);
    let SlotAgents { agents, outcomes } = &mut *slot_job;
    let absent = PlacedAgent {
        slot: NO_SLOT,
        ..PlacedAgent::default()
    };
    agents.clear();
    agents.resize(slots, absent);
    let job_lists: Vec<_> = job_agents.iter().map(read).collect();
    for lists in &job_lists {
        for record in &lists.by_slot_job[item] {
            agents[record.slot as usize - first_slot] = *record;
        }
    }
    agents.retain(|record| record.slot != NO_SLOT);
    outcomes.clear();
    outcomes.resize(slots, FlockOutcome::WALKER);
    let slots = FlockSlots {
        index,
        first_slot,
        agents,
        jobs: &job_lists,
        outcomes,
    };
    on_widest_lanes(slots);
}
