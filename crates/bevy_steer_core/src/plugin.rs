//! [`SteeringPlugin`] and the public [`SteeringSystems`] sets.

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;

use crate::behaviours::{Evade, Flee, Pursue, Seek, Target, Wander, WanderFrame, WanderMethod};
use crate::components::{FaceVelocity, Mass, MaxForce, MaxSpeed, Steering, Velocity};
use crate::problems::{BehaviourKind, Problem, ReportedProblems};
use crate::rng::{SteeringRng, SteeringSeed};
use crate::systems::{apply_targeted_behaviour, apply_wander, integrate};
use bevy::platform::time::Instant;

/// How the last steering step went: for read-outs such as the tuning panel's.
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

/// The steps of one steering update, chained in this order in the plugin's schedule.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SteeringSystems {
    /// [`SpatialIndex`](crate::spatial::SpatialIndex) resources are rebuilt from the agents'
    /// positions.
    Index,
    /// Your game logic that picks behaviours and targets for this step goes here (the hunter / prey
    /// example decides who hunts whom here).
    Decide,
    /// The built-in behaviours add their forces, always in the order wander, seek, flee, pursuit,
    /// evade, so the float sum is the same on every run.
    Behaviours,
    /// Your own force systems add into [`Steering`] here, after the built-in ones. Order them among
    /// themselves if several touch the same agents, to keep runs reproducible.
    CustomForces,
    /// Forces are applied, positions move and [`Steering`] is cleared.
    Integrate,
}

/// Adds the steering components, the behaviour systems and the integration system.
///
/// The systems run in the schedule given to [`new`](Self::new), [`FixedUpdate`] by default, so
/// that the simulation advances by the same step whatever the frame rate. Any schedule works: they
/// read the step length from [`Time`].
///
/// ```
/// use bevy::prelude::*;
/// use bevy_steer_core::prelude::*;
///
/// App::new()
///     .add_plugins((MinimalPlugins, SteeringPlugin::default().with_seed(7)));
/// ```
pub struct SteeringPlugin {
    schedule: InternedScheduleLabel,
    seed: u64,
}

impl Default for SteeringPlugin {
    fn default() -> Self {
        Self::new(FixedUpdate)
    }
}

impl SteeringPlugin {
    /// Runs the steering systems in `schedule`.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
            seed: 0,
        }
    }

    /// Sets the [`SteeringSeed`] the agents' random numbers derive from (default `0`).
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

impl Plugin for SteeringPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<Velocity>()
            .register_type::<Mass>()
            .register_type::<MaxSpeed>()
            .register_type::<MaxForce>()
            .register_type::<Steering>()
            .register_type::<FaceVelocity>()
            .register_type::<ReportedProblems>()
            .register_type::<Problem>()
            .register_type::<BehaviourKind>()
            .register_type::<Seek>()
            .register_type::<Flee>()
            .register_type::<Pursue>()
            .register_type::<Evade>()
            .register_type::<Target>()
            .register_type::<Wander>()
            .register_type::<WanderFrame>()
            .register_type::<WanderMethod>()
            .register_type::<SteeringRng>()
            .register_type::<SteeringSeed>()
            .insert_resource(SteeringSeed(self.seed))
            .init_resource::<SteeringStepStats>()
            .configure_sets(
                self.schedule,
                (
                    SteeringSystems::Index,
                    SteeringSystems::Decide,
                    SteeringSystems::Behaviours,
                    SteeringSystems::CustomForces,
                    SteeringSystems::Integrate,
                )
                    .chain(),
            )
            .add_systems(
                self.schedule,
                (
                    apply_wander,
                    apply_targeted_behaviour::<Seek>,
                    apply_targeted_behaviour::<Flee>,
                    apply_targeted_behaviour::<Pursue>,
                    apply_targeted_behaviour::<Evade>,
                )
                    .chain()
                    .in_set(SteeringSystems::Behaviours),
            )
            .add_systems(self.schedule, integrate.in_set(SteeringSystems::Integrate))
            .add_systems(
                self.schedule,
                (
                    start_step_clock.before(SteeringSystems::Index),
                    stop_step_clock.after(SteeringSystems::Integrate),
                ),
            );
    }
}
