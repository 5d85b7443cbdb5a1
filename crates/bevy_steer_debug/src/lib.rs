//! Force-vector gizmos for [bevy_steer](https://crates.io/crates/bevy_steer): each agent's velocity
//! and each behaviour's force, in the tutorials' colours, and for wanderers the wander circle and
//! displacement (the tutorial's figure, live).
//!
//! Add [`SteeringDebugPlugin`] and switch the drawing on and off through the [`SteeringGizmos`]
//! config group; when it is off, the drawing systems do not run at all.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_steer_debug::prelude::*;
//!
//! fn toggle(mut store: ResMut<GizmoConfigStore>) {
//!     let (config, _) = store.config_mut::<SteeringGizmos>();
//!     config.enabled = !config.enabled;
//! }
//! # App::new().add_plugins(SteeringDebugPlugin).add_systems(Update, toggle);
//! ```
//!
//! Forces are drawn as the weighted force each behaviour adds this step, before truncation, as
//! computed by the same functions the simulation uses.

use bevy::color::palettes::css;
use bevy::prelude::*;
use bevy_steer_core::behaviours::{
    Evade, Flee, Pursue, Seek, TargetedBehaviour, Wander, WanderMethod,
};
use bevy_steer_core::components::{MaxSpeed, Steering, Velocity};
use bevy_steer_core::problems::BehaviourKind;
use bevy_steer_core::systems::{TargetQuery, boid, lookup_target};

/// The gizmo config group of the steering debug drawing, with its own settings.
#[derive(Reflect, GizmoConfigGroup, Clone, Debug)]
#[reflect(Default)]
pub struct SteeringGizmos {
    /// Seconds of velocity to draw: a velocity arrow ends where the agent will be after this long.
    /// Default `0.25`.
    pub velocity_scale: f32,
    /// World units drawn per unit of force. Default `0.1`.
    pub force_scale: f32,
    /// Whether to draw each wanderer's circle and displacement. Default `true`.
    pub wander_circle: bool,
    /// Colour of the velocity arrows. Default white.
    pub velocity_color: Color,
    /// Colours of the behaviours' forces, in [`BehaviourKind::ALL`] order. Default the tutorials':
    /// grey wander, green seek, purple flee, orange pursuit, red evade.
    pub behaviour_colors: [Color; 5],
}

impl Default for SteeringGizmos {
    fn default() -> Self {
        Self {
            velocity_scale: 0.25,
            force_scale: 0.1,
            wander_circle: true,
            velocity_color: Color::WHITE,
            behaviour_colors: [
                css::GRAY.into(),
                css::LIME.into(),
                css::MEDIUM_PURPLE.into(),
                css::ORANGE.into(),
                css::RED.into(),
            ],
        }
    }
}

impl SteeringGizmos {
    /// The colour `kind`'s force is drawn in.
    pub fn color(&self, kind: BehaviourKind) -> Color {
        self.behaviour_colors[BehaviourKind::ALL
            .iter()
            .position(|&k| k == kind)
            .expect("ALL lists every kind")]
    }
}

/// Draws steering forces with gizmos of the [`SteeringGizmos`] group, in `Update`.
pub struct SteeringDebugPlugin;

impl Plugin for SteeringDebugPlugin {
    fn build(&self, app: &mut App) {
        app.init_gizmo_group::<SteeringGizmos>().add_systems(
            Update,
            (
                draw_velocities,
                draw_wander,
                draw_targeted::<Seek>,
                draw_targeted::<Flee>,
                draw_targeted::<Pursue>,
                draw_targeted::<Evade>,
            )
                .run_if(steering_gizmos_enabled),
        );
    }
}

/// Whether the [`SteeringGizmos`] group is enabled: the drawing systems' run condition.
pub fn steering_gizmos_enabled(store: Res<GizmoConfigStore>) -> bool {
    store.config::<SteeringGizmos>().0.enabled
}

/// An arrow from `start` along `vector`, unless the vector is zero or not finite.
fn arrow(gizmos: &mut Gizmos<SteeringGizmos>, start: Vec2, vector: Vec2, color: Color) {
    if vector != Vec2::ZERO && vector.is_finite() && start.is_finite() {
        gizmos
            .arrow_2d(start, start + vector, color)
            .with_tip_length(6.0);
    }
}

fn draw_velocities(
    mut gizmos: Gizmos<SteeringGizmos>,
    agents: Query<(&Transform, &Velocity), With<Steering>>,
) {
    let (scale, color) = (
        gizmos.config_ext.velocity_scale,
        gizmos.config_ext.velocity_color,
    );
    for (transform, velocity) in &agents {
        arrow(
            &mut gizmos,
            transform.translation.truncate(),
            velocity.0 * scale,
            color,
        );
    }
}

fn draw_targeted<B: TargetedBehaviour>(
    mut gizmos: Gizmos<SteeringGizmos>,
    targets: TargetQuery,
    agents: Query<(&B, &Transform, &Velocity, &MaxSpeed)>,
) {
    let (scale, color) = (
        gizmos.config_ext.force_scale,
        gizmos.config_ext.color(B::KIND),
    );
    for (behaviour, transform, velocity, max_speed) in &agents {
        if let Ok(force) = behaviour.force(&boid(transform, velocity, max_speed), |entity| {
            lookup_target(&targets, entity)
        }) {
            let start = transform.translation.truncate();
            arrow(
                &mut gizmos,
                start,
                force * behaviour.weight() * scale,
                color,
            );
        }
    }
}

fn draw_wander(
    mut gizmos: Gizmos<SteeringGizmos>,
    agents: Query<(&Wander, &Transform, &Velocity, &MaxSpeed)>,
) {
    let config = gizmos.config_ext.clone();
    let color = config.color(BehaviourKind::Wander);
    for (wander, transform, velocity, max_speed) in &agents {
        let position = transform.translation.truncate();
        let weighted_scale = wander.weight * config.force_scale;
        let force = wander.force(&boid(transform, velocity, max_speed)) * weighted_scale;
        arrow(&mut gizmos, position, force, color);
        if config.wander_circle && wander.method == WanderMethod::Circle {
            // The tutorial's figure: the circle ahead, and the displacement from its centre.
            let centre =
                position + velocity.normalize_or_zero() * wander.circle_distance * weighted_scale;
            let radius = wander.circle_radius * weighted_scale;
            let displacement = wander.displacement_direction(velocity.0) * radius;
            if centre.is_finite() && radius.is_finite() && radius > 0.0 {
                gizmos.circle_2d(centre, radius, color.with_alpha(0.5));
                gizmos.line_2d(centre, centre + displacement, color);
            }
        }
    }
}

/// The plugin, the config group and the gizmo types needed to toggle it.
pub mod prelude {
    pub use crate::{SteeringDebugPlugin, SteeringGizmos, steering_gizmos_enabled};
    pub use bevy::gizmos::config::GizmoConfigStore;
}
