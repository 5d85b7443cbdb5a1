//! [`SteeringPlugin`], its [`SteeringSchedule`] and public [`SteeringSystems`] sets, and the
//! registration of behaviours ([`SteeringAppExt`]).

use core::any::TypeId;

use bevy::ecs::component::StorageType;
use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel, SingleThreadedExecutor};
use bevy::platform::time::Instant;
use bevy::prelude::*;

use crate::Vector;
use crate::behaviours::{
    Alignment, AvoidObstacles, Cohesion, Containment, Evade, Flee, FollowLeader, FollowPath,
    NeighbourBehaviour, Path, PathMethod, PathMode, Pursue, Queue, Seek, Separation,
    SeparationMethod, SteeringBehaviour, Target, Wander, WanderFrame, WanderMethod, advance_paths,
    apply_avoid_obstacles, apply_queue, avoid_obstacles_forces,
};
use crate::components::{
    FaceVelocity, Mass, MaxForce, MaxSpeed, Steering, SteeringCombination, Velocity,
};
use crate::events::{Arrived, TargetLost};
use crate::obstacles::{Obstacle, ObstacleIndex, ObstacleShape, rebuild_obstacle_index};
use crate::problems::{BehaviourKind, Problem, ReportedProblems};
use crate::rng::{SteeringRng, SteeringSeed};
use crate::spatial::{SpatialIndex, SpatialIndexPlugin};
use crate::systems::{
    LostTargets, NeighbourScratch, announce_lost_targets, apply_behaviour, apply_flocking,
    apply_neighbour_behaviour, apply_wander, boid, detect_arrivals, integrate, lookup_target,
    weighted_neighbour_force,
};

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
/// # use bevy_steer_core::prelude::*;
/// # fn pick_targets() {}
/// # let mut app = App::new();
/// app.add_systems(SteeringSchedule, pick_targets.in_set(SteeringSystems::Decide));
/// ```
///
/// [`SteeringPlugin`] runs it from the schedule it was given ([`FixedUpdate`] by default), so
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
/// # use bevy_steer_core::prelude::*;
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
    /// [`SpatialIndex`] resources are rebuilt from the agents'
    /// positions.
    Index,
    /// Your game logic that picks behaviours and targets for this step goes here (the hunter / prey
    /// example decides who hunts whom here). The plugin's [`advance_paths`] moves path followers
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
    /// [`Queue`] brakes against every force summed so far, so it comes after all of them. With a
    /// personal space it may also settle an agent's step itself: it then writes the agent's
    /// [`Velocity`] and clears its [`Steering`].
    Queue,
    /// Forces are applied, positions move and [`Steering`] is cleared.
    Integrate,
}

/// Adds the steering components, the built-in behaviours, the integration system and
/// [`SteeringSchedule`], which runs them.
///
/// [`SteeringSchedule`] runs in the schedule given to [`new`](Self::new), [`FixedUpdate`] by
/// default, so that the simulation advances by the same step whatever the frame rate. Any schedule
/// works: the systems read the step length from [`Time`].
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
            .register_type::<FollowLeader>()
            .register_type::<FollowPath>()
            .register_type::<Path>()
            .register_type::<PathMode>()
            .register_type::<PathMethod>()
            .register_type::<Queue>()
            .register_type::<Separation>()
            .register_type::<SeparationMethod>()
            .register_type::<Alignment>()
            .register_type::<Cohesion>()
            .register_type::<Target>()
            .register_type::<Wander>()
            .register_type::<AvoidObstacles>()
            .register_type::<Containment>()
            .register_type::<SteeringCombination>()
            .register_type::<Obstacle>()
            .register_type::<ObstacleShape>()
            .register_type::<WanderFrame>()
            .register_type::<WanderMethod>()
            .register_type::<SteeringRng>()
            .register_type::<SteeringSeed>()
            .insert_resource(SteeringSeed(self.seed))
            .init_resource::<SteeringStepStats>()
            .add_message::<TargetLost>()
            .add_message::<Arrived>()
            // Why one thread: see `SteeringSchedule`.
            .edit_schedule(SteeringSchedule, |schedule| {
                schedule.set_executor(SingleThreadedExecutor::new());
            })
            .configure_sets(
                SteeringSchedule,
                (
                    SteeringSystems::Index,
                    SteeringSystems::Decide,
                    SteeringSystems::Behaviours,
                    SteeringSystems::CustomForces,
                    SteeringSystems::Queue,
                    SteeringSystems::Integrate,
                )
                    .chain(),
            )
            .add_systems(self.schedule, run_steering_schedule)
            .init_resource::<LostTargets>()
            .init_resource::<SteeringBehaviours>()
            .init_resource::<ObstacleIndex>()
            .add_systems(
                SteeringSchedule,
                (
                    start_step_clock.before(SteeringSystems::Index),
                    rebuild_obstacle_index.in_set(SteeringSystems::Index),
                    advance_paths.in_set(SteeringSystems::Decide),
                    announce_lost_targets
                        .after(SteeringSystems::Behaviours)
                        .before(SteeringSystems::CustomForces),
                    (integrate, detect_arrivals)
                        .chain()
                        .in_set(SteeringSystems::Integrate),
                    stop_step_clock.after(SteeringSystems::Integrate),
                ),
            )
            .add_systems(PreStartup, report_misplaced_steering_systems);
        // Registration order is priority order (see `SteeringCombination::Prioritised`): keeping
        // clear of obstacles and inside the arena first.
        register_behaviour(
            app,
            BehaviourKind::AVOID_OBSTACLES,
            [TypeId::of::<AvoidObstacles>(); 2],
            (avoid_obstacles_forces, None),
            apply_avoid_obstacles,
        );
        app.add_steering_behaviour::<Containment>()
            .add_steering_behaviour::<FollowPath>();
        register_behaviour(
            app,
            BehaviourKind::WANDER,
            [TypeId::of::<Wander>(); 2],
            (wander_forces, None),
            apply_wander,
        );
        app.add_steering_behaviour::<Seek>()
            .add_steering_behaviour::<Flee>()
            .add_steering_behaviour::<Pursue>()
            .add_steering_behaviour::<Evade>()
            .add_steering_behaviour::<FollowLeader>();
    }
}

/// The schedules other than [`SteeringSchedule`] that name a [`SteeringSystems`] set, with the set:
/// their systems in (or ordered against) that set run outside the steering step.
pub fn misplaced_steering_systems(
    schedules: &Schedules,
) -> Vec<(InternedScheduleLabel, SteeringSystems)> {
    const SETS: [SteeringSystems; 6] = [
        SteeringSystems::Index,
        SteeringSystems::Decide,
        SteeringSystems::Behaviours,
        SteeringSystems::CustomForces,
        SteeringSystems::Queue,
        SteeringSystems::Integrate,
    ];
    schedules
        .iter()
        .map(|(_, schedule)| schedule)
        .filter(|schedule| schedule.label() != SteeringSchedule.intern())
        .flat_map(|schedule| {
            SETS.into_iter()
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

/// The behaviours registered in the app, in the order their forces are added: the built-in ones,
/// then those added with [`SteeringAppExt::add_steering_behaviour`].
#[derive(Resource, Default)]
pub struct SteeringBehaviours {
    registered: Vec<RegisteredBehaviour>,
}

/// One registered behaviour.
pub struct RegisteredBehaviour {
    kind: BehaviourKind,
    component: TypeId,
    registration: TypeId,
    weighted_forces: WeightedForces,
    neighbourhoods: Option<Neighbourhoods>,
}

/// Collects `(agent position, weighted force)` for every agent whose behaviour is active, as the
/// behaviour's system would add it now.
pub type WeightedForces = fn(&mut World, &mut Vec<(Vector, Vector)>);

/// Collects `(agent position, radius)` for every agent whose neighbour behaviour is active.
pub type Neighbourhoods = fn(&mut World, &mut Vec<(Vector, f32)>);

impl SteeringBehaviours {
    /// The registered behaviours, in the order their forces are added.
    pub fn iter(&self) -> impl Iterator<Item = &RegisteredBehaviour> {
        self.registered.iter()
    }

    /// The registered behaviours' kinds, in the order their forces are added (a neighbour
    /// behaviour registered for several markers appears once per marker).
    pub fn kinds(&self) -> impl Iterator<Item = BehaviourKind> + '_ {
        self.iter().map(RegisteredBehaviour::kind)
    }
}

impl RegisteredBehaviour {
    /// Which behaviour this is.
    pub fn kind(&self) -> BehaviourKind {
        self.kind
    }

    /// Collects `(agent position, weighted force)` for every agent whose behaviour is active: what
    /// the debug gizmos draw.
    pub fn weighted_forces(&self, world: &mut World, forces: &mut Vec<(Vector, Vector)>) {
        (self.weighted_forces)(world, forces);
    }

    /// For a neighbour behaviour, collects `(agent position, radius)` for every agent on which it
    /// is active, and returns `true`; for another behaviour, returns `false`.
    pub fn neighbourhoods(&self, world: &mut World, radii: &mut Vec<(Vector, f32)>) -> bool {
        self.neighbourhoods
            .map(|neighbourhoods| neighbourhoods(world, radii))
            .is_some()
    }
}

/// Orders the behaviour systems: slot `n` runs after slot `n - 1`.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct BehaviourSlot(usize);

/// Registers a behaviour's kind and adds its system after the previously registered one; does
/// nothing when the same registration was made before (see [`register_kind`]).
fn register_behaviour<M>(
    app: &mut App,
    kind: BehaviourKind,
    ids: [TypeId; 2],
    forces: (WeightedForces, Option<Neighbourhoods>),
    system: impl IntoScheduleConfigs<bevy::ecs::system::ScheduleSystem, M>,
) {
    if let Some(slot) = register_kind(app, kind, ids, forces) {
        app.add_systems(SteeringSchedule, system.in_set(slot));
    }
}

/// Registers a behaviour's kind and gives it a slot after the previously registered one, for the
/// system that steps it; `None` when the same registration was made before. `ids` are the
/// behaviour component's type and the registration's own (they differ for a neighbour behaviour,
/// registered once per marker).
///
/// # Panics
///
/// When [`SteeringPlugin`] was not added first, or another behaviour has the same name: both are
/// mistakes in the app's set-up that would otherwise leave behaviours silently unstepped.
fn register_kind(
    app: &mut App,
    kind: BehaviourKind,
    [component, registration]: [TypeId; 2],
    (weighted_forces, neighbourhoods): (WeightedForces, Option<Neighbourhoods>),
) -> Option<BehaviourSlot> {
    let Some(mut behaviours) = app.world_mut().get_resource_mut::<SteeringBehaviours>() else {
        panic!(
            "bevy_steer: the behaviour \"{kind}\" was registered before SteeringPlugin was \
             added; add SteeringPlugin first"
        );
    };
    if behaviours
        .iter()
        .any(|registered| registered.registration == registration)
    {
        return None;
    }
    assert!(
        behaviours
            .iter()
            .all(|registered| registered.kind != kind || registered.component == component),
        "bevy_steer: two behaviours are named \"{kind}\"; give each one a NAME of its own"
    );
    let slot = behaviours.registered.len();
    behaviours.registered.push(RegisteredBehaviour {
        kind,
        component,
        registration,
        weighted_forces,
        neighbourhoods,
    });
    let slot_set = BehaviourSlot(slot).in_set(SteeringSystems::Behaviours);
    if slot == 0 {
        app.configure_sets(SteeringSchedule, slot_set);
    } else {
        app.configure_sets(SteeringSchedule, slot_set.after(BehaviourSlot(slot - 1)));
    }
    Some(BehaviourSlot(slot))
}

/// Registers neighbour behaviour `B` for marker `M` (see [`register_kind`]).
fn register_neighbour_kind<B: NeighbourBehaviour, M: Component>(
    app: &mut App,
) -> Option<BehaviourSlot> {
    const { assert_table_storage::<B>() };
    register_kind(
        app,
        BehaviourKind::of_neighbour::<B>(),
        [TypeId::of::<B>(), TypeId::of::<(B, M)>()],
        (neighbour_forces::<B, M>, Some(neighbourhoods::<B, M>)),
    )
}

/// Steps neighbour behaviour `B` for marker `M` on its own, in `slot` if it was newly registered.
fn add_neighbour_system<B: NeighbourBehaviour, M: Component>(
    app: &mut App,
    slot: Option<BehaviourSlot>,
) {
    if let Some(slot) = slot {
        app.add_systems(
            SteeringSchedule,
            apply_neighbour_behaviour::<B, M>.in_set(slot),
        );
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
    /// use bevy_steer_core::forces::Boid;
    /// use bevy_steer_core::prelude::*;
    ///
    /// #[derive(Component)]
    /// #[component(storage = "SparseSet")]
    /// struct Sparse;
    ///
    /// impl SteeringBehaviour for Sparse {
    ///     const NAME: &'static str = "sparse";
    ///
    ///     fn force(&self, _: &Boid, _: impl Fn(Entity) -> Option<TargetState>) -> Result<Vec2, NoTarget> {
    ///         Ok(Vec2::ZERO)
    ///     }
    /// }
    ///
    /// // error: a steering behaviour must use table storage (the default), not SparseSet
    /// App::new().add_steering_behaviour::<Sparse>();
    /// ```
    fn add_steering_behaviour<B: SteeringBehaviour>(&mut self) -> &mut Self;

    /// Registers neighbour behaviour `B` for the agents with marker `M`: their neighbours are the
    /// other agents with `M`, from [`SpatialIndex<M>`] (add [`SpatialIndexPlugin<M>`](crate::spatial::SpatialIndexPlugin), or use
    /// [`FlockingPlugin<M>`], which does both). Use [`Steering`] as the marker for "every agent".
    /// Registering `B` for several markers keeps each flock to itself; an agent with two of the
    /// markers gets both forces. Otherwise as [`add_steering_behaviour`](Self::add_steering_behaviour).
    fn add_neighbour_behaviour<B: NeighbourBehaviour, M: Component>(&mut self) -> &mut Self;

    /// Makes the agents with marker `M` that have [`Queue`] queue behind each other: the agents
    /// ahead are those with `M`, from [`SpatialIndex<M>`] (add
    /// [`SpatialIndexPlugin<M>`](crate::spatial::SpatialIndexPlugin) too). Runs in
    /// [`SteeringSystems::Queue`]. A second call for the same marker does nothing more.
    fn add_queue<M: Component>(&mut self) -> &mut Self;
}

/// Remembers that [`SteeringAppExt::add_queue`] was called for marker `M`, so that a second call
/// does not brake the agents twice.
#[derive(Resource)]
struct QueueAdded<M: Component>(core::marker::PhantomData<fn() -> M>);

/// Flocking among the agents with marker `M`: keeps a [`SpatialIndex<M>`] and registers
/// [`Separation`], [`Alignment`] and [`Cohesion`] for them. Add it instead of a
/// `SpatialIndexPlugin<M>`, not beside it: an index already there keeps its own cell size. `FlockingPlugin::<Steering>` makes every
/// agent a neighbour of every other; a marker of your own (one flock, one team) keeps flocks apart.
/// The behaviours act on the agents that have their components.
pub struct FlockingPlugin<M> {
    cell_size: f32,
    marker: core::marker::PhantomData<fn() -> M>,
}

impl<M: Component> FlockingPlugin<M> {
    /// Flocking with a spatial index of cells `cell_size` wide: about the largest radius of the
    /// flock's behaviours.
    pub fn new(cell_size: f32) -> Self {
        Self {
            cell_size,
            marker: core::marker::PhantomData,
        }
    }
}

impl<M: Component> Plugin for FlockingPlugin<M> {
    fn build(&self, app: &mut App) {
        if !app.world().contains_resource::<SpatialIndex<M>>() {
            app.add_plugins(SpatialIndexPlugin::<M>::new(self.cell_size));
        }
        // The flocking system steps agents in the index's order, finding each one's slot.
        app.world_mut()
            .resource_mut::<SpatialIndex<M>>()
            .keep_slots();
        let slots = (
            register_neighbour_kind::<Separation, M>(app),
            register_neighbour_kind::<Alignment, M>(app),
            register_neighbour_kind::<Cohesion, M>(app),
        );
        if let (Some(first), Some(_), Some(_)) = slots {
            // One system steps the three rules, most agents four at a time in the index's
            // order: the forces of three registrations for far less work.
            app.add_systems(SteeringSchedule, apply_flocking::<M>.in_set(first));
        } else {
            // A rule was registered for `M` on its own before: the others step on their own too.
            add_neighbour_system::<Separation, M>(app, slots.0);
            add_neighbour_system::<Alignment, M>(app, slots.1);
            add_neighbour_system::<Cohesion, M>(app, slots.2);
        }
    }
}

/// Stops the build when behaviour `B` is stored as a sparse set: the behaviour systems step agents
/// table by table. Called in a `const` block, so the mistake is found when the app is built.
const fn assert_table_storage<B: Component>() {
    assert!(
        matches!(B::STORAGE_TYPE, StorageType::Table),
        "a steering behaviour must use table storage (the default), not SparseSet: the behaviour \
         systems step agents table by table"
    );
}

impl SteeringAppExt for App {
    fn add_steering_behaviour<B: SteeringBehaviour>(&mut self) -> &mut Self {
        const { assert_table_storage::<B>() };
        register_behaviour(
            self,
            BehaviourKind::of::<B>(),
            [TypeId::of::<B>(); 2],
            (behaviour_forces::<B>, None),
            apply_behaviour::<B>,
        );
        self
    }

    fn add_queue<M: Component>(&mut self) -> &mut Self {
        if self.world().contains_resource::<QueueAdded<M>>() {
            return self;
        }
        self.insert_resource(QueueAdded::<M>(core::marker::PhantomData))
            .add_systems(
                SteeringSchedule,
                apply_queue::<M>.in_set(SteeringSystems::Queue),
            )
    }

    fn add_neighbour_behaviour<B: NeighbourBehaviour, M: Component>(&mut self) -> &mut Self {
        let slot = register_neighbour_kind::<B, M>(self);
        add_neighbour_system::<B, M>(self, slot);
        self
    }
}

fn neighbourhoods<B: NeighbourBehaviour, M: Component>(
    world: &mut World,
    radii: &mut Vec<(Vector, f32)>,
) {
    let mut agents = world.query_filtered::<(&B, &Transform), With<M>>();
    for (behaviour, transform) in agents.query(world) {
        if behaviour.active() {
            radii.push((transform.translation.truncate(), behaviour.radius()));
        }
    }
}

fn neighbour_forces<B: NeighbourBehaviour, M: Component>(
    world: &mut World,
    forces: &mut Vec<(Vector, Vector)>,
) {
    let mut agents =
        world.query_filtered::<(Entity, &B, &Transform, &Velocity, &MaxSpeed), With<M>>();
    let Some(index) = world.get_resource::<SpatialIndex<M>>() else {
        return;
    };
    let mut scratch = NeighbourScratch::default();
    for (entity, behaviour, transform, velocity, max_speed) in agents.query(world) {
        let agent = boid(transform, velocity, max_speed);
        if let Some(Ok(force)) =
            weighted_neighbour_force(index, behaviour, &agent, entity, &mut scratch)
        {
            forces.push((agent.position, force));
        }
    }
}

fn behaviour_forces<B: SteeringBehaviour>(world: &mut World, forces: &mut Vec<(Vector, Vector)>) {
    let mut agents = world.query::<(Entity, &B, &Transform, &Velocity, &MaxSpeed)>();
    let mut targets = world.query::<(&Transform, Option<&Velocity>)>();
    let targets = targets.query(world);
    for (entity, behaviour, transform, velocity, max_speed) in agents.query(world) {
        let agent = boid(transform, velocity, max_speed);
        // As the step does, a behaviour aimed at its own agent has no force.
        let lookup = |target| (target != entity).then(|| lookup_target(&targets, target))?;
        if behaviour.active()
            && let Ok(force) = behaviour.force(&agent, lookup)
        {
            forces.push((agent.position, force * behaviour.weight()));
        }
    }
}

fn wander_forces(world: &mut World, forces: &mut Vec<(Vector, Vector)>) {
    let mut agents = world.query::<(&Wander, &Transform, &Velocity, &MaxSpeed)>();
    for (wander, transform, velocity, max_speed) in agents.query(world) {
        if wander.active() {
            let agent = boid(transform, velocity, max_speed);
            forces.push((agent.position, wander.force(&agent) * wander.weight));
        }
    }
}
