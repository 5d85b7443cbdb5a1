//! The one integration step every agent takes after its behaviours: the tutorials' update (force
//! truncated, divided by mass, added to the velocity, which is truncated; the position moved),
//! for one agent or four on SIMD lanes with the same bits, and the system that runs it.

use bevy::math::Vec4;
use bevy::prelude::*;

use crate::components::{Mass, MaxForce, MaxSpeed, Steering, Velocity};
use crate::facing::FaceVelocity;
#[cfg(feature = "3d")]
use crate::facing::Turns;
#[cfg(feature = "2d")]
use crate::facing::face_velocity_lanes;
use crate::formulas::integrate_velocity;
use crate::math::lanes::{LANES, VectorLanes, groups, lanes_of, truncate};
use crate::math::wide::Lanes;
use crate::math::{Vector, position_of, set_position};
use crate::problems::{Problem, ReportedProblems, record};
use crate::schedule::SteeringSystems;
use crate::stepping::columns::{PlaneColumn, PlaneRows, chunked, log_not_dense};
use crate::stepping::jobs::{MIN_AGENTS_PER_JOB, agents_per_job, run_jobs};

/// One agent's integration: its new velocity, and its new position unless the motion was not
/// finite (the agent then stops where it is).
struct Integrated {
    velocity: Vector,
    position: Option<Vector>,
}

/// The tutorials' update for one agent, with the checks the systems promise: returns what to write
/// and passes each problem it meets to `found`.
#[inline]
fn integrate_agent(
    velocity: Vector,
    position: Vector,
    force: Vector,
    limits: (Mass, MaxSpeed, MaxForce),
    dt: f32,
    mut found: impl FnMut(Problem),
) -> Integrated {
    let (mass, max_speed, max_force) = limits;
    if !mass.is_valid() {
        found(Problem::InvalidMass);
    }
    if max_speed.effective() != max_speed.0 {
        found(Problem::InvalidMaxSpeed);
    }
    if max_force.effective() != max_force.0 {
        found(Problem::InvalidMaxForce);
    }
    let force = if force.is_finite() {
        force
    } else {
        found(Problem::NonFiniteSteering);
        Vector::ZERO
    };
    let new_velocity = integrate_velocity(
        velocity,
        force,
        mass.0,
        max_speed.effective(),
        max_force.effective(),
        dt,
    );
    let new_position = position + new_velocity * dt;
    if velocity.is_finite() && new_velocity.is_finite() && new_position.is_finite() {
        Integrated {
            velocity: new_velocity,
            position: Some(new_position),
        }
    } else {
        found(Problem::NonFiniteMotion);
        Integrated {
            velocity: Vector::ZERO,
            position: None,
        }
    }
}

/// The tutorials' update, scaled by the step length: truncate the force to [`MaxForce`], divide by
/// [`Mass`], add to [`Velocity`], truncate to [`MaxSpeed`], move the translation, clear
/// [`Steering`]; then turn agents with [`FaceVelocity`].
///
/// Every agent's `Transform` and `Velocity` are marked changed, as moving agents' are.
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
        PlaneColumn,
    )>,
    mut logged_not_dense: Local<bool>,
) {
    let dt = time.delta_secs();
    let Ok(tables) = agents.contiguous_iter_mut() else {
        return log_not_dense(&mut logged_not_dense, "integrate");
    };
    let mut tables: Vec<_> = tables.collect();
    let mut jobs = Vec::new();
    for (
        table,
        (
            _,
            transforms,
            velocities,
            steering,
            masses,
            max_speeds,
            max_forces,
            problems,
            facing,
            planes,
        ),
    ) in tables.iter_mut().enumerate()
    {
        transforms.mark_all_as_changed();
        velocities.mark_all_as_changed();
        let velocities = velocities.bypass_change_detection();
        let steering = steering.bypass_change_detection();
        let per_job = agents_per_job(velocities.len(), MIN_AGENTS_PER_JOB);
        for ((rows, transforms), (velocities, steering)) in
            chunked(table, per_job, transforms.bypass_change_detection()).zip(
                velocities
                    .chunks_mut(per_job)
                    .zip(steering.chunks_mut(per_job)),
            )
        {
            let range = rows.range();
            jobs.push((
                rows,
                transforms,
                velocities,
                steering,
                &masses[range.clone()],
                &max_speeds[range.clone()],
                &max_forces[range.clone()],
                &problems[range.clone()],
                facing.map(|facing| (&facing[range.clone()], planes.of_rows(range))),
            ));
        }
    }
    let findings = run_jobs(
        jobs,
        |(
            rows,
            transforms,
            velocities,
            steering,
            masses,
            max_speeds,
            max_forces,
            problems,
            facing,
        ),
         found| {
            for (start, group) in groups(rows.len) {
                let on_lanes = (group.len() == LANES)
                    .then(|| {
                        integrate_lanes(
                            VectorLanes::from_fn(|lane| velocities[start + lane].0),
                            VectorLanes::from_fn(|lane| position_of(&transforms[start + lane])),
                            VectorLanes::from_fn(|lane| steering[start + lane].0),
                            [
                                lanes_of(masses, start, |mass| mass.0),
                                lanes_of(max_speeds, start, |max_speed| max_speed.0),
                                lanes_of(max_forces, start, |max_force| max_force.0),
                            ],
                            dt,
                        )
                    })
                    .flatten();
                #[cfg(feature = "2d")]
                let turns = on_lanes.zip(facing).map(|((velocity, _), (facing, _))| {
                    face_velocity_lanes(
                        VectorLanes::from_fn(|lane| *facing[start + lane].local_forward),
                        velocity,
                    )
                });
                #[cfg(feature = "3d")]
                let turns: Option<Turns> = None;
                for row in group {
                    let force = core::mem::take(&mut steering[row].0);
                    let integrated = match on_lanes {
                        Some((velocity, position)) => Integrated {
                            velocity: velocity.lane(row - start),
                            position: Some(position.lane(row - start)),
                        },
                        None => integrate_agent(
                            velocities[row].0,
                            position_of(&transforms[row]),
                            force,
                            (masses[row], max_speeds[row], max_forces[row]),
                            dt,
                            |problem| {
                                if !problems[row].contains(problem) {
                                    found.push(rows.finding(row, problem));
                                }
                            },
                        ),
                    };
                    let previous = core::mem::replace(&mut velocities[row].0, integrated.velocity);
                    let Some(position) = integrated.position else {
                        continue;
                    };
                    let transform = &mut transforms[row];
                    set_position(transform, position);
                    let rotation = match turns {
                        Some(turns) => turns.lane(row - start),
                        None => facing.and_then(|(facing, planes)| {
                            facing[row].turn(
                                integrated.velocity,
                                previous,
                                dt,
                                transform.rotation,
                                planes.up(row),
                            )
                        }),
                    };
                    if let Some(rotation) = rotation {
                        transform.rotation = rotation;
                    }
                }
            }
        },
    );
    for finding in findings {
        let (entities, .., problems, _, _) = &mut tables[finding.table];
        record(problems, entities[finding.row], finding);
    }
}

/// Four agents' new velocities and positions after a step of `dt` seconds, as
/// [`integrate_velocity`] and `position + velocity * dt` give them; `None` when any of the four
/// needs one of the scalar path's special cases (a squared length that under- or overflows, an
/// invalid mass or limit, a value that is not finite).
#[inline]
fn integrate_lanes(
    velocity: VectorLanes,
    position: VectorLanes,
    force: VectorLanes,
    [mass, max_speed, max_force]: [Vec4; 3],
    dt: f32,
) -> Option<(VectorLanes, VectorLanes)> {
    let is_limit = |limit: Vec4| limit.cmpge(Vec4::ZERO) & limit.cmplt(Vec4::INFINITY);
    let (force, force_common) = truncate(force, max_force);
    // At most 1, as in `integrate_velocity`: the force whole, for a step longer than the mass.
    let step_per_mass = (Vec4::splat(dt) / mass).min(Vec4::ONE);
    let change = force.scaled(step_per_mass);
    // The scalar path leaves the velocity as it is when the truncated force is zero.
    let moved = VectorLanes::select(force.is_zero(), velocity, velocity.plus(change));
    let (new_velocity, speed_common) = truncate(moved, max_speed);
    let new_position = position.plus(new_velocity.scaled(Vec4::splat(dt)));
    let common = is_limit(max_speed)
        & is_limit(max_force)
        & mass.cmpgt(Vec4::ZERO)
        & mass.cmplt(Vec4::INFINITY)
        & step_per_mass.is_normal_mask()
        & force_common
        & velocity.is_finite()
        & change.is_finite()
        & moved.is_finite()
        & speed_common
        & new_position.is_finite();
    common.all().then_some((new_velocity, new_position))
}

/// Schedules [`integrate`] in [`SteeringSystems::Integrate`] (in 3D after
/// [`keep_in_plane`](crate::planar::keep_in_plane), which puts ground units' forces and velocities
/// in their planes first).
pub(crate) fn plugin(app: &mut App) {
    let integrate = integrate.in_set(SteeringSystems::Integrate);
    #[cfg(feature = "3d")]
    let integrate = integrate.after(crate::planar::keep_in_plane);
    app.add_systems(crate::schedule::SteeringSchedule, integrate);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::v;
    use crate::test_support::vector;
    use proptest::prelude::*;

    const DT: f32 = 1.0 / 60.0;

    /// The scalar path's velocities and positions for four agents.
    fn scalar(
        velocities: [Vector; 4],
        positions: [Vector; 4],
        forces: [Vector; 4],
        limits: [[f32; 3]; 4],
    ) -> [(Vector, Vector); 4] {
        core::array::from_fn(|lane| {
            let [mass, max_speed, max_force] = limits[lane];
            let velocity = integrate_velocity(
                velocities[lane],
                forces[lane],
                mass,
                max_speed,
                max_force,
                DT,
            );
            (velocity, positions[lane] + velocity * DT)
        })
    }

    fn lanes(
        velocities: [Vector; 4],
        positions: [Vector; 4],
        forces: [Vector; 4],
        limits: [[f32; 3]; 4],
    ) -> Option<[(Vector, Vector); 4]> {
        let limit = |index: usize| Vec4::from_array(limits.map(|limit| limit[index]));
        let (velocity, position) = integrate_lanes(
            VectorLanes::from_fn(|lane| velocities[lane]),
            VectorLanes::from_fn(|lane| positions[lane]),
            VectorLanes::from_fn(|lane| forces[lane]),
            [limit(0), limit(1), limit(2)],
            DT,
        )?;
        Some(core::array::from_fn(|lane| {
            (velocity.lane(lane), position.lane(lane))
        }))
    }

    fn bits(results: [(Vector, Vector); 4]) -> [[u32; 4]; 4] {
        results.map(|(velocity, position)| {
            [velocity.x, velocity.y, position.x, position.y].map(f32::to_bits)
        })
    }

    fn limits() -> impl Strategy<Value = [f32; 3]> {
        (0.05f32..50.0, 0.0f32..400.0, 0.0f32..1000.0)
            .prop_map(|(mass, max_speed, max_force)| [mass, max_speed, max_force])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Ordinary agents take the fast path, and it gives the scalar path's bits.
        #[test]
        fn lanes_give_the_scalar_paths_bits(
            velocities in prop::array::uniform4(vector(300.0)),
            positions in prop::array::uniform4(vector(1e5)),
            forces in prop::array::uniform4(vector(2000.0)),
            limits in prop::array::uniform4(limits()),
        ) {
            let fast = lanes(velocities, positions, forces, limits);
            prop_assert!(fast.is_some());
            let fast = fast.unwrap();
            prop_assert_eq!(bits(fast), bits(scalar(velocities, positions, forces, limits)));
        }
    }

    #[test]
    fn zero_forces_and_velocities_take_the_fast_path() {
        let zero = [Vector::ZERO; 4];
        let limits = [[1.0, 180.0, 600.0]; 4];
        let positions = [v(3.0, -4.0); 4];
        let fast = lanes(zero, positions, zero, limits).unwrap();
        assert_eq!(bits(fast), bits(scalar(zero, positions, zero, limits)));
    }

    #[test]
    fn special_cases_are_left_to_the_scalar_path() {
        let ordinary = || {
            (
                [v(10.0, 0.0); 4],
                [Vector::ZERO; 4],
                [v(0.0, 50.0); 4],
                [[1.0, 180.0, 600.0]; 4],
            )
        };
        let (velocities, positions, forces, limits) = ordinary();
        assert!(lanes(velocities, positions, forces, limits).is_some());
        let cases: [&dyn Fn(&mut ([Vector; 4], [Vector; 4], [Vector; 4], [[f32; 3]; 4])); 9] = [
            &|agents| agents.3[1][0] = 0.0,
            &|agents| agents.3[2][0] = f32::NAN,
            &|agents| agents.3[3][1] = -1.0,
            &|agents| agents.3[0][2] = f32::INFINITY,
            &|agents| agents.2[1] = v(1e-30, 0.0),
            &|agents| agents.2[2] = v(f32::MAX, 0.0),
            &|agents| agents.0[3] = v(f32::NAN, 0.0),
            &|agents| agents.1[0] = v(f32::INFINITY, 0.0),
            &|agents| agents.3[1][0] = 1e38,
        ];
        for (index, case) in cases.iter().enumerate() {
            let mut agents = ordinary();
            case(&mut agents);
            let (velocities, positions, forces, limits) = agents;
            assert!(
                lanes(velocities, positions, forces, limits).is_none(),
                "case {index}"
            );
        }
    }
}
