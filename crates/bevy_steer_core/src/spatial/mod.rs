//! Neighbour queries: which agents with a marker component are within a radius, and which is closest.
//!
//! [`SpatialIndexPlugin<M>`] keeps a [`SpatialIndex<M>`] resource of every entity with the marker `M`
//! and a `Transform`, rebuilt at the start of each steering step (in
//! [`SteeringSystems::Index`]), so game logic in [`SteeringSystems::Decide`] and custom forces can
//! ask it questions. It is a uniform grid over the entities' bounding box, filled by a counting
//! sort: rebuilding costs time linear in the number of entities (and is shared among the compute
//! pool's threads, the same index whatever their number), and a query visits only the cells its
//! circle overlaps.
//!
//! ```
//! use bevy::prelude::*;
#![doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::math::position_of;")]
#![doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::prelude::*;")]
//!
//! #[derive(Component)]
//! struct Prey;
//!
//! fn hunt(prey: Neighbours<Prey>, hunters: Query<(Entity, &Transform, &mut Pursue)>) {
//!     for (hunter, transform, mut pursue) in hunters {
//!         let closest = prey.closest(position_of(transform), 250.0, Some(hunter));
//!         pursue.target = closest.map(|prey| prey.entity);
//!     }
//! }
//!
//! App::new()
//!     .add_plugins((MinimalPlugins, SteeringPlugin::default(), SpatialIndexPlugin::<Prey>::new(100.0)))
//!     .add_systems(SteeringSchedule, hunt.in_set(SteeringSystems::Decide));
//! ```

use core::marker::PhantomData;

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;

use crate::components::Velocity;
use crate::math::grid::{CellBox, CellStarts, UniformGrid};
use sort::{Extent, SlotTable};

mod sort;
use crate::math::{Vector, position_of};
use crate::schedule::{SteeringSchedule, SteeringSystems};
use crate::tasks::{run_phases, working_threads};

/// An entity found by a [`SpatialIndex`] query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbour {
    /// The entity.
    pub entity: Entity,
    /// Its position when the index was built.
    pub position: Vector,
    /// Its `Velocity` when the index was built: zero for an entity without one, or with one that
    /// is not finite.
    pub velocity: Vector,
}

impl Neighbour {
    /// An entity as the index keeps it: its position in `transform`, its velocity (zero without
    /// one).
    #[inline]
    fn of(entity: Entity, transform: &Transform, velocity: Option<&Velocity>) -> Self {
        Self {
            entity,
            position: position_of(transform),
            velocity: velocity.map_or(Vector::ZERO, |velocity| velocity.0),
        }
    }
}

/// Entities with the marker `M`, indexed by position. See the [module docs](self).
///
/// Read it in systems through [`Neighbours<M>`], which names the missing
/// [`SpatialIndexPlugin<M>`] if it was not added (a `Res<SpatialIndex<M>>` then stops the system
/// with Bevy's own, terser message).
///
/// Entities whose position is not finite are left out.
#[derive(Resource)]
pub struct SpatialIndex<M> {
    /// The cell size asked for.
    requested_cell_size: f32,
    /// The current grid, whose cells are the size asked for, or wider for thinly spread entities.
    /// Building and querying both measure positions in its cells: the same monotonic arithmetic on
    /// both sides, so a query never misses a cell that holds a match (see
    /// [`for_each_within`](Self::for_each_within)).
    grid: UniformGrid,
    /// Where each cell's entries start.
    cell_starts: CellStarts,
    /// The entries' positions, cell by cell: what a query scans, 8 bytes an entry.
    positions: Vec<Vector>,
    /// The entries, in the same order, read only for those within a query's radius.
    entries: Vec<Neighbour>,
    /// Kept between rebuilds so that rebuilding allocates nothing once the index has grown (see
    /// [`sort`]): the entries in the order they came, each one's cell, each part's counts (then
    /// next slots) per cell, and which entry goes to each slot.
    unsorted: Vec<Neighbour>,
    cells: Vec<u32>,
    part_counts: Vec<Vec<u32>>,
    order: Vec<AtomicU32>,
    /// Each entity's slot, at its [`Entity::index_u32`], with the entity and the rebuild that
    /// wrote it, to tell a current slot from one left by an entity that was not indexed this time:
    /// what lets the flocking system step agents in the index's (cell) order. Kept only when that
    /// system asks ([`keep_slots`](Self::keep_slots)): the table is as long as the largest entity
    /// index seen.
    slots_by_entity: SlotTable,
    keeps_slots: bool,
    /// The rebuilds so far, wrapping (the table of slots is cleared when they do).
    rebuilds: u32,
    marker: PhantomData<fn() -> M>,
}

impl<M> SpatialIndex<M> {
    /// The bytes the index keeps per entity once it has grown (beside two `u32` per grid cell):
    /// the entry twice (in the order it came, and sorted by cell), its position once more (the
    /// column queries scan), its cell number and its place in the order of the sort.
    /// (The table of slots by entity that the flocking system asks for, 16 bytes an entity
    /// index, is sized by the largest [`Entity::index_u32`] indexed, not counted here.)
    pub const BYTES_PER_ENTITY: usize =
        2 * size_of::<Neighbour>() + size_of::<Vector>() + 2 * size_of::<u32>();

    /// An empty index with grid cells `cell_size` wide. Queries are cheapest when the cell size is
    /// about the radius they use most. A cell size that is not a positive finite number counts as 1.
    pub fn new(cell_size: f32) -> Self {
        let cell_size = if cell_size > 0.0 && cell_size.is_finite() {
            cell_size
        } else {
            1.0
        };
        Self {
            requested_cell_size: cell_size,
            grid: UniformGrid::EMPTY,
            cell_starts: CellStarts::default(),
            positions: Vec::new(),
            entries: Vec::new(),
            unsorted: Vec::new(),
            cells: Vec::new(),
            part_counts: Vec::new(),
            order: Vec::new(),
            slots_by_entity: SlotTable::default(),
            keeps_slots: false,
            rebuilds: 0,
            marker: PhantomData,
        }
    }

    /// The number of indexed entities.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entity is indexed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Rebuilds the index from `(entity, position)` pairs (at rest), in time linear in their
    /// number.
    pub fn rebuild(&mut self, items: impl IntoIterator<Item = (Entity, Vector)>) {
        self.rebuild_moving(items.into_iter().map(|(entity, position)| Neighbour {
            entity,
            position,
            velocity: Vector::ZERO,
        }));
    }

    /// Rebuilds the index from entities with their positions and velocities, in time linear in
    /// their number.
    pub fn rebuild_moving(&mut self, items: impl IntoIterator<Item = Neighbour>) {
        // Gathered here, where the items are, and sorted in one part.
        self.unsorted.clear();
        let mut extent = Extent::EMPTY;
        for mut entry in items {
            if extent.take(&mut entry) {
                self.unsorted.push(entry);
            }
        }
        let rows = self.unsorted.len();
        self.sort_in_parts(rows, 1, &|_, _| extent, &sort::one_after_another);
    }

    /// Makes the rebuilds keep each entity's slot, for [`slot_of`](Self::slot_of).
    pub(crate) fn keep_slots(&mut self) {
        self.keeps_slots = true;
    }

    /// Where `entity` is in [`entries`](Self::entries): `None` when it is not indexed, was indexed
    /// twice, or the index does not [`keep_slots`](Self::keep_slots).
    pub(crate) fn slot_of(&self, entity: Entity) -> Option<usize> {
        self.slots_by_entity.slot(entity, self.rebuilds)
    }

    /// Its cells and their entries, for reading.
    #[inline]
    pub(crate) fn cells(&self) -> IndexCells<'_> {
        IndexCells {
            grid: &self.grid,
            cell_starts: &self.cell_starts,
            positions: &self.positions,
            entries: &self.entries,
        }
    }

    /// Calls `visit` for every indexed entity within `radius` of `point`: those whose squared
    /// distance is at most `radius * radius`, in `f32`. A radius whose square overflows (above
    /// about 1.8e19) takes in every entity.
    pub fn for_each_within(&self, point: Vector, radius: f32, mut visit: impl FnMut(Neighbour)) {
        let index = self.cells();
        let Some(cells) = index.cell_box(point, radius) else {
            return;
        };
        let radius_squared = radius * radius;
        // The slots within the radius are first listed without a branch per entry (about a third
        // of the entries scanned are within, so a branch on each would often be mispredicted),
        // over all the rows at once, then their entries read in one tight loop whose loads overlap.
        // Small enough that zeroing it is a few stores, not a call to `memset` (6 % of the
        // hunter / prey step with 128).
        const BATCH: usize = 32;
        let mut within = [0_u32; BATCH];
        let mut count = 0;
        let mut visit_slots = |slots: &[u32]| {
            for &slot in slots {
                visit(self.entries[slot as usize]);
            }
        };
        for core::ops::Range { start, end } in index.slot_runs(cells) {
            let mut next = start;
            while next < end {
                if count == BATCH {
                    visit_slots(&within);
                    count = 0;
                }
                // Room for every entry scanned, in case all are within.
                let scanned = (end - next).min(BATCH - count);
                let positions = &self.positions[next..next + scanned];
                for (slot, position) in (next..).zip(positions) {
                    within[count] = slot as u32;
                    count += usize::from(position.distance_squared(point) <= radius_squared);
                }
                next += scanned;
            }
        }
        visit_slots(&within[..count]);
    }

    /// Every indexed entity within `radius` of `point`.
    pub fn within(&self, point: Vector, radius: f32) -> Vec<Neighbour> {
        let mut found = Vec::new();
        self.for_each_within(point, radius, |neighbour| found.push(neighbour));
        found
    }

    /// The indexed entity closest to `point` within `radius`, leaving out `exclude` (the asking
    /// entity itself, say). Ties go to the lesser `Entity`, so the answer does not depend on the
    /// order entities were indexed in.
    pub fn closest(
        &self,
        point: Vector,
        radius: f32,
        exclude: Option<Entity>,
    ) -> Option<Neighbour> {
        let mut best: Option<(f32, Neighbour)> = None;
        self.for_each_within(point, radius, |neighbour| {
            if Some(neighbour.entity) == exclude {
                return;
            }
            let distance = neighbour.position.distance_squared(point);
            let better = match best {
                None => true,
                Some((best_distance, best_neighbour)) => {
                    distance < best_distance
                        || (distance == best_distance && neighbour.entity < best_neighbour.entity)
                }
            };
            if better {
                best = Some((distance, neighbour));
            }
        });
        best.map(|(_, neighbour)| neighbour)
    }
}

/// The cells of a [`SpatialIndex`] and their entries, for reading. Not generic over the index's
/// marker, so that the code reading them (the flocking scan) is compiled in this crate, with its
/// optimisation level, rather than in each crate that names a marker (unoptimised in a debug build
/// of a game).
#[derive(Clone, Copy)]
pub(crate) struct IndexCells<'a> {
    grid: &'a UniformGrid,
    cell_starts: &'a CellStarts,
    positions: &'a [Vector],
    entries: &'a [Neighbour],
}

impl<'a> IndexCells<'a> {
    /// The indexed entities, cell by cell.
    #[inline]
    pub(crate) fn entries(self) -> &'a [Neighbour] {
        self.entries
    }

    /// Their positions, in the same order.
    #[inline]
    pub(crate) fn positions(self) -> &'a [Vector] {
        self.positions
    }

    /// The slots of `cells`, one range per run of consecutive cells (a row, numbered column by
    /// column).
    #[inline]
    pub(crate) fn slot_runs(
        self,
        cells: CellBox,
    ) -> impl Iterator<Item = core::ops::Range<usize>> + 'a {
        self.grid
            .runs_of(cells)
            .map(|(first, last)| self.cell_starts.of_cells(first, last))
    }

    /// The cells that hold every entry within `radius` of `point` by the distance test of
    /// [`SpatialIndex::for_each_within`], which it visits; `None` when there are none.
    #[inline]
    pub(crate) fn cell_box(self, point: Vector, radius: f32) -> Option<CellBox> {
        if self.entries.is_empty() || radius.is_nan() || radius < 0.0 || !point.is_finite() {
            return None;
        }
        // The distance test compares rounded squares, so it accepts entries up to a few ulps
        // beyond `radius`; the cells visited reach a little further (or everywhere, once the
        // square overflows and the test accepts everything), so that they hold every entry the
        // test accepts.
        let reach = if (radius * radius).is_finite() {
            radius * (1.0 + 8.0 * f32::EPSILON)
        } else {
            f32::INFINITY
        };
        // The cells of the bounding box of that reach. Each bound is rounded once and then goes
        // through the very arithmetic that placed the entries, which is monotonic, so an accepted
        // entry's cell always lies within them. Float-to-int casts truncate, which is `floor` for
        // the values that are not negative, and saturate, so negative, infinite and NaN bounds
        // clamp to the grid.
        let low = self.grid.in_cells(point - reach);
        let high = self.grid.in_cells(point + reach);
        if high.cmplt(Vector::ZERO).any() {
            return None;
        }
        Some(self.grid.cells_between(low, high))
    }
}

/// Keeps a [`SpatialIndex<M>`] of the entities with marker `M`, rebuilt in
/// [`SteeringSystems::Index`] of [`SteeringSchedule`], so it always follows the schedule
/// [`SteeringPlugin`](crate::SteeringPlugin) was given. Added again for the same `M` (or beside a
/// [`FlockingPlugin<M>`](crate::behaviours::FlockingPlugin), which adds one), it changes nothing:
/// the first index stays, with its cell size (a warning says so when the sizes differ).
pub struct SpatialIndexPlugin<M> {
    cell_size: f32,
    marker: PhantomData<fn() -> M>,
}

impl<M: Component> SpatialIndexPlugin<M> {
    /// Indexes entities with `M` in grid cells `cell_size` wide: about the radius your queries
    /// use most (a query then visits about nine cells). Much smaller cells make queries walk many
    /// empty cells; much larger ones make them test many entities that are too far.
    pub fn new(cell_size: f32) -> Self {
        Self {
            cell_size,
            marker: PhantomData,
        }
    }
}

impl<M: Component> Plugin for SpatialIndexPlugin<M> {
    fn build(&self, app: &mut App) {
        if let Some(index) = app.world().get_resource::<SpatialIndex<M>>() {
            // Added again, or after a `FlockingPlugin<M>` that added it: one index, the first's.
            if index.requested_cell_size != self.cell_size {
                warn!(
                    "bevy_steer: SpatialIndexPlugin<{}> added again, with cells {} wide; the index \
                     already there keeps its cells {} wide",
                    core::any::type_name::<M>(),
                    self.cell_size,
                    index.requested_cell_size
                );
            }
            return;
        }
        app.insert_resource(SpatialIndex::<M>::new(self.cell_size))
            .add_systems(
                SteeringSchedule,
                rebuild_spatial_index::<M>.in_set(SteeringSystems::Index),
            );
    }

    /// Added twice (or beside a [`FlockingPlugin<M>`](crate::behaviours::FlockingPlugin), which
    /// adds one), the index is kept once, with the first one's cell size.
    fn is_unique(&self) -> bool {
        false
    }
}

/// The [`SpatialIndex<M>`] as a system parameter that tells you what is missing: when no
/// [`SpatialIndexPlugin<M>`] was added, the queries find nothing and an error naming both types is
/// logged once per system, instead of the system failing to run.
///
/// ```
/// use bevy::prelude::*;
#[doc = concat!("use ", env!("CARGO_CRATE_NAME"), "::prelude::*;")]
///
/// #[derive(Component)]
/// struct Prey;
///
/// fn count_prey_near_origin(prey: Neighbours<Prey>) -> usize {
///     prey.within(Vector::ZERO, 100.0).len()
/// }
/// ```
#[derive(SystemParam)]
pub struct Neighbours<'w, 's, M: Component> {
    index: Option<Res<'w, SpatialIndex<M>>>,
    logged_missing: Local<'s, AtomicBool>,
}

impl<M: Component> Neighbours<'_, '_, M> {
    /// The index, or `None` (with the error logged) when its plugin was not added.
    pub fn index(&self) -> Option<&SpatialIndex<M>> {
        if self.index.is_none() && !self.logged_missing.swap(true, Ordering::Relaxed) {
            let marker = core::any::type_name::<M>();
            error!(
                "bevy_steer: SpatialIndex<{marker}> does not exist: add \
                 SpatialIndexPlugin::<{marker}>::new(cell_size) to the app. Until then its \
                 queries find nothing"
            );
        }
        self.index.as_deref()
    }

    /// See [`SpatialIndex::for_each_within`].
    pub fn for_each_within(&self, point: Vector, radius: f32, visit: impl FnMut(Neighbour)) {
        if let Some(index) = self.index() {
            index.for_each_within(point, radius, visit);
        }
    }

    /// See [`SpatialIndex::within`].
    pub fn within(&self, point: Vector, radius: f32) -> Vec<Neighbour> {
        self.index()
            .map_or_else(Vec::new, |index| index.within(point, radius))
    }

    /// See [`SpatialIndex::closest`].
    pub fn closest(
        &self,
        point: Vector,
        radius: f32,
        exclude: Option<Entity>,
    ) -> Option<Neighbour> {
        self.index()?.closest(point, radius, exclude)
    }
}

/// Rebuilds [`SpatialIndex<M>`] from the current positions, read a table at a time, on the
/// compute pool when it has more than one thread and there are enough entities to pay for it (the
/// same index, to the bit).
pub fn rebuild_spatial_index<M: Component>(
    mut index: ResMut<SpatialIndex<M>>,
    entities: Query<(Entity, &Transform, Option<&Velocity>), With<M>>,
) {
    let Ok(tables) = entities.contiguous_iter() else {
        // A marker stored as a sparse set: entity by entity.
        return index.rebuild_moving(
            (entities.iter())
                .map(|(entity, transform, velocity)| Neighbour::of(entity, transform, velocity)),
        );
    };
    let tables: Vec<_> = tables.collect();
    let rows: usize = tables.iter().map(|(entities, ..)| entities.len()).sum();
    // Each part gathers its rows, which may span tables.
    let gather = |part: core::ops::Range<usize>, into: &mut [Neighbour]| {
        let mut extent = Extent::EMPTY;
        let mut into = into.iter_mut();
        let mut first = 0;
        for (entities, transforms, velocities) in &tables {
            let table = first..first + entities.len();
            first = table.end;
            // The part's rows within the table (none, for a table before or after the part).
            let start = part.start.clamp(table.start, table.end);
            let end = part.end.clamp(start, table.end);
            for (row, slot) in (start - table.start..end - table.start).zip(&mut into) {
                let velocity = velocities.map(|velocities| &velocities[row]);
                let mut entry = Neighbour::of(entities[row], &transforms[row], velocity);
                extent.take(&mut entry);
                *slot = entry;
            }
        }
        extent
    };
    let pool = ComputeTaskPool::get();
    let threads = working_threads(pool);
    if threads > 1 && rows >= PARALLEL_REBUILD_LEAST {
        index.sort_in_parts(rows, threads, &gather, &|items, step| {
            run_phases(pool, items, step);
        });
    } else {
        index.sort_in_parts(rows, 1, &gather, &sort::one_after_another);
    }
}

/// Entities below which the index is rebuilt on one thread: fewer cost more in handing the parts
/// round than they save.
const PARALLEL_REBUILD_LEAST: usize = 8192;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::DIMENSIONS;
    use crate::test_support::v;
    use proptest::prelude::*;

    struct Marker;

    fn entity(index: u32) -> Entity {
        Entity::from_raw_u32(index).unwrap()
    }

    fn index_of(points: &[Vector], cell_size: f32) -> SpatialIndex<Marker> {
        let mut index = SpatialIndex::new(cell_size);
        index.rebuild(
            points
                .iter()
                .enumerate()
                .map(|(i, &p)| (entity(i as u32 + 1), p)),
        );
        index
    }

    /// The entities `index` finds within `radius` of `point`, sorted.
    fn sorted_within(index: &SpatialIndex<Marker>, point: Vector, radius: f32) -> Vec<Entity> {
        let mut found: Vec<Entity> = index
            .within(point, radius)
            .iter()
            .map(|n| n.entity)
            .collect();
        found.sort();
        found
    }

    fn brute_force_within(points: &[Vector], point: Vector, radius: f32) -> Vec<Entity> {
        let mut found: Vec<Entity> = points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.is_finite() && p.distance_squared(point) <= radius * radius)
            .map(|(i, _)| entity(i as u32 + 1))
            .collect();
        found.sort();
        found
    }

    #[test]
    fn slots_are_kept_only_when_asked_and_only_for_entities_indexed_once() {
        let at = |index: u32| Neighbour {
            entity: entity(index),
            position: v(index as f32 * 10.0, 0.0),
            velocity: Vector::ZERO,
        };
        let mut index = SpatialIndex::<Marker>::new(15.0);
        index.rebuild_moving([at(0), at(3)]);
        assert_eq!(index.slot_of(entity(0)), None, "not asked to keep slots");
        index.keep_slots();
        index.rebuild_moving([at(7), at(0), at(3), at(3)]);
        for found in [0, 7] {
            let slot = index.slot_of(entity(found)).expect("indexed once");
            assert_eq!(index.cells().entries()[slot].entity, entity(found));
        }
        assert_eq!(index.slot_of(entity(3)), None, "indexed twice");
        assert_eq!(index.slot_of(entity(5)), None, "never indexed");
        index.rebuild_moving([at(0)]);
        assert_eq!(index.slot_of(entity(7)), None, "not indexed this time");
        assert_eq!(index.slot_of(entity(0)), Some(0));
    }

    #[test]
    fn an_empty_index_finds_nothing() {
        let index = index_of(&[], 10.0);
        assert!(index.is_empty());
        assert!(index.within(Vector::ZERO, 100.0).is_empty());
        assert_eq!(index.closest(Vector::ZERO, 100.0, None), None);
    }

    #[test]
    fn closest_skips_the_excluded_entity_and_breaks_ties_by_entity() {
        let points = [Vector::ZERO, v(5.0, 0.0), v(-5.0, 0.0), v(50.0, 0.0)];
        let index = index_of(&points, 10.0);
        let closest = index.closest(Vector::ZERO, 20.0, Some(entity(1))).unwrap();
        // Entities 2 and 3 are equally close: the lesser by `Ord` wins.
        assert_eq!(closest.entity, entity(2).min(entity(3)));
        assert_eq!(index.closest(v(40.0, 0.0), 5.0, None), None);
    }

    #[test]
    fn non_finite_positions_are_left_out_and_queries_are_safe() {
        let points = [v(f32::NAN, 0.0), Vector::splat(f32::INFINITY), Vector::ONE];
        let index = index_of(&points, 10.0);
        assert_eq!(index.len(), 1);
        assert!(index.within(Vector::NAN, 10.0).is_empty());
        assert!(index.within(Vector::ONE, f32::NAN).is_empty());
        assert_eq!(index.within(Vector::ONE, f32::INFINITY).len(), 1);
    }

    #[test]
    fn far_apart_entities_do_not_blow_up_the_grid() {
        let points = [
            Vector::splat(-3.0e38),
            Vector::splat(3.0e38),
            Vector::ZERO,
            Vector::ONE,
        ];
        let index = index_of(&points, 0.001);
        assert!(index.grid.cell_count() <= 64);
        assert_eq!(index.within(Vector::ZERO, 2.0).len(), 2);
        assert_eq!(index.within(Vector::splat(3.0e38), 1.0).len(), 1);
    }

    #[test]
    fn an_entry_the_rounded_distance_test_accepts_beyond_a_cell_edge_is_found() {
        // `fl(c - p)` rounds to exactly `radius`, so the entry at `c` passes the distance test,
        // while `p + radius` rounds to just short of the cell edge at `c`.
        let cell_size = 8.274_713e-5;
        let points = [Vector::ZERO, v(cell_size, 0.0)];
        let index = index_of(&points, cell_size);
        let (query, radius) = (v(-1.533_660_8e-4, 0.0), 2.361_132e-4);
        assert_eq!(
            sorted_within(&index, query, radius),
            brute_force_within(&points, query, radius)
        );
    }

    #[test]
    fn a_radius_whose_square_overflows_takes_in_everything() {
        let points = [Vector::ZERO, v(3e19, -3e19), v(-1e30, 5.0)];
        let index = index_of(&points, 10.0);
        assert_eq!(index.within(Vector::ZERO, 2e19).len(), 3);
        assert_eq!(index.within(Vector::ZERO, f32::INFINITY).len(), 3);
    }

    #[test]
    fn a_cell_with_more_entries_than_a_batch_is_scanned_whole() {
        // 300 entries in one cell: the scan lists them in batches of 64.
        let points: Vec<Vector> = (0..300)
            .map(|i| v((i % 20) as f32, (i / 20) as f32) * 0.1)
            .collect();
        let index = index_of(&points, 100.0);
        for (point, radius) in [
            (Vector::ZERO, 10.0),
            (Vector::splat(1.0), 0.5),
            (Vector::X, 0.0),
        ] {
            assert_eq!(
                sorted_within(&index, point, radius),
                brute_force_within(&points, point, radius)
            );
        }
    }

    proptest! {
        #[test]
        fn closest_breaks_ties_and_leaves_out_as_a_scan_does(
            points in prop::collection::vec((-4i8..4, -4i8..4), 1..60),
            query in (-5i8..5, -5i8..5),
            radius in 0.0f32..8.0,
            exclude in 1u32..61,
        ) {
            // Points on a coarse lattice, so that many are equally close.
            let points: Vec<Vector> = points
                .into_iter()
                .map(|(x, y)| v(f32::from(x), f32::from(y)))
                .collect();
            let query = v(f32::from(query.0), f32::from(query.1));
            let index = index_of(&points, 2.0);
            let expected = brute_force_within(&points, query, radius)
                .into_iter()
                .filter(|&e| e != entity(exclude))
                .min_by(|a, b| {
                    let distance = |e: &Entity| points[e.index_u32() as usize - 1].distance_squared(query);
                    distance(a).total_cmp(&distance(b)).then(a.cmp(b))
                });
            let closest = index.closest(query, radius, Some(entity(exclude))).map(|n| n.entity);
            prop_assert_eq!(closest, expected);
        }

        #[test]
        fn within_agrees_with_a_brute_force_scan(
            points in prop::collection::vec(prop::array::uniform::<_, DIMENSIONS>(-500.0f32..500.0), 0..200),
            query in prop::array::uniform::<_, DIMENSIONS>(-600.0f32..600.0),
            radius in 0.0f32..300.0,
            cell_size in 1.0f32..200.0,
        ) {
            let points: Vec<Vector> = points.into_iter().map(Vector::from_array).collect();
            let query = Vector::from_array(query);
            let index = index_of(&points, cell_size);
            let mut found: Vec<Entity> = index.within(query, radius).iter().map(|n| n.entity).collect();
            // Visited in slot order (rows of cells, each left to right), whatever the batches.
            let in_slot_order: Vec<Entity> = index
                .entries
                .iter()
                .filter(|n| n.position.distance_squared(query) <= radius * radius)
                .map(|n| n.entity)
                .collect();
            prop_assert_eq!(&found, &in_slot_order);
            found.sort();
            prop_assert_eq!(&found, &brute_force_within(&points, query, radius));
            let closest = index.closest(query, radius, None).map(|n| n.entity);
            let expected = found.iter().copied().min_by(|a, b| {
                let distance = |e: &Entity| points[e.index_u32() as usize - 1].distance_squared(query);
                distance(a).total_cmp(&distance(b)).then(a.cmp(b))
            });
            prop_assert_eq!(closest, expected);
        }
    }
}
