//! The geometry of a path's spine: nodes joined by straight segments, open or closed back to the
//! first node. What [`FollowPath`](crate::behaviours::FollowPath)'s two methods and its gizmos
//! measure a path with.

use crate::math::Vector;

/// How many segments the spine has: one between each pair of consecutive nodes, plus one from
/// the last back to the first when `closed`, with at least two nodes.
fn segment_count(len: usize, closed: bool) -> usize {
    match len {
        0 | 1 => 0,
        _ if closed => len,
        _ => len - 1,
    }
}

/// The ends of segment `index`.
pub(crate) fn segment(points: &[Vector], closed: bool, index: usize) -> (Vector, Vector) {
    let next = if closed {
        (index + 1) % points.len()
    } else {
        (index + 1).min(points.len() - 1)
    };
    (points[index], points[next])
}

/// How far along segment `start`–`end` (from 0 at `start` to 1 at `end`) its point closest to
/// `point` is. `0.0` for a segment of zero length or a non-finite point.
fn fraction_on_segment(point: Vector, start: Vector, end: Vector) -> f32 {
    let along = end - start;
    let squared = along.length_squared();
    if !(squared > 0.0 && squared.is_finite()) {
        return 0.0;
    }
    let fraction = (point - start).dot(along) / squared;
    if fraction.is_nan() {
        0.0
    } else {
        fraction.clamp(0.0, 1.0)
    }
}

/// The point of the segment from `start` to `end` closest to `point`: its orthogonal projection
/// on the segment's line, clamped to the segment. `start` for a segment of zero length.
pub fn closest_point_on_segment(point: Vector, start: Vector, end: Vector) -> Vector {
    start.lerp(end, fraction_on_segment(point, start, end))
}

/// Where a point lies relative to a path's spine: [`project_onto_path`]'s answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathProjection {
    /// The point of the spine closest to the projected point.
    pub point: Vector,
    /// The segment it lies on: from node `segment` to the next (to the first after the last, on a
    /// closed path).
    pub segment: usize,
    /// How far `point` is along the spine from the first node.
    pub distance_along: f32,
    /// How far the projected point is from the spine.
    pub distance: f32,
}

/// The length of the spine through `points`, back to the first when `closed`.
pub fn path_length(points: &[Vector], closed: bool) -> f32 {
    (0..segment_count(points.len(), closed))
        .map(|index| {
            let (start, end) = segment(points, closed, index);
            start.distance(end)
        })
        .sum()
}

/// The point of the spine through `points` (closed back to the first when `closed`) closest to
/// `point`, with where it lies; on a tie, the earlier segment. A one-node path projects everything
/// onto its node; an empty one gives `None`.
pub fn project_onto_path(points: &[Vector], closed: bool, point: Vector) -> Option<PathProjection> {
    let first = *points.first()?;
    let node = PathProjection {
        point: first,
        segment: 0,
        distance_along: 0.0,
        distance: first.distance(point),
    };
    Some(
        segment_projections(points, closed, point)
            .reduce(|best, projection| {
                if projection.distance < best.distance {
                    projection
                } else {
                    best
                }
            })
            .unwrap_or(node),
    )
}

/// The point of each segment of the spine through `points` closest to `point`, in the spine's
/// order: what [`project_onto_path`] chooses from. Nothing for a path of fewer than two nodes.
pub(crate) fn segment_projections(
    points: &[Vector],
    closed: bool,
    point: Vector,
) -> impl Iterator<Item = PathProjection> {
    let mut along = 0.0;
    (0..segment_count(points.len(), closed)).map(move |index| {
        let (start, end) = segment(points, closed, index);
        let fraction = fraction_on_segment(point, start, end);
        let length = start.distance(end);
        let on_spine = start.lerp(end, fraction);
        let projection = PathProjection {
            point: on_spine,
            segment: index,
            distance_along: along + fraction * length,
            distance: on_spine.distance(point),
        };
        along += length;
        projection
    })
}

/// The point `distance` along the spine through `points` from the first node: clamped to the
/// ends of an open path, wrapped round a `closed` one. `None` for an empty path; the first node
/// for a path of zero (or non-finite) length or a NaN distance.
pub fn point_along_path(points: &[Vector], closed: bool, distance: f32) -> Option<Vector> {
    let first = *points.first()?;
    let total = path_length(points, closed);
    if !(total > 0.0 && total.is_finite()) || distance.is_nan() {
        return Some(first);
    }
    let mut remaining = if closed && distance.is_finite() {
        distance.rem_euclid(total)
    } else {
        distance.clamp(0.0, total)
    };
    let count = segment_count(points.len(), closed);
    for index in 0..count {
        let (start, end) = segment(points, closed, index);
        let length = start.distance(end);
        if remaining <= length {
            return Some(if length > 0.0 {
                start.lerp(end, remaining / length)
            } else {
                start
            });
        }
        remaining -= length;
    }
    // Rounding left a sliver past the last segment: its end.
    Some(segment(points, closed, count - 1).1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{EPSILON, assert_close, l_shape, square, v};

    #[test]
    fn closest_point_on_segment_projects_and_clamps() {
        let (start, end) = (v(0.0, 0.0), v(10.0, 0.0));
        assert_close(
            closest_point_on_segment(v(5.0, 5.0), start, end),
            v(5.0, 0.0),
        );
        assert_close(closest_point_on_segment(v(15.0, 3.0), start, end), end);
        assert_close(closest_point_on_segment(v(-4.0, 2.0), start, end), start);
        // A diagonal: (4, 0) projects onto y = x at (2, 2).
        assert_close(
            closest_point_on_segment(v(4.0, 0.0), v(0.0, 0.0), v(10.0, 10.0)),
            v(2.0, 2.0),
        );
        // Zero length, NaN point: the start.
        assert_close(closest_point_on_segment(v(3.0, 4.0), end, end), end);
        assert_close(
            closest_point_on_segment(v(f32::NAN, 0.0), start, end),
            start,
        );
    }

    #[test]
    fn path_length_counts_the_closing_segment_of_a_loop() {
        assert_eq!(path_length(&square(), false), 300.0);
        assert_eq!(path_length(&square(), true), 400.0);
        assert_eq!(path_length(&[v(3.0, 4.0)], true), 0.0);
        assert_eq!(path_length(&[], false), 0.0);
    }

    #[test]
    fn project_onto_path_finds_the_nearest_segment_and_the_distance_along() {
        // (110, 50) is 10 right of the L's second segment, halfway up it: 100 + 50 along.
        let projection = project_onto_path(&l_shape(), false, v(110.0, 50.0)).unwrap();
        assert_close(projection.point, v(100.0, 50.0));
        assert_eq!(projection.segment, 1);
        assert!((projection.distance_along - 150.0).abs() < EPSILON);
        assert!((projection.distance - 10.0).abs() < EPSILON);
        // (-5, 60) is nearest the square's closing segment (0,100)->(0,0), 40 along it: 340.
        let closed = project_onto_path(&square(), true, v(-5.0, 60.0)).unwrap();
        assert_close(closed.point, v(0.0, 60.0));
        assert_eq!(closed.segment, 3);
        assert!((closed.distance_along - 340.0).abs() < EPSILON);
        // Open, without the closing side: nearest the third side's end (0, 100), √(25 + 1600) ≈
        // 40.3 away, rather than the first node, √(25 + 3600) ≈ 60.2 away.
        let open = project_onto_path(&square(), false, v(-5.0, 60.0)).unwrap();
        assert_close(open.point, v(0.0, 100.0));
        assert_eq!(open.segment, 2);
        // One node: everything projects onto it.
        let single = project_onto_path(&[v(1.0, 1.0)], false, v(4.0, 5.0)).unwrap();
        assert_eq!((single.point, single.distance), (v(1.0, 1.0), 5.0));
        assert!(project_onto_path(&[], false, v(0.0, 0.0)).is_none());
    }

    #[test]
    fn point_along_path_clamps_open_paths_and_wraps_loops() {
        let square = square();
        assert_close(
            point_along_path(&square, false, 150.0).unwrap(),
            v(100.0, 50.0),
        );
        assert_close(
            point_along_path(&square, false, 450.0).unwrap(),
            v(0.0, 100.0),
        );
        assert_close(point_along_path(&square, false, -5.0).unwrap(), v(0.0, 0.0));
        // 450 round a loop of 400 is 50 along the first side; -50 is 50 before the end.
        assert_close(
            point_along_path(&square, true, 450.0).unwrap(),
            v(50.0, 0.0),
        );
        assert_close(
            point_along_path(&square, true, -50.0).unwrap(),
            v(0.0, 50.0),
        );
        assert_close(
            point_along_path(&square, true, f32::NAN).unwrap(),
            v(0.0, 0.0),
        );
        assert_close(
            point_along_path(&square, true, f32::INFINITY).unwrap(),
            v(0.0, 0.0),
        );
        let same = [v(2.0, 2.0), v(2.0, 2.0)];
        assert_eq!(point_along_path(&same, true, 10.0), Some(v(2.0, 2.0)));
        assert_eq!(point_along_path(&[], false, 1.0), None);
    }
}
