//! When steering runs: [`SteeringSchedule`], the schedule of one steering step, its chained
//! [`SteeringSystems`] sets, and [`SteeringStepStats`], how the last step went.

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel, SingleThreadedExecutor};
use bevy::platform::time::Instant;
use bevy::prelude::*;

use crate::components::Steering;

/// How the last steering step went: for read-outs such as the tuning panel's, and for tests.
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct SteeringStepStats {
    /// Wall-clock time of the last step, from the start of [`SteeringSystems::Index`] to the end of
    /// [`SteeringSystems::Integrate`].
    pub duration: core::time::Duration,
    /// The number of agents (entities with [`Steering`]) after the last step.
    pub agents: usize,
    /// Steps run so far.
    pub steps: u64,
    started: Option<Instant>,
}

fn start_step_clock(mut stats: ResMut<SteeringStepStats>) {
    stats.started = Some(Instant::now());
}

fn stop_step_clock(mut stats: ResMut<SteeringStepStats>, agents: Query<(), With<Steering>>) {
    if let Some(started) = stats.started.take() {
        stats.duration = started.elapsed();
    }
    stats.agents = agents.iter().len();
    stats.steps += 1;
}

/// The schedule of one steering step: every system of the crate (and of the spatial indexes) is
/// in it, in the [`SteeringSystems`] sets, and your own steering systems go there too:
///
/// ```
/// # use bevy::prelude::*;
#[doc = concat!("# use ", env!("CARGO_CRATE_NAME"), "::prelude::*;")]
/// # fn pick_targets() {}
/// # let mut app = App::new();
/// app.add_systems(SteeringSchedule, pick_targets.in_set(SteeringSystems::Decide));
/// ```
///
/// [`SteeringPlugin`](crate::SteeringPlugin) runs it from the schedule it was given ([`FixedUpdate`] by default), so
/// everything steering-related follows that one choice.
///
/// Its systems run one after another on the thread that runs it (Bevy's
/// [`SingleThreadedExecutor`], as avian's physics schedule does): each of the crate's systems
/// spreads its agents over the compute pool itself, and the sets run in a chain, so a
/// multi-threaded executor would find little to run side by side, and its hand-over of every system
/// to the pool cost about 0.1 ms a step (see docs/performance.md). Your own steering systems whose
/// work gains from running side by side can have it back, after adding the plugin (which sets the
/// executor):
///
/// ```
/// # use bevy::prelude::*;
/// # use bevy::ecs::schedule::MultiThreadedExecutor;
#[doc = concat!("# use ", env!("CARGO_CRATE_NAME"), "::prelude::*;")]
/// # let mut app = App::new();
/// # app.add_plugins((MinimalPlugins, SteeringPlugin::default()));
/// app.edit_schedule(SteeringSchedule, |schedule| {
///     schedule.set_executor(MultiThreadedExecutor::new());
/// });
/// ```
#[derive(ScheduleLabel, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SteeringSchedule;

fn run_steering_schedule(world: &mut World) {
    world.run_schedule(SteeringSchedule);
}

/// The steps of one steering update, chained in this order in [`SteeringSchedule`].
///
/// They exist only there: a system put in one of these sets in another schedule would run outside
/// the chain, so the plugin logs an error at startup for each such system's schedule.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SteeringSystems {
    /// [`SpatialIndex`](crate::spatial::SpatialIndex) resources are rebuilt from the agents'
    /// positions.
    Index,
    /// Your game logic that picks behaviours and targets for this step goes here (the hunter / prey
    /// example decides who hunts whom here). The plugin's
    /// [`advance_paths`](crate::behaviours::advance_paths) moves path followers
    /// on to their next node here too.
    Decide,
    /// The registered behaviours add their forces, always in registration order (the built-in
    /// ones first: avoid obstacles, containment, follow path, wander, seek, flee, pursuit, evade,
    /// follow leader), so the float sum is the same on every run.
    Behaviours,
    /// Force systems of your own that are not registered behaviours add into [`Steering`] here,
    /// after the registered ones. Order them among themselves if several touch the same agents, to
    /// keep runs reproducible.
    CustomForces,
    /// [`Queue`](crate::behaviours::Queue) brakes against every force summed so far, so it comes after all of them. With a
    /// personal space it may also settle an agent's step itself: it then writes the agent's
    /// [`Velocity`](crate::components::Velocity) and clears its [`Steering`].
    Queue,
    /// Forces are applied, positions move and [`Steering`] is cleared.
    Integrate,
}

impl SteeringSystems {
    /// Every set, in the order they run.
    pub const ALL: [Self; 6] = [
        Self::Index,
        Self::Decide,
        Self::Behaviours,
        Self::CustomForces,
        Self::Queue,
        Self::Integrate,
    ];
}

/// Sets up [`SteeringSchedule`] (its executor, its chained sets and the step clock) and runs it
/// from `run_in`.
pub(crate) fn build_schedule(app: &mut App, run_in: InternedScheduleLabel) {
    for pair in SteeringSystems::ALL.windows(2) {
        app.configure_sets(SteeringSchedule, pair[1].after(pair[0]));
    }
    app.init_resource::<SteeringStepStats>()
        // Why one thread: see `SteeringSchedule`.
        .edit_schedule(SteeringSchedule, |schedule| {
            schedule.set_executor(SingleThreadedExecutor::new());
        })
        .add_systems(run_in, run_steering_schedule)
        .add_systems(
            SteeringSchedule,
            (
                start_step_clock.before(SteeringSystems::Index),
                stop_step_clock.after(SteeringSystems::Integrate),
            ),
        )
        .add_systems(PreStartup, report_misplaced_steering_systems);
}

/// The schedules other than [`SteeringSchedule`] that name a [`SteeringSystems`] set, with the set:
/// their systems in (or ordered against) that set run outside the steering step.
pub fn misplaced_steering_systems(
    schedules: &Schedules,
) -> Vec<(InternedScheduleLabel, SteeringSystems)> {
    schedules
        .iter()
        .map(|(_, schedule)| schedule)
        .filter(|schedule| schedule.label() != SteeringSchedule.intern())
        .flat_map(|schedule| {
            SteeringSystems::ALL
                .into_iter()
                .filter(|&set| schedule.graph().system_sets.contains(set))
                .map(move |set| (schedule.label(), set))
        })
        .collect()
}

/// Logs an error for each of [`misplaced_steering_systems`], once, at startup.
fn report_misplaced_steering_systems(schedules: Res<Schedules>) {
    for (label, set) in misplaced_steering_systems(&schedules) {
        error!(
            "bevy_steer: {label:?} has systems in or ordered against SteeringSystems::{set:?}, \
             which exists only in SteeringSchedule; they run outside the steering step. Add them \
             with `app.add_systems(SteeringSchedule, ...)` instead"
        );
    }
}
