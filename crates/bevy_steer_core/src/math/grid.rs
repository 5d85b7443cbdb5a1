//! The uniform grid both indexes are built on: the agents' [`SpatialIndex`](crate::spatial::SpatialIndex)
//! and the [`ObstacleIndex`](crate::obstacles::ObstacleIndex).
//!
//! A grid covers a bounding box with square cells, numbered row by row. Placing an entry and
//! looking cells up go through the same arithmetic ([`UniformGrid::in_cells`]), which is monotonic,
//! so a lookup never misses a cell that holds an entry within its bounds. The entries themselves
//! are kept by the indexes, sorted by cell with a counting sort whose offsets are [`CellStarts`].

use core::ops::Range;

use super::{DIMENSIONS, Vector, widen};

/// A grid of square (in 3D, cubic) cells over a bounding box, numbered row by row (and in 3D
/// layer by layer).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct UniformGrid {
    origin: Vector,
    cell_size: f32,
    /// `1 / cell_size`: placing and looking up both multiply by it.
    inverse_cell_size: f32,
    /// The number of cells along each axis: columns, rows (and layers).
    counts: [usize; DIMENSIONS],
}

/// The cells of a bounding box: along each axis, its first and last cell (inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CellBox {
    pub(crate) first: [usize; DIMENSIONS],
    pub(crate) last: [usize; DIMENSIONS],
}

impl CellBox {
    /// The smallest box holding both.
    ///
    /// Plain loops, inlined: the flocking system calls this and [`area`](Self::area) once per
    /// agent, and written with `array::from_fn` and an iterator they were left as calls, which
    /// cost the 2D flocking step about 6 % of its time after the change to arrays of axes.
    #[inline]
    pub(crate) fn union(self, other: Self) -> Self {
        let mut union = self;
        for axis in 0..DIMENSIONS {
            union.first[axis] = self.first[axis].min(other.first[axis]);
            union.last[axis] = self.last[axis].max(other.last[axis]);
        }
        union
    }

    /// The number of cells.
    #[inline]
    pub(crate) fn area(self) -> usize {
        let mut area = 1;
        for axis in 0..DIMENSIONS {
            area *= self.last[axis] + 1 - self.first[axis];
        }
        area
    }
}

/// The runs of consecutive cells of a [`CellBox`], row by row (and layer by layer): see
/// [`UniformGrid::runs_of`].
#[derive(Clone, Debug)]
pub(crate) struct Runs {
    /// The first cell of the next run.
    first: usize,
    /// A run's cells, less one.
    width: usize,
    /// Cell numbers from a row to the next.
    row_step: usize,
    /// Cell numbers from the row after a layer's last to the next layer's first row.
    next_layer: usize,
    rows: usize,
    /// Runs left in this layer, and layers left after it.
    rows_left: usize,
    layers_left: usize,
}

impl Iterator for Runs {
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        if self.rows_left == 0 {
            if self.layers_left == 0 {
                return None;
            }
            self.layers_left -= 1;
            self.rows_left = self.rows;
            self.first += self.next_layer;
        }
        let run = (self.first, self.first + self.width);
        self.rows_left -= 1;
        self.first += self.row_step;
        Some(run)
    }
}

impl UniformGrid {
    /// A grid of no cells.
    pub(crate) const EMPTY: Self = Self {
        origin: Vector::ZERO,
        cell_size: 1.0,
        inverse_cell_size: 1.0,
        counts: [0; DIMENSIONS],
    };

    /// A grid from `low` to (at least) `high`, with cells `cell_size` wide, or twice, four times...
    /// as wide when that many cells would be more than `most_cells`: entries spread thin then do
    /// not make the grid, and what it costs to build, grow faster than their number. `low` and
    /// `high` must be finite, and `cell_size` positive and finite. In `f64`, where the extent of
    /// any two finite `f32` positions is finite. Entries all at one height (ground units in 3D)
    /// make a grid of one layer, which costs what a 2D grid does.
    pub(crate) fn covering(low: Vector, high: Vector, cell_size: f32, most_cells: f64) -> Self {
        let extent = widen(high) - widen(low);
        let cells_along = |axis: usize, size: f64| (extent[axis] / size).floor() + 1.0;
        let cells = |size: f64| -> f64 {
            (0..DIMENSIONS)
                .map(|axis| cells_along(axis, size))
                .product()
        };
        let mut size = f64::from(cell_size);
        while cells(size) > most_cells {
            size *= 2.0;
        }
        let cell_size = size as f32;
        Self {
            origin: low,
            cell_size,
            inverse_cell_size: cell_size.recip(),
            counts: core::array::from_fn(|axis| cells_along(axis, size) as usize),
        }
    }

    /// The number of cells.
    pub(crate) fn cell_count(&self) -> usize {
        self.counts.iter().product()
    }

    /// Whether the grid has no cell.
    pub(crate) fn is_empty(&self) -> bool {
        self.cell_count() == 0
    }

    /// The near corner of the grid's first cell.
    pub(crate) fn origin(&self) -> Vector {
        self.origin
    }

    /// The far corner of the grid's last cell.
    pub(crate) fn far_corner(&self) -> Vector {
        self.origin + Vector::from_array(self.counts.map(|count| count as f32)) * self.cell_size
    }

    /// `point` measured in cells from the grid's origin.
    #[inline]
    pub(crate) fn in_cells(&self, point: Vector) -> Vector {
        (point - self.origin) * self.inverse_cell_size
    }

    /// The number of the cell at `in_cells` (a point measured in cells), clamped to the grid.
    #[inline]
    pub(crate) fn cell_at(&self, in_cells: Vector) -> usize {
        let mut number = 0;
        for axis in (0..DIMENSIONS).rev() {
            let cell = (in_cells[axis] as u32).min(self.counts[axis] as u32 - 1);
            number = number * self.counts[axis] + cell as usize;
        }
        number
    }

    /// The cells from `low` to `high` (corners measured in cells), clamped to the grid. Float-to-int
    /// casts truncate, which is `floor` for values that are not negative, and saturate, so
    /// negative, infinite and NaN corners clamp to the grid's edges.
    #[inline]
    pub(crate) fn cells_between(&self, low: Vector, high: Vector) -> CellBox {
        CellBox {
            first: core::array::from_fn(|axis| (low[axis] as usize).min(self.counts[axis] - 1)),
            last: core::array::from_fn(|axis| (high[axis] as usize).min(self.counts[axis] - 1)),
        }
    }

    /// The cells the box from `low` to `high` (world positions) touches, clamped to the grid.
    #[inline]
    pub(crate) fn cells_covering(&self, low: Vector, high: Vector) -> CellBox {
        self.cells_between(self.in_cells(low), self.in_cells(high))
    }

    /// The runs of consecutive cells `cells` is made of, one per row (and layer): each run's first
    /// and last cell.
    ///
    /// Counters stepped by addition over the rows (and layers), rather than nested `flat_map`s
    /// (left as calls per item in the hot query loops) or one counter split by division and
    /// remainder (two integer divisions a run, a fifth of a hunter / prey query that finds its
    /// cells empty).
    #[inline]
    pub(crate) fn runs_of(&self, cells: CellBox) -> Runs {
        let rows = cells.last[1] + 1 - cells.first[1];
        // In 2D there is one layer.
        let layers = (cells.first.get(2))
            .zip(cells.last.get(2))
            .map_or(1, |(&first, &last)| last + 1 - first);
        let row_step = self.counts[0];
        Runs {
            first: self.cell(cells.first),
            width: cells.last[0] - cells.first[0],
            row_step,
            // From the row after a layer's last to the next layer's first.
            next_layer: (row_step * self.counts[1]).saturating_sub(rows * row_step),
            rows,
            rows_left: rows,
            layers_left: layers - 1,
        }
    }

    /// The numbers of the cells of `cells`, row by row.
    #[inline]
    pub(crate) fn cells_of(&self, cells: CellBox) -> impl Iterator<Item = usize> + use<> {
        self.runs_of(cells).flat_map(|(first, last)| first..=last)
    }

    /// The number of the cell at `cell` (its column, row and layer).
    #[inline]
    pub(crate) fn cell(&self, cell: [usize; DIMENSIONS]) -> usize {
        let mut number = 0;
        for axis in (0..DIMENSIONS).rev() {
            number = number * self.counts[axis] + cell[axis];
        }
        number
    }
}

/// Where each cell's entries start in a list sorted by cell, the offsets of a counting sort: cell
/// `c`'s entries are `starts[c]..starts[c + 1]`, made from the counts of entries per cell by
/// [`of_parts`](Self::of_parts).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CellStarts(Vec<u32>);

impl CellStarts {
    /// The starts of `cells` cells from the counts of entries per cell of the parts of a list
    /// (`counts[part][cell]`), each part's counts turned into the part's first slot in each cell:
    /// within a cell, the parts' entries follow one another in the parts' order, so a list cut
    /// into parts sorts as it would whole.
    pub(crate) fn of_parts(&mut self, cells: usize, counts: &mut [&mut Vec<u32>]) {
        self.0.clear();
        self.0.reserve(cells + 1);
        let mut slot = 0;
        for cell in 0..cells {
            self.0.push(slot);
            for part in counts.iter_mut() {
                let count = part[cell];
                part[cell] = slot;
                slot += count;
            }
        }
        self.0.push(slot);
    }

    /// The number of entries.
    pub(crate) fn total(&self) -> usize {
        self.0.last().map_or(0, |&total| total as usize)
    }

    /// The entries of the cells `first..=last`, which are consecutive.
    #[inline]
    pub(crate) fn of_cells(&self, first: usize, last: usize) -> Range<usize> {
        self.0[first] as usize..self.0[last + 1] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_runs_of_a_box_are_its_cells_row_by_row_and_layer_by_layer(
            counts in prop::array::uniform::<_, DIMENSIONS>(1_usize..7),
            corners in prop::array::uniform::<_, DIMENSIONS>((0_usize..7, 0_usize..7)),
        ) {
            let grid = UniformGrid { counts, ..UniformGrid::EMPTY };
            let cells = CellBox {
                first: core::array::from_fn(|axis| corners[axis].0.min(corners[axis].1) % counts[axis]),
                last: core::array::from_fn(|axis| corners[axis].0.max(corners[axis].1) % counts[axis]),
            };
            prop_assume!((0..DIMENSIONS).all(|axis| cells.first[axis] <= cells.last[axis]));
            // Every cell of the box, the first axis fastest.
            let mut expected = Vec::new();
            let layers = if DIMENSIONS == 3 { cells.first[DIMENSIONS - 1]..=cells.last[DIMENSIONS - 1] } else { 0..=0 };
            for layer in layers {
                for row in cells.first[1]..=cells.last[1] {
                    for column in cells.first[0]..=cells.last[0] {
                        let mut cell = [column; DIMENSIONS];
                        cell[1] = row;
                        if let Some(third) = cell.get_mut(2) {
                            *third = layer;
                        }
                        expected.push(grid.cell(cell));
                    }
                }
            }
            prop_assert_eq!(grid.cells_of(cells).collect::<Vec<_>>(), expected);
            prop_assert_eq!(grid.runs_of(cells).count(), cells.area() / (cells.last[0] + 1 - cells.first[0]));
        }
    }
}
