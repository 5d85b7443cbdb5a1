//! Ground units in 3D: [`Planar`] keeps an agent's forces and velocity in a plane.

use bevy::prelude::*;

use crate::components::{Steering, Velocity};
use crate::math::Vector;
use crate::problems::{Problem, ReportedProblems};
use crate::schedule::SteeringSystems;

/// Keeps the agent a ground unit: its steering force and its velocity lie in the plane through
/// the origin at right angles to `up` (the XZ plane of a Y-up world), so steering never moves it
/// along `up`.
///
/// The height is left to the game: the agent's translation along `up` is never changed by
/// steering, so a system of the game's can set it each frame from its terrain (after
/// [`SteeringSystems::Integrate`], or in `Update` before drawing):
///
/// ```ignore
/// fn follow_terrain(terrain: Res<Terrain>, mut units: Query<&mut Transform, With<Planar>>) {
///     for mut transform in &mut units {
///         transform.translation.y = terrain.height_at(transform.translation.xz());
///     }
/// }
/// ```
///
/// Ground units and flyers share the spatial index and see each other; a ground unit's
/// neighbours above or below it count by their full 3D distance. Its wander circle lies in the
/// plane ([`Wander`](crate::behaviours::Wander) measures its angle about `up`),
/// [`AvoidObstacles`](crate::behaviours::AvoidObstacles) turns it round an obstacle in the plane
/// (never over or under it), and [`FaceVelocity`](crate::facing::FaceVelocity) turns it about `up`
/// only.
///
/// An `up` that is not a unit vector (reflection can make one, or `Dir3::new_unchecked` in a release
/// build: in a debug build Bevy's own check panics first) counts as
/// +Y, and [`Problem::InvalidUp`] is logged once.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
pub struct Planar {
    /// The plane's normal: the direction steering never moves the agent along.
    pub up: Dir3,
}

impl Default for Planar {
    /// The XZ plane of a Y-up world.
    fn default() -> Self {
        Self { up: Dir3::Y }
    }
}

impl Planar {
    /// The plane at right angles to `up`.
    pub fn new(up: Dir3) -> Self {
        Self { up }
    }

    /// `up` when it is a unit vector, else `None`.
    pub fn valid_up(self) -> Option<Vector> {
        let up = *self.up;
        (up.is_finite() && (up.length_squared() - 1.0).abs() < 1e-3).then_some(up)
    }

    /// The up steering uses: `up` when it is a unit vector, else +Y (and
    /// [`Problem::InvalidUp`] is logged once).
    #[inline]
    pub fn effective_up(self) -> Vector {
        self.valid_up().unwrap_or(Vector::Y)
    }

    /// `vector` less its part along the plane's normal.
    #[inline]
    pub fn project(self, vector: Vector) -> Vector {
        project(vector, self.effective_up())
    }
}

/// `vector` less its part along `up` (a unit vector).
#[inline]
pub(crate) fn project(vector: Vector, up: Vector) -> Vector {
    vector - up * vector.dot(up)
}

/// Puts each ground unit's steering force and velocity into its plane, just before the integration
/// step: the step then keeps the velocity there, and the position moves in the plane.
pub fn keep_in_plane(
    mut agents: Query<(
        Entity,
        &Planar,
        &mut Steering,
        &mut Velocity,
        &mut ReportedProblems,
    )>,
) {
    for (entity, planar, mut steering, mut velocity, mut problems) in &mut agents {
        let up = planar.valid_up().unwrap_or_else(|| {
            if !problems.contains(Problem::InvalidUp) {
                problems.report(entity, Problem::InvalidUp);
            }
            Vector::Y
        });
        steering.bypass_change_detection().0 = project(steering.0, up);
        let in_plane = project(velocity.0, up);
        if in_plane != velocity.0 {
            velocity.0 = in_plane;
        }
    }
}

/// Registers [`Planar`] and schedules [`keep_in_plane`] in [`SteeringSystems::Integrate`] (the
/// integration step orders itself after it).
pub(crate) fn plugin(app: &mut App) {
    app.register_type::<Planar>().add_systems(
        crate::schedule::SteeringSchedule,
        keep_in_plane.in_set(SteeringSystems::Integrate),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_removes_the_part_along_up() {
        let planar = Planar::default();
        assert_eq!(
            planar.project(Vec3::new(1.0, 2.0, 3.0)),
            Vec3::new(1.0, 0.0, 3.0)
        );
        let tilted = Planar::new(Dir3::new(Vec3::new(1.0, 1.0, 0.0)).unwrap());
        let projected = tilted.project(Vec3::new(2.0, 0.0, 5.0));
        assert!(projected.dot(*tilted.up).abs() < 1e-6, "{projected}");
    }
}
