//! What the examples share: the window, wrapping agents round the screen, and the hooks that let a
//! script take a screenshot and end a run without a person at the keyboard.
//!
//! | variable | effect |
//! | --- | --- |
//! | `STEER_SCREENSHOT=path.png` | saves a screenshot of the window after `STEER_SCREENSHOT_FRAME` frames (default 90) |
//! | `STEER_EXIT_FRAME=N` | exits after N frames (after the screenshot, if one was asked for) |
//! | `STEER_SCREENSHOT_TRIGGER=path` | whenever a file appears at `path`, saves a screenshot to the path written in it, then deletes it |
//! | `STEER_SHOW_FORCES=1` | starts with the force vectors shown |
//! | `STEER_STEP_LOG=seconds` | logs the frame rate, the steps run and the steering step's time every so many seconds (the browser test and docs/performance.md read it) |
//!
//! In a browser (web/build.sh) there is no environment: the same names are read from the page
//! address's query (`hunter_prey.html?STEER_STEP_LOG=5`), and the window draws into the page's
//! `<canvas id="bevy">`.
#![allow(dead_code, reason = "each example uses a different part")]

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::window::{PrimaryWindow, WindowResolution};
use bevy_steer::interpolation::{TransformEasingSystems, TranslationEasingState};
use bevy_steer::prelude::*;

/// A setting of the table in the module docs: the environment variable `name`, or in a browser
/// the page address's query parameter of that name.
#[cfg(not(target_arch = "wasm32"))]
pub fn setting(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// A setting of the table in the module docs: the environment variable `name`, or in a browser
/// the page address's query parameter of that name.
#[cfg(target_arch = "wasm32")]
pub fn setting(name: &str) -> Option<String> {
    // `location.search`, `?A=1&B=2`; the settings are numbers and paths, so nothing is
    // percent-decoded. Read through js-sys's reflection: web-sys's `Location` would be a feature
    // Bevy does not enable, and adding it would rebuild Bevy's web dependencies.
    let field = |object: &js_sys::wasm_bindgen::JsValue, name: &str| {
        js_sys::Reflect::get(object, &name.into()).ok()
    };
    let query = field(&field(&js_sys::global(), "location")?, "search")?.as_string()?;
    query
        .trim_start_matches('?')
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
}

/// The plugins every example window uses.
pub fn default_plugins(title: &str) -> impl PluginGroup {
    DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: title.into(),
            resolution: WindowResolution::new(1280, 720),
            // The page's canvas (web/build.sh), rather than one appended to the page.
            #[cfg(target_arch = "wasm32")]
            canvas: Some("#bevy".into()),
            ..default()
        }),
        ..default()
    })
}

/// The 3D examples' force vectors (`bevy_steer3d`'s gizmos): shown from the start when
/// `STEER_SHOW_FORCES` is set, `F` shows or hides them.
pub fn force_vectors_plugin_3d(app: &mut App) {
    use bevy::input::common_conditions::input_just_pressed;
    use bevy_steer3d::debug::{SteeringDebugPlugin, SteeringGizmos};
    app.add_plugins(SteeringDebugPlugin)
        .add_systems(Startup, |mut store: ResMut<GizmoConfigStore>| {
            store.config_mut::<SteeringGizmos>().0.enabled = setting("STEER_SHOW_FORCES").is_some();
        })
        .add_systems(
            Update,
            (|mut store: ResMut<GizmoConfigStore>| {
                let (config, _) = store.config_mut::<SteeringGizmos>();
                config.enabled = !config.enabled;
            })
            .run_if(input_just_pressed(KeyCode::KeyF)),
        );
}

/// The 3D examples' multisampling: Bevy's default natively; none in the browser, where software
/// WebGL (and weak GPUs) pay for every sample of every lit pixel.
pub fn multisampling() -> Msaa {
    if cfg!(target_arch = "wasm32") {
        Msaa::Off
    } else {
        Msaa::default()
    }
}

/// The screenshot and exit hooks described in the module docs.
pub struct ScriptedRunPlugin;

#[derive(Resource)]
struct ScriptedRun {
    screenshot: Option<(String, u32)>,
    trigger: Option<String>,
    exit_frame: Option<u32>,
    frame: u32,
}

impl Plugin for ScriptedRunPlugin {
    fn build(&self, app: &mut App) {
        let number = |name: &str| setting(name).and_then(|value| value.parse().ok());
        let screenshot = setting("STEER_SCREENSHOT")
            .map(|path| (path, number("STEER_SCREENSHOT_FRAME").unwrap_or(90)));
        let exit_frame = number("STEER_EXIT_FRAME");
        let trigger = setting("STEER_SCREENSHOT_TRIGGER");
        if let Some(every) = setting("STEER_STEP_LOG").and_then(|value| value.parse().ok()) {
            app.insert_resource(StepLog { every, ..default() })
                .add_systems(
                    Last,
                    (
                        log_steps::<SteeringStepStats>,
                        log_steps::<bevy_steer3d::core::SteeringStepStats>,
                    ),
                );
        }
        if screenshot.is_some() || exit_frame.is_some() || trigger.is_some() {
            app.insert_resource(ScriptedRun {
                screenshot,
                trigger,
                exit_frame,
                frame: 0,
            })
            .add_systems(Last, run_script);
        }
    }
}

fn run_script(
    mut commands: Commands,
    mut run: ResMut<ScriptedRun>,
    mut exit: MessageWriter<AppExit>,
) {
    run.frame += 1;
    let mut save = |path: String| {
        info!("saving a screenshot to {path}");
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path));
    };
    if let Some((path, frame)) = &run.screenshot
        && run.frame == *frame
    {
        save(path.clone());
    }
    if let Some(trigger) = &run.trigger
        && let Ok(path) = std::fs::read_to_string(trigger)
    {
        let _ = std::fs::remove_file(trigger);
        save(path.trim().to_owned());
    }
    if run.exit_frame == Some(run.frame) {
        exit.write(AppExit::Success);
    }
}

/// The steering step's clock, of the 2D build or of the 3D one: [`log_steps`] reads whichever the
/// example has.
trait StepClock: Resource {
    fn steps(&self) -> u64;
    fn duration(&self) -> core::time::Duration;
    fn agents(&self) -> usize;
}

/// [`StepClock`] for each build's `SteeringStepStats`: the same type compiled twice.
macro_rules! step_clock {
    ($($stats:ty),*) => {$(
        impl StepClock for $stats {
            fn steps(&self) -> u64 {
                self.steps
            }
            fn duration(&self) -> core::time::Duration {
                self.duration
            }
            fn agents(&self) -> usize {
                self.agents
            }
        }
    )*};
}

step_clock!(SteeringStepStats, bevy_steer3d::core::SteeringStepStats);

/// What [`log_steps`] has seen since its last line.
#[derive(Resource, Default)]
struct StepLog {
    /// Seconds between lines.
    every: f64,
    /// When the current line's window began (real time), and the step count then.
    since: Option<(f64, u64)>,
    frames: u32,
    last_step: u64,
    /// The duration of every step seen at the end of a frame, in milliseconds.
    step_ms: Vec<f64>,
}

/// Logs one line every `STEER_STEP_LOG` seconds: frames a second, steps a second, and the
/// steering step's wall-clock time (mean and median of the last step of each frame that ran one),
/// with the steps a second that time allows (one over the mean).
fn log_steps<Stats: StepClock>(
    real: Res<Time<Real>>,
    stats: Option<Res<Stats>>,
    mut log: ResMut<StepLog>,
) {
    let Some(stats) = stats else { return };
    let now = real.elapsed_secs_f64();
    let Some((since, steps_since)) = log.since else {
        // The first frames build the schedules: the window starts after them.
        if stats.steps() > 0 {
            log.since = Some((now, stats.steps()));
            log.last_step = stats.steps();
        }
        return;
    };
    log.frames += 1;
    if stats.steps() != log.last_step {
        log.last_step = stats.steps();
        log.step_ms.push(stats.duration().as_secs_f64() * 1000.0);
    }
    let elapsed = now - since;
    if elapsed < log.every || log.step_ms.is_empty() {
        return;
    }
    let mut sorted = core::mem::take(&mut log.step_ms);
    sorted.sort_by(f64::total_cmp);
    let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
    let median = sorted[sorted.len() / 2];
    info!(
        "step log: fps={:.1} steps_per_s={:.1} step_ms_mean={mean:.3} step_ms_median={median:.3} \
         capacity_steps_per_s={:.0} agents={} samples={}",
        f64::from(log.frames) / elapsed,
        (stats.steps() - steps_since) as f64 / elapsed,
        1000.0 / mean,
        stats.agents(),
        sorted.len(),
    );
    log.since = Some((now, stats.steps()));
    log.frames = 0;
}

/// Half the window's size in world units: the 2D camera at the origin shows
/// `-half_extents..half_extents`.
pub fn half_extents(window: &Window) -> Vec2 {
    window.size() / 2.0
}

/// Whether `position` has left the primary window's view.
pub fn outside_window(window: &Single<&Window, With<PrimaryWindow>>, position: Vec2) -> bool {
    let half = half_extents(window);
    position.x.abs() > half.x || position.y.abs() > half.y
}

/// Agents that leave the window come back on the opposite side. For
/// `SteeringSchedule`, after `SteeringSystems::Integrate`.
pub fn wrap_round_the_window(
    window: Single<&Window, With<PrimaryWindow>>,
    mut agents: Query<&mut Transform, With<Steering>>,
) {
    let half = half_extents(&window);
    for mut transform in &mut agents {
        let position = transform.translation.truncate();
        if outside_window(&window, position) && position.is_finite() {
            let wrapped = (position + half).rem_euclid(half * 2.0) - half;
            transform.translation.x = wrapped.x;
            transform.translation.y = wrapped.y;
        }
    }
}

/// A small triangle pointing along +X, the way [`FaceVelocity::default`] expects.
///
/// [`FaceVelocity::default`]: bevy_steer::prelude::FaceVelocity
pub fn arrow_mesh(length: f32) -> Mesh {
    Triangle2d::new(
        Vec2::new(length * 0.6, 0.0),
        Vec2::new(-length * 0.4, length * 0.3),
        Vec2::new(-length * 0.4, -length * 0.3),
    )
    .into()
}

/// Force vectors, hidden at first as in the tutorials' demos; [`toggle_force_vectors`] shows them.
pub fn force_vectors_plugin(app: &mut App) {
    app.add_plugins(SteeringDebugPlugin).add_systems(
        Startup,
        |mut store: ResMut<GizmoConfigStore>| {
            store.config_mut::<SteeringGizmos>().0.enabled = setting("STEER_SHOW_FORCES").is_some();
        },
    );
}

/// Smooth motion on any display: the steering runs in `FixedUpdate` (64 steps a second by
/// default), and every `Transform` is drawn interpolated between the last two steps, except jumps
/// (wrapping round the window, respawning), which are drawn as jumps.
pub fn smooth_motion(app: &mut App) {
    app.add_plugins(SteeringInterpolationPlugin).add_systems(
        FixedLast,
        snap_jumps.after(TransformEasingSystems::UpdateEnd),
    );
}

/// Longer than any agent moves in one step: a step this long is a jump, not motion.
const JUMP: f32 = 100.0;

/// Starts the easing of a step that jumped at its end, so it is not drawn as a slide.
fn snap_jumps(mut states: Query<&mut TranslationEasingState>) {
    for mut state in &mut states {
        if let (Some(start), Some(end)) = (state.start, state.end)
            && start.distance(end) > JUMP
        {
            state.start = Some(end);
        }
    }
}

/// Shows or hides the force vectors (the tutorials' "click to show forces").
pub fn toggle_force_vectors(mut store: ResMut<GizmoConfigStore>) {
    let (config, _) = store.config_mut::<SteeringGizmos>();
    config.enabled = !config.enabled;
}

/// Where the mouse cursor points in the world, if it is over the window.
pub fn cursor_world_position(
    window: &Window,
    camera: &Camera,
    camera_transform: &GlobalTransform,
) -> Option<Vec2> {
    let cursor = window.cursor_position()?;
    camera.viewport_to_world_2d(camera_transform, cursor).ok()
}
