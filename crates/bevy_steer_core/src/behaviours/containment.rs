//! Containment: stay within an area.

use bevy::prelude::*;

use super::{
    NoTarget, SteeringBehaviour, TargetState, weight_and_switch_accessors,
    weight_and_switch_builders,
};
use crate::components::Steering;
use crate::formulas::Boid;
use crate::geometry::shapes::ObstacleShape;
use crate::math::{Vector, direction_or_zero, length};
use crate::problems::BehaviourKind;
use crate::tunable::{DISTANCE, FORCE, Tunable, WEIGHT};

/// Stay within an area: a soft wall on the inside of a circle or an axis-aligned box (in 3D a
/// sphere or a box), so that an arena needs no wrap-round code.
///
/// The agent looks `look_ahead_time` seconds ahead along its velocity; when that point (or the
/// agent itself) comes within `margin` of the area's edge, or outside it, a force `strength` times
/// how deep into the margin it is (up to twice the strength outside) steers it back in, along the
/// edge's inward normal, with the part of the velocity heading out taken away. In 3D, an
/// `ObstacleShape::Plane` keeps the agent on its solid side, behind it: the half-space its normal
/// points away from (so a plane at the height of a ceiling, facing up, keeps flyers under it; to
/// keep them over a floor, face the plane down, or make the floor an `Obstacle::plane` to avoid).
/// A shape with no inside (a wall) gives no force. A shape whose sizes are not finite or are
/// negative, or a position that is not finite, gives no force and is reported
/// ([`NoTarget::NonFinite`]).
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Default, Debug, PartialEq, Clone)]
#[require(Steering)]
pub struct Containment {
    /// The area's shape.
    pub shape: ObstacleShape,
    /// Where the shape is placed (its centre).
    pub centre: Vector,
    /// The depth of the soft wall inside the edge. Default `50.0`.
    #[reflect(@DISTANCE)]
    pub margin: f32,
    /// How far ahead the agent looks, in seconds. Default `0.5`.
    #[reflect(@Tunable::linear(0.0, 5.0))]
    pub look_ahead_time: f32,
    /// The push back in at the edge. Default `2000.0`.
    #[reflect(@FORCE)]
    pub strength: f32,
    /// Factor on the force. Default `1.0`.
    #[reflect(@WEIGHT)]
    pub weight: f32,
    /// Whether the behaviour acts. Default `true`.
    pub enabled: bool,
}

impl Default for Containment {
    /// A square (in 3D a cube) 1000 wide round the origin.
    fn default() -> Self {
        Self::within(
            Vector::ZERO,
            ObstacleShape::Box {
                half_size: Vector::splat(500.0),
            },
        )
    }
}

weight_and_switch_builders!(Containment);

#[cfg(feature = "2d")]
impl Containment {
    /// Stay within the axis-aligned rectangle of `size` centred on `centre`.
    pub fn rectangle(centre: Vector, size: Vector) -> Self {
        Self::within(
            centre,
            ObstacleShape::Box {
                half_size: size / 2.0,
            },
        )
    }

    /// Stay within the disc of `radius` round `centre`.
    pub fn circle(centre: Vector, radius: f32) -> Self {
        Self::within(centre, ObstacleShape::Circle { radius })
    }
}

#[cfg(feature = "3d")]
impl Containment {
    /// Stay within the axis-aligned box of `size` centred on `centre`.
    pub fn cuboid(centre: Vector, size: Vector) -> Self {
        Self::within(
            centre,
            ObstacleShape::Box {
                half_size: size / 2.0,
            },
        )
    }

    /// Stay within the sphere of `radius` round `centre`.
    pub fn sphere(centre: Vector, radius: f32) -> Self {
        Self::within(centre, ObstacleShape::Sphere { radius })
    }
}

impl Containment {
    /// Stay within `shape` placed at `centre`.
    pub fn within(centre: Vector, shape: ObstacleShape) -> Self {
        Self {
            shape,
            centre,
            margin: 50.0,
            look_ahead_time: 0.5,
            strength: 2000.0,
            weight: 1.0,
            enabled: true,
        }
    }

    /// Sets the margin.
    pub fn with_margin(mut self, margin: f32) -> Self {
        self.margin = margin;
        self
    }

    /// Sets the strength.
    pub fn with_strength(mut self, strength: f32) -> Self {
        self.strength = strength;
        self
    }
}

impl SteeringBehaviour for Containment {
    const NAME: &'static str = "containment";

    weight_and_switch_accessors!();

    fn force(
        &self,
        agent: &Boid,
        _targets: impl Fn(Entity) -> Option<TargetState>,
    ) -> Result<Vector, NoTarget> {
        if !(self.shape.is_valid() && self.centre.is_finite()) {
            return Err(NoTarget::NonFinite);
        }
        if !self.shape.has_inside() {
            return Ok(Vector::ZERO);
        }
        let margin = if self.margin > 0.0 && self.margin.is_finite() {
            self.margin
        } else {
            0.0
        };
        let look_ahead = if self.look_ahead_time.is_finite() {
            self.look_ahead_time.max(0.0)
        } else {
            0.0
        };
        let ahead = agent.position + agent.velocity * look_ahead;
        // The deeper of the agent and its look-ahead into the soft wall.
        let depth = |point: Vector| self.shape.signed_distance(self.centre, point) + margin;
        let here = depth(agent.position);
        // A signed distance changes no faster than the point moves: when even the look-ahead's
        // whole length cannot reach the wall, the agent is well inside (most agents, most steps).
        if here + length(ahead - agent.position) <= 0.0 {
            return Ok(Vector::ZERO);
        }
        let there = depth(ahead);
        let (point, depth) = if there > here {
            (ahead, there)
        } else {
            (agent.position, here)
        };
        // NaN (from a position that is not finite) counts as not in the wall.
        if depth.is_nan() || depth <= 0.0 {
            return Ok(Vector::ZERO);
        }
        let inward = -self.shape.outward_normal(self.centre, point);
        let inward = if inward == Vector::ZERO {
            direction_or_zero(self.centre - point)
        } else {
            inward
        };
        let urgency = if margin > 0.0 {
            (depth / margin).min(2.0)
        } else {
            2.0
        };
        // Take away the velocity heading out, then push in.
        let outward_speed = (-agent.velocity.dot(inward)).max(0.0);
        Ok(inward * (self.strength * urgency + outward_speed))
    }

    // No target to forget.
    fn forget_target(&mut self) {}
}

impl BehaviourKind {
    /// [`Containment`].
    pub const CONTAINMENT: Self = Self::of::<Containment>();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::v;

    fn agent(position: Vector, velocity: Vector) -> Boid {
        Boid {
            position,
            velocity,
            max_speed: 100.0,
        }
    }

    fn force(containment: &Containment, boid: &Boid) -> Vector {
        containment.force(boid, |_| None).unwrap()
    }

    /// A square arena (in 3D a cube) `size` wide.
    fn square(centre: Vector, size: f32) -> Containment {
        Containment::within(
            centre,
            ObstacleShape::Box {
                half_size: Vector::splat(size / 2.0),
            },
        )
    }

    /// A round arena: a disc, in 3D a sphere.
    fn round(centre: Vector, radius: f32) -> Containment {
        #[cfg(feature = "2d")]
        return Containment::circle(centre, radius);
        #[cfg(feature = "3d")]
        return Containment::sphere(centre, radius);
    }

    /// A shape with no inside.
    fn wall() -> ObstacleShape {
        #[cfg(feature = "2d")]
        return ObstacleShape::Segment { end: v(10.0, 0.0) };
        #[cfg(feature = "3d")]
        return ObstacleShape::wall(10.0, 10.0, Quat::IDENTITY);
    }

    #[test]
    fn well_inside_nothing_happens() {
        let arena = square(Vector::ZERO, 400.0);
        assert_eq!(
            force(&arena, &agent(Vector::ZERO, v(50.0, 0.0))),
            Vector::ZERO
        );
    }

    #[test]
    fn near_an_edge_the_push_grows_with_depth() {
        // Half width 200, margin 50: the soft wall starts at x = 150.
        let arena = square(Vector::ZERO, 400.0);
        let shallow = force(&arena, &agent(v(160.0, 0.0), Vector::ZERO));
        assert!((shallow - v(-400.0, 0.0)).length() < 1e-3, "{shallow}");
        let deep = force(&arena, &agent(v(190.0, 0.0), Vector::ZERO));
        assert!((deep - v(-1600.0, 0.0)).length() < 1e-3, "{deep}");
        // Outside: at most twice the strength, plus the outward speed taken away.
        let out = force(&arena, &agent(v(900.0, 0.0), v(30.0, 0.0)));
        assert!((out - v(-4030.0, 0.0)).length() < 1e-3, "{out}");
    }

    #[test]
    fn the_look_ahead_reacts_before_the_agent_is_near() {
        // At x = 100 heading out at 200 per second: in half a second at 200, 50 into the wall.
        let arena = square(Vector::ZERO, 400.0);
        let force = force(&arena, &agent(v(100.0, 0.0), v(200.0, 0.0)));
        assert!((force - v(-2200.0, 0.0)).length() < 1e-3, "{force}");
    }

    #[test]
    fn a_circle_pushes_towards_its_centre() {
        let arena = round(v(10.0, 10.0), 100.0);
        let force = force(&arena, &agent(v(10.0, 100.0), Vector::ZERO));
        assert!(force.x.abs() < 1e-3 && force.y < 0.0, "{force}");
    }

    #[cfg(feature = "3d")]
    #[test]
    fn a_plane_keeps_agents_behind_it() {
        // A ceiling at y = 300 facing up: flyers are kept under it, the margin below it.
        let ceiling = Containment::within(
            Vector::new(0.0, 300.0, 0.0),
            ObstacleShape::Plane { normal: Vector::Y },
        );
        assert_eq!(
            force(&ceiling, &agent(Vector::ZERO, Vector::ZERO)),
            Vector::ZERO
        );
        let near = force(
            &ceiling,
            &agent(Vector::new(7.0, 280.0, -3.0), Vector::ZERO),
        );
        assert!(
            (near - Vector::new(0.0, -1200.0, 0.0)).length() < 1e-2,
            "{near}"
        );
        let above = force(
            &ceiling,
            &agent(Vector::new(0.0, 900.0, 0.0), Vector::Y * 10.0),
        );
        assert!(
            (above - Vector::new(0.0, -4010.0, 0.0)).length() < 1e-2,
            "{above}"
        );
        // Faced down, it keeps them over it: a floor.
        let floor = Containment::within(Vector::ZERO, ObstacleShape::Plane { normal: -Vector::Y });
        let low = force(&floor, &agent(Vector::new(0.0, 10.0, 0.0), Vector::ZERO));
        assert!(
            (low - Vector::new(0.0, 1600.0, 0.0)).length() < 1e-2,
            "{low}"
        );
    }

    #[test]
    fn bad_shapes_are_reported_and_numbers_stay_finite() {
        let bad = round(Vector::ZERO, f32::NAN);
        assert_eq!(
            bad.force(&agent(Vector::ZERO, Vector::ZERO), |_| None),
            Err(NoTarget::NonFinite)
        );
        let wall = Containment::within(Vector::ZERO, wall());
        assert_eq!(
            force(&wall, &agent(Vector::ZERO, Vector::ZERO)),
            Vector::ZERO
        );
        let mut odd = square(Vector::ZERO, 100.0);
        odd.margin = f32::NAN;
        odd.look_ahead_time = f32::INFINITY;
        let force = force(&odd, &agent(v(60.0, 0.0), v(5.0, 0.0)));
        assert!(force.is_finite() && force.x < 0.0, "{force}");
    }
}
