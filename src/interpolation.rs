//! Smooth rendering between fixed steps: [`bevy_transform_interpolation`], re-exported, and
//! [`SteeringInterpolationPlugin`], which sets it up for steered agents.

pub use bevy_transform_interpolation::*;

use bevy::app::{RunFixedMainLoop, RunFixedMainLoopSystems};
use bevy::prelude::*;
use bevy_transform_interpolation::prelude::TransformInterpolationPlugin;

/// Every `Transform` drawn between its last two fixed steps
/// ([`TransformInterpolationPlugin::interpolate_all`], added unless it already is), and a move the
/// game makes outside the fixed schedules (a teleport or a respawn in `Update`) drawn where the game
/// put the entity, the steering going on from there.
///
/// `bevy_transform_interpolation` 0.5 on its own notices such a move only after the next fixed
/// steps, which first put the end of the last step back over it: when a step runs in the next frame
/// (nearly every frame at 60 frames and 64 steps a second), the move is lost. This plugin also looks
/// for such moves before the fixed steps.
pub struct SteeringInterpolationPlugin;

impl Plugin for SteeringInterpolationPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<TransformInterpolationPlugin>() {
            app.add_plugins(TransformInterpolationPlugin::interpolate_all());
        }
        // Now, not at `finish` as the interpolation plugin does: an app stepped by hand with
        // `update()` (a test) never gets there.
        if !app.is_plugin_added::<TransformEasingPlugin>() {
            app.add_plugins(TransformEasingPlugin);
        }
        app.add_systems(
            RunFixedMainLoop,
            reset_easing_states_on_transform_change
                .in_set(RunFixedMainLoopSystems::BeforeFixedMainLoop),
        );
    }
}
