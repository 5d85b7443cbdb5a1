//! Bad input an agent was given, logged once per entity instead of once per step.
//!
//! No input makes the systems panic or write a non-finite number into an agent. Where an input is
//! rejected, the systems do something documented and safe (see [`Problem`]), log a warning the first
//! time it happens for that entity and remember it in the entity's [`ReportedProblems`].

use core::fmt;

use bevy::ecs::change_detection::ContiguousMut;
use bevy::prelude::*;

/// Which behaviour a problem, a force or an event belongs to: the behaviour's name, unique among
/// the behaviours registered in an app.
///
/// The built-in behaviours have constants (each defined beside its behaviour); a behaviour of your
/// own is `BehaviourKind::of::<MyBehaviour>()`, named by its
/// [`SteeringBehaviour::NAME`](crate::behaviours::SteeringBehaviour::NAME).
#[derive(Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[reflect(Debug, PartialEq, Hash, Clone)]
pub struct BehaviourKind(&'static str);

impl BehaviourKind {
    /// The kind named `name`.
    pub const fn new(name: &'static str) -> Self {
        Self(name)
    }

    /// The behaviour's name (the built-in ones as the tutorials write them).
    pub const fn name(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for BehaviourKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Something wrong with an agent's input, and what the systems do about it.
#[derive(Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Debug, PartialEq, Hash, Clone)]
pub enum Problem {
    /// [`Mass`](crate::components::Mass) is zero, negative or not finite: steering forces are ignored
    /// and the agent coasts.
    InvalidMass,
    /// [`MaxSpeed`](crate::components::MaxSpeed) is negative or not finite: it counts as zero.
    InvalidMaxSpeed,
    /// [`MaxForce`](crate::components::MaxForce) is negative or not finite: it counts as zero.
    InvalidMaxForce,
    /// The accumulated [`Steering`](crate::components::Steering) force was not finite (a custom
    /// force system wrote one): it is dropped for that step.
    NonFiniteSteering,
    /// The agent's velocity or position was not finite, or the step would have made it so: the
    /// velocity is set to zero and the position is left as it was.
    NonFiniteMotion,
    /// The behaviour's target entity does not exist (it was despawned) or has no `Transform`: the
    /// behaviour forgets the target (it becomes `None`, so the behaviour idles) and
    /// [`TargetLost`](crate::events::TargetLost) is triggered.
    MissingTarget(BehaviourKind),
    /// The behaviour's target point, or its target entity's position or velocity, is not finite:
    /// the behaviour adds no force while it stays so.
    NonFiniteTarget(BehaviourKind),
    /// The behaviour's force came out non-finite (a non-finite weight or parameter): it is dropped
    /// for that step.
    NonFiniteForce(BehaviourKind),
    /// The neighbour behaviour's radius is zero, negative or not finite: it has no neighbours and
    /// adds no force.
    InvalidRadius(BehaviourKind),
    /// The behaviour's target entity is the agent itself (a leader following itself, say): the
    /// behaviour adds no force while it stays so.
    TargetIsItself(BehaviourKind),
    /// [`Planar::up`](crate::planar::Planar::up) is not a unit vector (only reflection, or
    /// `Dir3::new_unchecked` in a release build, can make it so): the agent keeps to the plane
    /// normal to +Y.
    #[cfg(feature = "3d")]
    InvalidUp,
}

/// The problems of the agent itself, in the order [`ReportedProblems::iter`] lists them.
const AGENT_PROBLEMS: &[Problem] = &[
    Problem::InvalidMass,
    Problem::InvalidMaxSpeed,
    Problem::InvalidMaxForce,
    Problem::NonFiniteSteering,
    Problem::NonFiniteMotion,
    #[cfg(feature = "3d")]
    Problem::InvalidUp,
];

impl Problem {
    /// Every problem there is for an agent with the behaviours `kinds`.
    pub fn all_for(kinds: impl IntoIterator<Item = BehaviourKind>) -> impl Iterator<Item = Self> {
        AGENT_PROBLEMS
            .iter()
            .copied()
            .chain(kinds.into_iter().flat_map(Self::of_behaviour))
    }

    /// Every problem there is with the built-in behaviours.
    pub fn all() -> impl Iterator<Item = Self> {
        Self::all_for(BehaviourKind::BUILT_IN)
    }

    /// The problems a behaviour of `kind` can have.
    fn of_behaviour(kind: BehaviourKind) -> [Self; 5] {
        [
            Self::MissingTarget(kind),
            Self::NonFiniteTarget(kind),
            Self::NonFiniteForce(kind),
            Self::InvalidRadius(kind),
            Self::TargetIsItself(kind),
        ]
    }

    /// The behaviour the problem belongs to (`None` for the agent's own problems), and its bit in
    /// that behaviour's (or the agent's) flags.
    fn flag(self) -> (Option<BehaviourKind>, u8) {
        match self {
            Self::InvalidMass => (None, 1),
            Self::InvalidMaxSpeed => (None, 1 << 1),
            Self::InvalidMaxForce => (None, 1 << 2),
            Self::NonFiniteSteering => (None, 1 << 3),
            Self::NonFiniteMotion => (None, 1 << 4),
            #[cfg(feature = "3d")]
            Self::InvalidUp => (None, 1 << 5),
            Self::MissingTarget(kind) => (Some(kind), 1),
            Self::NonFiniteTarget(kind) => (Some(kind), 1 << 1),
            Self::NonFiniteForce(kind) => (Some(kind), 1 << 2),
            Self::InvalidRadius(kind) => (Some(kind), 1 << 3),
            Self::TargetIsItself(kind) => (Some(kind), 1 << 4),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidMass => {
                f.write_str("Mass is not a positive finite number; steering forces are ignored")
            }
            Self::InvalidMaxSpeed => {
                f.write_str("MaxSpeed is negative or not finite; it counts as 0")
            }
            Self::InvalidMaxForce => {
                f.write_str("MaxForce is negative or not finite; it counts as 0")
            }
            Self::NonFiniteSteering => {
                f.write_str("the accumulated Steering force is not finite; it is dropped")
            }
            Self::NonFiniteMotion => f.write_str(
                "velocity or position is not finite; velocity set to zero, position kept",
            ),
            Self::MissingTarget(kind) => write!(
                f,
                "the {kind} target entity does not exist or has no Transform; the {kind} \
                 behaviour forgets it and idles"
            ),
            Self::NonFiniteTarget(kind) => write!(
                f,
                "the {kind} target's position or velocity is not finite; no {kind} force"
            ),
            Self::NonFiniteForce(kind) => write!(
                f,
                "the {kind} force is not finite (check its weight and parameters); dropped"
            ),
            Self::InvalidRadius(kind) => write!(
                f,
                "the {kind} radius is zero, negative or not finite; no neighbours, no {kind} force"
            ),
            Self::TargetIsItself(kind) => {
                write!(f, "the {kind} target is the agent itself; no {kind} force")
            }
            #[cfg(feature = "3d")]
            Self::InvalidUp => f.write_str(
                "Planar::up is not a unit vector; the agent keeps to the plane normal to +Y",
            ),
        }
    }
}

/// The [`Problem`]s already logged for this agent, so each is logged once per entity.
///
/// Required by [`Steering`](crate::components::Steering). Read it to find agents with bad input;
/// reset it to `default()` to have their problems logged again. It holds a few bits for the agent
/// and a few for each behaviour that had a problem, so it grows with the behaviours registered
/// (and allocates nothing while the agent has no behaviour problem).
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct ReportedProblems {
    agent: u8,
    /// Left out of reflection: a `BehaviourKind` names its behaviour with a `&'static str`, which
    /// a scene cannot read back. A loaded agent logs its behaviours' problems again.
    #[reflect(ignore)]
    behaviours: Vec<(BehaviourKind, u8)>,
}

impl ReportedProblems {
    /// Whether `problem` has been reported for this agent.
    pub fn contains(&self, problem: Problem) -> bool {
        let (kind, bit) = problem.flag();
        self.flags(kind) & bit != 0
    }

    /// Whether no problem has been reported for this agent.
    pub fn is_empty(&self) -> bool {
        self.agent == 0 && self.behaviours.is_empty()
    }

    /// The problems reported for this agent: its own first, then each behaviour's in the order
    /// they were first reported.
    pub fn iter(&self) -> impl Iterator<Item = Problem> + '_ {
        Problem::all_for(self.behaviours.iter().map(|&(kind, _)| kind))
            .filter(|&problem| self.contains(problem))
    }

    fn flags(&self, kind: Option<BehaviourKind>) -> u8 {
        match kind {
            None => self.agent,
            Some(kind) => self
                .behaviours
                .iter()
                .find(|(reported, _)| *reported == kind)
                .map_or(0, |&(_, flags)| flags),
        }
    }

    /// Adds `problem`; returns whether it was new.
    fn insert(&mut self, problem: Problem) -> bool {
        let (kind, bit) = problem.flag();
        let flags = match kind {
            None => &mut self.agent,
            Some(kind) => match self.behaviours.iter().position(|(k, _)| *k == kind) {
                Some(index) => &mut self.behaviours[index].1,
                None => {
                    self.behaviours.push((kind, 0));
                    &mut self.behaviours.last_mut().expect("just pushed").1
                }
            },
        };
        let new = *flags & bit == 0;
        *flags |= bit;
        new
    }

    /// Records and logs `problem` for `entity` unless it was recorded before; returns whether it
    /// was new.
    pub(crate) fn report(&mut self, entity: Entity, problem: Problem) -> bool {
        let new = self.insert(problem);
        if new {
            warn!("bevy_steer: agent {entity}: {problem}");
        }
        new
    }
}

/// A problem a system's parallel pass found for the agent in `row` of its `table`. The pass only
/// reads [`ReportedProblems`]; what it finds is recorded afterwards by [`record`], one thread, so
/// that the per-agent loops stay free of logging and of change ticks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Finding {
    pub table: usize,
    pub row: usize,
    pub problem: Problem,
    /// For [`Problem::MissingTarget`]: the target that is gone.
    pub lost_target: Option<Entity>,
}

/// Records and logs `finding` for `entity` unless it was recorded before, marking the agent's
/// [`ReportedProblems`] changed only when there is something new.
// Cold and out of line: it runs only when something is wrong.
#[cold]
#[inline(never)]
pub(crate) fn record(
    problems: &mut ContiguousMut<ReportedProblems>,
    entity: Entity,
    finding: Finding,
) {
    if problems.bypass_change_detection()[finding.row].report(entity, finding.problem) {
        mark_changed(problems, finding.row);
    }
}

/// Marks the component in `row` of a column changed by the running system.
pub(crate) fn mark_changed<T: Component>(column: &mut ContiguousMut<T>, row: usize) {
    let this_run = column.this_run_tick();
    column.changed_ticks_slice_mut()[row] = this_run;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_is_recorded_on_its_own() {
        let custom = BehaviourKind::new("orbit");
        let problems: Vec<Problem> =
            Problem::all_for(BehaviourKind::BUILT_IN.into_iter().chain([custom])).collect();
        assert_eq!(
            problems.len(),
            AGENT_PROBLEMS.len() + 5 * (BehaviourKind::BUILT_IN.len() + 1)
        );
        for problem in &problems {
            let mut reported = ReportedProblems::default();
            assert!(reported.insert(*problem));
            assert!(!reported.insert(*problem));
            for other in &problems {
                assert_eq!(reported.contains(*other), other == problem, "{problem:?}");
            }
            assert_eq!(reported.iter().collect::<Vec<_>>(), [*problem]);
        }
        let mut everything = ReportedProblems::default();
        for problem in &problems {
            everything.insert(*problem);
        }
        assert_eq!(everything.iter().collect::<Vec<_>>(), problems);
    }
}
