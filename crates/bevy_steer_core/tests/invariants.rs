//! Invariants that hold whatever the input: random scenes stepped through the ECS with zero,
//! negative, tiny, huge and non-finite values for every parameter and target, and the pure force
//! functions over their documented domain.

mod common;

use std::collections::HashSet;
use std::f32::consts::PI;
use std::ops::Range;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use bevy::prelude::*;
use common::steer::prelude::*;
use common::*;
use proptest::prelude::*;
use steer::forces::{self, Boid};

/// The smallest positive `f32`, a subnormal: its reciprocal overflows.
const SMALLEST_SUBNORMAL: f32 = f32::from_bits(1);

/// `PROPTEST_CASES` when it is set (for long runs: see `docs/reliability.md`), else `default`.
fn cases_or(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(default)
}

/// Relative slack for float rounding in the limits checked.
const TOLERANCE: f64 = 1e-4;

/// Values that break careless arithmetic: signed zeros, a plain negative, tiny and subnormal
/// numbers, huge numbers, the extremes of `f32`, the infinities and NaN.
static AWKWARD_VALUES: [f32; 16] = [
    0.0,
    -0.0,
    -1.0,
    1e-30,
    -1e-30,
    f32::MIN_POSITIVE,
    SMALLEST_SUBNORMAL,
    -SMALLEST_SUBNORMAL,
    1e30,
    -1e30,
    f32::MAX,
    f32::MIN,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::EPSILON,
];

/// Whether `value` is non-finite or so large that sums of such values may overflow: inputs from
/// which the systems may legitimately have to drop a force or stop an agent.
fn is_extreme(value: f32) -> bool {
    !value.is_finite() || value.abs() >= 1e30
}

/// The length of `v` without the overflow and underflow of squaring in `f32`.
fn exact_length(v: Vector) -> f64 {
    steer::math::widen(v).length()
}

/// Whether `v` is no longer than `limit`, give or take float rounding.
fn is_within(v: Vector, limit: f32) -> bool {
    exact_length(v) <= with_rounding(f64::from(limit))
}

/// `limit` plus float rounding: relative, and a few of the smallest subnormals, since below
/// `f32::MIN_POSITIVE` rounding is absolute.
fn with_rounding(limit: f64) -> f64 {
    limit * (1.0 + TOLERANCE) + 4.0 * f64::from(SMALLEST_SUBNORMAL)
}

/// Whether `v` is shorter than `limit` by more than float rounding, so that no truncation to
/// `limit` may touch it.
fn is_well_within(v: Vector, limit: f32) -> bool {
    exact_length(v) <= f64::from(limit) * (1.0 - 1e-6)
}

/// Mostly a value of `ordinary`, one time in ten an awkward one.
fn value_in(ordinary: Range<f32>) -> impl Strategy<Value = f32> + Clone {
    prop_oneof![
        9 => ordinary,
        1 => prop::sample::select(&AWKWARD_VALUES[..]),
    ]
}

fn vec2_in(half_extent: f32) -> impl Strategy<Value = Vector> + Clone {
    let coordinate = value_in(-half_extent..half_extent);
    (coordinate.clone(), coordinate).prop_map(|(x, y)| v(x, y))
}

fn weight() -> impl Strategy<Value = f32> + Clone {
    value_in(-2.0..3.0)
}

// ---------------------------------------------------------------------------------------------
// Random scenes through the ECS
// ---------------------------------------------------------------------------------------------

const MAX_AGENTS: usize = 8;

/// What a generated behaviour aims at. Agent indices wrap round the number of agents.
#[derive(Clone, Copy, Debug)]
enum TargetSpec {
    /// A fixed point (for pursue and evade: an entity with only a `Transform` there).
    Point(Vector),
    /// The point where an agent starts, so that target and agent coincide.
    StartOf(usize),
    /// An agent, possibly the one aiming.
    Agent(usize),
    /// An entity despawned before the first step.
    Despawned,
    /// `None`: no target on purpose.
    Unset,
}

fn target_spec() -> impl Strategy<Value = TargetSpec> {
    prop_oneof![
        1 => vec2_in(500.0).prop_map(TargetSpec::Point),
        1 => (0..MAX_AGENTS).prop_map(TargetSpec::StartOf),
        2 => (0..MAX_AGENTS).prop_map(TargetSpec::Agent),
        1 => Just(TargetSpec::Despawned),
        1 => Just(TargetSpec::Unset),
    ]
}

/// An agent's physical state and limits.
#[derive(Clone, Debug)]
struct BodySpec {
    position: Vector,
    velocity: Vector,
    mass: f32,
    max_speed: f32,
    max_force: f32,
}

impl BodySpec {
    fn scalars(&self) -> [f32; 7] {
        [
            self.position.x,
            self.position.y,
            self.velocity.x,
            self.velocity.y,
            self.mass,
            self.max_speed,
            self.max_force,
        ]
    }
}

fn body_spec() -> impl Strategy<Value = BodySpec> {
    (
        vec2_in(500.0),
        vec2_in(300.0),
        value_in(0.05..5.0),
        value_in(0.0..400.0),
        value_in(0.0..2000.0),
    )
        .prop_map(
            |(position, velocity, mass, max_speed, max_force)| BodySpec {
                position,
                velocity,
                mass,
                max_speed,
                max_force,
            },
        )
}

/// An agent's behaviours; the targeted ones are generated aiming nowhere, with the target to give
/// them once every entity exists.
#[derive(Clone, Debug)]
struct BehaviourSpecs {
    seek: Option<(Seek, TargetSpec)>,
    flee: Option<(Flee, TargetSpec)>,
    pursue: Option<(Pursue, TargetSpec)>,
    evade: Option<(Evade, TargetSpec)>,
    wander: Option<Wander>,
    face_velocity: Option<FaceVelocity>,
}

impl BehaviourSpecs {
    /// Whether no behaviour adds a force: the agent must coast.
    fn is_idle(&self) -> bool {
        self.seek.is_none()
            && self.flee.is_none()
            && self.pursue.is_none()
            && self.evade.is_none()
            && self.wander.is_none()
    }

    /// Each targeted behaviour's kind, weight and target.
    fn targeted(&self) -> Vec<(BehaviourKind, f32, TargetSpec)> {
        let mut targeted = Vec::new();
        if let Some((seek, target)) = self.seek {
            targeted.push((BehaviourKind::SEEK, seek.weight, target));
        }
        if let Some((flee, target)) = self.flee {
            targeted.push((BehaviourKind::FLEE, flee.weight, target));
        }
        if let Some((pursue, target)) = self.pursue {
            targeted.push((BehaviourKind::PURSUE, pursue.weight, target));
        }
        if let Some((evade, target)) = self.evade {
            targeted.push((BehaviourKind::EVADE, evade.weight, target));
        }
        targeted
    }

    /// Every number the behaviours hold themselves (not their targets').
    fn scalars(&self) -> Vec<f32> {
        let mut scalars: Vec<f32> = self
            .targeted()
            .into_iter()
            .map(|(_, weight, _)| weight)
            .collect();
        if let Some((seek, _)) = self.seek {
            scalars.push(seek.slowing_radius);
        }
        if let Some(wander) = self.wander {
            scalars.extend([
                wander.circle_distance,
                wander.circle_radius,
                wander.angle_change,
                wander.angle,
                wander.weight,
            ]);
            if let WanderMethod::RandomTarget {
                area,
                interval,
                target,
                time_left,
            } = wander.method
            {
                scalars.extend([
                    area.min.x, area.min.y, area.max.x, area.max.y, interval, target.x, target.y,
                    time_left,
                ]);
            }
        }
        scalars
    }
}

fn wander() -> impl Strategy<Value = Wander> {
    let method = prop_oneof![
        Just(WanderMethod::Circle),
        (vec2_in(500.0), vec2_in(500.0), value_in(0.0..3.0)).prop_map(
            |(corner, opposite_corner, interval)| {
                WanderMethod::random_target(area(corner, opposite_corner), interval)
            }
        ),
    ];
    let frame = prop_oneof![Just(WanderFrame::World), Just(WanderFrame::Heading)];
    (
        value_in(0.0..300.0),
        value_in(0.0..300.0),
        value_in(0.0..3.0),
        value_in(-PI..PI),
        frame,
        method,
        weight(),
    )
        .prop_map(
            |(circle_distance, circle_radius, angle_change, angle, frame, method, weight)| Wander {
                circle_distance,
                circle_radius,
                angle_change,
                angle,
                #[cfg(feature = "3d")]
                displacement: Vector::X,
                #[cfg(feature = "3d")]
                carried_heading: Vector::ZERO,
                frame,
                method,
                weight,
                enabled: true,
            },
        )
}

fn behaviour_specs() -> impl Strategy<Value = BehaviourSpecs> {
    let seek = (target_spec(), value_in(0.0..300.0), weight()).prop_map(
        |(target, slowing_radius, weight)| {
            let seek = Seek::default()
                .with_slowing_radius(slowing_radius)
                .with_weight(weight);
            (seek, target)
        },
    );
    let flee = (target_spec(), weight())
        .prop_map(|(target, weight)| (Flee::default().with_weight(weight), target));
    let pursue = (target_spec(), weight())
        .prop_map(|(target, weight)| (Pursue::default().with_weight(weight), target));
    let evade = (target_spec(), weight())
        .prop_map(|(target, weight)| (Evade::default().with_weight(weight), target));
    let face_velocity = (-PI..PI).prop_map(|angle| {
        FaceVelocity::new(steer::math::Direction::new(from_angle(angle)).expect("a unit vector"))
    });
    (
        prop::option::of(seek),
        prop::option::of(flee),
        prop::option::of(pursue),
        prop::option::of(evade),
        prop::option::of(wander()),
        prop::option::of(face_velocity),
    )
        .prop_map(
            |(seek, flee, pursue, evade, wander, face_velocity)| BehaviourSpecs {
                seek,
                flee,
                pursue,
                evade,
                wander,
                face_velocity,
            },
        )
}

#[derive(Clone, Debug)]
struct AgentSpec {
    body: BodySpec,
    /// Start exactly where this earlier agent (index wrapped) starts, instead of at
    /// `body.position`.
    start_on: Option<usize>,
    behaviours: BehaviourSpecs,
}

fn agent_spec() -> impl Strategy<Value = AgentSpec> {
    (
        body_spec(),
        prop::option::weighted(0.2, 0..MAX_AGENTS),
        behaviour_specs(),
    )
        .prop_map(|(body, start_on, behaviours)| AgentSpec {
            body,
            start_on,
            behaviours,
        })
}

#[derive(Clone, Debug)]
struct SceneSpec {
    agents: Vec<AgentSpec>,
    step: Duration,
    steps: u32,
    seed: u64,
}

impl SceneSpec {
    /// Where each agent starts.
    fn starts(&self) -> Vec<Vector> {
        let mut starts: Vec<Vector> = Vec::with_capacity(self.agents.len());
        for (index, agent) in self.agents.iter().enumerate() {
            let start = match agent.start_on {
                Some(other) if index > 0 => starts[other % index],
                _ => agent.body.position,
            };
            starts.push(start);
        }
        starts
    }

    fn agent_index(&self, index: usize) -> usize {
        index % self.agents.len()
    }
}

fn scene_spec() -> impl Strategy<Value = SceneSpec> {
    // From a thousand steps per second to a one-second hitch.
    let step_seconds = prop_oneof![
        prop::sample::select(vec![0.001, 1.0 / 60.0, 0.1, 0.25, 1.0]),
        0.001..=1.0f64,
    ];
    (
        prop::collection::vec(agent_spec(), 1..=MAX_AGENTS),
        step_seconds.prop_map(Duration::from_secs_f64),
        1..40u32,
        any::<u64>(),
    )
        .prop_map(|(agents, step, steps, seed)| SceneSpec {
            agents,
            step,
            steps,
            seed,
        })
}

/// How a target looks to the behaviour on the first step.
enum TargetStatus {
    Unset,
    Itself,
    Missing,
    NonFinite,
    Finite,
}

/// The problems an agent must have reported after its first step, and those it may report too.
struct ExpectedProblems {
    required: HashSet<Problem>,
    allowed: HashSet<Problem>,
}

/// A spawned scene and what the checks need to know about its start.
struct Scene {
    spec: SceneSpec,
    starts: Vec<Vector>,
    agents: Vec<Entity>,
}

impl Scene {
    fn spawn(app: &mut App, spec: SceneSpec) -> Self {
        let starts = spec.starts();
        let world = app.world_mut();
        let despawned = world.spawn_empty().id();
        world.despawn(despawned);
        let agents: Vec<Entity> = spec
            .agents
            .iter()
            .zip(&starts)
            .map(|(agent, start)| {
                let body = &agent.body;
                world
                    .spawn((
                        Transform::from_translation(steer::math::translation_of(*start)),
                        Velocity(body.velocity),
                        Mass(body.mass),
                        MaxSpeed(body.max_speed),
                        MaxForce(body.max_force),
                        Steering::default(),
                    ))
                    .id()
            })
            .collect();
        let scene = Self {
            spec,
            starts,
            agents,
        };
        // Behaviours go on once every agent exists, so that any agent can aim at any other.
        for (agent, &entity) in scene.spec.agents.iter().zip(&scene.agents) {
            let behaviours = &agent.behaviours;
            let aim = |target| scene.aim(target, despawned);
            if let Some((seek, target)) = behaviours.seek {
                let target = aim(target);
                world.entity_mut(entity).insert(Seek { target, ..seek });
            }
            if let Some((flee, target)) = behaviours.flee {
                let target = aim(target);
                world.entity_mut(entity).insert(Flee { target, ..flee });
            }
            if let Some((pursue, target)) = behaviours.pursue {
                let target = target_entity(world, aim(target));
                world.entity_mut(entity).insert(Pursue { target, ..pursue });
            }
            if let Some((evade, target)) = behaviours.evade {
                let target = target_entity(world, aim(target));
                world.entity_mut(entity).insert(Evade { target, ..evade });
            }
            if let Some(wander) = behaviours.wander {
                world.entity_mut(entity).insert(wander);
            }
            if let Some(face_velocity) = behaviours.face_velocity {
                world.entity_mut(entity).insert(face_velocity);
            }
        }
        scene
    }

    fn aim(&self, target: TargetSpec, despawned: Entity) -> Option<Target> {
        Some(match target {
            TargetSpec::Point(point) => Target::Point(point),
            TargetSpec::StartOf(index) => Target::Point(self.starts[self.spec.agent_index(index)]),
            TargetSpec::Agent(index) => Target::Entity(self.agents[self.spec.agent_index(index)]),
            TargetSpec::Despawned => Target::Entity(despawned),
            TargetSpec::Unset => return None,
        })
    }

    fn target_status(&self, target: TargetSpec, aiming: usize) -> TargetStatus {
        let finite_if = |finite| {
            if finite {
                TargetStatus::Finite
            } else {
                TargetStatus::NonFinite
            }
        };
        match target {
            TargetSpec::Point(point) => finite_if(point.is_finite()),
            TargetSpec::StartOf(index) => {
                finite_if(self.starts[self.spec.agent_index(index)].is_finite())
            }
            TargetSpec::Agent(index) if self.spec.agent_index(index) == aiming => {
                TargetStatus::Itself
            }
            TargetSpec::Agent(index) => {
                let index = self.spec.agent_index(index);
                finite_if(
                    self.starts[index].is_finite()
                        && self.spec.agents[index].body.velocity.is_finite(),
                )
            }
            TargetSpec::Despawned => TargetStatus::Missing,
            TargetSpec::Unset => TargetStatus::Unset,
        }
    }

    /// Every number agent `index`'s motion depends on: its own and its targets'.
    fn scalars_involved(&self, index: usize) -> Vec<f32> {
        let agent = &self.spec.agents[index];
        let mut scalars = agent.body.scalars().to_vec();
        scalars.extend(self.starts[index].to_array());
        scalars.extend(agent.behaviours.scalars());
        for (_, _, target) in agent.behaviours.targeted() {
            match target {
                TargetSpec::Point(point) => scalars.extend(point.to_array()),
                TargetSpec::StartOf(other) => {
                    scalars.extend(self.starts[self.spec.agent_index(other)].to_array());
                }
                TargetSpec::Agent(other) => {
                    let other = self.spec.agent_index(other);
                    scalars.extend(self.spec.agents[other].body.scalars());
                    scalars.extend(self.starts[other].to_array());
                }
                TargetSpec::Despawned | TargetSpec::Unset => {}
            }
        }
        scalars
    }

    fn expected_problems(&self, index: usize) -> ExpectedProblems {
        let agent = &self.spec.agents[index];
        let body = &agent.body;
        let is_valid_limit = |limit: f32| limit >= 0.0 && limit.is_finite();
        let mut required = HashSet::new();
        if !Mass(body.mass).is_valid() {
            required.insert(Problem::InvalidMass);
        }
        if !is_valid_limit(body.max_speed) {
            required.insert(Problem::InvalidMaxSpeed);
        }
        if !is_valid_limit(body.max_force) {
            required.insert(Problem::InvalidMaxForce);
        }
        if !(self.starts[index].is_finite() && body.velocity.is_finite()) {
            required.insert(Problem::NonFiniteMotion);
        }
        for (kind, weight, target) in agent.behaviours.targeted() {
            if weight == 0.0 {
                // Switched off: not looked up, so nothing to report.
                continue;
            }
            match self.target_status(target, index) {
                TargetStatus::Unset => {}
                TargetStatus::Itself => {
                    required.insert(Problem::TargetIsItself(kind));
                }
                TargetStatus::Missing => {
                    required.insert(Problem::MissingTarget(kind));
                }
                TargetStatus::NonFinite => {
                    required.insert(Problem::NonFiniteTarget(kind));
                }
                TargetStatus::Finite if !weight.is_finite() => {
                    required.insert(Problem::NonFiniteForce(kind));
                }
                TargetStatus::Finite => {}
            }
        }
        let mut kinds: Vec<BehaviourKind> = agent
            .behaviours
            .targeted()
            .into_iter()
            .map(|(kind, _, _)| kind)
            .collect();
        if let Some(wander) = agent.behaviours.wander {
            kinds.push(BehaviourKind::WANDER);
            if !wander.weight.is_finite() {
                required.insert(Problem::NonFiniteForce(BehaviourKind::WANDER));
            }
        }
        // With extreme numbers a force, their sum or a move may overflow: the systems then drop
        // it or stop the agent, and say so. With ordinary numbers that must never happen.
        let mut allowed = HashSet::new();
        if self.scalars_involved(index).into_iter().any(is_extreme) {
            allowed.extend([Problem::NonFiniteSteering, Problem::NonFiniteMotion]);
            allowed.extend(kinds.into_iter().map(Problem::NonFiniteForce));
        }
        ExpectedProblems { required, allowed }
    }
}

/// A target for pursue and evade, which take an entity: a point becomes a static entity there.
fn target_entity(world: &mut World, target: Option<Target>) -> Option<Entity> {
    Some(match target? {
        Target::Point(point) => world
            .spawn(Transform::from_translation(steer::math::translation_of(
                point,
            )))
            .id(),
        Target::Entity(entity) => entity,
    })
}

/// What the checks read from an agent after each step.
#[derive(Clone, Debug)]
struct AgentState {
    translation: Vec3,
    rotation: Quat,
    velocity: Vector,
    steering: Vector,
    problems: ReportedProblems,
    wander_angle: Option<f32>,
}

impl AgentState {
    fn read(app: &App, entity: Entity) -> Self {
        let world = app.world();
        let transform = world
            .get::<Transform>(entity)
            .expect("agent has a Transform");
        Self {
            translation: transform.translation,
            rotation: transform.rotation,
            velocity: velocity(app, entity),
            steering: world.get::<Steering>(entity).expect("agent steers").0,
            problems: problems(app, entity),
            wander_angle: world.get::<Wander>(entity).map(|wander| wander.angle),
        }
    }
}

/// Checks one agent's step from `before` to `after`, `dt` seconds long.
fn check_step(
    agent: &AgentSpec,
    expected: &ExpectedProblems,
    before: &AgentState,
    after: &AgentState,
    dt: f32,
) {
    let (old_position, new_position) = (
        as_position(before.translation),
        as_position(after.translation),
    );
    if old_position.is_finite() {
        assert!(new_position.is_finite(), "position {new_position}");
    } else {
        // A non-finite position is left as it was (and the agent stopped).
        assert_eq!(
            new_position.to_array().map(f32::to_bits),
            old_position.to_array().map(f32::to_bits),
        );
        assert_eq!(after.velocity, Vector::ZERO);
    }
    // In 2D the z of the translation is the game's (drawing order).
    #[cfg(feature = "2d")]
    assert_eq!(after.translation.z, before.translation.z, "z moved");

    let max_speed = MaxSpeed(agent.body.max_speed).effective();
    assert!(after.velocity.is_finite(), "velocity {}", after.velocity);
    assert!(
        is_within(after.velocity, max_speed),
        "speed {} above the limit {max_speed}",
        exact_length(after.velocity)
    );
    assert_eq!(after.steering, Vector::ZERO, "steering not cleared");

    assert!(
        after.rotation.is_finite() && after.rotation.is_normalized(),
        "rotation {}",
        after.rotation
    );
    // Only FaceVelocity turns an agent, and only when its velocity has a direction.
    match agent.behaviours.face_velocity.and_then(|face_velocity| {
        // In 3D the turn carries on from the rotation before.
        #[cfg(feature = "2d")]
        return face_velocity.rotation_for(after.velocity);
        #[cfg(feature = "3d")]
        return face_velocity.rotation_for(after.velocity, before.rotation);
    }) {
        Some(facing) => assert_eq!(after.rotation, facing, "not facing the velocity"),
        None => assert_eq!(after.rotation, before.rotation, "turned"),
    }

    let motion_was_finite = old_position.is_finite() && before.velocity.is_finite();
    let stopped_by_overflow = after.problems.contains(Problem::NonFiniteMotion)
        && after.velocity == Vector::ZERO
        && new_position == old_position;
    if motion_was_finite && is_within(before.velocity, max_speed) && !stopped_by_overflow {
        // The force changes the velocity by at most MaxForce / Mass * dt, and truncating to the
        // speed limit (a projection onto a disc containing the old velocity) cannot add to that.
        let inverse_mass = if Mass(agent.body.mass).is_valid() {
            1.0 / f64::from(agent.body.mass)
        } else {
            0.0
        };
        let max_force = with_rounding(f64::from(MaxForce(agent.body.max_force).effective()));
        let bound = max_force * inverse_mass * f64::from(dt);
        let change =
            (steer::math::widen(after.velocity) - steer::math::widen(before.velocity)).length();
        let slack = with_rounding(TOLERANCE * (bound + exact_length(before.velocity)));
        assert!(
            change <= bound + slack,
            "velocity changed by {change}, more than {bound}: from {} to {}",
            before.velocity,
            after.velocity
        );
    }
    if motion_was_finite && is_well_within(before.velocity, max_speed) && agent.behaviours.is_idle()
    {
        // No force: the agent coasts exactly, unless the move would overflow.
        let coasted = old_position + before.velocity * dt;
        if coasted.is_finite() {
            assert_eq!(
                after.velocity, before.velocity,
                "an idle agent changed speed"
            );
            assert_eq!(new_position, coasted, "an idle agent did not coast");
        } else {
            assert_eq!(after.velocity, Vector::ZERO);
            assert_eq!(new_position, old_position);
        }
    }

    if let (Some(old_angle), Some(new_angle)) = (before.wander_angle, after.wander_angle) {
        if old_angle.is_finite() {
            assert!(new_angle.is_finite(), "wander angle {new_angle}");
        }
        if (-PI..=PI).contains(&old_angle) {
            assert!((-PI..=PI).contains(&new_angle), "wander angle {new_angle}");
        }
    }

    for problem in Problem::all() {
        let reported = after.problems.contains(problem);
        if before.problems.contains(problem) {
            assert!(reported, "{problem:?} was forgotten");
        }
        if expected.required.contains(&problem) {
            assert!(reported, "{problem:?} was not reported");
        }
        if reported {
            assert!(
                expected.required.contains(&problem) || expected.allowed.contains(&problem),
                "{problem:?} reported with no cause"
            );
        }
    }
}

/// Spawns and runs `spec`, checking every agent after every step and the warnings at the end.
fn run_scene(spec: SceneSpec) {
    let (mut expected_warnings, warnings) = warnings::capture(|| {
        let mut app =
            create_app_with_step(spec.step, SteeringPlugin::default().with_seed(spec.seed));
        let scene = Scene::spawn(&mut app, spec);
        let expected: Vec<ExpectedProblems> = (0..scene.agents.len())
            .map(|index| scene.expected_problems(index))
            .collect();
        let dt = scene.spec.step.as_secs_f32();
        let mut states: Vec<AgentState> = scene
            .agents
            .iter()
            .map(|&entity| AgentState::read(&app, entity))
            .collect();
        step_checking(&mut app, scene.spec.steps, |app, number| {
            for (index, &entity) in scene.agents.iter().enumerate() {
                let state = AgentState::read(app, entity);
                let checked = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    check_step(
                        &scene.spec.agents[index],
                        &expected[index],
                        &states[index],
                        &state,
                        dt,
                    );
                }));
                if let Err(failure) = checked {
                    eprintln!(
                        "step {number}, agent {index} ({entity}): before {:?}, after {state:?}",
                        states[index]
                    );
                    std::panic::resume_unwind(failure);
                }
                states[index] = state;
            }
        });
        // Each problem an agent has is logged exactly once, in the systems' words.
        let mut expected_warnings = Vec::new();
        for (&entity, state) in scene.agents.iter().zip(&states) {
            for problem in state.problems.iter() {
                expected_warnings.push(format!("bevy_steer: agent {entity}: {problem}"));
            }
        }
        expected_warnings
    });
    let mut warnings: Vec<String> = warnings
        .into_iter()
        .filter(|warning| warning.starts_with("bevy_steer:"))
        .collect();
    warnings.sort();
    expected_warnings.sort();
    assert_eq!(warnings, expected_warnings, "warnings logged");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases_or(256), ..ProptestConfig::default() })]

    #[test]
    fn random_scenes_hold_the_invariants(spec in scene_spec()) {
        run_scene(spec);
    }
}

/// Collects the warnings logged while a scene runs, from every thread, to check that each problem
/// is logged once.
mod warnings {
    use std::fmt;
    use std::sync::{Mutex, MutexGuard, Once, PoisonError};

    use bevy::log::tracing::field::{Field, Visit};
    use bevy::log::tracing::{self, Event, Level, Subscriber};
    use bevy::log::tracing_subscriber::layer::{Context, Layer, SubscriberExt};
    use bevy::log::tracing_subscriber::registry;

    static LOGGED: Mutex<Vec<String>> = Mutex::new(Vec::new());
    /// Held while a capture runs: the recorder is process-wide, so captures must not overlap.
    static CAPTURING: Mutex<()> = Mutex::new(());

    struct Recorder;

    impl<S: Subscriber> Layer<S> for Recorder {
        fn on_event(&self, event: &Event<'_>, _context: Context<'_, S>) {
            if *event.metadata().level() == Level::WARN {
                let mut message = Message::default();
                event.record(&mut message);
                lock(&LOGGED).push(message.0);
            }
        }
    }

    #[derive(Default)]
    struct Message(String);

    impl Visit for Message {
        fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
            if field.name() == "message" {
                self.0 = format!("{value:?}");
            }
        }
    }

    /// A failed check panics while holding a lock; the data is still good.
    fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
        mutex.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `run` and returns its result with the warnings logged meanwhile. Any other test in this
    /// binary that logs warnings must run inside `capture` too, or they may be counted here.
    pub fn capture<R>(run: impl FnOnce() -> R) -> (R, Vec<String>) {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            tracing::subscriber::set_global_default(registry().with(Recorder))
                .expect("no other global subscriber in this test binary");
        });
        let _exclusive = lock(&CAPTURING);
        lock(&LOGGED).clear();
        let result = run();
        let logged = std::mem::take(&mut *lock(&LOGGED));
        (result, logged)
    }
}

// ---------------------------------------------------------------------------------------------
// The pure force functions
// ---------------------------------------------------------------------------------------------

/// Half of `f32::MAX`: the largest magnitude whose sums and differences cannot overflow.
const HALF_MAX: f32 = f32::MAX / 2.0;

/// Finite values, as awkward as they come, within the force functions' documented domain: "finite
/// inputs whose differences do not overflow". Beyond [`HALF_MAX`], seek's `desired - velocity`
/// alone can overflow (a speed limit of `f32::MAX` against a velocity of `-f32::MAX`); the systems
/// catch that, and the ECS property above covers it.
fn finite_value() -> impl Strategy<Value = f32> + Clone {
    use prop::num::f32::{NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
    let awkward = [
        0.0,
        -0.0,
        1e-30,
        -1e-30,
        f32::MIN_POSITIVE,
        SMALLEST_SUBNORMAL,
        -SMALLEST_SUBNORMAL,
        1e30,
        -1e30,
        HALF_MAX,
        -HALF_MAX,
    ];
    prop_oneof![
        2 => -1000.0f32..1000.0,
        // Every exponent, equally likely.
        1 => (POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO).prop_map(|value| value / 2.0),
        1 => prop::sample::select(awkward.to_vec()),
    ]
}

fn finite_vec2() -> impl Strategy<Value = Vector> + Clone {
    (finite_value(), finite_value()).prop_map(|(x, y)| v(x, y))
}

/// An angle, within `[-PI, PI]` half of the time.
fn angle() -> impl Strategy<Value = f32> {
    prop_oneof![-PI..=PI, finite_value()]
}

#[derive(Clone, Debug)]
struct WanderInputs {
    angle: f32,
    angle_change: f32,
    /// `Math.random()`: in `[0, 1)`.
    random: f32,
    frame: WanderFrame,
    circle_distance: f32,
    circle_radius: f32,
}

fn wander_inputs() -> impl Strategy<Value = WanderInputs> {
    (
        angle(),
        finite_value(),
        0.0..1.0f32,
        prop_oneof![Just(WanderFrame::World), Just(WanderFrame::Heading)],
        finite_value(),
        finite_value(),
    )
        .prop_map(
            |(angle, angle_change, random, frame, circle_distance, circle_radius)| WanderInputs {
                angle,
                angle_change,
                random,
                frame,
                circle_distance,
                circle_radius,
            },
        )
}

#[derive(Clone, Debug)]
struct ForceInputs {
    boid: Boid,
    target: Vector,
    target_velocity: Vector,
    slowing_radius: f32,
    wander: WanderInputs,
    force: Vector,
    max_force: f32,
    /// Any: an invalid mass makes `integrate_velocity` ignore the force.
    mass: f32,
    /// Never negative, as `Time` gives it.
    dt: f32,
}

fn force_inputs() -> impl Strategy<Value = ForceInputs> {
    let boid = (finite_vec2(), finite_vec2(), finite_value()).prop_map(
        |(position, velocity, max_speed)| Boid {
            position,
            velocity,
            max_speed,
        },
    );
    (
        boid,
        finite_vec2(),
        // A target on the agent itself is the classic division by zero.
        prop::bool::weighted(0.25),
        finite_vec2(),
        finite_value(),
        wander_inputs(),
        finite_vec2(),
        finite_value(),
        // Mass: negative and zero too, which must make the force ignored.
        finite_value(),
        finite_value().prop_map(f32::abs),
    )
        .prop_map(
            |(
                boid,
                target,
                target_on_agent,
                target_velocity,
                slowing_radius,
                wander,
                force,
                max_force,
                mass,
                dt,
            )| {
                ForceInputs {
                    target: if target_on_agent {
                        boid.position
                    } else {
                        target
                    },
                    boid,
                    target_velocity,
                    slowing_radius,
                    wander,
                    force,
                    max_force,
                    mass,
                    dt,
                }
            },
        )
}

fn assert_unit_or_zero(name: &str, v: Vector) {
    let length = exact_length(v);
    assert!(
        length == 0.0 || (length - 1.0).abs() < 1e-5,
        "{name} gave {v}, of length {length}"
    );
}

fn check_force_functions(inputs: &ForceInputs) {
    let ForceInputs {
        boid,
        target,
        target_velocity,
        slowing_radius,
        force,
        max_force,
        mass,
        dt,
        ..
    } = *inputs;
    let wander = &inputs.wander;

    let direction = Wander::default()
        .with_angle(wander.angle)
        .with_frame(wander.frame)
        .displacement_direction(boid.velocity);
    for (name, output) in [
        ("seek", forces::seek(&boid, target, slowing_radius)),
        ("flee", forces::flee(&boid, target)),
        ("pursue", forces::pursue(&boid, target, target_velocity)),
        ("evade", forces::evade(&boid, target, target_velocity)),
        (
            "predict_position",
            forces::predict_position(&boid, target, target_velocity),
        ),
        (
            "wander_circle",
            forces::wander_circle(
                boid.velocity,
                wander.circle_distance,
                wander.circle_radius,
                direction,
            ),
        ),
    ] {
        assert!(output.is_finite(), "{name} gave {output}");
    }
    assert!(direction.is_finite(), "wander direction {direction}");
    assert_unit_or_zero("wander_displacement_direction", direction);
    assert_ne!(direction, Vector::ZERO, "a wander direction of zero");
    assert_unit_or_zero("direction_or_zero", forces::direction_or_zero(force));

    let angle = forces::next_wander_angle(wander.angle, wander.angle_change, wander.random, dt);
    assert!(angle.is_finite(), "wander angle {angle}");
    if (-PI..=PI).contains(&wander.angle) {
        assert!((-PI..=PI).contains(&angle), "wander angle {angle}");
    }

    let truncated = forces::truncate(force, max_force);
    assert!(truncated.is_finite(), "truncate gave {truncated}");
    assert!(
        is_within(truncated, max_force.max(0.0)),
        "truncate gave {truncated}, longer than {max_force}"
    );
    assert!(
        exact_length(truncated) <= exact_length(force) * (1.0 + TOLERANCE),
        "truncate lengthened {force} to {truncated}"
    );

    let max_speed = boid.max_speed;
    let integrate =
        |force| forces::integrate_velocity(boid.velocity, force, mass, max_speed, max_force, dt);
    let velocity = integrate(force);
    assert!(velocity.is_finite(), "integrate_velocity gave {velocity}");
    assert!(
        is_within(velocity, max_speed.max(0.0)),
        "integrate_velocity gave {velocity}, faster than {max_speed}"
    );
    if is_within(boid.velocity, max_speed) {
        let inverse_mass = if Mass(mass).is_valid() {
            1.0 / f64::from(mass)
        } else {
            0.0
        };
        let bound = with_rounding(exact_length(truncated)) * inverse_mass * f64::from(dt);
        let change = (steer::math::widen(velocity) - steer::math::widen(boid.velocity)).length();
        let slack = with_rounding(TOLERANCE * (bound + exact_length(boid.velocity)));
        assert!(
            change <= bound + slack,
            "integrate_velocity changed the velocity by {change}, more than {bound}"
        );
    }
    if is_well_within(boid.velocity, max_speed) {
        assert_eq!(
            integrate(Vector::ZERO),
            boid.velocity,
            "integrate_velocity changed the velocity with no force"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases_or(20_000), ..ProptestConfig::default() })]

    #[test]
    fn force_functions_hold_the_invariants(inputs in force_inputs()) {
        check_force_functions(&inputs);
    }
}

// ---------------------------------------------------------------------------------------------
// What the properties found: one small case per bug. They fail until `forces` is fixed.
// ---------------------------------------------------------------------------------------------

/// `truncate` takes the length from `f32` squares, which underflow for vectors shorter than about
/// 1e-19: such a vector is never shortened, so `MaxSpeed(0.0)` and `MaxForce(0.0)` let it through.
#[test]
fn truncate_shortens_vectors_too_short_to_square() {
    assert_eq!(forces::truncate(v(1e-30, 0.0), 0.0), Vector::ZERO);
    let truncated = forces::truncate(v(1e-25, 0.0), 1e-27);
    assert!(is_within(truncated, 1e-27), "{truncated}");
}

/// The squares overflow for vectors longer than about 1.8e19: such a vector is set to the limit's
/// length even when it is shorter than the limit.
#[test]
fn truncate_never_lengthens_vectors_too_long_to_square() {
    let long = v(1e20, 0.0);
    assert_eq!(forces::truncate(long, 1e30), long);
}

/// A valid mass below about 3e-39 has an infinite `f32` inverse: with no force that once gave
/// `0 * inf`, a NaN, and the overflow fallback stopped the agent.
#[test]
fn no_force_keeps_the_velocity_of_a_subnormal_mass() {
    let velocity = v(30.0, 0.0);
    let after = forces::integrate_velocity(velocity, Vector::ZERO, 1e-40, 180.0, 600.0, 0.1);
    assert_eq!(after, velocity);
}

/// A small force on a subnormal mass once became full speed through that infinite inverse; a
/// step longer than the mass now takes the force whole, which stays small.
#[test]
fn a_small_change_stays_small_for_a_subnormal_mass() {
    let after = forces::integrate_velocity(
        Vector::ZERO,
        Vector::Y,
        1e-39,
        100.0,
        f32::MIN_POSITIVE,
        1.0,
    );
    assert_eq!(after, v(0.0, f32::MIN_POSITIVE), "{after}");
}

/// `dt / mass` leaves `f32`'s normal range for a huge mass with a short step (underflow), while
/// the velocity change itself is ordinary; a tiny mass with a long one (overflow) takes the force
/// whole.
#[test]
fn the_velocity_change_is_right_when_the_step_per_mass_leaves_the_normal_range() {
    let huge = forces::integrate_velocity(Vector::ZERO, v(0.0, 3e38), 3e38, 1e9, 3e38, 2.5e-7);
    assert!((huge.y - 2.5e-7).abs() < 1e-12, "{huge}");
    let dropped = forces::integrate_velocity(Vector::ZERO, v(0.0, 3e38), 3e38, 1e9, 3e38, 1e-7);
    assert!((dropped.y - 1e-7).abs() < 1e-12, "{dropped}");
    let tiny = forces::integrate_velocity(Vector::ZERO, v(0.0, 1e-36), 4e-37, 1e9, 1.0, 289.0);
    assert_eq!(tiny, v(0.0, 1e-36), "{tiny}");
}

/// A velocity near `f32::MAX` plus a large change overflows `f32`; truncating that infinite sum
/// once stopped the agent dead instead of holding it at its speed limit.
#[test]
fn a_velocity_sum_that_overflows_is_truncated_not_stopped() {
    let velocity = v(-3.28e38, 0.0);
    let after = forces::integrate_velocity(velocity, v(-3e38, 3e38), 1.0, 3.4e38, 3e38, 0.9);
    assert!(after.is_finite(), "{after}");
    assert!((exact_length(after) - 3.4e38).abs() < 1e33, "{after}");
    assert!(after.x < 0.0 && after.y > 0.0, "{after}");
}

/// `wander_displacement_direction` normalises the heading with `f32` squares, which lose precision
/// when subnormal: for an agent barely moving, the "unit" direction is a fifth short.
#[test]
fn the_heading_wander_direction_is_a_unit_vector_for_a_barely_moving_agent() {
    let direction = Wander::default()
        .with_frame(WanderFrame::Heading)
        .displacement_direction(v(3e-23, 0.0));
    assert!((exact_length(direction) - 1.0).abs() < 1e-5, "{direction}");
}

/// In the ECS: the velocity of an agent with no behaviour, moving at `start` with `limit` (a
/// mass or a speed limit), after one step.
fn idle_velocity_after_a_step(start: Vector, limit: impl Bundle) -> Vector {
    let mut app = create_app(60.0);
    let agent = app
        .world_mut()
        .spawn((at(0.0, 0.0), Velocity(start), limit, Steering::default()))
        .id();
    step(&mut app, 1);
    velocity(&app, agent)
}

/// In the ECS: an agent with a valid but subnormal mass and no behaviour once stopped dead.
#[test]
fn an_idle_agent_with_a_subnormal_mass_keeps_its_velocity() {
    let drift = v(30.0, 0.0);
    assert_eq!(idle_velocity_after_a_step(drift, Mass(1e-40)), drift);
}

/// In the ECS: a speed limit of zero does not stop an agent moving at 1e-30 units per second.
#[test]
fn a_max_speed_of_zero_stops_a_barely_moving_agent() {
    let barely = v(1e-30, 0.0);
    assert_eq!(
        idle_velocity_after_a_step(barely, MaxSpeed(0.0)),
        Vector::ZERO
    );
}

/// In the ECS: with `MaxSpeed(f32::MAX)`, meant as "no limit", a fast agent is thrown to that speed.
#[test]
fn an_unlimited_max_speed_leaves_a_fast_agent_alone() {
    let fast = v(1e20, 0.0);
    assert_eq!(idle_velocity_after_a_step(fast, MaxSpeed(f32::MAX)), fast);
}
