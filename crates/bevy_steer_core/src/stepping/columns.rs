//! What a stepping job reads and writes of its agents: the rows it steps, the columns it reads
//! them from, and how one behaviour's force is settled on one agent.

use bevy::prelude::*;

use super::jobs::agents_per_job;
use crate::components::{MaxForce, MaxSpeed, Steering, SteeringCombination, Velocity};
use crate::formulas::Boid;
use crate::math::{Vector, position_of};
use crate::problems::{BehaviourKind, Finding, Problem, ReportedProblems};
use crate::targets::NoTarget;

/// The agent as the force functions see it.
pub fn boid(transform: &Transform, velocity: &Velocity, max_speed: &MaxSpeed) -> Boid {
    Boid {
        position: position_of(transform),
        velocity: velocity.0,
        max_speed: max_speed.effective(),
    }
}

/// The column of the agents' planes: in 3D, whether each is a ground unit
/// ([`Planar`](crate::planar::Planar)); nothing in 2D.
#[cfg(feature = "2d")]
pub(crate) type PlaneColumn = ();
/// The column of the agents' planes: in 3D, whether each is a ground unit
/// ([`Planar`](crate::planar::Planar)); nothing in 2D.
#[cfg(feature = "3d")]
pub(crate) type PlaneColumn = Option<&'static crate::planar::Planar>;

/// The up of the plane an agent keeps to, from its [`PlaneColumn`]: `None` for a free agent (every
/// agent in 2D).
#[cfg(feature = "2d")]
#[inline]
pub(crate) fn plane_up(_planar: ()) -> Option<Vector> {
    None
}

/// The up of the plane an agent keeps to, from its [`PlaneColumn`]: `None` for a free agent; +Y
/// for an up that is not a unit vector, as [`keep_in_plane`](crate::planar::keep_in_plane) uses.
#[cfg(feature = "3d")]
#[inline]
pub(crate) fn plane_up(planar: Option<&crate::planar::Planar>) -> Option<Vector> {
    planar.map(|planar| planar.effective_up())
}

/// The planes of a table's agents, as its [`PlaneColumn`] gives them.
pub(crate) trait PlaneRows: Copy {
    /// Those of the rows `range`.
    fn of_rows(self, range: core::ops::Range<usize>) -> Self;
    /// The up of the plane the agent in `row` keeps to, if it is a ground unit.
    fn up(self, row: usize) -> Option<Vector>;
}

/// 2D: no agent keeps to a plane of its own.
#[cfg(feature = "2d")]
impl PlaneRows for () {
    fn of_rows(self, _range: core::ops::Range<usize>) -> Self {}

    #[inline]
    fn up(self, _row: usize) -> Option<Vector> {
        plane_up(())
    }
}

#[cfg(feature = "3d")]
impl PlaneRows for Option<&[crate::planar::Planar]> {
    fn of_rows(self, range: core::ops::Range<usize>) -> Self {
        self.map(|planes| &planes[range])
    }

    #[inline]
    fn up(self, row: usize) -> Option<Vector> {
        plane_up(self.map(|planes| &planes[row]))
    }
}

/// [`plane_up`] of the agent `entity`, looked up in `planes`: in 2D, where every agent is free, no
/// look-up.
#[cfg(feature = "2d")]
#[inline]
pub(crate) fn plane_up_of(_planes: &Query<PlaneColumn>, _entity: Entity) -> Option<Vector> {
    None
}

/// [`plane_up`] of the agent `entity`, looked up in `planes`.
#[cfg(feature = "3d")]
#[inline]
pub(crate) fn plane_up_of(planes: &Query<PlaneColumn>, entity: Entity) -> Option<Vector> {
    planes.get(entity).ok().and_then(plane_up)
}

/// Adds a behaviour's weighted force to the agent's steering, or drops it and returns the problem
/// when it is not finite. With a budget (`budget` gives one for a prioritised agent; read only
/// for a finite force), the force is shortened to what is left of it after the forces added so
/// far, and nothing is added once it is spent.
#[inline(always)]
fn add_weighted_force(
    steering: &mut Steering,
    kind: BehaviourKind,
    weighted: Vector,
    budget: impl FnOnce() -> Option<f32>,
) -> Option<Problem> {
    if !weighted.is_finite() {
        return Some(Problem::NonFiniteForce(kind));
    }
    steering.0 += SteeringCombination::fit(weighted, steering.0, budget());
    None
}

/// The rows of a table one job steps: the table's index, the first row and the row count.
#[derive(Clone, Copy)]
pub(crate) struct Rows {
    pub(crate) table: usize,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl Rows {
    pub(crate) fn range(self) -> core::ops::Range<usize> {
        self.start..self.start + self.len
    }

    /// A problem for the agent `row` rows into this job.
    pub(crate) fn finding(self, row: usize, problem: Problem) -> Finding {
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
pub(crate) struct AgentRow<'a> {
    pub(crate) rows: Rows,
    pub(crate) row: usize,
    pub(crate) reported: &'a ReportedProblems,
    /// The force budgets of the job's rows, read for this agent only when a force is added.
    pub(crate) budgets: Budgets<'a>,
}

/// The columns the force budget of prioritised agents comes from, for a run of rows.
#[derive(Clone, Copy)]
pub(crate) struct Budgets<'a> {
    pub(crate) max_forces: &'a [MaxForce],
    pub(crate) combinations: Option<&'a [SteeringCombination]>,
}

/// The query column of [`Budgets`].
pub(crate) type BudgetColumns = (&'static MaxForce, Option<&'static SteeringCombination>);

impl<'a> Budgets<'a> {
    pub(crate) fn new(
        (max_forces, combinations): (&'a [MaxForce], Option<&'a [SteeringCombination]>),
    ) -> Self {
        Self {
            max_forces,
            combinations,
        }
    }

    /// The rows of `range`.
    pub(crate) fn rows(self, range: core::ops::Range<usize>) -> Self {
        Self {
            max_forces: &self.max_forces[range.clone()],
            combinations: self.combinations.map(|combinations| &combinations[range]),
        }
    }

    /// The budget of the agent in `row`: `None` unless it is prioritised.
    #[inline]
    pub(crate) fn at(self, row: usize) -> Option<f32> {
        let combination = self.combinations.map(|combinations| &combinations[row]);
        SteeringCombination::budget(combination, self.max_forces[row])
    }
}

/// The columns every stepping job reads for its agents (beside the behaviour's own), cut to the
/// job's rows.
#[derive(Clone, Copy)]
pub(crate) struct AgentColumns<'a> {
    pub(crate) transforms: &'a [Transform],
    pub(crate) velocities: &'a [Velocity],
    pub(crate) max_speeds: &'a [MaxSpeed],
    pub(crate) reported: &'a [ReportedProblems],
    pub(crate) budgets: Budgets<'a>,
}

impl<'a> AgentColumns<'a> {
    /// The columns of one table, as its contiguous query gives them.
    pub(crate) fn new(
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
    pub(crate) fn rows(self, range: core::ops::Range<usize>) -> Self {
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
    pub(crate) fn boid(self, row: usize) -> Boid {
        boid(
            &self.transforms[row],
            &self.velocities[row],
            &self.max_speeds[row],
        )
    }

    /// The agent in `row` of the job stepping `rows`, for [`settle`].
    #[inline]
    pub(crate) fn agent(self, rows: Rows, row: usize) -> AgentRow<'a> {
        AgentRow {
            rows,
            row,
            reported: &self.reported[row],
            budgets: self.budgets,
        }
    }
}

/// Settles one behaviour's weighted force on one agent, the same way in every stepping loop: adds
/// it into the agent's steering, or notes the problem (new ones only) or the lost target.
/// Inlined into each stepping loop: as a call, it was a few per cent of a behaviour's step.
#[inline(always)]
pub(crate) fn settle(
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
        budgets,
    } = agent;
    let problem = match force {
        Ok(force) => add_weighted_force(steering, kind, force, || budgets.at(row)),
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

/// A stepping job: a run of one table's rows, their entities, what the system reads of each agent
/// besides its [`AgentColumns`] (a behaviour's column, say), those columns, and their `Steering`.
pub(crate) type AgentJob<'a, D> = (Rows, &'a [Entity], D, AgentColumns<'a>, &'a mut [Steering]);

/// Cuts the agents of `table` into [`AgentJob`]s of at least `least_per_job` agents each (see
/// [`agents_per_job`]), `of_rows` giving each job its rows' share of what the system reads.
pub(crate) fn table_jobs<'a, D>(
    table: usize,
    entities: &'a [Entity],
    columns: AgentColumns<'a>,
    steering: &'a mut [Steering],
    least_per_job: usize,
    of_rows: impl Fn(core::ops::Range<usize>) -> D,
) -> impl Iterator<Item = AgentJob<'a, D>> {
    let per_job = agents_per_job(steering.len(), least_per_job);
    chunked(table, per_job, steering).map(move |(rows, steering)| {
        let range = rows.range();
        (
            rows,
            &entities[range.clone()],
            of_rows(range.clone()),
            columns.rows(range),
            steering,
        )
    })
}

/// Splits `column` of `table` into chunks of `per_job` rows, each with the rows it covers. The
/// systems cut every other mutable column with the same `per_job`, so that zipped chunks hold the
/// same agents.
pub(crate) fn chunked<T>(
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
pub(crate) fn log_not_dense(logged: &mut bool, system: &str) {
    if !*logged {
        *logged = true;
        error!(
            "bevy_steer: {system}: a queried component is stored as a sparse set, so the agents \
             cannot be stepped table by table; the system does nothing (use table storage, the \
             default)"
        );
    }
}
