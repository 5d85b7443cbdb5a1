//! Obstacles agents steer round, and the grid that finds the few near an agent's path.
//!
//! An obstacle is an entity with an [`Obstacle`] and a `Transform`: the shape
//! ([`ObstacleShape`], in [`geometry::shapes`](crate::geometry::shapes)) is placed at the
//! translation (a segment starts there). Every step, in [`SteeringSystems::Index`], the
//! [`ObstacleIndex`] is rebuilt from those within reach of the avoiding agents, so obstacles may
//! move. Each obstacle goes into every grid cell its bounding box touches, so a query costs the
//! obstacles near it, not all of them; one too large for the grid, or unbounded (a plane in 3D),
//! is visited by every query.
//!
//! [`SteeringSystems::Index`]: crate::SteeringSystems::Index

use bevy::prelude::*;

pub use crate::geometry::shapes::ObstacleShape;
use crate::math::grid::{CellStarts, UniformGrid};
use crate::math::{Vector, translation_of};

/// Something agents with [`AvoidObstacles`](crate::behaviours::AvoidObstacles) steer round.
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

#[cfg(feature = "2d")]
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
            Transform::from_translation(translation_of(from)),
        )
    }
}

#[cfg(feature = "3d")]
impl Obstacle {
    /// A sphere of `radius`.
    pub fn sphere(radius: f32) -> Self {
        Self {
            shape: ObstacleShape::Sphere { radius },
        }
    }

    /// An axis-aligned box of `size`, centred on the translation.
    pub fn cuboid(size: Vector) -> Self {
        Self {
            shape: ObstacleShape::Box {
                half_size: size / 2.0,
            },
        }
    }

    /// A box of `size` turned by `rotation`, centred on the translation.
    pub fn rotated_cuboid(size: Vector, rotation: Quat) -> Self {
        Self {
            shape: ObstacleShape::RotatedBox {
                half_size: size / 2.0,
                rotation,
            },
        }
    }

    /// A wall: a rectangle `width` by `height` of no thickness, centred on `centre` and facing
    /// `normal` (its height along `up`'s part at right angles to `normal`), with the `Transform`
    /// that places it: spawn both. A `normal` that is zero or not finite faces +Z.
    pub fn wall(
        centre: Vector,
        normal: Vector,
        up: Vector,
        width: f32,
        height: f32,
    ) -> (Self, Transform) {
        let facing = crate::math::direction_or_zero(normal);
        let facing = if facing == Vector::ZERO {
            Vector::Z
        } else {
            facing
        };
        let up = crate::math::sideways(facing, up);
        let rotation = Quat::from_mat3(&Mat3::from_cols(up.cross(facing), up, facing));
        (
            Self {
                shape: ObstacleShape::wall(width, height, rotation),
            },
            Transform::from_translation(translation_of(centre)),
        )
    }
}

#[cfg(feature = "3d")]
impl Obstacle {
    /// An infinite plane through `point` facing `normal`: everything behind it is solid (see
    /// [`ObstacleShape::Plane`]), with the `Transform` that places it: spawn both. A `normal` that
    /// is zero or not finite makes the obstacle invalid: agents do not see it, and a warning is
    /// logged once.
    pub fn plane(point: Vector, normal: Vector) -> (Self, Transform) {
        (
            Self {
                shape: ObstacleShape::Plane {
                    normal: crate::math::direction_or_zero(normal),
                },
            },
            Transform::from_translation(translation_of(point)),
        )
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
    /// The grid as built: its cells are wider than `cell_size` when the obstacles are spread thin.
    grid: UniformGrid,
    /// Where each cell's entries start in `cell_entries`.
    cell_starts: CellStarts,
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
            grid: UniformGrid::EMPTY,
            cell_starts: CellStarts::default(),
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
        self.cell_entries.clear();
        self.large.clear();
        // Unbounded obstacles (a plane, or bounds that overflow) are in no cell: every query
        // visits them, and the grid covers the others.
        let bounded = |obstacle: &&IndexedObstacle| {
            let (low, high) = obstacle.shape.bounds(obstacle.position);
            low.is_finite() && high.is_finite()
        };
        let Some((low, high)) = self
            .obstacles
            .iter()
            .filter(bounded)
            .map(|obstacle| obstacle.shape.bounds(obstacle.position))
            .reduce(|(low, high), (l, h)| (low.min(l), high.max(h)))
        else {
            self.large.extend(0..self.obstacles.len() as u32);
            self.grid = UniformGrid::EMPTY;
            self.cell_starts.of_parts(0, &mut []);
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
        let most_cells = (16 * self.obstacles.len()).max(MOST_CELLS) as f64;
        self.grid = UniformGrid::covering(low, high, cell_size, most_cells);
        // Count, then place (a counting sort by cell).
        let grid = self.grid;
        let mut next = vec![0; grid.cell_count()];
        let mut spans = Vec::with_capacity(self.obstacles.len());
        for (index, obstacle) in self.obstacles.iter().enumerate() {
            let (low, high) = obstacle.shape.bounds(obstacle.position);
            let span = bounded(&obstacle).then(|| grid.cells_covering(low, high));
            let Some(span) = span.filter(|span| span.area() <= MOST_CELLS_PER_OBSTACLE) else {
                self.large.push(index as u32);
                spans.push(None);
                continue;
            };
            grid.cells_of(span).for_each(|cell| next[cell] += 1);
            spans.push(Some(span));
        }
        // The counts become each cell's next free slot.
        self.cell_starts
            .of_parts(grid.cell_count(), &mut [&mut next]);
        self.cell_entries.resize(self.cell_starts.total(), u32::MAX);
        for (index, span) in spans.into_iter().enumerate() {
            for cell in span.into_iter().flat_map(|span| grid.cells_of(span)) {
                self.cell_entries[next[cell] as usize] = index as u32;
                next[cell] += 1;
            }
        }
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
        if self.grid.is_empty() || !(low.is_finite() && high.is_finite()) {
            return;
        }
        if high.cmplt(self.grid.origin()).any() || low.cmpgt(self.grid.far_corner()).any() {
            return;
        }
        // Runs, then their cells, in plain loops: a `flat_map` over the cells was left as a call
        // per cell.
        for (first, last) in self.grid.runs_of(self.grid.cells_covering(low, high)) {
            for cell in first..=last {
                for &index in &self.cell_entries[self.cell_starts.of_cells(cell, cell)] {
                    visit(&self.obstacles[index as usize]);
                }
            }
        }
    }
}

#[cfg(all(test, feature = "2d"))]
mod tests {
    use super::*;
    use crate::test_support::v;

    fn indexed(i: u32, position: Vector, shape: ObstacleShape) -> IndexedObstacle {
        IndexedObstacle {
            entity: Entity::from_raw_u32(i + 1).unwrap(),
            position,
            shape,
        }
    }

    #[test]
    fn queries_find_every_obstacle_that_touches_the_box_and_few_others() {
        // A thousand small circles on a 32 x 32 grid 50 apart, and one long wall.
        let mut obstacles: Vec<IndexedObstacle> = (0..1024)
            .map(|i| {
                let position = v((i % 32) as f32, (i / 32) as f32) * 50.0;
                indexed(i, position, ObstacleShape::Circle { radius: 5.0 })
            })
            .collect();
        let wall = ObstacleShape::Segment {
            end: v(1500.0, 0.0),
        };
        obstacles.push(indexed(5000, v(0.0, 775.0), wall));
        let mut index = ObstacleIndex::default();
        index.rebuild(obstacles.clone());
        for (low, high) in [
            (v(90.0, 90.0), v(160.0, 110.0)),
            (v(-500.0, 760.0), v(-400.0, 790.0)),
            (v(700.0, 770.0), v(720.0, 780.0)),
            (v(-1e9, -1e9), v(1e9, 1e9)),
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
