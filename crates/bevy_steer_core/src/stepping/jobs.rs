//! The job machinery every stepping system shares: a system cuts its agents into jobs (runs of a
//! table's rows) and [`run_phases`] runs them on the compute pool, the calling thread included.

use bevy::platform::sync::{Mutex, PoisonError};
use bevy::tasks::ComputeTaskPool;

use crate::math::lanes::LANES;
use crate::problems::Finding;
use crate::tasks::{lock, run_phases, working_threads};

/// Agents one job steps at least: fewer cost more in scheduling than they save.
pub(crate) const MIN_AGENTS_PER_JOB: usize = 1024;

/// The same for behaviours that query an index for each agent (neighbours, obstacles), whose
/// agents cost a hundred times more each: a thousand flocking boids are then split over the
/// threads instead of stepped on one.
pub(crate) const MIN_QUERYING_AGENTS_PER_JOB: usize = 128;

/// Jobs per working thread, so that a thread slowed by something else does not hold up the step.
const JOBS_PER_THREAD: usize = 4;

/// How many agents of a table one job steps, `least` at least: a whole number of [`LANES`]
/// groups, so that only a table's last group may be short.
pub(crate) fn agents_per_job(rows: usize, least: usize) -> usize {
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
pub(crate) fn run_jobs<J: Send>(
    jobs: Vec<J>,
    step: impl Fn(J, &mut Vec<Finding>) + Sync,
) -> Vec<Finding> {
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
