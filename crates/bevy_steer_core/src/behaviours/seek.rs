//! Seek with arrival.

use bevy::prelude::*;

use super::{
    NoTarget, SteeringBehaviour, Target, TargetState, weight_and_switch_accessors,
    weight_and_switch_builders,
};
use crate::components::{Steering, Velocity};
use crate::events::{Arrived, announce};
use crate::formulas::{self, Boid};
use crate::integration::integrate;
use crate::math::{Vector, position_of};
use crate::problems::BehaviourKind;
use crate::schedule::{SteeringSchedule, SteeringSystems};
use crate::stepping::behaviour::behaviour_plugin;
use crate::stepping::{TargetQuery, lookup_target};
use crate::tunable::{DISTANCE, Tunable, WEIGHT};

/// Seek a target, slowing down inside `slowing_radius` to arrive at rest (seek with arrival).
///
/// Arrival overshoots the target unless `slowing_radius >= 4 × mass × max_speed` (inside the
/// radius the agent is a damped spring with damping ratio `1 / (2 √(mass × max_speed / R))`): the
/// defaults (`Mass(1.0)`, `MaxSpeed(180.0)`, radius 100) go about 59 units past the target before
/// they settle. To arrive without overshooting, raise the slowing radius to `4 × mass × max_speed`,
/// or lower the mass or the max speed; a `MaxForce` too small to brake in time adds to it.
///
/// When the agent comes within `arrival_tolerance` of its target at a speed of at most
/// `arrival_speed`, [`Arrived`](crate::events::Arrived) is triggered, once; it can fire again after
/// the agent has been farther than the tolerance.
///
/// The default has no target and idles.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering, ArrivalState)]
pub struct Seek {
    /// Where to go; `None` idles.
    #[entities]
    pub target: Option<Target>,
    /// Inside this distance of the target the desired speed falls linearly to zero. `0.0` is plain
    /// seek, which overshoots and comes back. Default `100.0`.
    #[reflect(@DISTANCE)]
    pub slowing_radius: f32,
    /// How close to the target counts as arrived. Default `2.0` units.
    #[reflect(@DISTANCE)]
    pub arrival_tolerance: f32,
    /// The highest speed at which an agent within the tolerance counts as arrived. Default `10.0`
    /// units per second.
    #[reflect(@Tunable::logarithmic(0.0, 1000.0))]
    pub arrival_speed: f32,
    /// Factor on the force. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
}

/// Whether [`Arrived`](crate::events::Arrived) fired for this seeker since it was last farther than
/// its tolerance: the plugin's bookkeeping, kept out of [`Seek`] so that `Seek` holds only what you
/// set.
#[derive(Component, Clone, Copy, Debug, Default)]
pub(crate) struct ArrivalState {
    pub(crate) arrived: bool,
}

impl Default for Seek {
    fn default() -> Self {
        Self {
            target: None,
            slowing_radius: 100.0,
            arrival_tolerance: 2.0,
            arrival_speed: 10.0,
            weight: 1.0,
            enabled: true,
        }
    }
}

impl Seek {
    /// Seek `target` (a `Vec2` point or an `Entity`) with the default slowing radius.
    pub fn new(target: impl Into<Target>) -> Self {
        Self {
            target: Some(target.into()),
            ..default()
        }
    }

    /// Sets the slowing radius.
    pub fn with_slowing_radius(mut self, slowing_radius: f32) -> Self {
        self.slowing_radius = slowing_radius;
        self
    }

    /// Sets the distance and the speed under which the agent counts as arrived.
    pub fn with_arrival(mut self, tolerance: f32, speed: f32) -> Self {
        self.arrival_tolerance = tolerance;
        self.arrival_speed = speed;
        self
    }
}

weight_and_switch_builders!(Seek);

impl SteeringBehaviour for Seek {
    const NAME: &'static str = "seek";

    weight_and_switch_accessors!();

    fn force(
        &self,
        agent: &Boid,
        lookup: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vector, NoTarget> {
        let target = self.target.ok_or(NoTarget::Unset)?.position(lookup)?;
        Ok(formulas::seek(agent, target, self.slowing_radius))
    }

    fn forget_target(&mut self) {
        self.target = None;
    }
}

/// Announces [`Arrived`] for every seeker that came within its arrival tolerance of its target at
/// no more than its arrival speed this step, once until it is farther than the tolerance again.
pub(crate) fn detect_arrivals(
    mut commands: Commands,
    targets: TargetQuery,
    mut seekers: Query<(Entity, &Seek, &mut ArrivalState, &Transform, &Velocity)>,
) {
    for (entity, seek, mut state, transform, velocity) in &mut seekers {
        let Some(target) = seek.target.filter(|_| seek.active()) else {
            continue;
        };
        let Ok(position) = target.position(|entity| lookup_target(&targets, entity)) else {
            continue;
        };
        let within = position_of(transform).distance(position) <= seek.arrival_tolerance;
        let arrived = within && velocity.length() <= seek.arrival_speed;
        if arrived && !state.arrived {
            announce(
                &mut commands,
                Arrived {
                    entity,
                    target,
                    position,
                },
            );
        }
        // Set while arrived, cleared once outside the tolerance; unchanged in between.
        let next = arrived || (state.arrived && within);
        if next != state.arrived {
            state.arrived = next;
        }
    }
}

impl BehaviourKind {
    /// [`Seek`].
    pub const SEEK: Self = Self::of::<Seek>();
}

/// Registers [`Seek`], and [`detect_arrivals`] after the integration step.
pub(crate) fn plugin(app: &mut App) {
    behaviour_plugin::<Seek>(app);
    app.add_systems(
        SteeringSchedule,
        detect_arrivals
            .after(integrate)
            .in_set(SteeringSystems::Integrate),
    );
}
