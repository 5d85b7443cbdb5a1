//! Obstacles agents steer round: circles, axis-aligned boxes and wall segments, and the grid that
//! finds the few near an agent's path.
//!
//! An obstacle is an entity with an [`Obstacle`] and a `Transform`: the shape is placed at the
//! translation (a segment starts there). Every step, in [`SteeringSystems::Index`], the
//! [`ObstacleIndex`] is rebuilt from those within reach of the avoiding agents, so obstacles may
//! move. Each obstacle goes into every grid cell its bounding box touches, so a query costs the
//! obstacles near it, not all of them.
//!
//! The geometry (signed distances, outward normals) is 2D: the one place besides the wander circle
//! and the angles that a 3D build would replace.
//!
//! [`SteeringSystems::Index`]: crate::SteeringSystems::Index

use bevy::prelude::*;

use crate::Vector;
use crate::behaviours::AvoidObstacles;
use crate::forces::closest_point_on_segment;

/// The shape of an [`Obstacle`], relative to its `Transform`'s translation.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, PartialEq, Clone)]
pub enum ObstacleShape {
    /// A disc of this radius round the translation.
    Circle {
        /// The radius.
        radius: f32,
    },
    /// An axis-aligned box centred on the translation.
    Box {
        /// Half the box's width and height.
        half_size: Vector,
    },
    /// A wall: the segment from the translation to the translation plus `end`, of no thickness
    /// (agents keep their own clearance from it).
    Segment {
        /// The far end, relative to the translation.
        end: Vector,
    },
}

impl Default for ObstacleShape {
    fn default() -> Self {
        Self::Circle { radius: 25.0 }
    }
}

/// Something agents with [`AvoidObstacles`] steer round.
///
/// A shape with a size that is negative or not finite, or an obstacle whose position is not finite,
/// is left out of the [`ObstacleIndex`] (agents do not see it) and a warning is logged once per
/// entity.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Transform)]
pub struct Obstacle {
    /// Its shape.
    pub shape: ObstacleShape,
}

impl Obstacle {
    /// A disc of `radius`.
    pub fn circle(radius: f32) -> Self {
        Self {
            shape: ObstacleShape::Circle { radius },
        }
    }

    /// An axis-aligned box of `size` (width and height), centred on the translation.
    pub fn rectangle(size: Vector) -> Self {
        Self {
            shape: ObstacleShape::Box {
                half_size: size / 2.0,
            },
        }
    }

    /// A wall from the translation to the translation plus `end`.
    pub fn segment(end: Vector) -> Self {
        Self {
            shape: ObstacleShape::Segment { end },
        }
    }

    /// A wall from `from` to `to`, with the `Transform` that places it: spawn both.
    pub fn wall(from: Vector, to: Vector) -> (Self, Transform) {
        (
            Self::segment(to - from),
            Transform::from_translation(from.extend(0.0)),
        )
    }
}

impl ObstacleShape {
    /// Whether the shape's sizes are finite and not negative.
    pub fn is_valid(self) -> bool {
        match self {
            Self::Circle { radius } => radius >= 0.0 && radius.is_finite(),
            Self::Box { half_size } => half_size.cmpge(Vector::ZERO).all() && half_size.is_finite(),
            Self::Segment { end } => end.is_finite(),
        }
    }

    /// The corners of the shape's bounding box, placed at `position`.
    pub fn bounds(self, position: Vector) -> (Vector, Vector) {
        match self {
            Self::Circle { radius } => (position - radius, position + radius),
            Self::Box { half_size } => (position - half_size, position + half_size),
            Self::Segment { end } => (position.min(position + end), position.max(position + end)),
        }
    }

    /// The point of the shape placed at `position` closest to `point` (on its edge for a point
    /// outside; for a box, on its edge too for a point inside).
    pub fn closest_point(self, position: Vector, point: Vector) -> Vector {
        match self {
            Self::Circle { radius } => {
                let offset = point - position;
                let length = offset.length();
                if length > 0.0 {
                    position + offset * (radius / length)
                } else {
                    // The centre: any edge point is as close; take one on the x axis.
                    position + Vector::X * radius
                }
            }
            Self::Box { half_size } => {
                let offset = point - position;
                let clamped = offset.clamp(-half_size, half_size);
                if clamped != offset {
                    return position + clamped;
                }
                // Inside: the nearest face.
                let gap = half_size - offset.abs();
                if gap.x <= gap.y {
                    position + Vector::new(half_size.x.copysign(offset.x), offset.y)
                } else {
                    position + Vector::new(offset.x, half_size.y.copysign(offset.y))
                }
            }
            Self::Segment { end } => closest_point_on_segment(point, position, position + end),
        }
    }

    /// How far `point` is outside the shape placed at `position`: negative inside (by how much),
    /// zero on the edge.
    pub fn signed_distance(self, position: Vector, point: Vector) -> f32 {
        match self {
            Self::Circle { radius } => point.distance(position) - radius,
            Self::Box { half_size } => {
                let outside = (point - position).abs() - half_size;
                outside.max(Vector::ZERO).length() + outside.max_element().min(0.0)
            }
            Self::Segment { end } => {
                point.distance(closest_point_on_segment(point, position, position + end))
            }
        }
    }

    /// How far along the move from `from` by `reach` (0 at `from`, 1 at its end) a body keeping
    /// `room` from the shape placed at `position` first touches it; `None` when it does not. Exact
    /// for circles and boxes (the box grown by `room` with square corners, a little cautious at
    /// them); for segments, tested at points at most `room` apart.
    pub fn first_contact(
        self,
        position: Vector,
        from: Vector,
        reach: Vector,
        room: f32,
    ) -> Option<f32> {
        match self {
            Self::Circle { radius } => {
                let offset = from - position;
                let touching = radius + room;
                let c = offset.length_squared() - touching * touching;
                if c <= 0.0 {
                    return Some(0.0);
                }
                let a = reach.length_squared();
                let b = offset.dot(reach);
                let discriminant = b * b - a * c;
                if a == 0.0 || discriminant < 0.0 {
                    return None;
                }
                let along = (-b - discriminant.sqrt()) / a;
                (0.0..=1.0).contains(&along).then_some(along)
            }
            Self::Box { half_size } => {
                // The slabs of the grown box, all axes at once (a zero component of `reach` gives
                // infinite bounds, or NaN where `from` lies on a face, which `min` / `max` skip).
                let inverse = Vector::ONE / reach;
                let low = (position - half_size - room - from) * inverse;
                let high = (position + half_size + room - from) * inverse;
                let enter = low.min(high).max_element().max(0.0);
                let leave = low.max(high).min_element().min(1.0);
                (enter <= leave).then_some(enter)
            }
            Self::Segment { .. } => {
                let samples = (reach.length() / room.max(1.0)).ceil();
                let samples = if samples.is_finite() {
                    (samples as usize).clamp(1, 16)
                } else {
                    1
                };
                (0..=samples)
                    .map(|sample| sample as f32 / samples as f32)
                    .find(|&along| self.signed_distance(position, from + reach * along) < room)
            }
        }
    }

    /// The unit direction out of the shape placed at `position`, at `point`: away from its closest
    /// point, and for a point inside a box or a circle, out through the nearest edge. Zero for a
    /// point on a segment, or at a circle's centre.
    pub fn outward_normal(self, position: Vector, point: Vector) -> Vector {
        let closest = self.closest_point(position, point);
        let away = crate::forces::direction_or_zero(point - closest);
        if self.signed_distance(position, point) < 0.0 {
            -away
        } else {
            away
        }
    }
}

/// An obstacle as the index holds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexedObstacle {
    /// The obstacle's entity.
    pub entity: Entity,
    /// Its `Transform`'s translation.
    pub position: Vector,
    /// Its shape.
    pub shape: ObstacleShape,
}

/// The cells a grid may have whatever the number of obstacles (4 MiB of cell starts).
const MOST_CELLS: usize = 1 << 20;

/// The most cells one obstacle is put in; a larger one goes into a list every query reads.
const MOST_CELLS_PER_OBSTACLE: usize = 1024;

/// A uniform grid of the obstacles, rebuilt every step: each obstacle is listed in every cell its
/// bounding box touches.
#[derive(Resource, Debug, Clone)]
pub struct ObstacleIndex {
    /// The width of the grid's cells. Default `64.0`; about the size of the obstacles and the
    /// agents' look-ahead is best.
    pub cell_size: f32,
    obstacles: Vec<IndexedObstacle>,
    origin: Vector,
    /// The width of the cells as built: wider than `cell_size` when the obstacles are spread thin.
    grid_size: f32,
    columns: usize,
    rows: usize,
    /// `cell_starts[c]..cell_starts[c + 1]` are the entries of cell `c` in `cell_entries`.
    cell_starts: Vec<u32>,
    /// Indices into `obstacles`, cell by cell.
    cell_entries: Vec<u32>,
    /// Obstacles too large for the grid: every query visits them.
    large: Vec<u32>,
}

impl Default for ObstacleIndex {
    fn default() -> Self {
        Self::new(64.0)
    }
}

impl ObstacleIndex {
    /// An empty index with cells `cell_size` wide.
    pub fn new(cell_size: f32) -> Self {
        Self {
            cell_size,
            obstacles: Vec::new(),
            origin: Vector::ZERO,
            grid_size: cell_size,
            columns: 0,
            rows: 0,
            cell_starts: Vec::new(),
            cell_entries: Vec::new(),
            large: Vec::new(),
        }
    }

    /// The obstacles indexed, in the order they were given.
    pub fn obstacles(&self) -> &[IndexedObstacle] {
        &self.obstacles
    }

    /// Replaces the index's obstacles. Obstacles that are not valid (see [`Obstacle`]) must be left
    /// out by the caller.
    pub fn rebuild(&mut self, obstacles: impl IntoIterator<Item = IndexedObstacle>) {
        self.obstacles.clear();
        self.obstacles.extend(obstacles);
        self.cell_starts.clear();
        self.cell_entries.clear();
        self.large.clear();
        let Some((low, high)) = self
            .obstacles
            .iter()
            .map(|obstacle| obstacle.shape.bounds(obstacle.position))
            .reduce(|(low, high), (l, h)| (low.min(l), high.max(h)))
        else {
            self.columns = 0;
            self.rows = 0;
            return;
        };
        let cell_size = if self.cell_size > 0.0 && self.cell_size.is_finite() {
            self.cell_size
        } else {
            64.0
        };
        // Wider cells only when the obstacles are spread so thin that the grid would have many
        // more cells than obstacles and than a million: below that, far-away obstacles leave the
        // cells near the agents, and what a query costs, as they are.
        let most_cells = (16 * self.obstacles.len()).max(MOST_CELLS) as f32;
        let extent = high - low;
        let mut size = cell_size;
        while ((extent.x / size).floor() + 1.0) * ((extent.y / size).floor() + 1.0) > most_cells {
            size *= 2.0;
        }
        self.origin = low;
        self.grid_size = size;
        self.columns = (extent.x / size) as usize + 1;
        self.rows = (extent.y / size) as usize + 1;
        let inverse = 1.0 / size;
        // Count, then place (a counting sort by cell).
        let cells = self.columns * self.rows;
        let mut counts = vec![0u32; cells + 1];
        let mut spans = Vec::with_capacity(self.obstacles.len());
        for (index, obstacle) in self.obstacles.iter().enumerate() {
            let (low, high) = obstacle.shape.bounds(obstacle.position);
            let span = self.cell_span(low, high, inverse);
            let (columns, rows) = (span.1 - span.0 + 1, span.3 - span.2 + 1);
            if columns * rows > MOST_CELLS_PER_OBSTACLE {
                self.large.push(index as u32);
                spans.push(None);
                continue;
            }
            for row in span.2..=span.3 {
                for column in span.0..=span.1 {
                    counts[row * self.columns + column + 1] += 1;
                }
            }
            spans.push(Some(span));
        }
        for cell in 0..cells {
            counts[cell + 1] += counts[cell];
        }
        self.cell_entries.resize(counts[cells] as usize, u32::MAX);
        let mut next = counts.clone();
        for (index, span) in spans.into_iter().enumerate() {
            let Some(span) = span else { continue };
            for row in span.2..=span.3 {
                for column in span.0..=span.1 {
                    let slot = &mut next[row * self.columns + column];
                    self.cell_entries[*slot as usize] = index as u32;
                    *slot += 1;
                }
            }
        }
        self.cell_starts = counts;
    }

    /// The columns and rows (first, last column, first, last row) of the cells the box from `low`
    /// to `high` touches, clamped to the grid.
    fn cell_span(&self, low: Vector, high: Vector, inverse: f32) -> (usize, usize, usize, usize) {
        let low = ((low - self.origin) * inverse).max(Vector::ZERO);
        let high = ((high - self.origin) * inverse).max(Vector::ZERO);
        (
            (low.x as usize).min(self.columns - 1),
            (high.x as usize).min(self.columns - 1),
            (low.y as usize).min(self.rows - 1),
            (high.y as usize).min(self.rows - 1),
        )
    }

    /// Calls `visit` for every obstacle whose bounding box may touch the box from `low` to `high`
    /// (some more than once, and some that do not touch it: `visit` tests the shapes).
    pub fn for_each_near(
        &self,
        low: Vector,
        high: Vector,
        mut visit: impl FnMut(&IndexedObstacle),
    ) {
        for &index in &self.large {
            visit(&self.obstacles[index as usize]);
        }
        if self.columns == 0 || !(low.is_finite() && high.is_finite()) {
            return;
        }
        let grid_high =
            self.origin + Vector::new(self.columns as f32, self.rows as f32) * self.grid_size;
        if high.x < self.origin.x
            || high.y < self.origin.y
            || low.x > grid_high.x
            || low.y > grid_high.y
        {
            return;
        }
        let span = self.cell_span(low, high, 1.0 / self.grid_size);
        for row in span.2..=span.3 {
            for column in span.0..=span.1 {
                let cell = row * self.columns + column;
                let entries = self.cell_starts[cell] as usize..self.cell_starts[cell + 1] as usize;
                for &index in &self.cell_entries[entries] {
                    visit(&self.obstacles[index as usize]);
                }
            }
        }
    }
}

/// Rebuilds the [`ObstacleIndex`] from the obstacles' current positions, in
/// [`SteeringSystems::Index`](crate::SteeringSystems::Index), keeping only the obstacles within
/// reach of an agent with [`AvoidObstacles`] this step (the bounding box of those agents, grown by
/// the longest look-ahead and clearance among them): obstacles nowhere near cost nothing but this
/// filter. An obstacle whose shape or position is not valid is left out, with a warning once per
/// entity.
pub fn rebuild_obstacle_index(
    mut index: ResMut<ObstacleIndex>,
    obstacles: Query<(Entity, &Obstacle, &Transform)>,
    avoiders: Query<(&Transform, &AvoidObstacles)>,
    mut warned: Local<bevy::ecs::entity::EntityHashSet>,
) {
    // No obstacles (most scenes without them): no pass over the agents either.
    if obstacles.is_empty() {
        return index.rebuild([]);
    }
    let reachable = avoiders
        .iter()
        .filter(|(transform, avoid)| avoid.active() && transform.translation.is_finite())
        .map(|(transform, avoid)| {
            let position = transform.translation.truncate();
            (position, position, avoid.reach())
        })
        .reduce(|(low, high, reach), (l, h, r)| (low.min(l), high.max(h), reach.max(r)))
        .map(|(low, high, reach)| (low - reach, high + reach));
    index.rebuild(obstacles.iter().filter_map(|(entity, obstacle, transform)| {
        let position = transform.translation.truncate();
        if !(obstacle.shape.is_valid() && position.is_finite()) {
            if warned.insert(entity) {
                warn!(
                    "bevy_steer: obstacle {entity} has a size that is negative or not finite, or a \
                     position that is not finite ({:?} at {position}); agents do not see it",
                    obstacle.shape
                );
            }
            return None;
        }
        let (low, high) = obstacle.shape.bounds(position);
        let near = reachable.is_some_and(|(reach_low, reach_high)| {
            low.cmple(reach_high).all() && high.cmpge(reach_low).all()
        });
        near.then_some(IndexedObstacle {
            entity,
            position,
            shape: obstacle.shape,
        })
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexed(i: u32, position: Vector, shape: ObstacleShape) -> IndexedObstacle {
        IndexedObstacle {
            entity: Entity::from_raw_u32(i + 1).unwrap(),
            position,
            shape,
        }
    }

    #[test]
    fn signed_distances_and_normals_by_hand() {
        let circle = ObstacleShape::Circle { radius: 10.0 };
        assert_eq!(
            circle.signed_distance(Vector::ZERO, Vector::new(0.0, 15.0)),
            5.0
        );
        assert_eq!(
            circle.signed_distance(Vector::ZERO, Vector::new(0.0, 4.0)),
            -6.0
        );
        assert_eq!(
            circle.outward_normal(Vector::ZERO, Vector::new(0.0, 4.0)),
            Vector::Y
        );
        let block = ObstacleShape::Box {
            half_size: Vector::new(10.0, 5.0),
        };
        assert_eq!(
            block.signed_distance(Vector::ZERO, Vector::new(13.0, 9.0)),
            5.0
        );
        assert_eq!(
            block.signed_distance(Vector::ZERO, Vector::new(8.0, 0.0)),
            -2.0
        );
        assert_eq!(
            block.outward_normal(Vector::ZERO, Vector::new(8.0, 0.0)),
            Vector::X
        );
        assert_eq!(
            block.outward_normal(Vector::ZERO, Vector::new(0.0, -4.0)),
            -Vector::Y
        );
        let wall = ObstacleShape::Segment {
            end: Vector::new(10.0, 0.0),
        };
        assert_eq!(
            wall.signed_distance(Vector::ZERO, Vector::new(5.0, 3.0)),
            3.0
        );
        assert_eq!(
            wall.signed_distance(Vector::ZERO, Vector::new(14.0, 3.0)),
            5.0
        );
        assert_eq!(
            wall.outward_normal(Vector::ZERO, Vector::new(5.0, -3.0)),
            -Vector::Y
        );
    }

    #[test]
    fn first_contacts_by_hand() {
        let (from, reach) = (Vector::ZERO, Vector::new(100.0, 0.0));
        // A circle of 10 at x = 50, room 5: touched when 15 from its centre, at x = 35.
        let circle = ObstacleShape::Circle { radius: 10.0 };
        let along = circle.first_contact(Vector::new(50.0, 0.0), from, reach, 5.0);
        assert!((along.unwrap() - 0.35).abs() < 1e-6, "{along:?}");
        // Passing 16 from its centre: no contact; ending short of it: none either.
        assert_eq!(
            circle.first_contact(Vector::new(50.0, 16.0), from, reach, 5.0),
            None
        );
        assert_eq!(
            circle.first_contact(Vector::new(150.0, 0.0), from, reach, 5.0),
            None
        );
        // A box 20 wide at x = 60, room 5: its grown face at x = 45; moving along y, outside it: none.
        let block = ObstacleShape::Box {
            half_size: Vector::new(10.0, 10.0),
        };
        let along = block.first_contact(Vector::new(60.0, 0.0), from, reach, 5.0);
        assert!((along.unwrap() - 0.45).abs() < 1e-6, "{along:?}");
        let sideways = Vector::new(0.0, 100.0);
        assert_eq!(
            block.first_contact(Vector::new(60.0, 0.0), from, sideways, 5.0),
            None
        );
        // Standing still inside the grown box: at once.
        assert_eq!(
            block.first_contact(Vector::new(10.0, 0.0), from, Vector::ZERO, 5.0),
            Some(0.0)
        );
    }

    #[test]
    fn bad_sizes_are_not_valid() {
        assert!(!ObstacleShape::Circle { radius: f32::NAN }.is_valid());
        assert!(!ObstacleShape::Circle { radius: -1.0 }.is_valid());
        assert!(
            !ObstacleShape::Box {
                half_size: Vector::new(1.0, f32::INFINITY)
            }
            .is_valid()
        );
        assert!(ObstacleShape::Circle { radius: 0.0 }.is_valid());
    }

    #[test]
    fn queries_find_every_obstacle_that_touches_the_box_and_few_others() {
        // A thousand small circles on a 32 x 32 grid 50 apart, and one long wall.
        let mut obstacles: Vec<IndexedObstacle> = (0..1024)
            .map(|i| {
                let position = Vector::new((i % 32) as f32, (i / 32) as f32) * 50.0;
                indexed(i, position, ObstacleShape::Circle { radius: 5.0 })
            })
            .collect();
        let wall = ObstacleShape::Segment {
            end: Vector::new(1500.0, 0.0),
        };
        obstacles.push(indexed(5000, Vector::new(0.0, 775.0), wall));
        let mut index = ObstacleIndex::default();
        index.rebuild(obstacles.clone());
        for (low, high) in [
            (Vector::new(90.0, 90.0), Vector::new(160.0, 110.0)),
            (Vector::new(-500.0, 760.0), Vector::new(-400.0, 790.0)),
            (Vector::new(700.0, 770.0), Vector::new(720.0, 780.0)),
            (Vector::new(-1e9, -1e9), Vector::new(1e9, 1e9)),
        ] {
            let mut seen = Vec::new();
            index.for_each_near(low, high, |obstacle| seen.push(obstacle.entity));
            for obstacle in &obstacles {
                let (l, h) = obstacle.shape.bounds(obstacle.position);
                let touches = l.cmple(high).all() && h.cmpge(low).all();
                assert!(
                    !touches || seen.contains(&obstacle.entity),
                    "{obstacle:?} missed"
                );
            }
            if high.x - low.x < 200.0 {
                seen.sort();
                seen.dedup();
                assert!(seen.len() < 40, "{} visited for a small box", seen.len());
            }
        }
        // NaN boxes and an empty index find nothing and do not panic.
        index.for_each_near(Vector::NAN, Vector::NAN, |_| panic!("found"));
        ObstacleIndex::default().for_each_near(Vector::ZERO, Vector::ONE, |_| panic!("found"));
    }
}
