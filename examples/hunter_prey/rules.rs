//! The Movement Manager tutorial's hunter / prey rules, written as a game would write them with
//! bevy_steer's public API. Headless: the windowed example and the benchmarks both use it.
//!
//! - A hunter pursues the closest prey in sight while its stamina lasts (pursuing drains it); when
//!   it runs out the hunter drops the prey, rests and wanders until its stamina is full again, then
//!   looks again.
//! - A prey evades the closest hunter within its alert range; with no hunter near and the cursor
//!   within 300 units, it seeks the cursor with arrival; otherwise it wanders.
//! - Everyone wraps round the arena's edges.
//!
//! Behaviours are switched by their weight and target rather than by adding and removing
//! components, so that agents changing their minds do not move between archetypes every step.

use bevy::prelude::*;
use bevy_steer::prelude::*;

/// The numbers of the scene. The tutorial's per-frame figures are converted at 60 frames per
/// second (see the crate docs).
#[derive(Resource, Clone, Debug)]
pub struct HunterPreySettings {
    /// Where agents live; they wrap round its edges.
    pub arena: Rect,
    /// How far a hunter sees prey.
    pub hunter_sight: f32,
    /// How close a hunter must be for a prey to evade it.
    pub prey_alert_range: f32,
    /// Within this distance of the cursor, a prey with no hunter near seeks it (the tutorial's 300).
    pub cursor_range: f32,
    /// Slowing radius of the prey's seek on the cursor (the tutorial's 30).
    pub cursor_slowing_radius: f32,
    /// Full stamina, in seconds of pursuit.
    pub max_stamina: f32,
    /// Stamina regained per second of rest (the tutorial regains 1 per frame and spends 2, so
    /// resting takes twice as long as the pursuit it pays for).
    pub stamina_recovery: f32,
}

impl Default for HunterPreySettings {
    fn default() -> Self {
        Self {
            arena: Rect::from_center_half_size(Vec2::ZERO, Vec2::new(640.0, 360.0)),
            hunter_sight: 250.0,
            prey_alert_range: 120.0,
            cursor_range: 300.0,
            cursor_slowing_radius: 30.0,
            max_stamina: 5.0,
            stamina_recovery: 0.5,
        }
    }
}

/// The world position of the mouse cursor, when it is over the window.
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct Cursor(pub Option<Vec2>);

/// A hunter: pursues prey while its stamina lasts.
#[derive(Component, Clone, Copy, Debug)]
#[require(Wander, Pursue, FaceVelocity)]
pub struct Hunter {
    /// Seconds of pursuit left.
    pub stamina: f32,
    /// Whether it is resting until its stamina is full.
    pub resting: bool,
}

/// A prey: evades hunters, likes the cursor, wanders.
#[derive(Component, Clone, Copy, Debug, Default)]
#[require(Wander, Evade, Seek, FaceVelocity)]
pub struct Prey;

/// The rules, in the steering schedule.
pub struct HunterPreyPlugin {
    /// The scene's numbers.
    pub settings: HunterPreySettings,
}

impl Plugin for HunterPreyPlugin {
    fn build(&self, app: &mut App) {
        let settings = self.settings.clone();
        app.add_plugins((
            SpatialIndexPlugin::<Prey>::new(settings.hunter_sight),
            SpatialIndexPlugin::<Hunter>::new(settings.prey_alert_range),
        ))
        .insert_resource(settings)
        .init_resource::<Cursor>()
        .add_systems(
            SteeringSchedule,
            (
                (hunters_choose, prey_choose).in_set(SteeringSystems::Decide),
                wrap_round_the_arena.after(SteeringSystems::Integrate),
            ),
        );
    }
}

/// The hunter's `update()` of the tutorial, per step.
pub fn hunters_choose(
    time: Res<Time>,
    settings: Res<HunterPreySettings>,
    prey_index: Neighbours<Prey>,
    living_prey: Query<(), With<Prey>>,
    mut hunters: Query<(&mut Hunter, &Transform, &mut Pursue, &mut Wander)>,
) {
    let dt = time.delta_secs();
    hunters
        .par_iter_mut()
        .for_each(|(mut hunter, transform, mut pursue, mut wander)| {
            if hunter.resting {
                hunter.stamina += settings.stamina_recovery * dt;
                if hunter.stamina >= settings.max_stamina {
                    hunter.stamina = settings.max_stamina;
                    hunter.resting = false;
                }
            }
            let has_prey = pursue.target.is_some_and(|prey| living_prey.contains(prey));
            let (target, wander_weight) = if has_prey && !hunter.resting {
                hunter.stamina -= dt;
                if hunter.stamina <= 0.0 {
                    hunter.stamina = 0.0;
                    hunter.resting = true;
                    (None, 0.0)
                } else {
                    (pursue.target, 0.0)
                }
            } else if hunter.resting {
                (None, 1.0)
            } else {
                let position = transform.translation.truncate();
                let closest = prey_index.closest(position, settings.hunter_sight, None);
                (closest.map(|prey| prey.entity), 1.0)
            };
            // Written only when they differ, so that `Changed` still means a change of mind.
            pursue.set_if_neq(Pursue { target, ..*pursue });
            wander.set_if_neq(Wander {
                weight: wander_weight,
                ..*wander
            });
        });
}

/// The prey's `update()` of the tutorial, per step.
pub fn prey_choose(
    settings: Res<HunterPreySettings>,
    cursor: Res<Cursor>,
    hunter_index: Neighbours<Hunter>,
    mut prey: Query<(&Transform, &mut Evade, &mut Seek, &mut Wander), With<Prey>>,
) {
    prey.par_iter_mut()
        .for_each(|(transform, mut evade, mut seek, mut wander)| {
            let position = transform.translation.truncate();
            let hunter = hunter_index.closest(position, settings.prey_alert_range, None);
            let near_cursor = cursor
                .0
                .filter(|cursor| cursor.distance(position) <= settings.cursor_range);
            let (seek_target, seek_weight, wander_weight) = match (hunter, near_cursor) {
                (Some(_), _) => (seek.target, 0.0, 0.0),
                (None, Some(cursor)) => (Some(Target::Point(cursor)), 1.0, 0.0),
                (None, None) => (seek.target, 0.0, 1.0),
            };
            // Written only when they differ, so that `Changed` still means a change of mind.
            evade.set_if_neq(Evade {
                target: hunter.map(|hunter| hunter.entity),
                ..*evade
            });
            seek.set_if_neq(Seek {
                target: seek_target,
                slowing_radius: settings.cursor_slowing_radius,
                weight: seek_weight,
                ..*seek
            });
            wander.set_if_neq(Wander {
                weight: wander_weight,
                ..*wander
            });
        });
}

/// Agents that leave the arena come back on the opposite side.
pub fn wrap_round_the_arena(
    settings: Res<HunterPreySettings>,
    mut agents: Query<&mut Transform, Or<(With<Hunter>, With<Prey>)>>,
) {
    let arena = settings.arena;
    let size = arena.size();
    agents.par_iter_mut().for_each(|mut transform| {
        let position = transform.translation.truncate();
        if !arena.contains(position) && position.is_finite() {
            let wrapped = arena.min + (position - arena.min).rem_euclid(size);
            transform.translation.x = wrapped.x;
            transform.translation.y = wrapped.y;
        }
    });
}

/// A hunter with full stamina, tuned as the example's.
pub fn hunter(position: Vec2, heading: Vec2, settings: &HunterPreySettings) -> impl Bundle {
    (
        Hunter {
            stamina: settings.max_stamina,
            resting: false,
        },
        Transform::from_translation(position.extend(1.0)),
        Velocity(heading * 60.0),
        MaxSpeed(200.0),
        MaxForce(900.0),
        Mass(0.5),
        Wander::default().with_angle(heading.to_angle()),
    )
}

/// A prey, tuned as the example's.
pub fn prey(position: Vec2, heading: Vec2) -> impl Bundle {
    (
        Prey,
        Transform::from_translation(position.extend(0.0)),
        Velocity(heading * 60.0),
        MaxSpeed(170.0),
        MaxForce(900.0),
        Mass(0.5),
        Wander::default().with_angle(heading.to_angle()),
    )
}

/// `count` positions spread evenly over `arena` (a low-discrepancy sequence, so every run and
/// every agent count places agents the same way) with a heading each.
pub fn spread(count: usize, arena: Rect, salt: f32) -> impl Iterator<Item = (Vec2, Vec2)> {
    const GOLDEN: f64 = 0.618_033_988_749_895;
    const PLASTIC: f64 = 0.754_877_666_246_693;
    (0..count).map(move |index| {
        // In f64: an f32 product of a large index keeps few bits of its fraction (4 at a million),
        // and a crowd of 100 000 or more would start on a coarse lattice, many agents on one point.
        let i = index as f64 + f64::from(salt);
        let fraction = |step: f64, offset: f64| (i * step + offset).fract() as f32;
        let unit = Vec2::new(fraction(GOLDEN, 0.0), fraction(PLASTIC, 0.5));
        // Successive headings a golden angle apart.
        let heading = Vec2::from_angle(fraction(1.0 - GOLDEN, 0.0) * core::f32::consts::TAU);
        (arena.min + unit * arena.size(), heading)
    })
}
