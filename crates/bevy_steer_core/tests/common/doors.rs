//! The door scene the queue tests share: a wall across the x axis at x = 0 with a doorway on the
//! axis, and walkers (discs) that seek the doorway and, once through, walk on. In 3D the wall's
//! boxes stand tall along z and the walkers are ground units at z = 0: the same scene.

use std::collections::BTreeSet;

use bevy::prelude::*;

use super::steer::prelude::*;
use super::{at, create_app, ground_unit, rectangle, spawn, v};

/// A walker of the crowd: the marker its queue, separation and spatial index use.
#[derive(Component, Default)]
pub struct Walker;

/// How a walker goes through the door: `direction` `1.0` towards +x, `-1.0` towards -x, and
/// `keep_right` from the doorway's axis to its right.
#[derive(Component, Clone, Copy)]
pub struct Crossing {
    pub direction: f32,
    pub keep_right: f32,
}

impl Crossing {
    /// Where the walker aims: the doorway, `keep_right` to its right of the axis, and once in it,
    /// on along its lane.
    pub fn aim(&self, through: bool) -> Vector {
        let lane = -self.direction * self.keep_right;
        if through {
            v(ONWARD * self.direction, lane)
        } else {
            v(0.0, lane)
        }
    }
}

/// Where walkers go once in the doorway: on along its axis, this far away, so that those through
/// do not stand in the way of the rest.
pub const ONWARD: f32 = 10_000.0;

/// A wall with a doorway, and the size of the walkers.
#[derive(Clone, Copy, Debug)]
pub struct DoorScene {
    /// The walkers are discs of this radius: two overlap when their centres are closer than
    /// `2 r`.
    pub radius: f32,
    pub door_half_width: f32,
    pub wall_half_thickness: f32,
    /// How far the wall reaches up and down from the doorway.
    pub wall_length: f32,
    /// How far to their right of the doorway's axis walkers aim (zero: on it).
    pub keep_right: f32,
}

impl DoorScene {
    /// An app stepping 60 times a second with the walkers' spatial index, queue and separation,
    /// the walk on through the door, and the wall (two boxes, above and below the doorway),
    /// whose centres and shapes are returned.
    pub fn app(&self) -> (App, [(Vector, Obstacle); 2]) {
        let mut app = create_app(60.0);
        app.add_plugins(SpatialIndexPlugin::<Walker>::new(30.0))
            .add_queue::<Walker>()
            .add_neighbour_behaviour::<Separation, Walker>()
            .add_systems(SteeringSchedule, walk_on.in_set(SteeringSystems::Decide));
        let walls = [1.0, -1.0].map(|side| {
            let centre = v(0.0, side * (self.door_half_width + self.wall_length / 2.0));
            let block = rectangle(2.0 * self.wall_half_thickness, self.wall_length);
            spawn(&mut app, (block, at(centre.x, centre.y)));
            (centre, block)
        });
        (app, walls)
    }

    /// A walker at `start` going through the door towards `direction` (`1.0`: +x, `-1.0`: -x),
    /// keeping right by [`keep_right`](Self::keep_right), in the XY plane: slow, with the
    /// tutorial's force (5.4 per frame at 60 frames a second), seeking the doorway at full speed,
    /// separation within `3 r`, a short look-ahead for the wall (so that walkers do not shy from
    /// the doorway's edges), and `queue` if any.
    pub fn spawn_walker(
        &self,
        app: &mut App,
        start: Vector,
        direction: f32,
        queue: Option<Queue>,
    ) -> Entity {
        let radius = self.radius;
        let crossing = Crossing {
            direction,
            keep_right: self.keep_right,
        };
        let mut walker = app.world_mut().spawn((
            Walker,
            crossing,
            at(start.x, start.y),
            ground_unit(),
            MaxSpeed(60.0),
            MaxForce(324.0),
            Seek::new(crossing.aim(false)).with_slowing_radius(0.0),
            Separation::new(3.0 * radius)
                .with_method(SeparationMethod::ByDistance)
                .with_strength(240.0),
            AvoidObstacles::new(2.0 * radius, radius),
        ));
        if let Some(queue) = queue {
            walker.insert(queue);
        }
        walker.id()
    }

    /// Whether a walker at `position` going towards `direction` is through: its whole disc past
    /// the wall.
    pub fn through(&self, position: Vector, direction: f32) -> bool {
        position.x * direction > self.wall_half_thickness + self.radius
    }
}

/// As in the tutorial's demo (and the `queue` example), walkers seek the doorway; once in it,
/// they walk on (in their lane, if they keep right).
fn walk_on(mut walkers: Query<(&Transform, &mut Seek, &Crossing), With<Walker>>) {
    for (transform, mut seek, crossing) in &mut walkers {
        if transform.translation.x * crossing.direction > 0.0 {
            seek.target = Some(Target::Point(crossing.aim(true)));
        }
    }
}

/// The pairs of walkers that overlapped and the closest two came, over the steps watched.
#[derive(Debug, Default)]
pub struct Spacing {
    /// Pairs (by index) whose centres came closer than `2 r`, less a rounding allowance.
    pub overlapping: BTreeSet<(usize, usize)>,
    pub closest_pair: f32,
}

impl Spacing {
    pub fn new() -> Self {
        Self {
            overlapping: BTreeSet::new(),
            closest_pair: f32::INFINITY,
        }
    }

    /// Looks at one step's `positions` of walkers of `radius`.
    pub fn watch(&mut self, positions: &[Vector], radius: f32) {
        for (i, a) in positions.iter().enumerate() {
            for (j, b) in positions.iter().enumerate().skip(i + 1) {
                let distance = a.distance(*b);
                self.closest_pair = self.closest_pair.min(distance);
                // To rounding: the personal space keeps centres `2 r` apart, give or take an ulp.
                if distance < 2.0 * radius - 1e-3 {
                    self.overlapping.insert((i, j));
                }
            }
        }
    }
}
