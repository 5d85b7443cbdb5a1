//! [`SteeringPlugin`], which adds the steering components, the built-in behaviours (one line
//! each, in priority order), the integration step and [`SteeringSchedule`], which runs them; and
//! [`SteeringAppExt`], the registration of behaviours of your own.

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;

use crate::behaviours::{
    Containment, Evade, Flee, FollowLeader, Pursue, avoid_obstacles, flocking, follow_path, queue,
    seek, wander,
};
use crate::components::{Mass, MaxForce, MaxSpeed, Steering, SteeringCombination, Velocity};
use crate::events::{Arrived, TargetLost};
use crate::facing::FaceVelocity;
use crate::integration;
use crate::problems::{BehaviourKind, Problem, ReportedProblems};
use crate::rng::{SteeringRng, SteeringSeed};
use crate::schedule;
use crate::stepping::behaviour::{behaviour_plugin, register_steering_behaviour};
use crate::stepping::neighbours::register_neighbour_behaviour;
use crate::stepping::{LostTargets, NeighbourBehaviour, SteeringBehaviour, announce_lost_targets};
use crate::targets::Target;

pub use crate::behaviours::FlockingPlugin;
pub use crate::schedule::{
    SteeringSchedule, SteeringStepStats, SteeringSystems, misplaced_steering_systems,
};
pub use crate::stepping::{
    Neighbourhoods, RegisteredBehaviour, SteeringBehaviours, WeightedForces,
};

/// Adds the steering components, the built-in behaviours, the integration system and
/// [`SteeringSchedule`], which runs them.
///
/// [`SteeringSchedule`] runs in the schedule given to [`new`](Self::new), [`FixedUpdate`] by
/// default, so that the simulation advances by the same step whatever the frame rate. Any schedule
/// works: the systems read the step length from [`Time`]. Add it once: a second one is Bevy's
/// "plugin was already added" panic, at set-up.
///
/// ```
/// use bevy::prelude::*;
#[doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::prelude::*;")]
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
            .register_type::<SteeringCombination>()
            .register_type::<FaceVelocity>()
            .register_type::<ReportedProblems>()
            .register_type::<Problem>()
            .register_type::<BehaviourKind>()
            .register_type::<Target>()
            .register_type::<SteeringRng>()
            .register_type::<SteeringSeed>()
            .insert_resource(SteeringSeed(self.seed))
            .add_message::<TargetLost>()
            .add_message::<Arrived>()
            .init_resource::<LostTargets>()
            .init_resource::<SteeringBehaviours>()
            .add_systems(
                SteeringSchedule,
                announce_lost_targets
                    .after(SteeringSystems::Behaviours)
                    .before(SteeringSystems::CustomForces),
            );
        schedule::build_schedule(app, self.schedule);
        // The built-in behaviours, one line each. Registration order is priority order (see
        // `SteeringCombination::Prioritised`, and `BehaviourKind::BUILT_IN`): keeping clear of
        // obstacles and inside the arena first.
        app.add_plugins((
            integration::plugin,
            avoid_obstacles::plugin,
            behaviour_plugin::<Containment>,
            follow_path::plugin,
            wander::plugin,
            seek::plugin,
            behaviour_plugin::<Flee>,
            behaviour_plugin::<Pursue>,
            behaviour_plugin::<Evade>,
            behaviour_plugin::<FollowLeader>,
            // Neighbour behaviours, registered per marker: their types only.
            queue::plugin,
            flocking::plugin,
        ));
        // Ground units in 3D: their forces and velocity put into their plane before integration.
        #[cfg(feature = "3d")]
        app.add_plugins(crate::planar::plugin);
    }
}

/// Registration of steering behaviours of your own.
pub trait SteeringAppExt {
    /// Registers behaviour `B`: its system steps every agent that has it, in parallel, in
    /// [`SteeringSystems::Behaviours`] after the behaviours registered before it; its problems are
    /// reported under its [`NAME`](SteeringBehaviour::NAME) and the debug gizmos draw it.
    /// Registering the same behaviour twice does nothing more.
    ///
    /// # Panics
    ///
    /// When [`SteeringPlugin`] was not added before, or another registered behaviour has the same
    /// [`NAME`](SteeringBehaviour::NAME).
    ///
    /// `B` must use table storage (the default): registering a sparse-set component fails to build.
    ///
    /// ```compile_fail,E0080
    /// use bevy::prelude::*;
    #[doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::forces::Boid;")]
    #[doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::prelude::*;")]
    ///
    /// #[derive(Component)]
    /// #[component(storage = "SparseSet")]
    /// struct Sparse;
    ///
    /// impl SteeringBehaviour for Sparse {
    ///     const NAME: &'static str = "sparse";
    ///
    ///     fn force(&self, _: &Boid, _: impl Fn(Entity) -> Option<TargetState>) -> Result<Vector, NoTarget> {
    ///         Ok(Vector::ZERO)
    ///     }
    /// }
    ///
    /// // error: a steering behaviour must use table storage (the default), not SparseSet
    /// App::new().add_steering_behaviour::<Sparse>();
    /// ```
    fn add_steering_behaviour<B: SteeringBehaviour>(&mut self) -> &mut Self;

    /// Registers neighbour behaviour `B` for the agents with marker `M`: their neighbours are the
    /// other agents with `M`, from [`SpatialIndex<M>`](crate::spatial::SpatialIndex) (add [`SpatialIndexPlugin<M>`](crate::spatial::SpatialIndexPlugin), or use
    /// [`FlockingPlugin<M>`], which does both). Use [`Steering`] as the marker for "every agent".
    /// Registering `B` for several markers keeps each flock to itself; an agent with two of the
    /// markers gets both forces. Otherwise as [`add_steering_behaviour`](Self::add_steering_behaviour).
    ///
    /// The neighbour behaviours registered for one marker one after another (no other behaviour
    /// registered between them) share one system, which walks the index once per agent, over the
    /// widest radius of its active ones, and keeps each behaviour's own neighbours from that walk:
    /// the same forces as one walk per behaviour, for less work.
    fn add_neighbour_behaviour<B: NeighbourBehaviour, M: Component>(&mut self) -> &mut Self;

    /// Makes the agents with marker `M` that have [`Queue`](crate::behaviours::Queue) queue behind each other: the agents
    /// ahead are those with `M`, from [`SpatialIndex<M>`](crate::spatial::SpatialIndex) (add
    /// [`SpatialIndexPlugin<M>`](crate::spatial::SpatialIndexPlugin) too). Runs in
    /// [`SteeringSystems::Queue`]. A second call for the same marker does nothing more.
    fn add_queue<M: Component>(&mut self) -> &mut Self;
}

impl SteeringAppExt for App {
    fn add_steering_behaviour<B: SteeringBehaviour>(&mut self) -> &mut Self {
        register_steering_behaviour::<B>(self);
        self
    }

    fn add_queue<M: Component>(&mut self) -> &mut Self {
        queue::add_queue::<M>(self);
        self
    }

    fn add_neighbour_behaviour<B: NeighbourBehaviour, M: Component>(&mut self) -> &mut Self {
        register_neighbour_behaviour::<B, M>(self);
        self
    }
}
