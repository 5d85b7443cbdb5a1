//! The flocking rules' neighbour sums and forces for a group of agents at once, one a SIMD lane:
//! four, or 8 or 16 where the CPU has AVX2 or AVX-512
//! ([`on_widest_lanes`](crate::math::wide::on_widest_lanes)).
//!
//! A group of boids of neighbouring cells shares one pass over their cells, each entry tested
//! against all of them at once. Every setting of the rules is taken: a field of view (each rule's
//! cone tested per entry), separation by distance (each neighbour's push added per entry) and the classic
//! alignment and cohesion (alignment's neighbours counted per entry) as well as the defaults. This
//! is the fast path for the common case only: [`flock_forces`] marks the lanes that need one of
//! the scalar path's special cases (a squared length that under- or overflows, in the forces or,
//! for a push, in an entry's distance), and the flocking system walks the index for those agents.
//!
//! Every lane does the operations of the scalar path, in the same order, each correctly rounded
//! and without fused multiply-adds, so a lane's result has the same bits as the scalar path's: an
//! agent moves the same whichever path steps it.

use bevy::math::Vec4;

use crate::math::grid::CellBox;
use crate::math::lanes::{VectorLanes, direction_or_zero, truncate};
use crate::math::wide::{ApartOn, LaneMask, Lanes, MOST_LANES};
use crate::math::{self, DIMENSIONS, Vector};
use crate::spatial::{IndexCells, Neighbour};

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
    /// The rules' [`half_angle_cos`](crate::formulas::half_angle_cos) of their fields of view, in
    /// the same order: `-1.0` (or less) for one that sees all round.
    pub(crate) view_cos: [f32; 3],
    /// The agent's slot in the spatial index.
    pub(crate) slot: u32,
    /// The rules' methods other than the defaults: [`FlockAgent::BY_DISTANCE`],
    /// [`FlockAgent::MEAN_VELOCITY`], [`FlockAgent::SEEK`].
    pub(crate) methods: u8,
}

impl FlockAgent {
    /// Separation pushes by distance ([`SeparationMethod::ByDistance`](super::SeparationMethod::ByDistance))
    /// rather than away from the mean.
    pub(crate) const BY_DISTANCE: u8 = 1;
    /// Alignment matches the mean velocity ([`AlignmentMethod::MeanVelocity`](super::AlignmentMethod::MeanVelocity)).
    pub(crate) const MEAN_VELOCITY: u8 = 1 << 1;
    /// Cohesion seeks at full speed ([`CohesionMethod::Seek`](super::CohesionMethod::Seek)).
    pub(crate) const SEEK: u8 = 1 << 2;

    /// Whether the agent's rules use `method`.
    fn uses(&self, method: u8) -> bool {
        self.methods & method != 0
    }

    /// How far the agent's walk of the index reaches: the widest of its rules' radii.
    pub(crate) fn reach(&self) -> f32 {
        self.radii[0].max(self.radii[1]).max(self.radii[2])
    }

    /// Whether the agent has the `rule`th rule on.
    pub(crate) fn has_rule(&self, rule: usize) -> bool {
        !self.radii[rule].is_nan()
    }

    /// Whether one of the agent's rules has a field of view narrower than a full turn.
    fn has_cone(&self) -> bool {
        (0..3).any(|rule| self.has_rule(rule) && self.view_cos[rule] > -1.0)
    }

    /// Whether the agent separates by distance.
    fn pushes_by_distance(&self) -> bool {
        self.uses(Self::BY_DISTANCE) && self.has_rule(0)
    }

    /// Whether the agent aligns with the mean velocity, which needs alignment's neighbours counted.
    fn matches_mean_velocity(&self) -> bool {
        self.uses(Self::MEAN_VELOCITY) && self.has_rule(1)
    }
}

/// Slots below this go on the lanes: their bits are those of an `f32` that is not NaN.
pub(crate) const MOST_SLOTS: usize = 0x7f80_0000;

/// `slot` (below [`MOST_SLOTS`]) on a lane: the `f32` with its bits, which equals only the `f32`
/// of the same slot (no NaN, and no zero but slot 0's), so that one comparison of lanes finds the
/// lane whose agent has the slot.
#[inline(always)]
fn slot_lane(slot: usize) -> f32 {
    f32::from_bits(slot as u32)
}

/// `[value(0), value(1), value(2)]`, one for each rule: `array::from_fn` left its closure as a
/// call in the wider lanes' code.
#[inline(always)]
fn per_rule<T>(mut value: impl FnMut(usize) -> T) -> [T; 3] {
    [value(0), value(1), value(2)]
}

/// Per lane, the sums of the neighbours' offsets (`neighbour - agent`, for separation by the
/// mean) or pushes (separation by distance), velocities (alignment) and positions (cohesion), each
/// over its rule's neighbours, and the counts of cohesion's and, for the lanes that match the mean
/// velocity, alignment's (the rules that take a mean rather than a direction).
pub(crate) struct FlockSums<L: Lanes = Vec4> {
    /// The agents' own positions.
    agents: VectorLanes<L>,
    /// The agents' own slots, each as the `f32` with its bits ([`slot_lane`]); NaN on unused
    /// lanes.
    own_slots: L,
    radii_squared: [L; 3],
    /// The lanes that separate by distance, and their separation radii.
    by_distance: L::Mask,
    /// The lanes that align with the mean velocity.
    mean_velocity: L::Mask,
    separation_radius: L,
    /// The agents' headings (`direction_or_zero` of their velocities), for the cones.
    heading: VectorLanes<L>,
    /// Each rule's lanes that see all round (no cone, or an agent at rest); for the others, the
    /// cosines of half their fields of view times their absolute values (squares with the
    /// cosines' signs), and which of them see more than half a turn (the cosine negative).
    all_round: [L::Mask; 3],
    view_cos_signed_squared: [L; 3],
    over_half_turn: [L::Mask; 3],
    /// Whether every lane's three rules have the same field of view (Reynolds' one neighbourhood),
    /// so that one cone test serves them all.
    one_cone: bool,
    /// The lanes where an entry's push needed one of the scalar path's special cases (a squared
    /// distance that is subnormal, or that under- or overflows): not valid.
    uncommon: L::Mask,
    /// Separation's, alignment's and cohesion's, in that order.
    sums: [VectorLanes<L>; 3],
    /// Alignment's neighbours (counted only when a lane matches the mean velocity) and cohesion's,
    /// as an `f32` counts them exactly.
    counts: [L; 2],
    /// The same in whole numbers: the `f32` counts are moved here before they could stop counting
    /// exactly. Lanes from [`Lanes::COUNT`] on unused.
    whole_counts: [[u32; MOST_LANES]; 2],
    /// Candidates scanned since the count was last moved.
    uncounted: usize,
}

impl<L: Lanes> FlockSums<L> {
    /// Candidates one [`scan`](Self::scan) takes at most: far fewer than the 2^24 up to which an
    /// `f32` counts exactly.
    const MOST_SCANNED: usize = 1 << 20;

    /// Adds the entries of `positions` and `entries` (the same slots, from `first_slot` on) to
    /// the sums of the lanes, each where the entry is within the lane's rule's radius (and, with
    /// `CONES`, its field of view) and is not the lane's agent itself. With `PUSHES`, the lanes
    /// that separate by distance add each neighbour's push rather than its offset. With `MEANS`,
    /// alignment's neighbours are counted. All off, the scan does only what the default settings
    /// need.
    #[inline(always)]
    fn scan<const PUSHES: bool, const CONES: bool, const MEANS: bool>(
        &mut self,
        first_slot: usize,
        positions: &[Vector],
        entries: &[Neighbour],
    ) {
        let chunks = positions
            .chunks(Self::MOST_SCANNED)
            .zip(entries.chunks(Self::MOST_SCANNED));
        for (chunk, (positions, entries)) in chunks.enumerate() {
            let first_slot = first_slot + chunk * Self::MOST_SCANNED;
            if self.uncounted + positions.len() > Self::MOST_SCANNED {
                self.count_up();
            }
            self.uncounted += positions.len();
            // Added up in locals, kept in registers, rather than in `self`, which the compiler
            // stored back after every entry.
            let (mut sums, mut counts, mut uncommon) = (self.sums, self.counts, self.uncommon);
            for (at, (&position, entry)) in positions.iter().zip(entries).enumerate() {
                let keep = !self.own_slots.cmpeq(L::splat(slot_lane(first_slot + at)));
                let candidate = VectorLanes::splat(position);
                // `neighbour - agent`, and its squared length as `distance_squared` computes it.
                let offset = candidate.minus(self.agents);
                let distance_squared = offset.length_squared();
                let [mut separation, mut alignment, mut cohesion] =
                    per_rule(|rule| distance_squared.cmple(self.radii_squared[rule]) & keep);
                if CONES {
                    // `in_field_of_view`: no square root.
                    let along = offset.dot(self.heading);
                    let along_signed_squared = along * along.abs();
                    let ahead = along.cmpge(L::ZERO);
                    if self.one_cone {
                        // Reynolds' one neighbourhood for the three rules: one test.
                        let seen = in_cones(self, 0, distance_squared, ahead, along_signed_squared);
                        separation &= seen;
                        alignment &= seen;
                        cohesion &= seen;
                    } else {
                        separation &=
                            in_cones(self, 0, distance_squared, ahead, along_signed_squared);
                        alignment &=
                            in_cones(self, 1, distance_squared, ahead, along_signed_squared);
                        cohesion &=
                            in_cones(self, 2, distance_squared, ahead, along_signed_squared);
                    }
                }
                // Adding a zero leaves a sum's bits as they are: the sums start at +0 and so are
                // never -0.
                let add = |sum: VectorLanes<L>, neighbour, term| {
                    sum.plus(VectorLanes::select(neighbour, term, VectorLanes::ZERO))
                };
                let separation_term = if PUSHES {
                    // `separation_by_distance`: `away * (1 / distance²) * radius` where the
                    // square (of the offset, or of `agent - neighbour`: the same bits) is normal,
                    // nothing from a neighbour on the agent's point; the other lanes need the
                    // scalar path's special case when they use it.
                    let normal = distance_squared.is_normal_mask();
                    let exact = normal | offset.is_zero();
                    uncommon |= separation & self.by_distance & !exact;
                    // `away` is `-offset`, the same bits as `agent - neighbour`.
                    let push = offset
                        .negated()
                        .scaled(distance_squared.recip())
                        .scaled(self.separation_radius);
                    let push = VectorLanes::select(normal, push, VectorLanes::ZERO);
                    VectorLanes::select(self.by_distance, push, offset)
                } else {
                    offset
                };
                sums[0] = add(sums[0], separation, separation_term);
                sums[1] = add(sums[1], alignment, VectorLanes::splat(entry.velocity));
                sums[2] = add(sums[2], cohesion, candidate);
                if MEANS {
                    counts[0] += L::select(alignment, L::ONE, L::ZERO);
                }
                counts[1] += L::select(cohesion, L::ONE, L::ZERO);
            }
            (self.sums, self.counts, self.uncommon) = (sums, counts, uncommon);
        }
    }

    /// Moves the `f32` counts to the whole ones.
    #[inline(always)]
    fn count_up(&mut self) {
        for (wholes, counts) in self.whole_counts.iter_mut().zip(&mut self.counts) {
            for (lane, whole) in wholes[..L::COUNT].iter_mut().enumerate() {
                *whole += counts.lane(lane) as u32;
            }
            *counts = L::ZERO;
        }
        self.uncounted = 0;
    }

    /// The sums of `lane`: separation's, and alignment's and cohesion's with their counts.
    #[cfg(test)]
    fn lane(
        &self,
        lane: usize,
    ) -> (
        Vector,
        crate::formulas::VectorSum,
        crate::formulas::VectorSum,
    ) {
        let sum = |rule: usize| crate::formulas::VectorSum {
            sum: self.sums[rule].lane(lane),
            count: self.whole_counts[rule - 1][lane],
        };
        (self.sums[0].lane(lane), sum(1), sum(2))
    }
}

/// The lanes of `sums` whose rule `rule` sees a candidate at `distance_squared`, `along` their
/// headings by `along` (`ahead` where it is not negative, `along_signed_squared` its
/// `along * |along|`): `in_field_of_view`'s comparison, in its order. A function rather than a
/// closure, which the compiler left as a call to code without the wider lanes' instructions.
#[inline(always)]
fn in_cones<L: Lanes>(
    sums: &FlockSums<L>,
    rule: usize,
    distance_squared: L,
    ahead: L::Mask,
    along_signed_squared: L,
) -> L::Mask {
    let bound = distance_squared * sums.view_cos_signed_squared[rule];
    sums.all_round[rule] | ((ahead | sums.over_half_turn[rule]) & along_signed_squared.cmpge(bound))
}

/// The three flocking rules' sums over the neighbours of up to [`Lanes::COUNT`] agents, given
/// with their slots in `index`: the entries within each rule's radius, the agent itself left out,
/// in the index's order, so that the sums have the bits of those the rules add up over the
/// neighbours a walk of the index (`for_each_within`) finds. `cells` must hold the cell boxes of
/// every agent's reach.
///
/// One pass over the cells serves the group, testing each entry against all of them at once: the
/// flocking system steps agents in the index's order, so that agents of one group are close.
#[inline(always)]
pub(crate) fn flock_sums<L: Lanes>(
    index: IndexCells,
    cells: CellBox,
    agents: &[FlockAgent],
) -> FlockSums<L> {
    let lane = |lane: usize| agents.get(lane);
    // Generic rather than `dyn`, so that each is inlined.
    #[inline(always)]
    fn lanes<L: Lanes>(
        agents: &[FlockAgent],
        value: impl Fn(&FlockAgent) -> f32,
        unused: f32,
    ) -> L {
        L::from_fn(|k| agents.get(k).map_or(unused, &value))
    }
    #[inline(always)]
    fn mask<L: Lanes>(agents: &[FlockAgent], holds: impl Fn(&FlockAgent) -> bool) -> L::Mask {
        L::Mask::from_fn(|k| agents.get(k).is_some_and(&holds))
    }
    let pushes = agents.iter().any(FlockAgent::pushes_by_distance);
    let cones = agents.iter().any(FlockAgent::has_cone);
    let means = agents.iter().any(FlockAgent::matches_mean_velocity);
    let heading = if cones {
        VectorLanes::from_fn(|k| {
            lane(k).map_or(Vector::ZERO, |agent| {
                math::direction_or_zero(agent.velocity)
            })
        })
    } else {
        VectorLanes::ZERO
    };
    let at_rest = heading.is_zero();
    // Read only by the scan with cones: a group without one sets none of them up.
    let (all_round, view_cos_signed_squared, over_half_turn) = if cones {
        let view_cos: [L; 3] = per_rule(|rule| lanes(agents, |agent| agent.view_cos[rule], 1.0));
        (
            per_rule(|rule| view_cos[rule].cmple(L::splat(-1.0)) | at_rest),
            per_rule(|rule| view_cos[rule] * view_cos[rule].abs()),
            per_rule(|rule| view_cos[rule].cmplt(L::ZERO)),
        )
    } else {
        let all = L::Mask::splat(true);
        ([all; 3], [L::ONE; 3], [all; 3])
    };
    let mut sums = FlockSums {
        // An unused lane's NaN position finds no neighbour.
        agents: VectorLanes::from_fn(|k| lane(k).map_or(Vector::NAN, |agent| agent.position)),
        own_slots: lanes(agents, |agent| slot_lane(agent.slot as usize), f32::NAN),
        // NaN, for a rule off or an unused lane, counts no neighbour.
        radii_squared: per_rule(|rule| {
            lanes(
                agents,
                |agent| agent.radii[rule] * agent.radii[rule],
                f32::NAN,
            )
        }),
        by_distance: mask::<L>(agents, |agent| agent.uses(FlockAgent::BY_DISTANCE)),
        mean_velocity: mask::<L>(agents, |agent| agent.uses(FlockAgent::MEAN_VELOCITY)),
        separation_radius: lanes(agents, |agent| agent.radii[0], f32::NAN),
        heading,
        all_round,
        view_cos_signed_squared,
        over_half_turn,
        one_cone: agents.iter().all(|agent| {
            let [separation, alignment, cohesion] = agent.view_cos.map(f32::to_bits);
            separation == alignment && alignment == cohesion
        }),
        uncommon: L::Mask::splat(false),
        sums: [VectorLanes::ZERO; 3],
        counts: [L::ZERO; 2],
        whole_counts: [[0; MOST_LANES]; 2],
        uncounted: 0,
    };
    // One scan for each combination, so that the default settings' does nothing more.
    match (pushes, cones, means) {
        (false, false, false) => sums.add_cells::<false, false, false>(index, cells),
        (true, false, false) => sums.add_cells::<true, false, false>(index, cells),
        (false, true, false) => sums.add_cells::<false, true, false>(index, cells),
        (true, true, false) => sums.add_cells::<true, true, false>(index, cells),
        (false, false, true) => sums.add_cells::<false, false, true>(index, cells),
        (true, false, true) => sums.add_cells::<true, false, true>(index, cells),
        (false, true, true) => sums.add_cells::<false, true, true>(index, cells),
        (true, true, true) => sums.add_cells::<true, true, true>(index, cells),
    }
    sums.count_up();
    sums
}

/// The work of [`FlockSums::add_cells`].
struct AddCells<'a, L: Lanes, const PUSHES: bool, const CONES: bool, const MEANS: bool>(
    &'a mut FlockSums<L>,
    IndexCells<'a>,
    CellBox,
);

impl<L: Lanes, const PUSHES: bool, const CONES: bool, const MEANS: bool> ApartOn<L>
    for AddCells<'_, L, PUSHES, CONES, MEANS>
{
    type Output = ();

    #[inline(always)]
    fn run(self) {
        let Self(sums, index, cells) = self;
        let (positions, entries) = (index.positions(), index.entries());
        for slots in index.slot_runs(cells) {
            sums.scan::<PUSHES, CONES, MEANS>(
                slots.start,
                &positions[slots.clone()],
                &entries[slots],
            );
        }
    }
}

impl<L: Lanes> FlockSums<L> {
    /// Scans the entries of `cells` (see [`scan`](Self::scan)), in a function of its own for each
    /// combination ([`Lanes::run_apart`]).
    #[inline(always)]
    fn add_cells<const PUSHES: bool, const CONES: bool, const MEANS: bool>(
        &mut self,
        index: IndexCells,
        cells: CellBox,
    ) {
        L::run_apart(AddCells::<L, PUSHES, CONES, MEANS>(self, index, cells));
    }
}

/// The agent on `lane` of up to [`Lanes::COUNT`] `agents`; unused lanes take the last agent.
#[inline(always)]
fn on_lane(agents: &[FlockAgent], lane: usize) -> &FlockAgent {
    &agents[lane.min(agents.len() - 1)]
}

/// `value` of each of the `agents`, one per lane (see [`on_lane`]).
#[inline(always)]
fn each<L: Lanes>(agents: &[FlockAgent], value: impl Fn(&FlockAgent) -> f32) -> L {
    L::from_fn(|lane| value(on_lane(agents, lane)))
}

/// The weighted forces of separation, alignment and cohesion (in that order) on up to
/// [`Lanes::COUNT`] agents from their rules' neighbour sums, as [`flock_sums`] gives them: for
/// each lane where no step needs one of the scalar path's special cases, the forces the rules'
/// `force_from_*` functions give times the weights, to the bit; the other lanes are marked not
/// valid.
///
/// In a function of its own ([`Lanes::run_apart`]): its chains of square roots and divisions are
/// scheduled on their own, however the code round it changes (inlined into the group's code, a
/// change to the set-up of the cones made the default settings' forces 6 % slower).
#[inline(always)]
pub(crate) fn flock_forces<L: Lanes>(agents: &[FlockAgent], sums: &FlockSums<L>) -> FlockForces {
    L::run_apart(ForcesApart(agents, sums))
}

/// The work of [`flock_forces`].
struct ForcesApart<'a, L: Lanes>(&'a [FlockAgent], &'a FlockSums<L>);

impl<L: Lanes> ApartOn<L> for ForcesApart<'_, L> {
    type Output = FlockForces;

    #[inline(always)]
    fn run(self) -> FlockForces {
        forces_on_lanes(self.0, self.1)
    }
}

/// See [`flock_forces`].
#[inline(always)]
fn forces_on_lanes<L: Lanes>(agents: &[FlockAgent], sums: &FlockSums<L>) -> FlockForces {
    // Unused lanes take the last agent's values, and are not read.
    let position = VectorLanes::<L>::from_fn(|lane| on_lane(agents, lane).position);
    let velocity = VectorLanes::<L>::from_fn(|lane| on_lane(agents, lane).velocity);
    let max_speed: L = each(agents, |agent| agent.max_speed);
    let strength: [L; 3] = per_rule(|rule| each(agents, |agent| agent.strengths[rule]));
    let weight: [L; 3] = per_rule(|rule| each(agents, |agent| agent.weights[rule]));
    // Separation by the mean: away from the offsets' sum (the direction of their mean), unit
    // length, times the strength; zero with no neighbour, whose sum is zero. By distance: the
    // pushes' sum times the strength.
    let (away, away_common) = direction_or_zero(sums.sums[0].negated());
    let by_distance = sums.by_distance;
    let separation = VectorLanes::select(by_distance, sums.sums[0], away)
        .scaled(strength[0])
        .scaled(weight[0]);
    // Alignment: toward the velocities' sum at full speed, truncated to the strength; or, matching
    // the mean velocity, toward their mean (on the lanes that found neighbours), truncated.
    let (heading, heading_common) = direction_or_zero(sums.sums[1]);
    let (steer, steer_common) = truncate(heading.scaled(max_speed).minus(velocity), strength[1]);
    let no_heading = heading.is_zero();
    let means = sums.mean_velocity;
    let count_of = |counts: &[u32; MOST_LANES]| L::from_fn(|lane| counts[lane] as f32);
    // Only groups with a lane that matches mean velocities pay for the mean.
    let (aligned, matching, matching_common) = if means.any() {
        let alignment_count = count_of(&sums.whole_counts[0]);
        let mean_velocity = sums.sums[1].divided(alignment_count);
        let (matching, common) = truncate(mean_velocity.minus(velocity), strength[1]);
        (alignment_count.cmpgt(L::ZERO), matching, common)
    } else {
        (
            L::Mask::splat(false),
            VectorLanes::ZERO,
            L::Mask::splat(true),
        )
    };
    let alignment = VectorLanes::select(
        means,
        VectorLanes::select(aligned, matching, VectorLanes::ZERO),
        VectorLanes::select(no_heading, VectorLanes::ZERO, steer),
    )
    .scaled(weight[1]);
    let alignment_common = (means & (matching_common | !aligned))
        | (!means & heading_common & (steer_common | no_heading));
    // Cohesion: seek toward the centre (`VectorSum::mean`, valid on the lanes that found
    // neighbours), with arrival within the radius unless the lane seeks at full speed, truncated
    // to the strength.
    let count = count_of(&sums.whole_counts[1]);
    let found = count.cmpgt(L::ZERO);
    let centre = sums.sums[2].divided(count);
    let offset = centre.minus(position);
    let squared = offset.length_squared();
    let distance = squared.sqrt();
    let slowing_radius: L = each(agents, |agent| {
        if agent.uses(FlockAgent::SEEK) {
            0.0
        } else {
            agent.radii[2]
        }
    });
    let speed = L::select(
        distance.cmplt(slowing_radius),
        max_speed * (distance / slowing_radius),
        max_speed,
    );
    let (toward, toward_common) = direction_or_zero(offset);
    let (seek, seek_common) = truncate(toward.scaled(speed).minus(velocity), strength[2]);
    let cohesion = VectorLanes::select(found, seek, VectorLanes::ZERO).scaled(weight[2]);
    let common = (away_common | by_distance)
        & !sums.uncommon
        & alignment_common
        & ((toward_common & seek_common) | !found);
    let mut forces = [[[0.0; MOST_LANES]; DIMENSIONS]; 3];
    for (arrays, force) in forces.iter_mut().zip([separation, alignment, cohesion]) {
        for (lanes, axis) in arrays.iter_mut().zip(force.axes) {
            for (lane, value) in lanes[..L::COUNT].iter_mut().enumerate() {
                *value = axis.lane(lane);
            }
        }
    }
    FlockForces {
        forces,
        // Unused lanes are not valid.
        valid: common.bitmask() & ((1 << agents.len()) - 1),
    }
}

/// What [`flock_forces`] found, per lane.
pub(crate) struct FlockForces {
    /// Each rule's forces, axis by axis, lane by lane.
    forces: [[[f32; MOST_LANES]; DIMENSIONS]; 3],
    /// The lanes whose forces are valid, one bit each.
    valid: u32,
}

impl FlockForces {
    /// The forces of separation, alignment and cohesion on `lane`, or `None` when they need one of
    /// the scalar path's special cases.
    #[inline]
    pub(crate) fn lane(&self, lane: usize) -> Option<[Vector; 3]> {
        // Loops rather than `map`, which was left as a call.
        (self.valid >> lane & 1 == 1).then(|| {
            let mut forces = [Vector::ZERO; 3];
            for (force, axes) in forces.iter_mut().zip(&self.forces) {
                for axis in 0..DIMENSIONS {
                    force[axis] = axes[axis][lane];
                }
            }
            forces
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::flocking::separation_by_distance;
    use crate::formulas::{VectorSum, half_angle_cos, in_field_of_view};
    use crate::math::wide::Wide;
    use crate::spatial::SpatialIndex;
    use crate::test_support::vector;
    use bevy::ecs::entity::Entity;
    use core::f32::consts::TAU;
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
            view_cos: [-1.0; 3],
            slot: 0,
            methods: 0,
        }
    }

    /// The sums a walk of `index` gives `agent`: what the rules add up, each over the candidates
    /// within its radius and field of view (as `NeighbourScratch::force` keeps them), separation's
    /// the offsets or, by distance, the pushes.
    fn walked_sums(index: &SpatialIndex<()>, agent: &FlockAgent) -> (Vector, VectorSum, VectorSum) {
        let me = index.cells().entries()[agent.slot as usize].entity;
        let mut neighbours = Vec::new();
        index.for_each_within(agent.position, agent.reach(), |neighbour| {
            if neighbour.entity != me {
                neighbours.push(neighbour);
            }
        });
        let heading = math::direction_or_zero(agent.velocity);
        let seen = |rule: usize| {
            let radius = agent.radii[rule];
            neighbours.iter().filter(move |neighbour| {
                neighbour.position.distance_squared(agent.position) <= radius * radius
                    && in_field_of_view(
                        agent.position,
                        heading,
                        agent.view_cos[rule],
                        neighbour.position,
                    )
            })
        };
        let separation = if agent.uses(FlockAgent::BY_DISTANCE) {
            separation_by_distance(
                agent.position,
                agent.radii[0],
                seen(0).map(|neighbour| neighbour.position),
            )
        } else {
            VectorSum::of(seen(0).map(|neighbour| neighbour.position - agent.position)).sum
        };
        let velocities = VectorSum::of(seen(1).map(|neighbour| neighbour.velocity));
        (
            separation,
            // Alignment's neighbours are counted only for a group that matches mean velocities.
            VectorSum {
                count: if agent.uses(FlockAgent::MEAN_VELOCITY) {
                    velocities.count
                } else {
                    0
                },
                ..velocities
            },
            VectorSum::of(seen(2).map(|neighbour| neighbour.position)),
        )
    }

    proptest! {
        /// Whatever the radii, fields of view and separation methods, the lanes give the walk's
        /// sums.
        #[test]
        fn flock_sums_give_the_walks_bits(
            points in prop::collection::vec((vector(120.0), vector(80.0)), 1..60),
            agents in prop::collection::vec(
                (
                    0usize..60,
                    prop::array::uniform3(0.0f32..70.0),
                    0u8..8,
                    vector(80.0),
                    prop::array::uniform3(prop_oneof![Just(TAU), Just(0.0f32), 0.0f32..7.0]),
                    0u8..8,
                ),
                1..17,
            ),
            cell_size in 5.0f32..80.0,
            one_cone in any::<bool>(),
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
            // Alignment's neighbours are counted for every lane when one matches mean velocities.
            let means = agents.iter().any(|agent| agent.5 & FlockAgent::MEAN_VELOCITY != 0);
            for (slot, radii, variant, velocity, views, methods) in agents {
                let slot = (slot % index.len()) as u32;
                if group.iter().any(|taken| taken.slot == slot) {
                    continue;
                }
                let position = index.cells().entries()[slot as usize].position + Vector::splat(f32::from(variant >> 1));
                let radii: [f32; 3] = per_rule(|rule| {
                    if usize::from(variant) % 4 == rule {
                        f32::NAN
                    } else if variant & 1 == 1 {
                        radii[rule] * 0.5
                    } else {
                        radii[rule]
                    }
                });
                // Some at rest, who see all round whatever their fields of view.
                let velocity = if variant % 3 == 0 { Vector::ZERO } else { velocity };
                // Half the groups with one field of view for the three rules (Reynolds'), whose
                // cone is tested once.
                let views = if one_cone { [views[0]; 3] } else { views };
                let view_cos = views.map(half_angle_cos);
                let methods = if means { methods | FlockAgent::MEAN_VELOCITY } else { methods };
                group.push(FlockAgent { position, velocity, radii, view_cos, slot, methods, ..flock_agent() });
            }
            check_sums::<Vec4>(&index, &group)?;
            check_sums::<Wide<8>>(&index, &group)?;
            check_sums::<Wide<16>>(&index, &group)?;
        }
    }

    /// The sums' bits: of separation's, alignment's and cohesion's, and the two counts.
    fn bits((offsets, velocities, positions): (Vector, VectorSum, VectorSum)) -> Vec<u32> {
        [offsets, velocities.sum, positions.sum]
            .map(|sum| sum.to_array().map(f32::to_bits))
            .into_iter()
            .flatten()
            .chain([velocities.count, positions.count])
            .collect()
    }

    /// Lanes `L` give each of the `agents`, stepped `L::COUNT` at a time, the walk's sums.
    fn check_sums<L: Lanes>(
        index: &SpatialIndex<()>,
        agents: &[FlockAgent],
    ) -> Result<(), TestCaseError> {
        for group in agents.chunks(L::COUNT) {
            let cells = group
                .iter()
                .filter_map(|lane| index.cells().cell_box(lane.position, lane.reach()))
                .reduce(CellBox::union);
            let Some(cells) = cells else { continue };
            let sums = flock_sums::<L>(index.cells(), cells, group);
            for (lane, agent) in group.iter().enumerate() {
                // A lane whose push needed the scalar special case is left to the
                // walk; with these points, none does.
                prop_assert_eq!(sums.uncommon.bitmask() >> lane & 1, 0);
                prop_assert_eq!(bits(sums.lane(lane)), bits(walked_sums(index, agent)));
            }
        }
        Ok(())
    }

    proptest! {
        /// Ordinary agents' forces take the fast path, and it gives the rules' bits.
        #[test]
        fn flock_forces_give_the_rules_bits(
            agents in prop::array::uniform4((vector(500.0), vector(200.0), 0.0f32..300.0, prop::array::uniform3(-5.0f32..400.0), 5.0f32..80.0)),
            sums in prop::array::uniform4(prop::array::uniform3((vector(5000.0), 0u32..40))),
            methods in prop::array::uniform4(0u8..8),
            used in 1usize..=4,
        ) {
            let group: Vec<FlockAgent> = agents[..used]
                .iter()
                .zip(methods)
                .map(|(&(position, velocity, max_speed, strengths, cohesion_radius), methods)| {
                    let strengths = [strengths[0], strengths[1].abs(), strengths[2].abs()];
                    let weights = [0.5, 1.0, 2.0];
                    let radii = [25.0, 45.0, cohesion_radius];
                    FlockAgent { position, velocity, max_speed, radii, strengths, weights, methods, ..flock_agent() }
                })
                .collect();
            let sums = sums.map(|sums| sums.map(|(sum, count)| VectorSum { sum, count }));
            check_forces::<Vec4>(&group, &sums)?;
            check_forces::<Wide<8>>(&group, &sums)?;
            check_forces::<Wide<16>>(&group, &sums)?;
        }
    }

    /// Lanes `L` give each agent of `group` the forces its rules give from its sums (separation's,
    /// alignment's and cohesion's), to the bit; the lanes past the group are not valid.
    fn check_forces<L: Lanes>(
        group: &[FlockAgent],
        sums: &[[VectorSum; 3]],
    ) -> Result<(), TestCaseError> {
        use crate::behaviours::{
            Alignment, AlignmentMethod, Cohesion, CohesionMethod, Separation, SeparationMethod,
        };
        let uses =
            |method| L::Mask::from_fn(|k| group.get(k).is_some_and(|agent| agent.uses(method)));
        let lanes = FlockSums::<L> {
            agents: VectorLanes::ZERO,
            own_slots: L::ZERO,
            radii_squared: [L::ZERO; 3],
            by_distance: uses(FlockAgent::BY_DISTANCE),
            mean_velocity: uses(FlockAgent::MEAN_VELOCITY),
            separation_radius: L::ZERO,
            heading: VectorLanes::ZERO,
            all_round: [L::Mask::splat(true); 3],
            view_cos_signed_squared: [L::ONE; 3],
            over_half_turn: [L::Mask::splat(true); 3],
            one_cone: true,
            uncommon: L::Mask::splat(false),
            sums: per_rule(|rule| {
                VectorLanes::from_fn(|k| sums.get(k).map_or(Vector::ZERO, |sums| sums[rule].sum))
            }),
            counts: [L::ZERO; 2],
            whole_counts: [1, 2].map(|rule| {
                core::array::from_fn(|k| sums.get(k).map_or(0, |sums| sums[rule].count))
            }),
            uncounted: 0,
        };
        let forces = flock_forces(group, &lanes);
        for (k, lane) in group.iter().enumerate() {
            let agent = crate::formulas::Boid {
                position: lane.position,
                velocity: lane.velocity,
                max_speed: lane.max_speed,
            };
            let method = if lane.uses(FlockAgent::BY_DISTANCE) {
                SeparationMethod::ByDistance
            } else {
                SeparationMethod::Mean
            };
            let separation = Separation {
                strength: lane.strengths[0],
                method,
                ..Separation::default()
            };
            let alignment_method = if lane.uses(FlockAgent::MEAN_VELOCITY) {
                AlignmentMethod::MeanVelocity
            } else {
                AlignmentMethod::Heading
            };
            let alignment = Alignment {
                strength: lane.strengths[1],
                method: alignment_method,
                ..Alignment::default()
            };
            let cohesion_method = if lane.uses(FlockAgent::SEEK) {
                CohesionMethod::Seek
            } else {
                CohesionMethod::Arrival
            };
            let cohesion = Cohesion {
                radius: lane.radii[2],
                strength: lane.strengths[2],
                method: cohesion_method,
                ..Cohesion::default()
            };
            // By distance, the sum is of the pushes.
            let separation = match method {
                SeparationMethod::Mean => separation.force_from_offsets(sums[k][0].sum),
                SeparationMethod::ByDistance => separation.force_from_pushes(sums[k][0].sum),
            };
            let scalar = [
                separation * lane.weights[0],
                alignment.force_from_velocities(&agent, sums[k][1]) * lane.weights[1],
                cohesion.force_from_positions(&agent, sums[k][2]) * lane.weights[2],
            ];
            let bits = |forces: [Vector; 3]| forces.map(|force| force.to_array().map(f32::to_bits));
            prop_assert!(forces.lane(k).is_some());
            prop_assert_eq!(bits(forces.lane(k).unwrap()), bits(scalar));
        }
        prop_assert!((group.len()..L::COUNT).all(|k| forces.lane(k).is_none()));
        Ok(())
    }

    /// `x` along the first axis.
    fn on_first_axis(x: f32) -> Vector {
        let mut vector = Vector::ZERO;
        vector[0] = x;
        vector
    }

    /// An index of an agent at the origin and one neighbour `offset` from it along the first
    /// axis, both at rest there, and the agent's slot.
    fn agent_and_neighbour(offset: f32) -> (SpatialIndex<()>, u32) {
        let mut index = SpatialIndex::<()>::new(10.0);
        let agent = Entity::from_raw_u32(1).unwrap();
        index.rebuild_moving(
            [0.0, offset]
                .into_iter()
                .enumerate()
                .map(|(at, x)| Neighbour {
                    entity: Entity::from_raw_u32(at as u32 + 1).unwrap(),
                    position: on_first_axis(x),
                    velocity: Vector::ZERO,
                }),
        );
        let slot = (index.cells().entries().iter())
            .position(|entry| entry.entity == agent)
            .unwrap();
        (index, slot as u32)
    }

    /// The cone test compares `along·|along|` with `d²·cos·|cos|`: behind an agent whose field of
    /// view is at most a half turn, a neighbour a hair away has both sides zero (they underflow),
    /// yet it is not seen, as `in_field_of_view` says; ahead it is, and behind a wider cone it is
    /// too (its squares compare equal). Straight behind at an ordinary distance, only a view all
    /// round sees.
    #[test]
    fn a_neighbour_a_hair_behind_is_seen_as_the_scalar_test_sees_it() {
        for (offset, view, seen) in [
            (1e-30, 1.0, true),
            (-1e-30, 1.0, false),
            (-1e-30, 2.0, false),
            (-1e-30, 4.0, true),
            (-3.0, 4.0, false),
            (-3.0, TAU, true),
        ] {
            let (index, slot) = agent_and_neighbour(offset);
            let agent = FlockAgent {
                velocity: on_first_axis(50.0),
                slot,
                view_cos: [half_angle_cos(view); 3],
                ..flock_agent()
            };
            let walked = walked_sums(&index, &agent).2.count;
            assert_eq!(walked, u32::from(seen), "{offset} behind a view of {view}");
            check_sums::<Vec4>(&index, &[agent]).unwrap();
            check_sums::<Wide<8>>(&index, &[agent]).unwrap();
            check_sums::<Wide<16>>(&index, &[agent]).unwrap();
        }
    }

    /// A neighbour so close that its squared distance underflows needs the scalar path's exact
    /// length for its push: the lane is not valid, and the agent walks the index. A cone test
    /// needs no length (it compares squares) and stays on the lanes. At an ordinary distance both
    /// are valid.
    #[test]
    fn a_neighbour_a_hair_away_sends_a_push_to_the_walk() {
        for gap in [1e-30, 1.0] {
            for (by_distance, view) in [(true, TAU), (false, 2.0)] {
                let (index, slot) = agent_and_neighbour(gap);
                // Alignment only: its sum, the neighbour's zero velocity, needs no special case.
                let agent = FlockAgent {
                    velocity: on_first_axis(50.0),
                    radii: [f32::NAN, 5.0, f32::NAN],
                    view_cos: [-1.0, half_angle_cos(view), -1.0],
                    slot,
                    methods: if by_distance {
                        FlockAgent::BY_DISTANCE
                    } else {
                        0
                    },
                    ..flock_agent()
                };
                let agent = if by_distance {
                    FlockAgent {
                        radii: [5.0, f32::NAN, f32::NAN],
                        ..agent
                    }
                } else {
                    agent
                };
                let group = [agent];
                let cells = index
                    .cells()
                    .cell_box(agent.position, agent.reach())
                    .unwrap();
                let valid = [
                    flock_forces(&group, &flock_sums::<Vec4>(index.cells(), cells, &group)),
                    flock_forces(
                        &group,
                        &flock_sums::<Wide<16>>(index.cells(), cells, &group),
                    ),
                ]
                .map(|forces| forces.lane(0).is_some());
                assert_eq!(
                    valid,
                    [gap == 1.0 || !by_distance; 2],
                    "{by_distance} {gap}"
                );
            }
        }
    }
}
