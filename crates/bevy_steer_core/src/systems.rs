//! The behaviour systems and the integration system that [`SteeringPlugin`](crate::SteeringPlugin)
//! schedules.
//!
//! Each system visits agents in parallel; every agent reads the others' state as it was before the
//! step and writes only its own, so the result does not depend on thread count or visiting order.

use bevy::prelude::*;

use crate::behaviours::{NoTarget, TargetState, TargetedBehaviour, Wander};
use crate::components::{FaceVelocity, Mass, MaxForce, MaxSpeed, Steering, Velocity};
use crate::forces::{self, Boid};
use crate::problems::{BehaviourKind, Problem, ReportedProblems, report};
use crate::rng::SteeringRng;

/// Entities behaviours may aim at: anything with a `Transform`, moving if it has a `Velocity`.
pub type TargetQuery<'w, 's> = Query<'w, 's, (&'static Transform, Option<&'static Velocity>)>;

/// Looks a target entity up in `targets`.
pub fn lookup_target(targets: &TargetQuery, entity: Entity) -> Option<TargetState> {
    let (transform, velocity) = targets.get(entity).ok()?;
    Some(TargetState {
        position: transform.translation.truncate(),
        velocity: velocity.map_or(Vec2::ZERO, |velocity| velocity.0),
    })
}

/// The agent as the force functions see it.
pub fn boid(transform: &Transform, velocity: &Velocity, max_speed: &MaxSpeed) -> Boid {
    Boid {
        position: transform.translation.truncate(),
        velocity: velocity.0,
        max_speed: max_speed.effective(),
    }
}

/// Adds `force * weight` to the agent's steering, or drops it and reports it once when it is not
/// finite.
fn add_weighted_force(
    steering: &mut Steering,
    problems: &mut Mut<ReportedProblems>,
    entity: Entity,
    kind: BehaviourKind,
    force: Vec2,
    weight: f32,
) {
    let weighted = force * weight;
    if weighted.is_finite() {
        steering.0 += weighted;
    } else {
        report(problems, entity, Problem::NonFiniteForce(kind));
    }
}

/// Adds the weighted force of behaviour `B` for every agent that has it with a weight other than
/// zero.
pub fn apply_targeted_behaviour<B: TargetedBehaviour>(
    targets: TargetQuery,
    mut agents: Query<(
        Entity,
        &B,
        &Transform,
        &Velocity,
        &MaxSpeed,
        &mut Steering,
        &mut ReportedProblems,
    )>,
) {
    let lookup = |entity| lookup_target(&targets, entity);
    agents.par_iter_mut().for_each(
        |(entity, behaviour, transform, velocity, max_speed, mut steering, mut problems)| {
            if behaviour.weight() == 0.0 {
                return;
            }
            match behaviour.force(&boid(transform, velocity, max_speed), lookup) {
                Ok(force) => add_weighted_force(
                    steering.bypass_change_detection(),
                    &mut problems,
                    entity,
                    B::KIND,
                    force,
                    behaviour.weight(),
                ),
                Err(NoTarget::Missing) => {
                    report(&mut problems, entity, Problem::MissingTarget(B::KIND));
                }
                Err(NoTarget::NonFinite) => {
                    report(&mut problems, entity, Problem::NonFiniteTarget(B::KIND));
                }
                Err(NoTarget::Unset) => {}
            }
        },
    );
}

/// Adds every wanderer's weighted wander force and moves its random state on by one step, except for
/// wanderers whose weight is zero.
pub fn apply_wander(
    time: Res<Time>,
    mut agents: Query<(
        Entity,
        &mut Wander,
        &mut SteeringRng,
        &Transform,
        &Velocity,
        &MaxSpeed,
        &mut Steering,
        &mut ReportedProblems,
    )>,
) {
    let dt = time.delta_secs();
    agents.par_iter_mut().for_each(
        |(
            entity,
            mut wander,
            mut rng,
            transform,
            velocity,
            max_speed,
            mut steering,
            mut problems,
        )| {
            if wander.weight == 0.0 {
                return;
            }
            // Steering, the random state and the wander angle are the plugin's own per-step
            // scratch: marking them changed every step would tell no system anything.
            let wander = wander.bypass_change_detection();
            let force = wander.step(
                &boid(transform, velocity, max_speed),
                rng.bypass_change_detection(),
                dt,
            );
            let weight = wander.weight;
            add_weighted_force(
                steering.bypass_change_detection(),
                &mut problems,
                entity,
                BehaviourKind::Wander,
                force,
                weight,
            );
        },
    );
}

/// The tutorials' update, scaled by the step length: truncate the force to [`MaxForce`], divide by
/// [`Mass`], add to [`Velocity`], truncate to [`MaxSpeed`], move the translation, clear
/// [`Steering`]; then turn agents with [`FaceVelocity`].
pub fn integrate(
    time: Res<Time>,
    mut agents: Query<(
        Entity,
        &mut Transform,
        &mut Velocity,
        &mut Steering,
        &Mass,
        &MaxSpeed,
        &MaxForce,
        &mut ReportedProblems,
        Option<&FaceVelocity>,
    )>,
) {
    let dt = time.delta_secs();
    agents.par_iter_mut().for_each(
        |(
            entity,
            mut transform,
            mut velocity,
            mut steering,
            mass,
            max_speed,
            max_force,
            mut problems,
            face_velocity,
        )| {
            if !mass.is_valid() {
                report(&mut problems, entity, Problem::InvalidMass);
            }
            if max_speed.effective() != max_speed.0 {
                report(&mut problems, entity, Problem::InvalidMaxSpeed);
            }
            if max_force.effective() != max_force.0 {
                report(&mut problems, entity, Problem::InvalidMaxForce);
            }
            let mut force = core::mem::take(&mut steering.bypass_change_detection().0);
            if !force.is_finite() {
                report(&mut problems, entity, Problem::NonFiniteSteering);
                force = Vec2::ZERO;
            }

            let new_velocity = forces::integrate_velocity(
                velocity.0,
                force,
                mass.0,
                max_speed.effective(),
                max_force.effective(),
                dt,
            );
            let new_position = transform.translation.truncate() + new_velocity * dt;
            if !(velocity.0.is_finite() && new_velocity.is_finite() && new_position.is_finite()) {
                report(&mut problems, entity, Problem::NonFiniteMotion);
                velocity.0 = Vec2::ZERO;
                return;
            }
            velocity.0 = new_velocity;
            transform.translation.x = new_position.x;
            transform.translation.y = new_position.y;
            if let Some(rotation) =
                face_velocity.and_then(|face_velocity| face_velocity.rotation_for(new_velocity))
            {
                transform.rotation = rotation;
            }
        },
    );
}
