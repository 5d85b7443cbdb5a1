//! The flocking rules' neighbour sums and forces for four agents at once, on SIMD lanes.
//!
//! Four boids of neighbouring cells share one pass over their cells, each entry tested against
//! all four at once. This is the fast path for the common case only: [`flock_forces`] marks the
//! lanes that need one of the scalar path's special cases (a squared length that under- or
//! overflows), and the flocking system walks the index for those agents.
//!
//! Every lane does the operations of the scalar path, in the same order, each correctly rounded
//! and without fused multiply-adds, so a lane's result has the same bits as the scalar path's: an
//! agent moves the same whichever path steps it.

use bevy::math::{BVec4A, Vec4};

use crate::math::grid::CellBox;
use crate::math::lanes::{LANES, VectorLanes, direction_or_zero, truncate};
use crate::math::{DIMENSIONS, Vector};
use crate::spatial::{Neighbour, SpatialIndex};

/// One flocking agent as [`flock_sums`] and [`flock_forces`] see it: what the flocking system
/// copies out of the agent's components, one cache line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(align(64))]
pub(crate) struct FlockAgent {
    pub(crate) position: Vector,
    pub(crate) velocity: Vector,
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
    agents: VectorLanes,
    radii_squared: [Vec4; 3],
    /// Separation's, alignment's and cohesion's, in that order.
    sums: [VectorLanes; 3],
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
    fn scan(&mut self, positions: &[Vector], entries: &[Neighbour], keep: BVec4A) {
        for (positions, entries) in positions
            .chunks(Self::MOST_SCANNED)
            .zip(entries.chunks(Self::MOST_SCANNED))
        {
            if self.uncounted + positions.len() > Self::MOST_SCANNED {
                self.count_up();
            }
            self.uncounted += positions.len();
            for (&position, entry) in positions.iter().zip(entries) {
                let candidate = VectorLanes::splat(position);
                // `neighbour - agent`, and its squared length as `distance_squared` computes it.
                let offset = candidate.minus(self.agents);
                let distance_squared = offset.length_squared();
                let [separation, alignment, cohesion] = self
                    .radii_squared
                    .map(|radius_squared| distance_squared.cmple(radius_squared) & keep);
                // Adding a zero leaves a sum's bits as they are: the sums start at +0 and so are
                // never -0.
                let add = |sum: VectorLanes, neighbour, term| {
                    sum.plus(VectorLanes::select(neighbour, term, VectorLanes::ZERO))
                };
                self.sums[0] = add(self.sums[0], separation, offset);
                self.sums[1] = add(self.sums[1], alignment, VectorLanes::splat(entry.velocity));
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
    fn lane(&self, lane: usize) -> (Vector, Vector, crate::formulas::VectorSum) {
        (
            self.sums[0].lane(lane),
            self.sums[1].lane(lane),
            crate::formulas::VectorSum {
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
        agents: VectorLanes::from_fn(|k| lane(k).map_or(Vector::NAN, |agent| agent.position)),
        radii_squared: core::array::from_fn(|rule| {
            Vec4::from_array(core::array::from_fn(|k| {
                // NaN, for a rule off or an unused lane, counts no neighbour.
                lane(k).map_or(f32::NAN, |agent| agent.radii[rule] * agent.radii[rule])
            }))
        }),
        sums: [VectorLanes::ZERO; 3],
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
    for slots in index.slot_runs(cells) {
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
    let position = VectorLanes::from_fn(|lane| on_lane(agents, lane).position);
    let velocity = VectorLanes::from_fn(|lane| on_lane(agents, lane).velocity);
    let max_speed = each(agents, |agent| agent.max_speed);
    let strength: [Vec4; 3] =
        core::array::from_fn(|rule| each(agents, |agent| agent.strengths[rule]));
    let weight: [Vec4; 3] = core::array::from_fn(|rule| each(agents, |agent| agent.weights[rule]));
    // Separation: away from the offsets' sum (the direction of their mean), unit length, times the
    // strength; zero with no neighbour, whose sum is zero.
    let (away, away_common) = direction_or_zero(sums.sums[0].negated());
    let separation = away.scaled(strength[0]).scaled(weight[0]);
    // Alignment: toward the velocities' sum at full speed, truncated to the strength.
    let (heading, heading_common) = direction_or_zero(sums.sums[1]);
    let (steer, steer_common) = truncate(heading.scaled(max_speed).minus(velocity), strength[1]);
    let no_heading = heading.is_zero();
    let alignment = VectorLanes::select(no_heading, VectorLanes::ZERO, steer).scaled(weight[1]);
    // Cohesion: seek with arrival toward the centre (`VectorSum::mean`, valid on the lanes that
    // found neighbours), truncated to the strength.
    let count = Vec4::from_array(sums.whole_count.map(|count| count as f32));
    let found = count.cmpgt(Vec4::ZERO);
    let centre = sums.sums[2].divided(count);
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
    let cohesion = VectorLanes::select(found, seek, VectorLanes::ZERO).scaled(weight[2]);
    let common = away_common
        & heading_common
        & (steer_common | no_heading)
        & ((toward_common & seek_common) | !found);
    FlockForces {
        forces: [separation, alignment, cohesion].map(VectorLanes::to_arrays),
        // Unused lanes are not valid.
        valid: common.bitmask() & ((1 << agents.len()) - 1),
    }
}

/// What [`flock_forces`] found, per lane.
pub(crate) struct FlockForces {
    /// Each rule's forces, axis by axis, lane by lane.
    forces: [[[f32; LANES]; DIMENSIONS]; 3],
    /// The lanes whose forces are valid, one bit each.
    valid: u32,
}

impl FlockForces {
    /// The forces of separation, alignment and cohesion on `lane`, or `None` when they need one of
    /// the scalar path's special cases.
    #[inline]
    pub(crate) fn lane(&self, lane: usize) -> Option<[Vector; 3]> {
        (self.valid >> lane & 1 == 1).then(|| {
            self.forces
                .map(|axes| Vector::from_array(axes.map(|axis| axis[lane])))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formulas::VectorSum;
    use crate::test_support::vector;
    use bevy::ecs::entity::Entity;
    use proptest::prelude::*;

    /// A flocking agent with the scene's rules, at rest at the origin.
    fn flock_agent() -> FlockAgent {
        FlockAgent {
            position: Vector::ZERO,
            velocity: Vector::ZERO,
            max_speed: 100.0,
            radii: [25.0, 45.0, 45.0],
            strengths: [300.0, 200.0, 150.0],
            weights: [1.0; 3],
            slot: 0,
        }
    }

    /// The sums a walk of `index` gives `agent`: what the rules add up.
    fn walked_sums(index: &SpatialIndex<()>, agent: &FlockAgent) -> (Vector, Vector, VectorSum) {
        let me = index.entries()[agent.slot as usize].entity;
        let mut neighbours = Vec::new();
        index.for_each_within(agent.position, agent.reach(), |neighbour| {
            if neighbour.entity != me {
                neighbours.push(neighbour);
            }
        });
        let of_rule = |rule: usize, term: fn(&Neighbour, Vector) -> Vector| {
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
                let position = index.entries()[slot as usize].position + Vector::splat(f32::from(variant >> 1));
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
            let bits = |(offsets, velocities, positions): (Vector, Vector, VectorSum)| {
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
                agents: VectorLanes::ZERO,
                radii_squared: [Vec4::ZERO; 3],
                sums: core::array::from_fn(|rule| VectorLanes::from_fn(|k| sums[k][rule].sum)),
                count: Vec4::ZERO,
                whole_count: core::array::from_fn(|k| sums[k][2].count),
                uncounted: 0,
            };
            let forces = flock_forces(&group, &lanes);
            for (k, lane) in group.iter().enumerate() {
                let agent = crate::formulas::Boid { position: lane.position, velocity: lane.velocity, max_speed: lane.max_speed };
                let separation = Separation { strength: lane.strengths[0], ..Separation::default() };
                let alignment = Alignment { strength: lane.strengths[1], ..Alignment::default() };
                let cohesion = Cohesion { radius: lane.radii[2], strength: lane.strengths[2], ..Cohesion::default() };
                let scalar = [
                    separation.force_from_offsets(sums[k][0].sum) * lane.weights[0],
                    alignment.force_from_velocities(&agent, sums[k][1].sum) * lane.weights[1],
                    cohesion.force_from_positions(&agent, sums[k][2]) * lane.weights[2],
                ];
                let bits = |forces: [Vector; 3]| forces.map(|force| force.to_array().map(f32::to_bits));
                prop_assert!(forces.lane(k).is_some());
                prop_assert_eq!(bits(forces.lane(k).unwrap()), bits(scalar));
            }
            prop_assert!((used..LANES).all(|k| forces.lane(k).is_none()));
        }
    }
}
