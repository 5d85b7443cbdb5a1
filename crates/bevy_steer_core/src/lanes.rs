//! The wander force, the integration step, the turn of [`FaceVelocity`] and the flocking rules'
//! neighbour sums and forces for four agents at once, on SIMD lanes.
//!
//! One agent's update is a chain of dependent square roots, divisions and polynomial terms; four
//! agents on the lanes of one `Vec4` run four chains for the price of one, and four boids of
//! neighbouring cells share one pass over their cells. This is the fast path for the common case
//! only: [`wander_circle`] and [`integrate`] answer `None` when any lane needs one of the scalar
//! path's special cases (a squared length that under- or overflows, an invalid mass or limit, a
//! value that is not finite, an angle too large for the polynomial sine), and [`flock_forces`]
//! marks the lanes that do; the caller then steps those agents with the scalar functions of
//! [`forces`].
//!
//! Every lane does the operations of the scalar path, in the same order, each correctly rounded
//! and without fused multiply-adds, so a lane's result has the same bits as the scalar path's: an
//! agent moves the same whichever path steps it.

use core::ops::Range;

use bevy::math::{BVec4A, Quat, Vec2, Vec4};

use crate::forces;
use crate::spatial::{CellBox, Neighbour, SpatialIndex};

#[cfg(doc)]
use crate::components::FaceVelocity;

/// How many agents one call steps.
pub(crate) const LANES: usize = 4;

/// The rows `0..len` in groups of [`LANES`], each with its first row; only the last group may be
/// short, and a short group cannot go on the lanes.
pub(crate) fn groups(len: usize) -> impl Iterator<Item = (usize, Range<usize>)> {
    (0..len)
        .step_by(LANES)
        .map(move |start| (start, start..(start + LANES).min(len)))
}

/// `value` of the [`LANES`] items of `column` from `start` on, one per lane.
#[inline]
pub(crate) fn lanes_of<T>(column: &[T], start: usize, value: impl Fn(&T) -> f32) -> Vec4 {
    Vec4::from_array(core::array::from_fn(|lane| value(&column[start + lane])))
}

/// Four `Vec2`s, their x components on the lanes of one `Vec4` and their y on another.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vec2x4 {
    x: Vec4,
    y: Vec4,
}

impl Vec2x4 {
    const ZERO: Self = Self {
        x: Vec4::ZERO,
        y: Vec4::ZERO,
    };

    /// The four vectors `vector(0)` to `vector(3)`.
    #[inline]
    pub(crate) fn from_fn(vector: impl Fn(usize) -> Vec2) -> Self {
        let [a, b, c, d] = [vector(0), vector(1), vector(2), vector(3)];
        Self {
            x: Vec4::new(a.x, b.x, c.x, d.x),
            y: Vec4::new(a.y, b.y, c.y, d.y),
        }
    }

    /// `vector` on every lane.
    #[inline]
    fn splat(vector: Vec2) -> Self {
        Self {
            x: Vec4::splat(vector.x),
            y: Vec4::splat(vector.y),
        }
    }

    /// The vector on `lane`.
    #[inline]
    pub(crate) fn lane(self, lane: usize) -> Vec2 {
        Vec2::new(self.x[lane], self.y[lane])
    }

    #[inline]
    fn scaled(self, factor: Vec4) -> Self {
        Self {
            x: self.x * factor,
            y: self.y * factor,
        }
    }

    #[inline]
    fn minus(self, other: Self) -> Self {
        Self {
            x: self.x - other.x,
            y: self.y - other.y,
        }
    }

    #[inline]
    fn plus(self, other: Self) -> Self {
        Self {
            x: self.x + other.x,
            y: self.y + other.y,
        }
    }

    /// `x * x + y * y`, as `Vec2::length_squared` computes it.
    #[inline]
    fn length_squared(self) -> Vec4 {
        self.x * self.x + self.y * self.y
    }

    #[inline]
    fn is_zero(self) -> BVec4A {
        self.x.cmpeq(Vec4::ZERO) & self.y.cmpeq(Vec4::ZERO)
    }

    #[inline]
    fn is_finite(self) -> BVec4A {
        self.x.is_finite_mask() & self.y.is_finite_mask()
    }

    #[inline]
    fn select(mask: BVec4A, if_true: Self, if_false: Self) -> Self {
        Self {
            x: Vec4::select(mask, if_true.x, if_false.x),
            y: Vec4::select(mask, if_true.y, if_false.y),
        }
    }
}

/// Lanes whose value is a normal `f32` (not zero, subnormal, infinite or NaN), for values that are
/// not negative.
#[inline]
fn is_normal(value: Vec4) -> BVec4A {
    value.cmpge(Vec4::splat(f32::MIN_POSITIVE)) & value.cmplt(Vec4::INFINITY)
}

/// `forces::truncate` for the lanes where it needs no special case (a squared length that is normal,
/// or a zero vector), with those lanes marked. `max` must not be negative.
#[inline]
fn truncate(vector: Vec2x4, max: Vec4) -> (Vec2x4, BVec4A) {
    let squared = vector.length_squared();
    let length = squared.sqrt();
    let shortened = Vec2x4 {
        x: vector.x / length * max,
        y: vector.y / length * max,
    };
    let common = is_normal(squared) | vector.is_zero();
    (Vec2x4::select(length.cmple(max), vector, shortened), common)
}

/// One flocking agent as [`flock_sums`] and [`flock_forces`] see it: what the flocking system
/// copies out of the agent's components, one cache line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(align(64))]
pub(crate) struct FlockAgent {
    pub(crate) position: Vec2,
    pub(crate) velocity: Vec2,
    pub(crate) max_speed: f32,
    /// The radii of separation, alignment and cohesion, in that order; NaN for a rule the agent
    /// lacks or has off, which then counts no neighbour.
    pub(crate) radii: [f32; 3],
    /// The rules' strengths and weights, in the same order: finite, and the strengths of alignment
    /// and cohesion (which truncate to them) not negative.
    pub(crate) strengths: [f32; 3],
    pub(crate) weights: [f32; 3],
    /// The agent's slot in the spatial index.
    pub(crate) slot: u32,
}

impl FlockAgent {
    /// How far the agent's walk of the index reaches: the widest of its rules' radii.
    pub(crate) fn reach(&self) -> f32 {
        self.radii[0].max(self.radii[1]).max(self.radii[2])
    }

    /// Whether the agent has the `rule`th rule on.
    pub(crate) fn has_rule(&self, rule: usize) -> bool {
        !self.radii[rule].is_nan()
    }
}

/// Per lane, the sums of the neighbours' offsets (`neighbour - agent`, for separation),
/// velocities (alignment) and positions (cohesion), each over its rule's neighbours, and the count
/// of cohesion's (the only rule that takes a mean rather than a direction).
pub(crate) struct FlockSums {
    /// The agents' own positions.
    agents: Vec2x4,
    radii_squared: [Vec4; 3],
    /// Separation's, alignment's and cohesion's, in that order.
    sums: [Vec2x4; 3],
    /// Cohesion's neighbours, as an `f32` counts them exactly.
    count: Vec4,
    /// Cohesion's neighbours in whole numbers: the `f32` count is moved here before it could stop
    /// counting exactly.
    whole_count: [u32; LANES],
    /// Candidates scanned since the count was last moved.
    uncounted: usize,
}

impl FlockSums {
    /// Candidates one [`scan`](Self::scan) takes at most: far fewer than the 2^24 up to which an
    /// `f32` counts exactly.
    const MOST_SCANNED: usize = 1 << 20;

    /// Adds the entries of `positions` and `entries` (the same slots) to the sums of the lanes
    /// `keep` marks, each where the entry is within the lane's rule's radius.
    #[inline]
    fn scan(&mut self, positions: &[Vec2], entries: &[Neighbour], keep: BVec4A) {
        for (positions, entries) in positions
            .chunks(Self::MOST_SCANNED)
            .zip(entries.chunks(Self::MOST_SCANNED))
        {
            if self.uncounted + positions.len() > Self::MOST_SCANNED {
                self.count_up();
            }
            self.uncounted += positions.len();
            for (&position, entry) in positions.iter().zip(entries) {
                let candidate = Vec2x4::splat(position);
                // `neighbour - agent`, and its squared length as `distance_squared` computes it.
                let offset = candidate.minus(self.agents);
                let distance_squared = offset.length_squared();
                let [separation, alignment, cohesion] = self
                    .radii_squared
                    .map(|radius_squared| distance_squared.cmple(radius_squared) & keep);
                // Adding a zero leaves a sum's bits as they are: the sums start at +0 and so are
                // never -0.
                let add = |sum: Vec2x4, neighbour, term| {
                    sum.plus(Vec2x4::select(neighbour, term, Vec2x4::ZERO))
                };
                self.sums[0] = add(self.sums[0], separation, offset);
                self.sums[1] = add(self.sums[1], alignment, Vec2x4::splat(entry.velocity));
                self.sums[2] = add(self.sums[2], cohesion, candidate);
                self.count += Vec4::select(cohesion, Vec4::ONE, Vec4::ZERO);
            }
        }
    }

    /// Moves the `f32` count to the whole one.
    fn count_up(&mut self) {
        for (whole, count) in self.whole_count.iter_mut().zip(self.count.to_array()) {
            *whole += count as u32;
        }
        self.count = Vec4::ZERO;
        self.uncounted = 0;
    }

    /// The sums of `lane`: separation's and alignment's, and cohesion's with its count.
    #[cfg(test)]
    fn lane(&self, lane: usize) -> (Vec2, Vec2, forces::VectorSum) {
        (
            self.sums[0].lane(lane),
            self.sums[1].lane(lane),
            forces::VectorSum {
                sum: self.sums[2].lane(lane),
                count: self.whole_count[lane],
            },
        )
    }
}

/// The three flocking rules' sums over the neighbours of up to four agents, given with their slots
/// in `index`: the entries within each rule's radius, the agent itself left out,
/// in the index's order, so that the sums have the bits of those the rules add up over the
/// neighbours a walk of the index (`for_each_within`) finds. `cells` must hold the cell boxes of
/// every agent's reach.
///
/// One pass over the cells serves the four, testing each entry against all of them at once: the
/// flocking system steps agents in the index's order, so that agents of one group are close.
pub(crate) fn flock_sums<M>(
    index: &SpatialIndex<M>,
    cells: CellBox,
    agents: &[FlockAgent],
) -> FlockSums {
    let lane = |lane: usize| agents.get(lane);
    let mut sums = FlockSums {
        // An unused lane's NaN position finds no neighbour.
        agents: Vec2x4::from_fn(|k| lane(k).map_or(Vec2::NAN, |agent| agent.position)),
        radii_squared: core::array::from_fn(|rule| {
            Vec4::from_array(core::array::from_fn(|k| {
                // NaN, for a rule off or an unused lane, counts no neighbour.
                lane(k).map_or(f32::NAN, |agent| agent.radii[rule] * agent.radii[rule])
            }))
        }),
        sums: [Vec2x4::ZERO; 3],
        count: Vec4::ZERO,
        whole_count: [0; LANES],
        uncounted: 0,
    };
    let mut own_slots: [(usize, usize); LANES] = core::array::from_fn(|k| {
        agents
            .get(k)
            .map_or((usize::MAX, k), |agent| (agent.slot as usize, k))
    });
    own_slots.sort_unstable();
    let (positions, entries) = (index.positions(), index.entries());
    for row in cells.first_row..=cells.last_row {
        let slots = index.row_slots(row, cells.first_column, cells.last_column);
        // The agents' own slots split the row: each is added to the other lanes only.
        let mut next = slots.start;
        for &(own, own_lane) in own_slots.iter().filter(|(own, _)| slots.contains(own)) {
            sums.scan(
                &positions[next..own],
                &entries[next..own],
                BVec4A::splat(true),
            );
            let others = BVec4A::from_array(core::array::from_fn(|k| k != own_lane));
            sums.scan(&positions[own..=own], &entries[own..=own], others);
            next = own + 1;
        }
        sums.scan(
            &positions[next..slots.end],
            &entries[next..slots.end],
            BVec4A::splat(true),
        );
    }
    sums.count_up();
    sums
}

/// `forces::direction_or_zero` for the lanes where it needs no special case (a squared length that
/// is normal, or a zero vector), with those lanes marked.
#[inline]
fn direction_or_zero(vector: Vec2x4) -> (Vec2x4, BVec4A) {
    let squared = vector.length_squared();
    let zero = vector.is_zero();
    let unit = vector.scaled(squared.sqrt().recip());
    (
        Vec2x4::select(zero, Vec2x4::ZERO, unit),
        is_normal(squared) | zero,
    )
}

/// The agent on `lane` of up to four `agents`; unused lanes take the last agent.
#[inline]
fn on_lane(agents: &[FlockAgent], lane: usize) -> &FlockAgent {
    &agents[lane.min(agents.len() - 1)]
}

/// `value` of each of up to four agents, one per lane (see [`on_lane`]).
#[inline]
fn each(agents: &[FlockAgent], value: impl Fn(&FlockAgent) -> f32) -> Vec4 {
    Vec4::from_array(core::array::from_fn(|lane| value(on_lane(agents, lane))))
}

/// The weighted forces of separation, alignment and cohesion (in that order) on up to four agents
/// from their rules' neighbour sums, as [`flock_sums`] gives them: for each lane where no step
/// needs one of the scalar path's special cases, the forces the rules' `force_from_*` functions
/// give times the weights, to the bit; the other lanes are marked not valid.
pub(crate) fn flock_forces(agents: &[FlockAgent], sums: &FlockSums) -> FlockForces {
    // Unused lanes take the last agent's values, and are not read.
    let position = Vec2x4::from_fn(|lane| on_lane(agents, lane).position);
    let velocity = Vec2x4::from_fn(|lane| on_lane(agents, lane).velocity);
    let max_speed = each(agents, |agent| agent.max_speed);
    let strength: [Vec4; 3] =
        core::array::from_fn(|rule| each(agents, |agent| agent.strengths[rule]));
    let weight: [Vec4; 3] = core::array::from_fn(|rule| each(agents, |agent| agent.weights[rule]));
    // Separation: away from the offsets' sum (the direction of their mean), unit length, times the
    // strength; zero with no neighbour, whose sum is zero.
    let (away, away_common) = direction_or_zero(Vec2x4 {
        x: -sums.sums[0].x,
        y: -sums.sums[0].y,
    });
    let separation = away.scaled(strength[0]).scaled(weight[0]);
    // Alignment: toward the velocities' sum at full speed, truncated to the strength.
    let (heading, heading_common) = direction_or_zero(sums.sums[1]);
    let (steer, steer_common) = truncate(heading.scaled(max_speed).minus(velocity), strength[1]);
    let no_heading = heading.is_zero();
    let alignment = Vec2x4::select(no_heading, Vec2x4::ZERO, steer).scaled(weight[1]);
    // Cohesion: seek with arrival toward the centre (`VectorSum::mean`, valid on the lanes that
    // found neighbours), truncated to the strength.
    let count = Vec4::from_array(sums.whole_count.map(|count| count as f32));
    let found = count.cmpgt(Vec4::ZERO);
    let centre = Vec2x4 {
        x: sums.sums[2].x / count,
        y: sums.sums[2].y / count,
    };
    let offset = centre.minus(position);
    let squared = offset.length_squared();
    let distance = squared.sqrt();
    let radius = each(agents, |agent| agent.radii[2]);
    let speed = Vec4::select(
        distance.cmplt(radius),
        max_speed * (distance / radius),
        max_speed,
    );
    let (toward, toward_common) = direction_or_zero(offset);
    let (seek, seek_common) = truncate(toward.scaled(speed).minus(velocity), strength[2]);
    let cohesion = Vec2x4::select(found, seek, Vec2x4::ZERO).scaled(weight[2]);
    let common = away_common
        & heading_common
        & (steer_common | no_heading)
        & ((toward_common & seek_common) | !found);
    FlockForces {
        forces: [separation, alignment, cohesion]
            .map(|force| [force.x.to_array(), force.y.to_array()]),
        // Unused lanes are not valid.
        valid: common.bitmask() & ((1 << agents.len()) - 1),
    }
}

/// What [`flock_forces`] found, per lane.
pub(crate) struct FlockForces {
    /// Each rule's forces, x and y, lane by lane.
    forces: [[[f32; LANES]; 2]; 3],
    /// The lanes whose forces are valid, one bit each.
    valid: u32,
}

impl FlockForces {
    /// The forces of separation, alignment and cohesion on `lane`, or `None` when they need one of
    /// the scalar path's special cases.
    #[inline]
    pub(crate) fn lane(&self, lane: usize) -> Option<[Vec2; 3]> {
        (self.valid >> lane & 1 == 1).then(|| self.forces.map(|[x, y]| Vec2::new(x[lane], y[lane])))
    }
}

/// Four wanderers' circle-method forces with the angle in the world frame
/// ([`forces::wander_circle`] of [`forces::wander_displacement_direction`]); `None` when any of the
/// four needs the scalar path (see the [module docs](self)).
#[inline]
pub(crate) fn wander_circle(
    velocity: Vec2x4,
    [circle_distance, circle_radius, angle]: [Vec4; 3],
) -> Option<Vec2x4> {
    let angles = angle.to_array();
    if !angles.into_iter().all(forces::sin_cos_is_polynomial) {
        return None;
    }
    let quadrants = angles.map(forces::nearest_quadrant);
    let (sin, cos) = forces::reduced_sin_cos(angle, Vec4::from_array(quadrants.map(|q| q as f32)));
    let displacement = Vec2x4::from_fn(|lane| {
        let (sin, cos) = forces::in_quadrant(quadrants[lane], sin[lane], cos[lane]);
        Vec2::new(cos, sin)
    });
    let (heading, common) = direction_or_zero(velocity);
    common.all().then_some(
        heading
            .scaled(circle_distance)
            .plus(displacement.scaled(circle_radius)),
    )
}

/// Four agents' new velocities and positions after a step of `dt` seconds, as
/// [`forces::integrate_velocity`] and `position + velocity * dt` give them; `None` when any of the
/// four needs the scalar path (see the [module docs](self)).
#[inline]
pub(crate) fn integrate(
    velocity: Vec2x4,
    position: Vec2x4,
    force: Vec2x4,
    [mass, max_speed, max_force]: [Vec4; 3],
    dt: f32,
) -> Option<(Vec2x4, Vec2x4)> {
    let is_limit = |limit: Vec4| limit.cmpge(Vec4::ZERO) & limit.cmplt(Vec4::INFINITY);
    let (force, force_common) = truncate(force, max_force);
    let step_per_mass = Vec4::splat(dt) / mass;
    let change = force.scaled(step_per_mass);
    // The scalar path leaves the velocity as it is when the truncated force is zero.
    let moved = Vec2x4::select(force.is_zero(), velocity, velocity.plus(change));
    let (new_velocity, speed_common) = truncate(moved, max_speed);
    let new_position = position.plus(new_velocity.scaled(Vec4::splat(dt)));
    let common = is_limit(max_speed)
        & is_limit(max_force)
        & mass.cmpgt(Vec4::ZERO)
        & mass.cmplt(Vec4::INFINITY)
        & is_normal(step_per_mass)
        & force_common
        & velocity.is_finite()
        & change.is_finite()
        & moved.is_finite()
        & speed_common
        & new_position.is_finite();
    common.all().then_some((new_velocity, new_position))
}

/// The rotations [`face_velocity`] gives: for each lane, a turn about z, or none for an agent at
/// rest.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Turns {
    /// The quaternions' z and w (x and y are zero).
    z: Vec4,
    w: Vec4,
    moving: BVec4A,
}

impl Turns {
    /// The rotation on `lane`, or `None` when that agent is at rest.
    #[inline]
    pub(crate) fn lane(self, lane: usize) -> Option<Quat> {
        self.moving
            .test(lane)
            .then(|| Quat::from_xyzw(0.0, 0.0, self.z[lane], self.w[lane]))
    }
}

/// [`FaceVelocity::rotation_for`] for four agents, whose `local_forward` axes are `forward`.
#[inline]
pub(crate) fn face_velocity(forward: Vec2x4, velocity: Vec2x4) -> Turns {
    // `Dir2::new`: the velocity over its length, when that is positive and finite.
    let length = velocity.length_squared().sqrt();
    let moving = length.is_finite_mask() & length.cmpgt(Vec4::ZERO);
    let heading = Vec2x4 {
        x: velocity.x / length,
        y: velocity.y / length,
    };
    let cos = forward.x * heading.x + forward.y * heading.y;
    let sin = forward.x * heading.y - forward.y * heading.x;
    // Both of `rotation_for`'s formulas, then a pick: which one an agent needs depends on its
    // heading, a branch that would mispredict.
    let far_half_sin = ((1.0 - cos) * 0.5).sqrt().copysign(sin);
    let far_half_cos = sin / (2.0 * far_half_sin);
    let near = cos.cmpgt(Vec4::splat(-0.5));
    let half_sin = Vec4::select(near, sin, far_half_sin);
    let half_cos = Vec4::select(near, 1.0 + cos, far_half_cos);
    // `Quat::normalize`, whose x and y are zero.
    let norm = (half_sin * half_sin + half_cos * half_cos).sqrt();
    Turns {
        z: half_sin / norm,
        w: half_cos / norm,
        moving,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::WanderFrame;
    use crate::components::FaceVelocity;
    use crate::forces::{VectorSum, integrate_velocity, wander_circle as scalar_wander_circle};
    use bevy::ecs::entity::Entity;
    use bevy::math::Dir2;
    use core::f32::consts::PI;
    use proptest::prelude::*;

    const DT: f32 = 1.0 / 60.0;

    /// The scalar path's velocities and positions for four agents.
    fn scalar(
        velocities: [Vec2; 4],
        positions: [Vec2; 4],
        forces: [Vec2; 4],
        limits: [[f32; 3]; 4],
    ) -> [(Vec2, Vec2); 4] {
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
        velocities: [Vec2; 4],
        positions: [Vec2; 4],
        forces: [Vec2; 4],
        limits: [[f32; 3]; 4],
    ) -> Option<[(Vec2, Vec2); 4]> {
        let limit = |index: usize| Vec4::from_array(limits.map(|limit| limit[index]));
        let (velocity, position) = integrate(
            Vec2x4::from_fn(|lane| velocities[lane]),
            Vec2x4::from_fn(|lane| positions[lane]),
            Vec2x4::from_fn(|lane| forces[lane]),
            [limit(0), limit(1), limit(2)],
            DT,
        )?;
        Some(core::array::from_fn(|lane| {
            (velocity.lane(lane), position.lane(lane))
        }))
    }

    fn bits(results: [(Vec2, Vec2); 4]) -> [[u32; 4]; 4] {
        results.map(|(velocity, position)| {
            [velocity.x, velocity.y, position.x, position.y].map(f32::to_bits)
        })
    }

    fn vector(range: f32) -> impl Strategy<Value = Vec2> {
        (-range..range, -range..range).prop_map(|(x, y)| Vec2::new(x, y))
    }

    fn limits() -> impl Strategy<Value = [f32; 3]> {
        (0.05f32..50.0, 0.0f32..400.0, 0.0f32..1000.0)
            .prop_map(|(mass, max_speed, max_force)| [mass, max_speed, max_force])
    }

    /// A flocking agent with the scene's rules, at rest at the origin.
    fn flock_agent() -> FlockAgent {
        FlockAgent {
            position: Vec2::ZERO,
            velocity: Vec2::ZERO,
            max_speed: 100.0,
            radii: [25.0, 45.0, 45.0],
            strengths: [300.0, 200.0, 150.0],
            weights: [1.0; 3],
            slot: 0,
        }
    }

    /// The sums a walk of `index` gives `agent`: what the rules add up.
    fn walked_sums(index: &SpatialIndex<()>, agent: &FlockAgent) -> (Vec2, Vec2, VectorSum) {
        let me = index.entries()[agent.slot as usize].entity;
        let mut neighbours = Vec::new();
        index.for_each_within(agent.position, agent.reach(), |neighbour| {
            if neighbour.entity != me {
                neighbours.push(neighbour);
            }
        });
        let of_rule = |rule: usize, term: fn(&Neighbour, Vec2) -> Vec2| {
            let radius = agent.radii[rule];
            VectorSum::of(
                neighbours
                    .iter()
                    .filter(|neighbour| {
                        neighbour.position.distance_squared(agent.position) <= radius * radius
                    })
                    .map(|neighbour| term(neighbour, agent.position)),
            )
        };
        (
            of_rule(0, |neighbour, position| neighbour.position - position).sum,
            of_rule(1, |neighbour, _| neighbour.velocity).sum,
            of_rule(2, |neighbour, _| neighbour.position),
        )
    }

    proptest! {
        #[test]
        fn flock_sums_give_the_walks_bits(
            points in prop::collection::vec((vector(120.0), vector(80.0)), 1..60),
            agents in prop::collection::vec((0usize..60, prop::array::uniform3(0.0f32..70.0), 0u8..8), 1..5),
            cell_size in 5.0f32..80.0,
        ) {
            let mut index = SpatialIndex::<()>::new(cell_size);
            // Every third point on the one before, as crowds on one point are.
            index.rebuild_moving(points.iter().enumerate().map(|(at, &(position, velocity))| {
                let position = if at % 3 == 2 { points[at - 1].0 } else { position };
                Neighbour { entity: Entity::from_raw_u32(at as u32).unwrap(), position, velocity }
            }));
            // Distinct slots, each agent at its entry's position or moved off it (as a system
            // before the flocking one may move it), some rules off.
            let mut group: Vec<FlockAgent> = Vec::new();
            for (slot, radii, variant) in agents {
                let slot = (slot % index.len()) as u32;
                if group.iter().any(|taken| taken.slot == slot) {
                    continue;
                }
                let position = index.entries()[slot as usize].position + Vec2::splat(f32::from(variant >> 1));
                let radii: [f32; 3] = core::array::from_fn(|rule| {
                    if usize::from(variant) % 4 == rule {
                        f32::NAN
                    } else if variant & 1 == 1 {
                        radii[rule] * 0.5
                    } else {
                        radii[rule]
                    }
                });
                group.push(FlockAgent { position, radii, slot, ..flock_agent() });
            }
            let cells = group
                .iter()
                .filter_map(|lane| index.cell_box(lane.position, lane.reach()))
                .reduce(CellBox::union);
            let Some(cells) = cells else { return Ok(()) };
            let sums = flock_sums(&index, cells, &group);
            let bits = |(offsets, velocities, positions): (Vec2, Vec2, VectorSum)| {
                [offsets, velocities, positions.sum].map(|sum| sum.to_array().map(f32::to_bits))
                    .into_iter().flatten().chain([positions.count]).collect::<Vec<_>>()
            };
            for (lane, agent) in group.iter().enumerate() {
                prop_assert_eq!(bits(sums.lane(lane)), bits(walked_sums(&index, agent)));
            }
        }
    }

    proptest! {
        /// Ordinary agents' forces take the fast path, and it gives the rules' bits.
        #[test]
        fn flock_forces_give_the_rules_bits(
            agents in prop::array::uniform4((vector(500.0), vector(200.0), 0.0f32..300.0, prop::array::uniform3(-5.0f32..400.0), 5.0f32..80.0)),
            sums in prop::array::uniform4(prop::array::uniform3((vector(5000.0), 0u32..40))),
            used in 1usize..=4,
        ) {
            use crate::behaviours::{Alignment, Cohesion, Separation};
            let group: Vec<FlockAgent> = agents[..used]
                .iter()
                .map(|&(position, velocity, max_speed, strengths, cohesion_radius)| {
                    let strengths = [strengths[0], strengths[1].abs(), strengths[2].abs()];
                    let weights = [0.5, 1.0, 2.0];
                    let radii = [25.0, 45.0, cohesion_radius];
                    FlockAgent { position, velocity, max_speed, radii, strengths, weights, ..flock_agent() }
                })
                .collect();
            let sums = sums.map(|sums| sums.map(|(sum, count)| VectorSum { sum, count }));
            let lanes = FlockSums {
                agents: Vec2x4::ZERO,
                radii_squared: [Vec4::ZERO; 3],
                sums: core::array::from_fn(|rule| Vec2x4::from_fn(|k| sums[k][rule].sum)),
                count: Vec4::ZERO,
                whole_count: core::array::from_fn(|k| sums[k][2].count),
                uncounted: 0,
            };
            let forces = flock_forces(&group, &lanes);
            for (k, lane) in group.iter().enumerate() {
                let agent = forces::Boid { position: lane.position, velocity: lane.velocity, max_speed: lane.max_speed };
                let separation = Separation { strength: lane.strengths[0], ..Separation::default() };
                let alignment = Alignment { strength: lane.strengths[1], ..Alignment::default() };
                let cohesion = Cohesion { radius: lane.radii[2], strength: lane.strengths[2], ..Cohesion::default() };
                let scalar = [
                    separation.force_from_offsets(sums[k][0].sum) * lane.weights[0],
                    alignment.force_from_velocities(&agent, sums[k][1].sum) * lane.weights[1],
                    cohesion.force_from_positions(&agent, sums[k][2]) * lane.weights[2],
                ];
                let bits = |forces: [Vec2; 3]| forces.map(|force| force.to_array().map(f32::to_bits));
                prop_assert!(forces.lane(k).is_some());
                prop_assert_eq!(bits(forces.lane(k).unwrap()), bits(scalar));
            }
            prop_assert!((used..LANES).all(|k| forces.lane(k).is_none()));
        }
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Ordinary wanderers take the fast path, and it gives the scalar path's bits.
        #[test]
        fn wander_lanes_give_the_scalar_paths_bits(
            velocities in prop::array::uniform4(vector(300.0)),
            circles in prop::array::uniform4((0.0f32..200.0, 0.0f32..400.0, -8192.0f32..8192.0)),
        ) {
            let column = |field: fn(&(f32, f32, f32)) -> f32| lanes_of(&circles, 0, field);
            let fast = wander_circle(
                Vec2x4::from_fn(|lane| velocities[lane]),
                [column(|circle| circle.0), column(|circle| circle.1), column(|circle| circle.2)],
            );
            prop_assert!(fast.is_some());
            let fast = fast.unwrap();
            for lane in 0..LANES {
                let (distance, radius, angle) = circles[lane];
                let velocity = velocities[lane];
                let direction =
                    forces::wander_displacement_direction(angle, WanderFrame::World, velocity);
                let scalar = scalar_wander_circle(velocity, distance, radius, direction);
                prop_assert_eq!(fast.lane(lane).to_array().map(f32::to_bits), scalar.to_array().map(f32::to_bits));
            }
        }
    }

    #[test]
    fn wanderers_needing_a_special_case_are_left_to_the_scalar_path() {
        let circles = |angle: f32| {
            [
                Vec4::splat(90.0),
                Vec4::splat(180.0),
                Vec4::new(0.0, 1.0, 2.0, angle),
            ]
        };
        let moving = Vec2x4::from_fn(|lane| Vec2::new(lane as f32, 60.0));
        assert!(wander_circle(moving, circles(3.0)).is_some());
        assert!(wander_circle(Vec2x4::from_fn(|_| Vec2::ZERO), circles(3.0)).is_some());
        assert!(wander_circle(moving, circles(f32::NAN)).is_none());
        assert!(wander_circle(moving, circles(1e4)).is_none());
        let creeping = Vec2x4::from_fn(|lane| Vec2::new(1e-25 * lane as f32, 0.0));
        assert!(wander_circle(creeping, circles(3.0)).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The lanes' turns have the bits of `FaceVelocity::rotation_for`, at rest too.
        #[test]
        fn turns_give_the_scalar_paths_bits(
            forwards in prop::array::uniform4(-PI..PI),
            velocities in prop::array::uniform4(prop_oneof![
                vector(300.0),
                Just(Vec2::ZERO),
                (-PI..PI).prop_map(|angle| Vec2::from_angle(angle) * 1e-30),
            ]),
        ) {
            let facing = forwards.map(|angle| FaceVelocity::new(Dir2::from_xy(angle.cos(), angle.sin()).unwrap()));
            let turns = face_velocity(
                Vec2x4::from_fn(|lane| *facing[lane].local_forward),
                Vec2x4::from_fn(|lane| velocities[lane]),
            );
            for lane in 0..LANES {
                let bits = |turn: Option<Quat>| turn.map(|turn| turn.to_array().map(f32::to_bits));
                prop_assert_eq!(bits(turns.lane(lane)), bits(facing[lane].rotation_for(velocities[lane])));
            }
        }
    }

    #[test]
    fn zero_forces_and_velocities_take_the_fast_path() {
        let zero = [Vec2::ZERO; 4];
        let limits = [[1.0, 180.0, 600.0]; 4];
        let positions = [Vec2::new(3.0, -4.0); 4];
        let fast = lanes(zero, positions, zero, limits).unwrap();
        assert_eq!(bits(fast), bits(scalar(zero, positions, zero, limits)));
    }

    #[test]
    fn special_cases_are_left_to_the_scalar_path() {
        let ordinary = || {
            (
                [Vec2::new(10.0, 0.0); 4],
                [Vec2::ZERO; 4],
                [Vec2::new(0.0, 50.0); 4],
                [[1.0, 180.0, 600.0]; 4],
            )
        };
        let (velocities, positions, forces, limits) = ordinary();
        assert!(lanes(velocities, positions, forces, limits).is_some());
        let cases: [&dyn Fn(&mut ([Vec2; 4], [Vec2; 4], [Vec2; 4], [[f32; 3]; 4])); 9] = [
            &|agents| agents.3[1][0] = 0.0,
            &|agents| agents.3[2][0] = f32::NAN,
            &|agents| agents.3[3][1] = -1.0,
            &|agents| agents.3[0][2] = f32::INFINITY,
            &|agents| agents.2[1] = Vec2::new(1e-30, 0.0),
            &|agents| agents.2[2] = Vec2::new(f32::MAX, 0.0),
            &|agents| agents.0[3] = Vec2::new(f32::NAN, 0.0),
            &|agents| agents.1[0] = Vec2::new(f32::INFINITY, 0.0),
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
