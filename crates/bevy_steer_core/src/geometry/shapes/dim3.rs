//! The 3D build's obstacle shapes: spheres, axis-aligned and rotated boxes, walls (rotated
//! boxes of no thickness) and infinite planes (half-spaces).

use bevy::prelude::*;

use super::{box_signed_distance, box_window, round_first_contact, sampled_first_contact};
use crate::math::{Vector, direction_or_zero};

/// The shape of an [`Obstacle`](crate::obstacles::Obstacle), relative to its `Transform`'s
/// translation (its rotation is not read: a rotated box carries its own).
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, PartialEq, Clone)]
pub enum ObstacleShape {
    /// A sphere of this radius round the translation.
    Sphere {
        /// The radius.
        radius: f32,
    },
    /// An axis-aligned box centred on the translation.
    Box {
        /// Half the box's size along x, y and z.
        half_size: Vector,
    },
    /// A box centred on the translation, turned by `rotation`. A `half_size.z` of zero makes a
    /// wall: a rectangle of no thickness (agents keep their own clearance from it), see
    /// [`wall`](Self::wall).
    RotatedBox {
        /// Half the box's size along its own x, y and z.
        half_size: Vector,
        /// Its rotation (normalised when used; one that is not finite, or of a length below a
        /// thousandth or above a thousand, makes the shape invalid).
        rotation: Quat,
    },
    /// An infinite plane through the translation, facing `normal`: everything behind it is solid
    /// (a half-space), so a point behind the plane is inside. For floors, ceilings and walls
    /// without ends.
    Plane {
        /// The direction the plane faces, out of the solid side (normalised when used; one that
        /// is zero or not finite makes the shape invalid).
        normal: Vector,
    },
}

impl Default for ObstacleShape {
    fn default() -> Self {
        Self::Sphere { radius: 25.0 }
    }
}

impl ObstacleShape {
    /// A wall: a rectangle `width` by `height` in its own XY plane, of no thickness, facing its
    /// own +Z turned by `rotation`.
    pub fn wall(width: f32, height: f32, rotation: Quat) -> Self {
        Self::RotatedBox {
            half_size: Vector::new(width, height, 0.0) / 2.0,
            rotation,
        }
    }

    /// Whether the shape's sizes are finite and not negative (and a rotation finite, of a length
    /// between a thousandth and a thousand: normalising one far outside that loses it).
    pub fn is_valid(self) -> bool {
        let valid_half_size =
            |half_size: Vector| half_size.cmpge(Vector::ZERO).all() && half_size.is_finite();
        match self {
            Self::Sphere { radius } => radius >= 0.0 && radius.is_finite(),
            Self::Box { half_size } => valid_half_size(half_size),
            Self::RotatedBox {
                half_size,
                rotation,
            } => {
                valid_half_size(half_size)
                    && rotation.is_finite()
                    && (1e-6..=1e6).contains(&rotation.length_squared())
            }
            Self::Plane { normal } => direction_or_zero(normal) != Vector::ZERO,
        }
    }

    /// Whether the shape has an inside (a wall, of no thickness, has none).
    pub fn has_inside(self) -> bool {
        match self {
            Self::RotatedBox { half_size, .. } => half_size.min_element() > 0.0,
            _ => true,
        }
    }

    /// The corners of the shape's bounding box, placed at `position`: infinite for a plane.
    pub fn bounds(self, position: Vector) -> (Vector, Vector) {
        match self {
            Self::Plane { .. } => (Vector::NEG_INFINITY, Vector::INFINITY),
            Self::Sphere { radius } => (position - radius, position + radius),
            Self::Box { half_size } => (position - half_size, position + half_size),
            Self::RotatedBox {
                half_size,
                rotation,
            } => {
                // The box's extent along each world axis: its half size through the absolute
                // rotation matrix.
                let matrix = Mat3::from_quat(rotation.normalize());
                let extent = Mat3::from_cols(
                    matrix.x_axis.abs(),
                    matrix.y_axis.abs(),
                    matrix.z_axis.abs(),
                ) * half_size;
                (position - extent, position + extent)
            }
        }
    }

    /// The point of the shape placed at `position` closest to `point` (on its surface for a point
    /// outside; for a box, on its surface too for a point inside; at a sphere's centre, where
    /// every surface point is as close, the one on `+X`).
    pub fn closest_point(self, position: Vector, point: Vector) -> Vector {
        match self {
            Self::Sphere { radius } => {
                let offset = point - position;
                let length = offset.length();
                if length > 0.0 {
                    position + offset * (radius / length)
                } else {
                    // The centre: any surface point is as close; take one on the x axis.
                    position + Vector::X * radius
                }
            }
            Self::Box { half_size } => position + box_closest(half_size, point - position),
            Self::RotatedBox {
                half_size,
                rotation,
            } => {
                let rotation = rotation.normalize();
                position
                    + rotation * box_closest(half_size, rotation.inverse() * (point - position))
            }
            Self::Plane { normal } => {
                let normal = direction_or_zero(normal);
                point - normal * (point - position).dot(normal)
            }
        }
    }

    /// How far `point` is outside the shape placed at `position`: negative inside (by how much),
    /// zero on the surface.
    pub fn signed_distance(self, position: Vector, point: Vector) -> f32 {
        match self {
            Self::Sphere { radius } => point.distance(position) - radius,
            Self::Box { half_size } => box_signed_distance(half_size, point - position),
            Self::RotatedBox {
                half_size,
                rotation,
            } => box_signed_distance(
                half_size,
                rotation.normalize().inverse() * (point - position),
            ),
            Self::Plane { normal } => (point - position).dot(direction_or_zero(normal)),
        }
    }

    /// How far along the move from `from` by `reach` (0 at `from`, 1 at its end) a body keeping
    /// `room` from the shape placed at `position` first touches it; `None` when it does not. Exact
    /// for spheres and planes; for boxes, the box grown by `room` with square corners (a little
    /// cautious at them); for walls, as for 2D's wall segments, tested at points at most `room`
    /// apart (along a move up to 65 536 times as long as `room`), the first found a little inside
    /// the room kept, where the other walls of a corner count in the push out of it.
    pub fn first_contact(
        self,
        position: Vector,
        from: Vector,
        reach: Vector,
        room: f32,
    ) -> Option<f32> {
        match self {
            Self::Sphere { radius } => round_first_contact(radius, from - position, reach, room),
            Self::Box { half_size } => box_first_contact(half_size + room, from - position, reach),
            // A wall, as in 2D: tested at points.
            Self::RotatedBox {
                half_size,
                rotation,
            } if half_size.min_element() == 0.0 => {
                let inverse = rotation.normalize().inverse();
                sampled_first_contact(
                    |point| box_signed_distance(half_size, inverse * (point - position)),
                    from,
                    reach,
                    room,
                    box_window(
                        half_size + room,
                        inverse * (from - position),
                        inverse * reach,
                    ),
                )
            }
            Self::RotatedBox {
                half_size,
                rotation,
            } => {
                let inverse = rotation.normalize().inverse();
                box_first_contact(
                    half_size + room,
                    inverse * (from - position),
                    inverse * reach,
                )
            }
            Self::Plane { normal } => {
                let normal = direction_or_zero(normal);
                let gap = (from - position).dot(normal) - room;
                if gap <= 0.0 {
                    return Some(0.0);
                }
                // How fast the move closes the gap: it touches only when heading in.
                let closing = -reach.dot(normal);
                (closing >= gap).then(|| gap / closing)
            }
        }
    }
}

/// The point of the box of `half_size` centred on the origin closest to `offset`: clamped into it,
/// or for a point inside, on its nearest face.
fn box_closest(half_size: Vector, offset: Vector) -> Vector {
    let clamped = offset.clamp(-half_size, half_size);
    if clamped != offset {
        return clamped;
    }
    let gap = half_size - offset.abs();
    let axis = if gap.x <= gap.y && gap.x <= gap.z {
        0
    } else if gap.y <= gap.z {
        1
    } else {
        2
    };
    let mut on_face = offset;
    on_face[axis] = half_size[axis].copysign(offset[axis]);
    on_face
}

/// Where along the move from `from` by `reach` (0 to 1) it first enters the box of `half_size`
/// centred on the origin.
fn box_first_contact(half_size: Vector, from: Vector, reach: Vector) -> Option<f32> {
    box_window(half_size, from, reach).map(|(enter, _)| enter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::f32::consts::FRAC_PI_4;

    #[test]
    fn signed_distances_and_normals_by_hand() {
        let sphere = ObstacleShape::Sphere { radius: 10.0 };
        assert_eq!(
            sphere.signed_distance(Vec3::ZERO, Vec3::new(0.0, 0.0, 15.0)),
            5.0
        );
        assert_eq!(
            sphere.outward_normal(Vec3::ZERO, Vec3::new(0.0, 0.0, -4.0)),
            Vec3::NEG_Z
        );
        // At the centre every way out is as short: +X.
        let centre = Vec3::new(5.0, 6.0, 7.0);
        assert_eq!(sphere.outward_normal(centre, centre), Vec3::X);
        let block = ObstacleShape::Box {
            half_size: Vec3::new(10.0, 5.0, 20.0),
        };
        assert_eq!(
            block.signed_distance(Vec3::ZERO, Vec3::new(0.0, 0.0, 25.0)),
            5.0
        );
        assert_eq!(
            block.signed_distance(Vec3::ZERO, Vec3::new(8.0, 0.0, 0.0)),
            -2.0
        );
        assert_eq!(
            block.outward_normal(Vec3::ZERO, Vec3::new(0.0, 4.0, 1.0)),
            Vec3::Y
        );
        // A box turned 45 degrees about y: its corner along +x is half a diagonal out.
        let turned = ObstacleShape::RotatedBox {
            half_size: Vec3::splat(10.0),
            rotation: Quat::from_rotation_y(FRAC_PI_4),
        };
        let corner = 10.0 * 2.0_f32.sqrt();
        let distance = turned.signed_distance(Vec3::ZERO, Vec3::new(corner + 3.0, 0.0, 0.0));
        assert!((distance - 3.0).abs() < 1e-4, "{distance}");
        let (low, high) = turned.bounds(Vec3::ZERO);
        assert!(
            (high.x - corner).abs() < 1e-4 && (low.y + 10.0).abs() < 1e-4,
            "{low} {high}"
        );
        // A wall facing +z: 3 in front of it is 3 away, its normal +z; it has no inside.
        let wall = ObstacleShape::wall(40.0, 20.0, Quat::IDENTITY);
        assert_eq!(
            wall.signed_distance(Vec3::ZERO, Vec3::new(5.0, 5.0, 3.0)),
            3.0
        );
        assert_eq!(
            wall.outward_normal(Vec3::ZERO, Vec3::new(5.0, 5.0, 3.0)),
            Vec3::Z
        );
        assert!(!wall.has_inside() && block.has_inside());
    }

    #[test]
    fn first_contacts_by_hand() {
        let (from, reach) = (Vec3::ZERO, Vec3::new(0.0, 0.0, 100.0));
        let sphere = ObstacleShape::Sphere { radius: 10.0 };
        let along = sphere.first_contact(Vec3::new(0.0, 0.0, 50.0), from, reach, 5.0);
        assert!((along.unwrap() - 0.35).abs() < 1e-6, "{along:?}");
        assert_eq!(
            sphere.first_contact(Vec3::new(0.0, 16.0, 50.0), from, reach, 5.0),
            None
        );
        let wall = ObstacleShape::wall(40.0, 40.0, Quat::IDENTITY);
        // Tested at points 100 / 20 apart (the room, 5, or less): the first within 5 of it, at 55
        // (the touch is at 53).
        let along = wall.first_contact(Vec3::new(0.0, 0.0, 58.0), from, reach, 5.0);
        assert_eq!(along, Some(11.0 / 20.0));
        // A move 80 times the room long across it: seen all the same (it was tested at 16 points a
        // move, which a wall can slip between).
        let long = Vec3::new(0.0, 0.0, 400.0);
        let along = wall.first_contact(Vec3::new(0.0, 0.0, 58.0), from, long, 5.0);
        assert!(
            along.is_some_and(|along| (53.0..=58.0).contains(&(along * 400.0))),
            "{along:?}"
        );
        // Turned edge-on (its plane along the move), 30 to the side: missed.
        let edge_on = ObstacleShape::wall(
            40.0,
            40.0,
            Quat::from_rotation_y(core::f32::consts::FRAC_PI_2),
        );
        assert_eq!(
            edge_on.first_contact(Vec3::new(30.0, 0.0, 50.0), from, reach, 5.0),
            None
        );
    }

    #[test]
    fn a_plane_is_a_half_space() {
        // A floor at y = -10, given a normal that is not a unit vector.
        let floor = ObstacleShape::Plane {
            normal: Vec3::new(0.0, 3.0, 0.0),
        };
        let at = Vec3::new(5.0, -10.0, 7.0);
        assert_eq!(
            floor.signed_distance(at, Vec3::new(100.0, 5.0, -50.0)),
            15.0
        );
        assert_eq!(floor.signed_distance(at, Vec3::new(0.0, -30.0, 0.0)), -20.0);
        assert_eq!(
            floor.closest_point(at, Vec3::new(1.0, -30.0, 2.0)),
            Vec3::new(1.0, -10.0, 2.0)
        );
        // Out along the normal from either side.
        assert_eq!(
            floor.outward_normal(at, Vec3::new(0.0, -30.0, 0.0)),
            Vec3::Y
        );
        assert_eq!(floor.outward_normal(at, Vec3::new(0.0, 30.0, 0.0)), Vec3::Y);
        assert!(floor.has_inside() && floor.is_valid());
        let (low, high) = floor.bounds(at);
        assert!(!low.is_finite() && !high.is_finite());
        // Falling 100 from 40 above, keeping 5: touches 35 down.
        let from = Vec3::new(0.0, 30.0, 0.0);
        let along = floor.first_contact(at, from, Vec3::new(0.0, -100.0, 0.0), 5.0);
        assert!((along.unwrap() - 0.35).abs() < 1e-6, "{along:?}");
        // Level, rising, or too short a move: no contact; within the room already: at once.
        for reach in [Vec3::X * 100.0, Vec3::Y * 100.0, Vec3::NEG_Y * 30.0] {
            assert_eq!(floor.first_contact(at, from, reach, 5.0), None, "{reach}");
        }
        let near = Vec3::new(0.0, -6.0, 0.0);
        assert_eq!(floor.first_contact(at, near, Vec3::X, 5.0), Some(0.0));
        assert_eq!(floor.first_contact(at, from, Vec3::NAN, 5.0), None);
    }

    #[test]
    fn bad_sizes_are_not_valid() {
        assert!(!ObstacleShape::Sphere { radius: f32::NAN }.is_valid());
        assert!(
            !ObstacleShape::Box {
                half_size: Vec3::new(1.0, -1.0, 1.0)
            }
            .is_valid()
        );
        assert!(
            !ObstacleShape::RotatedBox {
                half_size: Vec3::ONE,
                rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)
            }
            .is_valid()
        );
        assert!(
            !ObstacleShape::RotatedBox {
                half_size: Vec3::ONE,
                rotation: Quat::NAN
            }
            .is_valid()
        );
        // Scaled far up or down, a rotation's squared length overflows or underflows.
        for scale in [1e-25, 1e25] {
            let rotation = Quat::from_rotation_y(0.7) * scale;
            assert!(
                !ObstacleShape::RotatedBox {
                    half_size: Vec3::ONE,
                    rotation
                }
                .is_valid()
            );
        }
        assert!(ObstacleShape::wall(1.0, 1.0, Quat::IDENTITY).is_valid());
        for normal in [Vec3::ZERO, Vec3::NAN, Vec3::new(f32::INFINITY, 0.0, 0.0)] {
            assert!(!ObstacleShape::Plane { normal }.is_valid(), "{normal}");
        }
    }
}
