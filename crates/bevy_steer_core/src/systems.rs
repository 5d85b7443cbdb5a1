//! The behaviour systems and the integration system that [`SteeringPlugin`](crate::SteeringPlugin)
//! schedules.
//!
//! Each system visits agents in parallel; every agent reads the others' state as it was before the
//! step and writes only its own, so the result does not depend on thread count or visiting order.

use core::cell::{Cell, RefCell};
use core::f32::consts::TAU;

use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use bevy::platform::sync::{
    Mutex, MutexGuard, OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard,
};
use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};

use bevy::ecs::component::Mutable;
use bevy::ecs::query::ArchetypeFilter;

use crate::Vector;
use crate::behaviours::{
    Alignment, ArrivalState, Cohesion, NeighbourBehaviour, NoTarget, Seek, Separation,
    SeparationMethod, SteeringBehaviour, TargetState, Wander,
};
use crate::components::{
    FaceVelocity, Mass, MaxForce, MaxSpeed, Steering, SteeringCombination, Velocity,
};
use crate::events::{Arrived, TargetLost, announce};
use crate::forces::{self, Boid};
use crate::lanes::{self, FlockAgent, LANES, Vec2x4, lanes_of};
use crate::problems::{BehaviourKind, Finding, Problem, ReportedProblems, mark_changed, record};
use crate::rng::SteeringRng;
use crate::spatial::{CellBox, Neighbour, Neighbours, SpatialIndex};

/// Entities behaviours may aim at: anything with a `Transform`, moving if it has a `Velocity`.
pub type TargetQuery<'w, 's> = Query<'w, 's, (&'static Transform, Option<&'static Velocity>)>;

/// Looks a target entity up in `targets`.
pub fn lookup_target(targets: &TargetQuery, entity: Entity) -> Option<TargetState> {
    let (transform, velocity) = targets.get(entity).ok()?;
    Some(TargetState {
        position: transform.translation.truncate(),
        velocity: velocity.map_or(Vec2::ZERO, |velocity| velocity.0),
    })
}

/// The agent as the force functions see it.
pub fn boid(transform: &Transform, velocity: &Velocity, max_speed: &MaxSpeed) -> Boid {
    Boid {
        position: transform.translation.truncate(),
        velocity: velocity.0,
        max_speed: max_speed.effective(),
    }
}

/// Adds a behaviour's weighted force to the agent's steering, or drops it and returns the problem
/// when it is not finite. With a `budget` (prioritised combination), the force is shortened to what
/// is left of it after the forces added so far, and nothing is added once it is spent.
#[inline]
fn add_weighted_force(
    steering: &mut Steering,
    kind: BehaviourKind,
    weighted: Vec2,
    budget: Option<f32>,
) -> Option<Problem> {
    if !weighted.is_finite() {
        return Some(Problem::NonFiniteForce(kind));
    }
    steering.0 += match budget {
        None => weighted,
        Some(budget) => forces::truncate(weighted, budget - forces::length(steering.0)),
    };
    None
}

/// Agents one job steps at least: fewer cost more in scheduling than they save.
pub(crate) const MIN_AGENTS_PER_JOB: usize = 1024;

/// The same for behaviours that query an index for each agent (neighbours, obstacles), whose
/// agents cost a hundred times more each: a thousand flocking boids are then split over the
/// threads instead of stepped on one.
pub(crate) const MIN_QUERYING_AGENTS_PER_JOB: usize = 128;

/// Jobs per working thread, so that a thread slowed by something else does not hold up the step.
const JOBS_PER_THREAD: usize = 4;

/// How many threads [`run_phases`] works on with `pool`: the calling thread and the pool's, one
/// per core at most (more would take turns on the cores, each turn a wait for the others at the
/// end of a phase).
fn working_threads(pool: &TaskPool) -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores = *CORES.get_or_init(bevy::tasks::available_parallelism);
    (pool.thread_num() + 1).min(cores).max(1)
}

/// How many agents of a table one job steps, `least` at least: a whole number of [`LANES`]
/// groups, so that only a table's last group may be short.
fn agents_per_job(rows: usize, least: usize) -> usize {
    let threads = working_threads(ComputeTaskPool::get());
    rows.div_ceil(threads * JOBS_PER_THREAD)
        .max(least)
        .next_multiple_of(LANES)
}

/// Runs `step` on every job on the compute pool (see [`run_phases`]) and gathers the problems the
/// jobs found, in the jobs' order.
///
/// The systems hand the compute pool whole slices of each table's columns (Bevy's contiguous
/// query access) rather than one agent at a time: the per-agent loops then compile to tight code
/// over plain slices. Each job writes only its own rows, so the result does not depend on how the
/// rows are split.
fn run_jobs<J: Send>(jobs: Vec<J>, step: impl Fn(J, &mut Vec<Finding>) + Sync) -> Vec<Finding> {
    let jobs: Vec<Mutex<(Option<J>, Vec<Finding>)>> = jobs
        .into_iter()
        .map(|job| Mutex::new((Some(job), Vec::new())))
        .collect();
    run_phases(ComputeTaskPool::get(), [jobs.len()], |_, item| {
        let (job, found) = &mut *lock(&jobs[item]);
        if let Some(job) = job.take() {
            step(job, found);
        }
    });
    jobs.into_iter()
        .flat_map(|job| job.into_inner().unwrap_or_else(PoisonError::into_inner).1)
        .collect()
}

std::thread_local! {
    /// The [`run_phases`] calls whose work this thread is doing, innermost last, each known by an
    /// address on its stack.
    static WORKING_IN: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Runs `step(phase, item)` for the `items[phase]` items of each phase in turn, on the calling
/// thread and `pool`'s threads (one thread per core at most) in one scope: whichever thread is
/// free takes the next item of the phase, and a thread that finds none left waits for the phase's
/// last item to finish before it starts on the next phase.
///
/// One scope rather than one per phase (or a pool task per item): the pool's threads sleep between
/// scopes, and waking them (tens of microseconds each time on a small machine) cost more than a
/// light pass of a few thousand agents. A thread waits only while another runs an item it has
/// taken, so the phases finish however many threads take part, one included; a thread that comes
/// to the work again from inside one of its own steps (a step that runs a scope of its own, whose
/// wait may pick up this scope's tasks) leaves it to the others. A panic in a step stops the other
/// threads at their next item and comes out of this function, as a panic in the system would.
fn run_phases<const PHASES: usize>(
    pool: &TaskPool,
    items: [usize; PHASES],
    step: impl Fn(usize, usize) + Sync,
) {
    /// Counts its item as finished when dropped, and calls the work off if the step panicked.
    struct Finishing<'a> {
        finished: &'a AtomicUsize,
        stopped: &'a AtomicBool,
    }
    impl Drop for Finishing<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                self.stopped.store(true, Ordering::Release);
            }
            self.finished.fetch_add(1, Ordering::Release);
        }
    }
    let taken: [AtomicUsize; PHASES] = core::array::from_fn(|_| AtomicUsize::new(0));
    let finished: [AtomicUsize; PHASES] = core::array::from_fn(|_| AtomicUsize::new(0));
    let stopped = AtomicBool::new(false);
    /// Takes its call off [`WORKING_IN`] when dropped, however the work ends.
    struct Working;
    impl Drop for Working {
        fn drop(&mut self) {
            WORKING_IN.with_borrow_mut(|calls| calls.pop());
        }
    }
    let call = &raw const stopped as usize;
    let work = || {
        if WORKING_IN.with_borrow(|calls| calls.contains(&call)) {
            return;
        }
        WORKING_IN.with_borrow_mut(|calls| calls.push(call));
        let _working = Working;
        'phases: for (phase, &count) in items.iter().enumerate() {
            while !stopped.load(Ordering::Acquire) {
                let item = taken[phase].fetch_add(1, Ordering::Relaxed);
                if item >= count {
                    break;
                }
                let _finishing = Finishing {
                    finished: &finished[phase],
                    stopped: &stopped,
                };
                step(phase, item);
            }
            let mut spins = 0_u32;
            while finished[phase].load(Ordering::Acquire) < count {
                if stopped.load(Ordering::Acquire) {
                    break 'phases;
                }
                spins += 1;
                if spins.is_multiple_of(64) {
                    // The thread running the last item may have been put off its core.
                    std::thread::yield_now();
                } else {
                    core::hint::spin_loop();
                }
            }
        }
    };
    // The calling thread works too: the pool lends the others.
    let helpers = working_threads(pool)
        .min(items.iter().copied().max().unwrap_or(0))
        .saturating_sub(1);
    if helpers == 0 {
        return work();
    }
    let work = &work;
    pool.scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(async move { work() });
        }
        work();
    });
}

/// The lock on `lock`. None is left poisoned: a panic in a step comes out of [`run_phases`].
fn lock<T>(lock: &Mutex<T>) -> MutexGuard<'_, T> {
    lock.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A read lock on `lock` (see [`lock`]).
fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// A write lock on `lock` (see [`read`]).
fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

/// The rows of a table one job steps: the table's index, the first row and the row count.
#[derive(Clone, Copy)]
struct Rows {
    table: usize,
    start: usize,
    len: usize,
}

impl Rows {
    fn range(self) -> core::ops::Range<usize> {
        self.start..self.start + self.len
    }

    /// A problem for the agent `row` rows into this job.
    fn finding(self, row: usize, problem: Problem) -> Finding {
        Finding {
            table: self.table,
            row: self.start + row,
            problem,
            lost_target: None,
        }
    }
}

/// One agent of a job: its row, and what was reported about it before this step.
#[derive(Clone, Copy)]
struct AgentRow<'a> {
    rows: Rows,
    row: usize,
    reported: &'a ReportedProblems,
    /// The force budget of a prioritised agent.
    budget: Option<f32>,
}

/// The columns the force budget of prioritised agents comes from, for a run of rows.
#[derive(Clone, Copy)]
struct Budgets<'a> {
    max_forces: &'a [MaxForce],
    combinations: Option<&'a [SteeringCombination]>,
}

/// The query column of [`Budgets`].
type BudgetColumns = (&'static MaxForce, Option<&'static SteeringCombination>);

impl<'a> Budgets<'a> {
    fn new(
        (max_forces, combinations): (&'a [MaxForce], Option<&'a [SteeringCombination]>),
    ) -> Self {
        Self {
            max_forces,
            combinations,
        }
    }

    /// The rows of `range`.
    fn rows(self, range: core::ops::Range<usize>) -> Self {
        Self {
            max_forces: &self.max_forces[range.clone()],
            combinations: self.combinations.map(|combinations| &combinations[range]),
        }
    }

    /// The budget of the agent in `row`: `None` unless it is prioritised.
    #[inline]
    fn at(self, row: usize) -> Option<f32> {
        let combination = self.combinations.map(|combinations| &combinations[row]);
        SteeringCombination::budget(combination, self.max_forces[row])
    }
}

/// The columns every stepping job reads for its agents (beside the behaviour's own), cut to the
/// job's rows.
#[derive(Clone, Copy)]
struct AgentColumns<'a> {
    transforms: &'a [Transform],
    velocities: &'a [Velocity],
    max_speeds: &'a [MaxSpeed],
    reported: &'a [ReportedProblems],
    budgets: Budgets<'a>,
}

impl<'a> AgentColumns<'a> {
    /// The columns of one table, as its contiguous query gives them.
    fn new(
        transforms: &'a [Transform],
        velocities: &'a [Velocity],
        max_speeds: &'a [MaxSpeed],
        reported: &'a [ReportedProblems],
        budgets: (&'a [MaxForce], Option<&'a [SteeringCombination]>),
    ) -> Self {
        Self {
            transforms,
            velocities,
            max_speeds,
            reported,
            budgets: Budgets::new(budgets),
        }
    }

    /// The rows of `range`.
    fn rows(self, range: core::ops::Range<usize>) -> Self {
        Self {
            transforms: &self.transforms[range.clone()],
            velocities: &self.velocities[range.clone()],
            max_speeds: &self.max_speeds[range.clone()],
            reported: &self.reported[range.clone()],
            budgets: self.budgets.rows(range),
        }
    }

    /// The agent in `row` as the force functions see it.
    #[inline]
    fn boid(self, row: usize) -> Boid {
        boid(
            &self.transforms[row],
            &self.velocities[row],
            &self.max_speeds[row],
        )
    }

    /// The agent in `row` of the job stepping `rows`, for [`settle`].
    #[inline]
    fn agent(self, rows: Rows, row: usize) -> AgentRow<'a> {
        AgentRow {
            rows,
            row,
            reported: &self.reported[row],
            budget: self.budgets.at(row),
        }
    }
}

/// Settles one behaviour's weighted force on one agent, the same way in every stepping loop: adds
/// it into the agent's steering, or notes the problem (new ones only) or the lost target.
#[inline]
fn settle(
    force: Result<Vector, NoTarget>,
    kind: BehaviourKind,
    steering: &mut Steering,
    agent: AgentRow,
    found: &mut Vec<Finding>,
) {
    let AgentRow {
        rows,
        row,
        reported,
        budget,
    } = agent;
    let problem = match force {
        Ok(force) => add_weighted_force(steering, kind, force, budget),
        Err(NoTarget::Missing(target)) => {
            // Always passed on, whether or not it was logged before: the target is forgotten and
            // announced after the pass.
            found.push(Finding {
                lost_target: Some(target),
                ..rows.finding(row, Problem::MissingTarget(kind))
            });
            None
        }
        Err(NoTarget::NonFinite) => Some(Problem::NonFiniteTarget(kind)),
        Err(NoTarget::InvalidRadius) => Some(Problem::InvalidRadius(kind)),
        Err(NoTarget::Itself) => Some(Problem::TargetIsItself(kind)),
        Err(NoTarget::Unset) => None,
    };
    if let Some(problem) = problem
        && !reported.contains(problem)
    {
        found.push(rows.finding(row, problem));
    }
}

/// Splits `column` of `table` into chunks of `per_job` rows, each with the rows it covers. The
/// systems cut every other mutable column with the same `per_job`, so that zipped chunks hold the
/// same agents.
fn chunked<T>(
    table: usize,
    per_job: usize,
    column: &mut [T],
) -> impl Iterator<Item = (Rows, &mut [T])> {
    column
        .chunks_mut(per_job)
        .enumerate()
        .map(move |(index, chunk)| {
            (
                Rows {
                    table,
                    start: index * per_job,
                    len: chunk.len(),
                },
                chunk,
            )
        })
}

/// Logs, once per system, that its agents' columns cannot be had as slices. That happens only when
/// a queried component is stored as a sparse set: never for the steering components, `Transform`
/// or a registered [`SteeringBehaviour`] (registration rejects sparse sets at compile time).
fn log_not_dense(logged: &mut bool, system: &str) {
    if !*logged {
        *logged = true;
        error!(
            "bevy_steer: {system}: a queried component is stored as a sparse set, so the agents \
             cannot be stepped table by table; the system does nothing (use table storage, the \
             default)"
        );
    }
}

pub(crate) type BehaviourAgents<'w, 's, B, F = ()> = Query<
    'w,
    's,
    (
        Entity,
        &'static mut B,
        &'static Transform,
        &'static Velocity,
        &'static MaxSpeed,
        &'static mut Steering,
        &'static mut ReportedProblems,
        BudgetColumns,
    ),
    F,
>;

/// The stepping every behaviour system shares: visits `agents` table slice by table slice on the
/// compute pool, adds the weighted force `weighted_force` returns for each agent (`None`: the
/// behaviour is off for it) into its `Steering`, and afterwards, on one thread, records the
/// problems found and calls `on_lost` for each agent whose target was gone.
///
/// `weighted_force` also gets the agent's entity and scratch lists of neighbours, one per job.
/// A job steps at least `least_per_job` agents.
pub(crate) fn step_agents<B, F>(
    agents: &mut BehaviourAgents<B, F>,
    logged_not_dense: &mut bool,
    kind: BehaviourKind,
    least_per_job: usize,
    weighted_force: impl Fn(
        &B,
        &Boid,
        Entity,
        &mut NeighbourScratch,
    ) -> Option<Result<Vector, NoTarget>>
    + Sync,
    mut on_lost: impl FnMut(&mut B, Entity, Entity),
) where
    B: Component<Mutability = Mutable>,
    F: ArchetypeFilter,
{
    let Ok(tables) = agents.contiguous_iter_mut() else {
        return log_not_dense(logged_not_dense, kind.name());
    };
    let mut tables: Vec<_> = tables.collect();
    let mut jobs = Vec::new();
    for (
        table,
        (entities, behaviours, transforms, velocities, max_speeds, steering, problems, budgets),
    ) in tables.iter_mut().enumerate()
    {
        let columns = AgentColumns::new(transforms, velocities, max_speeds, problems, *budgets);
        // Read here; written (and marked changed) only when a target is forgotten.
        let behaviours = &*behaviours.bypass_change_detection();
        // Steering is the plugin's own per-step scratch: no change ticks for it.
        let steering = steering.bypass_change_detection();
        let per_job = agents_per_job(steering.len(), least_per_job);
        for (rows, steering) in chunked(table, per_job, steering) {
            let range = rows.range();
            jobs.push((
                rows,
                &entities[range.clone()],
                &behaviours[range.clone()],
                columns.rows(range),
                steering,
            ));
        }
    }
    let findings = run_jobs(
        jobs,
        |(rows, entities, behaviours, columns, steering), found| {
            let mut scratch = NeighbourScratch::default();
            for row in 0..rows.len {
                let agent = columns.boid(row);
                if let Some(force) =
                    weighted_force(&behaviours[row], &agent, entities[row], &mut scratch)
                {
                    let agent_row = columns.agent(rows, row);
                    settle(force, kind, &mut steering[row], agent_row, found);
                }
            }
        },
    );
    for finding in findings {
        let (entities, behaviours, .., problems, _) = &mut tables[finding.table];
        let entity = entities[finding.row];
        record(problems, entity, finding);
        if let Some(target) = finding.lost_target {
            on_lost(
                &mut behaviours.bypass_change_detection()[finding.row],
                entity,
                target,
            );
            mark_changed(behaviours, finding.row);
        }
    }
}

/// Adds the weighted force of behaviour `B` for every agent on which it is
/// [active](SteeringBehaviour::active): the system that
/// [`add_steering_behaviour`](crate::plugin::SteeringAppExt::add_steering_behaviour) schedules.
///
/// A target entity that is gone is reported once per agent, forgotten and announced with
/// [`TargetLost`].
pub fn apply_behaviour<B: SteeringBehaviour>(
    mut lost_targets: ResMut<LostTargets>,
    targets: TargetQuery,
    mut agents: BehaviourAgents<B>,
    mut logged_not_dense: Local<bool>,
) {
    let kind = BehaviourKind::of::<B>();
    let lookup = |entity| lookup_target(&targets, entity);
    step_agents(
        &mut agents,
        &mut logged_not_dense,
        kind,
        MIN_AGENTS_PER_JOB,
        |behaviour, agent, entity, _| {
            behaviour.active().then(|| {
                // A behaviour aimed at its own agent has nothing to steer by: it is told apart
                // from a missing target here, adds no force and is reported.
                let aims_at_itself = Cell::new(false);
                let force = behaviour.force(agent, |target| {
                    if target == entity {
                        aims_at_itself.set(true);
                        return None;
                    }
                    lookup(target)
                });
                if aims_at_itself.get() {
                    return Err(NoTarget::Itself);
                }
                force.map(|force| force * behaviour.weight())
            })
        },
        |behaviour, entity, target| {
            behaviour.forget_target();
            lost_targets.0.push(TargetLost {
                entity,
                target,
                behaviour: kind,
            });
        },
    );
}

/// Per-job scratch lists of the neighbour behaviours, reused from agent to agent.
#[derive(Default)]
pub(crate) struct NeighbourScratch {
    /// The other agents within the reach walked, in the index's order.
    candidates: Vec<Neighbour>,
    /// The square of that reach.
    reach_squared: f32,
    /// Those of the candidates one behaviour sees.
    neighbours: Vec<Neighbour>,
}

impl NeighbourScratch {
    /// Walks `index` within `reach` of `agent` (whose entity is `entity`, left out), keeping what
    /// it finds as the candidates.
    fn walk<M>(&mut self, index: &SpatialIndex<M>, agent: &Boid, entity: Entity, reach: f32) {
        self.candidates.clear();
        self.reach_squared = reach * reach;
        index.for_each_within(agent.position, reach, |neighbour| {
            if neighbour.entity != entity {
                self.candidates.push(neighbour);
            }
        });
    }

    /// The weighted force of `behaviour` from the candidates within its radius and field of view.
    /// The radius test is the index's own, so a walk over a wider reach gives the very neighbours,
    /// in the same order, that a walk over the behaviour's radius would.
    fn force<B: NeighbourBehaviour>(
        &mut self,
        behaviour: &B,
        agent: &Boid,
    ) -> Result<Vector, NoTarget> {
        let radius = neighbourhood_radius(behaviour)?;
        let radius_squared = radius * radius;
        let fov_cos = forces::half_angle_cos(behaviour.field_of_view());
        if radius_squared >= self.reach_squared && fov_cos <= -1.0 {
            // Every candidate is a neighbour (the same test passed them): no copy.
            return Ok(behaviour.force(agent, &self.candidates) * behaviour.weight());
        }
        let heading = forces::direction_or_zero(agent.velocity);
        self.neighbours.clear();
        self.neighbours
            .extend(self.candidates.iter().filter(|neighbour| {
                neighbour.position.distance_squared(agent.position) <= radius_squared
                    && forces::in_field_of_view(
                        agent.position,
                        heading,
                        fov_cos,
                        neighbour.position,
                    )
            }));
        Ok(behaviour.force(agent, &self.neighbours) * behaviour.weight())
    }
}

/// The radius of `behaviour` when it can hold neighbours (a positive finite number).
fn neighbourhood_radius<B: NeighbourBehaviour>(behaviour: &B) -> Result<f32, NoTarget> {
    let radius = behaviour.radius();
    if radius > 0.0 && radius.is_finite() {
        Ok(radius)
    } else {
        Err(NoTarget::InvalidRadius)
    }
}

/// The weighted force of neighbour behaviour `behaviour` on `agent` (whose entity is `entity`) from
/// its neighbours in `index`: those within its radius and field of view, in the index's order.
/// `None` when the behaviour is off.
pub(crate) fn weighted_neighbour_force<B: NeighbourBehaviour, M>(
    index: &SpatialIndex<M>,
    behaviour: &B,
    agent: &Boid,
    entity: Entity,
    scratch: &mut NeighbourScratch,
) -> Option<Result<Vector, NoTarget>> {
    behaviour.active().then(|| {
        scratch.walk(index, agent, entity, neighbourhood_radius(behaviour)?);
        scratch.force(behaviour, agent)
    })
}

/// Adds the weighted force of neighbour behaviour `B` for every agent with marker `M` on which it
/// is active, from its neighbours in [`SpatialIndex<M>`]: the system that
/// [`add_neighbour_behaviour`](crate::plugin::SteeringAppExt::add_neighbour_behaviour) schedules.
///
/// The neighbours are those within the behaviour's radius and field of view, the agent itself left
/// out, in the index's order, which does not depend on threads.
pub fn apply_neighbour_behaviour<B: NeighbourBehaviour, M: Component>(
    index: Neighbours<M>,
    mut agents: BehaviourAgents<B, With<M>>,
    mut logged_not_dense: Local<bool>,
) {
    let Some(index) = index.index() else {
        return;
    };
    step_agents(
        &mut agents,
        &mut logged_not_dense,
        BehaviourKind::of_neighbour::<B>(),
        MIN_QUERYING_AGENTS_PER_JOB,
        |behaviour, agent, entity, scratch| {
            weighted_neighbour_force(index, behaviour, agent, entity, scratch)
        },
        |_, _, _| {},
    );
}

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

/// The agent as [`lanes::flock_sums`] and [`lanes::flock_forces`] take it, when its rules need
/// nothing the lanes leave out: the agent's position and velocity are finite; every active rule
/// has a valid radius, sees all round and has a finite strength and weight; alignment's and
/// cohesion's strengths are not negative; separation takes the mean. `None` sends the agent down
/// the scalar walk, which handles everything.
#[inline]
fn flock_agent(agent: &Boid, (separation, alignment, cohesion): FlockRules) -> Option<FlockAgent> {
    /// Puts `rule` (the `index`th) on `record`, or answers `false` when the lanes cannot take it.
    fn take<B: NeighbourBehaviour>(
        record: &mut FlockAgent,
        index: usize,
        rule: Option<&B>,
        strength: impl Fn(&B) -> f32,
        truncates: bool,
    ) -> bool {
        let Some(rule) = rule else {
            return true;
        };
        let (radius, strength, weight) = (rule.radius(), strength(rule), rule.weight());
        let valid = neighbourhood_radius(rule).is_ok()
            && rule.field_of_view() >= TAU
            && strength.is_finite()
            && weight.is_finite()
            && (!truncates || strength.is_sign_positive());
        record.radii[index] = radius;
        record.strengths[index] = strength;
        record.weights[index] = weight;
        valid
    }
    let mut record = FlockAgent {
        position: agent.position,
        velocity: agent.velocity,
        max_speed: agent.max_speed,
        radii: [f32::NAN; 3],
        strengths: [0.0; 3],
        weights: [0.0; 3],
        // Set once the agent is found in the index.
        slot: 0,
    };
    let valid = agent.position.is_finite()
        && agent.velocity.is_finite()
        && separation.is_none_or(|rule| rule.method == SeparationMethod::Mean)
        && take(&mut record, 0, separation, |rule| rule.strength, false)
        && take(&mut record, 1, alignment, |rule| rule.strength, true)
        && take(&mut record, 2, cohesion, |rule| rule.strength, true);
    // An agent with no rule on is left to the walk, which has nothing to do either.
    (valid && record.reach() > 0.0).then_some(record)
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

/// A table job's agents as the lanes take them.
#[derive(Default)]
struct JobAgents {
    /// Where each agent's outcome will be, in the job's order: its slot job, and its slot's place
    /// among that job's; `None` for one the lanes leave to the scalar walk.
    outcome_at: Vec<Option<(u32, u32)>>,
    /// The agents on the lanes, one list for each slot job (a run of the index's slots), each in
    /// the job's order: the slot job then reads its lists whole, rather than each agent from
    /// wherever it is.
    by_slot_job: Vec<Vec<FlockAgent>>,
    /// What the lanes made of each agent, in the job's order: gathered in the last phase.
    outcomes: Vec<FlockOutcome>,
    /// The problems the last phase found.
    found: Vec<Finding>,
}

/// A slot job's agents on the lanes, and what the lanes made of them, in the index's order.
#[derive(Default)]
struct SlotAgents {
    agents: Vec<FlockAgent>,
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

/// Fills `outcomes`, whose first is the index's slot `first_slot`, with what the lanes make of the
/// `agents`, given in the index's order: groups of up to [`LANES`] agents, cut where a
/// group's cells would grow by more than a third over its widest agent's.
fn step_flock_slots<M>(
    index: &SpatialIndex<M>,
    first_slot: usize,
    agents: &[FlockAgent],
    outcomes: &mut [FlockOutcome],
) {
    let flush = |group: &[FlockAgent], cells, outcomes: &mut [FlockOutcome]| {
        let forces = lanes::flock_forces(group, &lanes::flock_sums(index, cells, group));
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
    };
    // The group is `agents[start..next]`, within `cells`, the widest agent's `widest` cells.
    let mut start = 0;
    let mut group: Option<(CellBox, usize)> = None;
    for (next, agent) in agents.iter().enumerate() {
        let Some(cells) = index.cell_box(agent.position, agent.reach()) else {
            // No cell in reach: the walk finds no neighbour either.
            outcomes[agent.slot as usize - first_slot] = FlockOutcome::WALKER;
            if let Some((cells, _)) = group.take() {
                flush(&agents[start..next], cells, outcomes);
            }
            start = next + 1;
            continue;
        };
        if let Some((joint, widest)) = group {
            let union = joint.union(cells);
            let widest = widest.max(cells.area());
            if next - start < LANES && union.area() * 3 <= widest * 4 {
                group = Some((union, widest));
                continue;
            }
            flush(&agents[start..next], joint, outcomes);
        }
        start = next;
        group = Some((cells, cells.area()));
    }
    if let Some((cells, _)) = group {
        flush(&agents[start..], cells, outcomes);
    }
}

/// Adds the weighted forces of [`Separation`], [`Alignment`] and [`Cohesion`], in that order, for
/// every agent with marker `M`, from its neighbours in [`SpatialIndex<M>`]: the system
/// [`FlockingPlugin`](crate::FlockingPlugin) schedules.
///
/// Each rule's neighbours are those within its own radius and field of view, the agent itself
/// left out, in the index's order, so the forces are the very ones the three rules registered one
/// by one give; bad radii are reported the same way.
///
/// Most agents are stepped in three phases (in one scope of the compute pool, which wakes its
/// threads once rather than once a phase), so that the neighbour sums, which cost the most, are
/// made in the index's (cell) order rather than the tables' (scattered) one: their positions and
/// rules are read in table order; their neighbours are added up and their forces worked out in
/// the index's order, four agents of neighbouring cells at a time on SIMD lanes, one pass over
/// the cells serving the four; the forces are settled in table order. An agent the lanes leave
/// out walks the index on its own, over the widest of its rules' radii, each rule keeping its own
/// neighbours from the walk: one whose rules need a special case (a field of view, the separation
/// by distance, a bad radius, a strength or weight that is not finite, a negative strength of
/// alignment or cohesion), whose position or velocity is not finite, which is not in the index
/// (or is in it twice), with no cell in reach, or whose forces need one of the scalar functions'
/// special cases (a square that under- or overflows, a speed limit that is not finite). Both give
/// the same bits.
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
        let steering = steering.bypass_change_detection();
        let per_job = agents_per_job(steering.len(), MIN_QUERYING_AGENTS_PER_JOB);
        for (rows, steering) in chunked(table, per_job, steering) {
            let range = rows.range();
            let rules = (
                separations.map(|rules| &rules[range.clone()]),
                alignments.map(|rules| &rules[range.clone()]),
                cohesions.map(|rules| &rules[range.clone()]),
            );
            jobs.push((
                rows,
                &entities[range.clone()],
                rules,
                columns.rows(range),
                steering,
            ));
        }
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
                outcome_at,
                by_slot_job,
                ..
            } = &mut *lists;
            outcome_at.clear();
            by_slot_job.resize_with(slot_jobs, Vec::new);
            by_slot_job.iter_mut().for_each(Vec::clear);
            for row in 0..rows.len {
                let record =
                    flock_agent(&columns.boid(row), rules_at(rules, row)).and_then(|mut record| {
                        record.slot = index.slot_of(entities[row])? as u32;
                        Some(record)
                    });
                outcome_at.push(record.map(|record| {
                    let slot_job = record.slot as usize / slots_per_job;
                    by_slot_job[slot_job].push(record);
                    let place = record.slot as usize - slot_job * slots_per_job;
                    (slot_job as u32, place as u32)
                }));
            }
        }
        1 => {
            // Each list read whole, each agent put at its slot (within the job's, a few hundred
            // kilobytes), then the slots without one dropped.
            let first_slot = item * slots_per_job;
            let slots = slots_per_job.min(index.len() - first_slot);
            let mut slot_job = write(&slot_agents[item]);
            let SlotAgents { agents, outcomes } = &mut *slot_job;
            let absent = FlockAgent {
                slot: NO_SLOT,
                ..FlockAgent::default()
            };
            agents.clear();
            agents.resize(slots, absent);
            for lists in job_agents {
                for record in &read(lists).by_slot_job[item] {
                    agents[record.slot as usize - first_slot] = *record;
                }
            }
            agents.retain(|record| record.slot != NO_SLOT);
            outcomes.clear();
            outcomes.resize(slots, FlockOutcome::WALKER);
            step_flock_slots(index, first_slot, agents, outcomes);
        }
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

/// The targets the behaviour systems found gone this step, in the order they found them. Gathered
/// here and announced by one system after the behaviours, rather than through `Commands` in each
/// behaviour system, which would put a sync point between every two of them.
#[derive(Resource, Default)]
pub struct LostTargets(Vec<TargetLost>);

/// Announces the step's [`LostTargets`] as [`TargetLost`] events and messages.
pub fn announce_lost_targets(mut commands: Commands, mut lost_targets: ResMut<LostTargets>) {
    for lost in lost_targets.0.drain(..) {
        announce(&mut commands, lost);
    }
}

/// Announces [`Arrived`] for every seeker that came within its arrival tolerance of its target at
/// no more than its arrival speed this step, once until it is farther than the tolerance again.
pub(crate) fn detect_arrivals(
    mut commands: Commands,
    targets: TargetQuery,
    mut seekers: Query<(Entity, &Seek, &mut ArrivalState, &Transform, &Velocity)>,
) {
    for (entity, seek, mut state, transform, velocity) in &mut seekers {
        let Some(target) = seek.target.filter(|_| seek.active()) else {
            continue;
        };
        let Ok(position) = target.position(|entity| lookup_target(&targets, entity)) else {
            continue;
        };
        let within = transform.translation.truncate().distance(position) <= seek.arrival_tolerance;
        let arrived = within && velocity.length() <= seek.arrival_speed;
        if arrived && !state.arrived {
            announce(
                &mut commands,
                Arrived {
                    entity,
                    target,
                    position,
                },
            );
        }
        // Set while arrived, cleared once outside the tolerance; unchanged in between.
        let next = arrived || (state.arrived && within);
        if next != state.arrived {
            state.arrived = next;
        }
    }
}

/// Adds every wanderer's weighted wander force and moves its random state on by one step, except for
/// wanderers whose weight is zero.
pub fn apply_wander(
    time: Res<Time>,
    mut agents: Query<(
        Entity,
        &mut Wander,
        &mut SteeringRng,
        &Transform,
        &Velocity,
        &MaxSpeed,
        &mut Steering,
        &mut ReportedProblems,
        BudgetColumns,
    )>,
    mut logged_not_dense: Local<bool>,
) {
    let dt = time.delta_secs();
    let Ok(tables) = agents.contiguous_iter_mut() else {
        return log_not_dense(&mut logged_not_dense, "wander");
    };
    let mut tables: Vec<_> = tables.collect();
    let mut jobs = Vec::new();
    for (
        table,
        (_, wanders, rngs, transforms, velocities, max_speeds, steering, problems, budgets),
    ) in tables.iter_mut().enumerate()
    {
        let columns = AgentColumns::new(transforms, velocities, max_speeds, problems, *budgets);
        // Steering, the random state and the wander angle are the plugin's own per-step scratch:
        // marking them changed every step would tell no system anything.
        let wanders = wanders.bypass_change_detection();
        let rngs = rngs.bypass_change_detection();
        let per_job = agents_per_job(wanders.len(), MIN_AGENTS_PER_JOB);
        for ((rows, wanders), (rngs, steering)) in chunked(table, per_job, wanders).zip(
            rngs.chunks_mut(per_job)
                .zip(steering.bypass_change_detection().chunks_mut(per_job)),
        ) {
            let range = rows.range();
            jobs.push((rows, wanders, rngs, columns.rows(range), steering));
        }
    }
    let findings = run_jobs(jobs, |(rows, wanders, rngs, columns, steering), found| {
        for (start, group) in lanes::groups(rows.len) {
            let on_lanes = (group.len() == LANES
                && wanders[group.clone()].iter().all(Wander::is_world_circle))
            .then(|| {
                lanes::wander_circle(
                    Vec2x4::from_fn(|lane| columns.velocities[start + lane].0),
                    [
                        lanes_of(wanders, start, |wander| wander.circle_distance),
                        lanes_of(wanders, start, |wander| wander.circle_radius),
                        lanes_of(wanders, start, |wander| wander.angle),
                    ],
                )
            })
            .flatten();
            for row in group {
                let wander = &mut wanders[row];
                if !wander.active() {
                    continue;
                }
                let force = match on_lanes {
                    Some(forces) => {
                        wander.turn(&mut rngs[row], dt);
                        forces.lane(row - start)
                    }
                    None => wander.step(&columns.boid(row), &mut rngs[row], dt),
                };
                let agent = columns.agent(rows, row);
                let weighted = Ok(force * wander.weight);
                settle(
                    weighted,
                    BehaviourKind::WANDER,
                    &mut steering[row],
                    agent,
                    found,
                );
            }
        }
    });
    for finding in findings {
        let (entities, .., problems, _) = &mut tables[finding.table];
        record(problems, entities[finding.row], finding);
    }
}

/// One agent's integration: its new velocity, and its new position unless the motion was not
/// finite (the agent then stops where it is).
struct Integrated {
    velocity: Vec2,
    position: Option<Vec2>,
}

/// The tutorials' update for one agent, with the checks the systems promise: returns what to write
/// and passes each problem it meets to `found`.
#[inline]
fn integrate_agent(
    velocity: Vec2,
    position: Vec2,
    force: Vec2,
    limits: (Mass, MaxSpeed, MaxForce),
    dt: f32,
    mut found: impl FnMut(Problem),
) -> Integrated {
    let (mass, max_speed, max_force) = limits;
    if !mass.is_valid() {
        found(Problem::InvalidMass);
    }
    if max_speed.effective() != max_speed.0 {
        found(Problem::InvalidMaxSpeed);
    }
    if max_force.effective() != max_force.0 {
        found(Problem::InvalidMaxForce);
    }
    let force = if force.is_finite() {
        force
    } else {
        found(Problem::NonFiniteSteering);
        Vec2::ZERO
    };
    let new_velocity = forces::integrate_velocity(
        velocity,
        force,
        mass.0,
        max_speed.effective(),
        max_force.effective(),
        dt,
    );
    let new_position = position + new_velocity * dt;
    if velocity.is_finite() && new_velocity.is_finite() && new_position.is_finite() {
        Integrated {
            velocity: new_velocity,
            position: Some(new_position),
        }
    } else {
        found(Problem::NonFiniteMotion);
        Integrated {
            velocity: Vec2::ZERO,
            position: None,
        }
    }
}

/// The tutorials' update, scaled by the step length: truncate the force to [`MaxForce`], divide by
/// [`Mass`], add to [`Velocity`], truncate to [`MaxSpeed`], move the translation, clear
/// [`Steering`]; then turn agents with [`FaceVelocity`].
///
/// Every agent's `Transform` and `Velocity` are marked changed, as moving agents' are.
pub fn integrate(
    time: Res<Time>,
    mut agents: Query<(
        Entity,
        &mut Transform,
        &mut Velocity,
        &mut Steering,
        &Mass,
        &MaxSpeed,
        &MaxForce,
        &mut ReportedProblems,
        Option<&FaceVelocity>,
    )>,
    mut logged_not_dense: Local<bool>,
) {
    let dt = time.delta_secs();
    let Ok(tables) = agents.contiguous_iter_mut() else {
        return log_not_dense(&mut logged_not_dense, "integrate");
    };
    let mut tables: Vec<_> = tables.collect();
    let mut jobs = Vec::new();
    for (
        table,
        (_, transforms, velocities, steering, masses, max_speeds, max_forces, problems, facing),
    ) in tables.iter_mut().enumerate()
    {
        transforms.mark_all_as_changed();
        velocities.mark_all_as_changed();
        let velocities = velocities.bypass_change_detection();
        let steering = steering.bypass_change_detection();
        let per_job = agents_per_job(velocities.len(), MIN_AGENTS_PER_JOB);
        for ((rows, transforms), (velocities, steering)) in
            chunked(table, per_job, transforms.bypass_change_detection()).zip(
                velocities
                    .chunks_mut(per_job)
                    .zip(steering.chunks_mut(per_job)),
            )
        {
            let range = rows.range();
            jobs.push((
                rows,
                transforms,
                velocities,
                steering,
                &masses[range.clone()],
                &max_speeds[range.clone()],
                &max_forces[range.clone()],
                &problems[range.clone()],
                facing.map(|facing| &facing[range]),
            ));
        }
    }
    let findings = run_jobs(
        jobs,
        |(
            rows,
            transforms,
            velocities,
            steering,
            masses,
            max_speeds,
            max_forces,
            problems,
            facing,
        ),
         found| {
            for (start, group) in lanes::groups(rows.len) {
                let on_lanes = (group.len() == LANES)
                    .then(|| {
                        lanes::integrate(
                            Vec2x4::from_fn(|lane| velocities[start + lane].0),
                            Vec2x4::from_fn(|lane| transforms[start + lane].translation.truncate()),
                            Vec2x4::from_fn(|lane| steering[start + lane].0),
                            [
                                lanes_of(masses, start, |mass| mass.0),
                                lanes_of(max_speeds, start, |max_speed| max_speed.0),
                                lanes_of(max_forces, start, |max_force| max_force.0),
                            ],
                            dt,
                        )
                    })
                    .flatten();
                let turns = on_lanes.zip(facing).map(|((velocity, _), facing)| {
                    lanes::face_velocity(
                        Vec2x4::from_fn(|lane| *facing[start + lane].local_forward),
                        velocity,
                    )
                });
                for row in group {
                    let force = core::mem::take(&mut steering[row].0);
                    let integrated = match on_lanes {
                        Some((velocity, position)) => Integrated {
                            velocity: velocity.lane(row - start),
                            position: Some(position.lane(row - start)),
                        },
                        None => integrate_agent(
                            velocities[row].0,
                            transforms[row].translation.truncate(),
                            force,
                            (masses[row], max_speeds[row], max_forces[row]),
                            dt,
                            |problem| {
                                if !problems[row].contains(problem) {
                                    found.push(rows.finding(row, problem));
                                }
                            },
                        ),
                    };
                    velocities[row].0 = integrated.velocity;
                    let Some(position) = integrated.position else {
                        continue;
                    };
                    let transform = &mut transforms[row];
                    transform.translation.x = position.x;
                    transform.translation.y = position.y;
                    let rotation = match turns {
                        Some(turns) => turns.lane(row - start),
                        None => {
                            facing.and_then(|facing| facing[row].rotation_for(integrated.velocity))
                        }
                    };
                    if let Some(rotation) = rotation {
                        transform.rotation = rotation;
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
    use bevy::tasks::TaskPoolBuilder;

    #[test]
    fn phases_run_each_item_once_and_start_only_when_the_phase_before_has_finished() {
        let items = [40, 0, 3, 25];
        for threads in [1, 4] {
            let pool = TaskPoolBuilder::new().num_threads(threads).build();
            let runs: Vec<Vec<AtomicUsize>> = items
                .iter()
                .map(|&count| (0..count).map(|_| AtomicUsize::new(0)).collect())
                .collect();
            let finished: [AtomicUsize; 4] = core::array::from_fn(|_| AtomicUsize::new(0));
            let early = AtomicUsize::new(0);
            run_phases(&pool, items, |phase, item| {
                if (0..phase).any(|before| finished[before].load(Ordering::Acquire) < items[before])
                {
                    early.fetch_add(1, Ordering::Relaxed);
                }
                runs[phase][item].fetch_add(1, Ordering::Relaxed);
                finished[phase].fetch_add(1, Ordering::Release);
            });
            assert_eq!(early.into_inner(), 0, "{threads} threads");
            for (phase, runs) in runs.into_iter().enumerate() {
                for (item, runs) in runs.into_iter().enumerate() {
                    assert_eq!(runs.into_inner(), 1, "phase {phase}, item {item}");
                }
            }
        }
    }

    #[test]
    fn a_panic_in_a_step_comes_out_and_leaves_the_threads_fit_for_the_next_call() {
        let pool = TaskPoolBuilder::new().num_threads(3).build();
        let run = |panic_at: Option<usize>| {
            let done = AtomicUsize::new(0);
            let outcome = std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| {
                run_phases(&pool, [40, 40], |phase, item| {
                    if phase == 0 && Some(item) == panic_at {
                        panic!("a step failed");
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                });
            }));
            (outcome.is_ok(), done.into_inner())
        };
        let (finished, _) = run(Some(3));
        assert!(!finished, "the step's panic came out of run_phases");
        assert_eq!(run(None), (true, 80));
    }

    #[test]
    fn steps_may_run_scopes_and_phases_of_their_own() {
        let pool = TaskPoolBuilder::new().num_threads(3).build();
        let inner_items = AtomicUsize::new(0);
        run_phases(&pool, [16, 16], |_, _| {
            // A scope of the step's own, whose wait runs whatever task the pool has, this call's
            // included.
            pool.scope(|scope| {
                scope.spawn(async {});
            });
            run_phases(&pool, [4], |_, _| {
                inner_items.fetch_add(1, Ordering::Relaxed);
            });
        });
        assert_eq!(inner_items.into_inner(), 32 * 4);
    }
}
