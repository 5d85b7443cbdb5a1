//! Events a game can observe: a target that is gone, an agent that arrived.
//!
//! Both are [`EntityEvent`]s triggered on the agent after the step that found them, and
//! [`Message`]s written at the same time: watch them with a global observer
//! (`app.add_observer(|lost: On<TargetLost>| ...)`), with one on the agent
//! (`commands.spawn(...).observe(...)`), or read them in a system with `MessageReader<TargetLost>`.

use bevy::prelude::*;

use crate::math::Vector;
use crate::problems::BehaviourKind;
use crate::targets::Target;

/// A behaviour's target entity was despawned (or lost its `Transform`). Triggered once per loss:
/// the behaviour then forgets the target and idles until it is given another.
#[derive(EntityEvent, Message, Clone, Copy, Debug, PartialEq)]
pub struct TargetLost {
    /// The agent whose behaviour lost its target.
    pub entity: Entity,
    /// The target that is gone.
    pub target: Entity,
    /// Which behaviour lost it.
    pub behaviour: BehaviourKind,
}

/// An agent came within its [`Seek`](crate::behaviours::Seek)'s `arrival_tolerance` of the target
/// at a speed of at most its `arrival_speed`. Triggered once; again only after the agent has been
/// farther than the tolerance.
#[derive(EntityEvent, Message, Clone, Copy, Debug, PartialEq)]
pub struct Arrived {
    /// The agent that arrived.
    pub entity: Entity,
    /// The target it was seeking.
    pub target: Target,
    /// Where the target was.
    pub position: Vector,
}

/// Triggers `event` on its agent and writes it as a message.
pub(crate) fn announce<E>(commands: &mut Commands, event: E)
where
    E: EntityEvent + Message + Copy,
    for<'a> E::Trigger<'a>: Default,
{
    commands.trigger(event);
    commands.write_message(event);
}
