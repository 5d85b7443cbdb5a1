//! Obstacle shapes, with the distances, normals and first contacts that obstacle avoidance and
//! containment steer by: in 2D discs, axis-aligned boxes and wall segments; in 3D spheres, boxes
//! (axis-aligned or rotated) and walls (rectangles of no thickness).

#[cfg(feature = "2d")]
mod dim2;
#[cfg(feature = "3d")]
mod dim3;

#[cfg(feature = "2d")]
pub use dim2::ObstacleShape;
#[cfg(feature = "3d")]
pub use dim3::ObstacleShape;

use crate::math::{Vector, direction_or_zero};

impl ObstacleShape {
    /// The unit direction out of the shape placed at `position`, at `point`: away from its closest
    /// point, and for a point inside a box, a disc or a sphere, out through the nearest face. Zero
    /// for a point on a wall, or at a disc's or sphere's centre.
    pub fn outward_normal(self, position: Vector, point: Vector) -> Vector {
        let closest = self.closest_point(position, point);
        let away = direction_or_zero(point - closest);
        if self.signed_distance(position, point) < 0.0 {
            -away
        } else {
            away
        }
    }
}
