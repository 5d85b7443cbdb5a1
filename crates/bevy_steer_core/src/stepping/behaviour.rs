//! The [`SteeringBehaviour`] trait and the stepping its implementations share: the system that
//! adds a behaviour's weighted force for every agent that has it, and its registration.

use core::any::TypeId;
use core::cell::Cell;

use bevy::ecs::component::Mutable;
use bevy::ecs::query::ArchetypeFilter;
use bevy::prelude::*;
use bevy::reflect::GetTypeRegistration;

use super::columns::{AgentColumns, BudgetColumns, boid, log_not_dense, settle, table_jobs};
use super::jobs::{MIN_AGENTS_PER_JOB, run_jobs};
use super::registry::{assert_table_storage, register_behaviour};
use crate::components::{MaxSpeed, Steering, Velocity};
use crate::events::{TargetLost, announce};
use crate::formulas::Boid;
use crate::math::{Vector, position_of};
use crate::problems::{BehaviourKind, ReportedProblems, mark_changed, record};
use crate::targets::{NoTarget, TargetState};

/// A steering behaviour: a component whose force the plugin adds into
/// [`Steering`](crate::components::Steering) each step, once registered with
/// [`add_steering_behaviour`](crate::plugin::SteeringAppExt::add_steering_behaviour).
///
/// Implement [`force`](Self::force) as a pure function of the agent and its targets; the plugin
/// does the rest: agents are stepped in parallel, table slice by table slice, in a fixed order among
/// the behaviours (registration order) so runs are reproducible; the force is multiplied by
/// [`weight`](Self::weight) and skipped when the behaviour is not [`active`](Self::active); a
/// non-finite force is dropped and reported as [`Problem::NonFiniteForce`]; a target that is gone
/// is reported, [forgotten](Self::forget_target) and announced with
/// [`TargetLost`](crate::events::TargetLost); the debug gizmos draw the force in a colour of its
/// own.
///
/// The component must use table storage (the default): registering one declared with
/// `#[component(storage = "SparseSet")]` does not compile.
///
/// ```
/// use bevy::prelude::*;
#[doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::forces::{self, Boid};")]
#[doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::math;")]
#[doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::prelude::*;")]
///
/// /// Circle a point at a distance (in 2D anticlockwise; in 3D the way the agent already goes).
/// #[derive(Component)]
/// #[require(Steering)]
/// struct Orbit {
///     centre: Vector,
///     radius: f32,
/// }
///
/// impl SteeringBehaviour for Orbit {
///     const NAME: &'static str = "orbit";
///
///     fn force(&self, agent: &Boid, _: impl Fn(Entity) -> Option<TargetState>) -> Result<Vector, NoTarget> {
///         let out = (agent.position - self.centre).normalize_or_zero();
///         let on_circle = self.centre + out * self.radius;
///         // Seek a point a little ahead along the circle.
///         let ahead = math::sideways(out, agent.velocity);
///         Ok(forces::seek(agent, on_circle + ahead * 40.0, 0.0))
///     }
///
///     // No entity target to forget.
///     fn forget_target(&mut self) {}
/// }
///
/// App::new()
///     .add_plugins((MinimalPlugins, SteeringPlugin::default()))
///     .add_steering_behaviour::<Orbit>();
/// ```
///
/// [`Problem::NonFiniteForce`]: crate::problems::Problem::NonFiniteForce
pub trait SteeringBehaviour: Component<Mutability = Mutable> {
    /// The behaviour's name, in warnings, [`BehaviourKind`](crate::problems::BehaviourKind) and
    /// the gizmos' colour table. Unique among an app's behaviours.
    const NAME: &'static str;

    /// Factor on the force. Default `1.0`.
    fn weight(&self) -> f32 {
        1.0
    }

    /// Whether the behaviour is switched on. Default `true`.
    fn enabled(&self) -> bool {
        true
    }

    /// Whether the behaviour acts this step: enabled with a weight other than zero.
    fn active(&self) -> bool {
        self.enabled() && self.weight() != 0.0
    }

    /// The unweighted force on `agent`, looking target entities up with `lookup` (best through
    /// [`target_state`](crate::targets::target_state)). `Err` means no force this step, and says why.
    fn force(
        &self,
        agent: &Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vector, NoTarget>;

    /// Called once when the target entity [`force`](Self::force) reported as
    /// [`NoTarget::Missing`] is gone: drop it (the built-in behaviours set their target to `None`),
    /// so that the behaviour idles until it is given a new one instead of losing the same target
    /// again every step. A behaviour with no entity target leaves the body empty.
    fn forget_target(&mut self);
}

impl BehaviourKind {
    /// The kind of behaviour `B`.
    pub const fn of<B: SteeringBehaviour>() -> Self {
        Self::new(B::NAME)
    }
}

/// Entities behaviours may aim at: anything with a `Transform`, moving if it has a `Velocity`.
pub type TargetQuery<'w, 's> = Query<'w, 's, (&'static Transform, Option<&'static Velocity>)>;

/// Looks a target entity up in `targets`.
pub fn lookup_target(targets: &TargetQuery, entity: Entity) -> Option<TargetState> {
    let (transform, velocity) = targets.get(entity).ok()?;
    Some(TargetState {
        position: position_of(transform),
        velocity: velocity.map_or(Vector::ZERO, |velocity| velocity.0),
    })
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
/// compute pool, adds the weighted force `weighted_force` returns for each agent whose behaviour
/// is `active` into its `Steering`, and afterwards, on one thread, records the problems found and
/// calls `on_lost` for each agent whose target was gone. An agent whose behaviour is off costs a
/// read of the behaviour alone: its other columns are not touched.
///
/// `weighted_force` also gets the agent's entity and a scratch `S` (lists of neighbours, say), one
/// per job, reused from agent to agent.
/// A job steps at least `least_per_job` agents.
pub(crate) fn step_agents<B, F, S: Default>(
    agents: &mut BehaviourAgents<B, F>,
    logged_not_dense: &mut bool,
    kind: BehaviourKind,
    least_per_job: usize,
    active: impl Fn(&B) -> bool + Sync,
    weighted_force: impl Fn(&B, &Boid, Entity, &mut S) -> Result<Vector, NoTarget> + Sync,
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
        jobs.extend(table_jobs(
            table,
            entities,
            columns,
            steering.bypass_change_detection(),
            least_per_job,
            |range| &behaviours[range],
        ));
    }
    let findings = run_jobs(
        jobs,
        |(rows, entities, behaviours, columns, steering), found| {
            let mut scratch = S::default();
            for row in 0..rows.len {
                let behaviour = &behaviours[row];
                if !active(behaviour) {
                    continue;
                }
                let agent = columns.boid(row);
                let force = weighted_force(behaviour, &agent, entities[row], &mut scratch);
                let agent_row = columns.agent(rows, row);
                settle(force, kind, &mut steering[row], agent_row, found);
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
        B::active,
        |behaviour, agent, entity, _: &mut ()| {
            // A behaviour aimed at its own agent has nothing to steer by: it is told apart from a
            // missing target here, adds no force and is reported.
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

/// The targets the behaviour systems found gone this step, in the order they found them. Gathered
/// here and announced by one system after the behaviours, rather than through `Commands` in each
/// behaviour system, which would put a sync point between every two of them.
#[derive(Resource, Default)]
pub struct LostTargets(pub(crate) Vec<TargetLost>);

/// Announces the step's [`LostTargets`] as [`TargetLost`] events and messages.
pub fn announce_lost_targets(mut commands: Commands, mut lost_targets: ResMut<LostTargets>) {
    for lost in lost_targets.0.drain(..) {
        announce(&mut commands, lost);
    }
}

/// Registers built-in behaviour `B` and its type (for the tuning panel and scenes): the whole
/// plugin of a behaviour that needs nothing else, added by [`SteeringPlugin`](crate::SteeringPlugin).
pub(crate) fn behaviour_plugin<B: SteeringBehaviour + GetTypeRegistration>(app: &mut App) {
    app.register_type::<B>();
    register_steering_behaviour::<B>(app);
}

/// Registers behaviour `B` and schedules [`apply_behaviour::<B>`](apply_behaviour) in its slot:
/// what [`add_steering_behaviour`](crate::plugin::SteeringAppExt::add_steering_behaviour) does.
pub(crate) fn register_steering_behaviour<B: SteeringBehaviour>(app: &mut App) {
    const { assert_table_storage::<B>() };
    register_behaviour(
        app,
        BehaviourKind::of::<B>(),
        [TypeId::of::<B>(); 2],
        (behaviour_forces::<B>, None),
        apply_behaviour::<B>,
    );
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
