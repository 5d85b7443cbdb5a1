//! The 2D build's obstacle shapes: discs, axis-aligned boxes and wall segments.

use bevy::prelude::*;

use super::{box_signed_distance, box_window, round_first_contact, sampled_first_contact};
use crate::geometry::path::closest_point_on_segment;
use crate::math::Vector;

/// The shape of an [`Obstacle`](crate::obstacles::Obstacle), relative to its `Transform`'s translation.
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
    /// outside; for a box, on its edge too for a point inside; at a disc's centre, where every
    /// edge point is as close, the one on `+X`).
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
            Self::Box { half_size } => box_signed_distance(half_size, point - position),
            Self::Segment { end } => {
                point.distance(closest_point_on_segment(point, position, position + end))
            }
        }
    }

    /// How far along the move from `from` by `reach` (0 at `from`, 1 at its end) a body keeping
    /// `room` from the shape placed at `position` first touches it; `None` when it does not. Exact
    /// for circles and boxes (the box grown by `room` with square corners, a little cautious at
    /// them); for segments, tested at points at most `room` apart (along a move up to 65 536 times
    /// as long as `room`).
    pub fn first_contact(
        self,
        position: Vector,
        from: Vector,
        reach: Vector,
        room: f32,
    ) -> Option<f32> {
        match self {
            Self::Circle { radius } => round_first_contact(radius, from - position, reach, room),
            Self::Box { half_size } => {
                // The slabs of the grown box, as `box_window` takes them, kept in this order of
                // operations: through `box_window`, rounding moves the contacts enough to change
                // the crowd-at-a-door figures (40 wide, both ways: 517 / 341 instead of 413 / 347).
                let inverse = Vector::ONE / reach;
                let low = (position - half_size - room - from) * inverse;
                let high = (position + half_size + room - from) * inverse;
                let enter = low.min(high).max_element().max(0.0);
                let leave = low.max(high).min_element().min(1.0);
                (enter <= leave).then_some(enter)
            }
            Self::Segment { end } => {
                // The window: the segment's box grown by `room`, in the segment's own frame.
                let along = end.try_normalize().unwrap_or(Vector::X);
                let local = |v: Vector| Vector::new(v.dot(along), v.perp_dot(along));
                let half_size = Vector::new(end.length() * 0.5 + room, room);
                let window =
                    box_window(half_size, local(from - position - end * 0.5), local(reach));
                sampled_first_contact(
                    |point| self.signed_distance(position, point),
                    from,
                    reach,
                    room,
                    window,
                )
            }
        }
    }

    /// Whether the shape has an inside (a wall segment has none).
    pub fn has_inside(self) -> bool {
        !matches!(self, Self::Segment { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // At the centre every way out is as short: +X.
        assert_eq!(circle.outward_normal(Vector::ZERO, Vector::ZERO), Vector::X);
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
        // A wall 10 long across a move 200 times the room long, 20 ahead: seen within the room of
        // the touch (where a move was tested at 16 points, between which a wall can slip); passing
        // 3 beyond its end, keeping 2: not.
        let wall = ObstacleShape::Segment {
            end: Vector::new(10.0, 0.0),
        };
        let (above, down) = (Vector::new(5.0, 20.0), Vector::new(0.0, -400.0));
        let along = wall.first_contact(Vector::ZERO, above, down, 2.0);
        assert!(
            along.is_some_and(|along| (18.0..=20.0).contains(&(along * 400.0))),
            "{along:?}"
        );
        let beyond = Vector::new(13.0, 20.0);
        assert_eq!(wall.first_contact(Vector::ZERO, beyond, down, 2.0), None);
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
}
