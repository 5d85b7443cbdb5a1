//! Bad input an agent was given, logged once per entity instead of once per step.
//!
//! No input makes the systems panic or write a non-finite number into an agent. Where an input is
//! rejected, the systems do something documented and safe (see [`Problem`]), log a warning the first
//! time it happens for that entity and remember it in the entity's [`ReportedProblems`].

use core::fmt;

use bevy::ecs::change_detection::ContiguousMut;
use bevy::prelude::*;

/// The built-in behaviours, in the order their systems add forces.
#[derive(Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Debug, PartialEq, Hash, Clone)]
pub enum BehaviourKind {
    /// [`Wander`](crate::behaviours::Wander).
    Wander,
    /// [`Seek`](crate::behaviours::Seek).
    Seek,
    /// [`Flee`](crate::behaviours::Flee).
    Flee,
    /// [`Pursue`](crate::behaviours::Pursue).
    Pursue,
    /// [`Evade`](crate::behaviours::Evade).
    Evade,
}

impl BehaviourKind {
    /// Every built-in behaviour, in system order.
    pub const ALL: [Self; 5] = [
        Self::Wander,
        Self::Seek,
        Self::Flee,
        Self::Pursue,
        Self::Evade,
    ];

    /// The behaviour's name as the tutorials write it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Wander => "wander",
            Self::Seek => "seek",
            Self::Flee => "flee",
            Self::Pursue => "pursuit",
            Self::Evade => "evade",
        }
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
    /// behaviour adds no force until it is given a target that exists.
    MissingTarget(BehaviourKind),
    /// The behaviour's target point, or its target entity's position or velocity, is not finite:
    /// the behaviour adds no force while it stays so.
    NonFiniteTarget(BehaviourKind),
    /// The behaviour's force came out non-finite (a non-finite weight or parameter): it is dropped
    /// for that step.
    NonFiniteForce(BehaviourKind),
}

impl Problem {
    /// Every problem there is.
    pub fn all() -> impl Iterator<Item = Self> {
        [
            Self::InvalidMass,
            Self::InvalidMaxSpeed,
            Self::InvalidMaxForce,
            Self::NonFiniteSteering,
            Self::NonFiniteMotion,
        ]
        .into_iter()
        .chain(BehaviourKind::ALL.into_iter().flat_map(|kind| {
            [
                Self::MissingTarget(kind),
                Self::NonFiniteTarget(kind),
                Self::NonFiniteForce(kind),
            ]
        }))
    }

    fn bit(self) -> u32 {
        let index = match self {
            Self::InvalidMass => 0,
            Self::InvalidMaxSpeed => 1,
            Self::InvalidMaxForce => 2,
            Self::NonFiniteSteering => 3,
            Self::NonFiniteMotion => 4,
            Self::MissingTarget(kind) => 5 + kind as u16,
            Self::NonFiniteTarget(kind) => 10 + kind as u16,
            Self::NonFiniteForce(kind) => 15 + kind as u16,
        };
        1 << index
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
                "the {} target entity does not exist or has no Transform; no {} force",
                kind.name(),
                kind.name()
            ),
            Self::NonFiniteTarget(kind) => write!(
                f,
                "the {} target's position or velocity is not finite; no {} force",
                kind.name(),
                kind.name()
            ),
            Self::NonFiniteForce(kind) => write!(
                f,
                "the {} force is not finite (check its weight and parameters); dropped",
                kind.name()
            ),
        }
    }
}

/// The [`Problem`]s already logged for this agent, so each is logged once per entity.
///
/// Required by [`Steering`](crate::components::Steering). Read it to find agents with bad input;
/// reset it to `default()` to have their problems logged again.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct ReportedProblems(u32);

impl ReportedProblems {
    /// Whether `problem` has been reported for this agent.
    pub fn contains(self, problem: Problem) -> bool {
        self.0 & problem.bit() != 0
    }

    /// Whether no problem has been reported for this agent.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The problems reported for this agent.
    pub fn iter(self) -> impl Iterator<Item = Problem> {
        Problem::all().filter(move |&problem| self.contains(problem))
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
    let reported = &mut problems.bypass_change_detection()[finding.row];
    if !reported.contains(finding.problem) {
        reported.0 |= finding.problem.bit();
        let this_run = problems.this_run_tick();
        problems.changed_ticks_slice_mut()[finding.row] = this_run;
        warn!("bevy_steer: agent {entity}: {}", finding.problem);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_has_its_own_bit() {
        let problems: Vec<Problem> = Problem::all().collect();
        assert_eq!(problems.len(), 5 + 3 * BehaviourKind::ALL.len());
        let mut seen = 0u32;
        for problem in problems {
            assert_eq!(seen & problem.bit(), 0, "{problem:?} shares a bit");
            seen |= problem.bit();
        }
    }
}
