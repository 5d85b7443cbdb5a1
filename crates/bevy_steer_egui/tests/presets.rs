//! Preset files: every malformed or unreachable case gives a clear error, changes nothing and never
//! damages the file on disk.

use std::fs;
use std::path::Path;

use bevy::prelude::*;
use bevy_steer_core::prelude::*;
use bevy_steer_egui::preset::{Preset, PresetError, load_groups, preset_path, save_groups};
use bevy_steer_egui::tuning::{
    SteeringTuningPlugin, TunableComponents, TuningGroups, TuningValues,
};

/// What an app with the steering plugin can tune.
fn tunables() -> TunableComponents {
    let mut app = App::new();
    app.add_plugins(SteeringPlugin::default());
    let registry = app.world().resource::<AppTypeRegistry>().read();
    TunableComponents::from_registry(&registry)
}

/// The groups of an app with one agent (wander, separation and the limits), given `values`.
fn groups_with_values(values: TuningValues) -> TuningGroups {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        SteeringPlugin::default(),
        SteeringTuningPlugin,
    ));
    app.world_mut()
        .spawn((Wander::default(), Separation::default()));
    app.update();
    app.world_mut()
        .resource_mut::<TuningGroups>()
        .set_values(0, &values);
    app.update();
    app.world_mut().remove_resource::<TuningGroups>().unwrap()
}

/// Whether the "All" group of `groups` shows every value of `values`.
fn shows(groups: &TuningGroups, values: &TuningValues) -> bool {
    let shown = &groups.get("All").unwrap().values;
    values
        .iter()
        .all(|(component, field, value)| shown.get(component, field) == Some(value))
}

fn tuned() -> TuningValues {
    let mut values = TuningValues::default();
    values.set("Wander", "circle_distance", 42.0);
    values.set("Wander", "circle_radius", 77.0);
    values.set("Wander", "angle_change", 0.5);
    values.set("MaxSpeed", "0", 150.0);
    values.set("Separation", "radius", 25.0);
    values
}

const GOOD: &str =
    "(groups: {\"All\": {\"Wander\": {\"circle_radius\": 20.0}, \"Mass\": {\"0\": 2.0}}})";

#[test]
fn a_saved_preset_loads_back() {
    let directory = tempfile::tempdir().unwrap();
    let saved = save_groups(
        &groups_with_values(tuned()),
        &tunables(),
        directory.path(),
        "mine",
    )
    .unwrap();
    assert_eq!(saved, directory.path().join("mine.ron"));
    let mut groups = groups_with_values(TuningValues::default());
    assert!(!shows(&groups, &tuned()));
    load_groups(&mut groups, &tunables(), directory.path(), "mine").unwrap();
    assert!(shows(&groups, &tuned()));
    // Nothing is left behind but the preset.
    let names: Vec<_> = fs::read_dir(directory.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("mine.ron")]);
}

/// Loading `text` fails with an error matching `expected`, leaving the groups and the file as they
/// were.
fn assert_rejected(text: &str, expected: fn(&PresetError) -> bool) -> String {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("bad.ron");
    fs::write(&path, text).unwrap();
    let mut groups = groups_with_values(tuned());
    let error = load_groups(&mut groups, &tunables(), directory.path(), "bad").unwrap_err();
    assert!(expected(&error), "unexpected error for {text:?}: {error:?}");
    assert!(shows(&groups, &tuned()), "values changed");
    assert_eq!(fs::read_to_string(&path).unwrap(), text, "file changed");
    error.to_string()
}

#[test]
fn malformed_presets_are_rejected_with_a_clear_message() {
    let malformed = |error: &PresetError| matches!(error, PresetError::Malformed { .. });
    let truncated = &GOOD[..GOOD.len() / 2];
    let message = assert_rejected(truncated, malformed);
    assert!(
        message.contains("bad.ron") && message.contains("not a valid preset"),
        "{message}"
    );
    assert_rejected("", malformed);
    assert_rejected("   \n", malformed);
    assert_rejected(&GOOD.replace("20.0", "\"twenty\""), malformed);
    assert_rejected(&GOOD.replace("(groups:", "(gruops:"), malformed);
    assert_rejected("\u{0}\u{1}binary", malformed);
}

#[test]
fn out_of_range_unknown_fields_and_unknown_groups_are_rejected() {
    let invalid = |error: &PresetError| matches!(error, PresetError::Invalid { .. });
    let message = assert_rejected(&GOOD.replace("2.0", "-1.0"), invalid);
    assert!(message.contains("Mass.0 = -1"), "{message}");
    assert_rejected(&GOOD.replace("20.0", "1e30"), invalid);
    let message = assert_rejected(
        &GOOD.replace("\"0\": 2.0", "\"0\": 2.0, \"colour\": 3.0"),
        invalid,
    );
    assert!(message.contains("colour"), "{message}");
    let message = assert_rejected(&GOOD.replace("Wander", "Wandr"), invalid);
    assert!(message.contains("Wandr"), "{message}");
    assert_rejected(&GOOD.replace("\"All\"", "\"Wolves\""), |error| {
        matches!(error, PresetError::UnknownGroup { .. })
    });
}

#[test]
fn missing_files_directories_and_bad_names_are_rejected() {
    let directory = tempfile::tempdir().unwrap();
    let mut groups = groups_with_values(tuned());
    let error = load_groups(&mut groups, &tunables(), directory.path(), "absent").unwrap_err();
    assert!(matches!(error, PresetError::NotFound(_)), "{error:?}");

    fs::create_dir(directory.path().join("folder.ron")).unwrap();
    let error = load_groups(&mut groups, &tunables(), directory.path(), "folder").unwrap_err();
    assert!(matches!(error, PresetError::NotAFile(_)), "{error:?}");
    let error = save_groups(&groups, &tunables(), directory.path(), "folder").unwrap_err();
    assert!(matches!(error, PresetError::NotAFile(_)), "{error:?}");
    assert!(directory.path().join("folder.ron").is_dir());

    for name in ["", "../escape", "a/b", "name.ron", "spaced name"] {
        let error = preset_path(directory.path(), name).unwrap_err();
        assert!(
            matches!(error, PresetError::InvalidName(_)),
            "{name:?}: {error:?}"
        );
    }
    assert!(shows(&groups, &tuned()));
}

/// A name as long as the file system allows (250 letters: 254 bytes with `.ron`) saves and loads
/// back, and the save leaves nothing else behind: the temporary file's name does not grow with it.
#[test]
fn a_name_as_long_as_the_file_system_allows_saves_and_loads() {
    let directory = tempfile::tempdir().unwrap();
    let name = "n".repeat(250);
    let groups = groups_with_values(tuned());
    let path = save_groups(&groups, &tunables(), directory.path(), &name).unwrap();
    let mut loaded = groups_with_values(TuningValues::default());
    load_groups(&mut loaded, &tunables(), directory.path(), &name).unwrap();
    assert!(shows(&loaded, &tuned()));
    let files: Vec<_> = fs::read_dir(directory.path())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(files, [path]);
}

#[test]
fn values_outside_their_range_are_saved_clamped_and_invalid_presets_never_written() {
    let directory = tempfile::tempdir().unwrap();
    let mut wild = tuned();
    wild.set("MaxSpeed", "0", 1e9);
    wild.set("Mass", "0", f32::NAN);
    save_groups(
        &groups_with_values(wild),
        &tunables(),
        directory.path(),
        "keep",
    )
    .unwrap();
    let path = directory.path().join("keep.ron");
    let saved = Preset::load(&path, &tunables()).unwrap();
    assert_eq!(saved.groups["All"].get("MaxSpeed", "0"), Some(2000.0));
    assert_eq!(saved.groups["All"].get("Mass", "0"), None);

    // A preset written directly is checked whole, and an invalid one leaves the file as it was.
    let before = fs::read_to_string(&path).unwrap();
    let mut bad = tuned();
    bad.set("MaxSpeed", "0", f32::NAN);
    let preset = Preset {
        groups: [("All".to_owned(), bad)].into_iter().collect(),
    };
    let error = preset.save(&path, &tunables()).unwrap_err();
    assert!(matches!(error, PresetError::Invalid { .. }), "{error:?}");
    assert_eq!(fs::read_to_string(&path).unwrap(), before);
}

/// Saving into a location that cannot be written fails cleanly and leaves the old file whole.
fn assert_unwritable(directory: &Path) {
    let error = save_groups(
        &groups_with_values(tuned()),
        &tunables(),
        directory,
        "locked",
    )
    .unwrap_err();
    assert!(matches!(error, PresetError::Io { .. }), "{error:?}");
    assert!(!error.to_string().is_empty());
}

#[test]
fn a_location_that_cannot_be_written_keeps_the_old_file() {
    // A directory below a file cannot be created, even by root.
    let directory = tempfile::tempdir().unwrap();
    let file = directory.path().join("plain");
    fs::write(&file, "x").unwrap();
    assert_unwritable(&file.join("presets"));
    // /proc refuses new files, even to root.
    #[cfg(target_os = "linux")]
    assert_unwritable(Path::new("/proc/self"));

    // A read-only directory holding a good preset (effective unless running as root).
    use std::os::unix::fs::PermissionsExt;
    let directory = tempfile::tempdir().unwrap();
    save_groups(
        &groups_with_values(tuned()),
        &tunables(),
        directory.path(),
        "locked",
    )
    .unwrap();
    let path = directory.path().join("locked.ron");
    let before = fs::read_to_string(&path).unwrap();
    fs::set_permissions(directory.path(), fs::Permissions::from_mode(0o555)).unwrap();
    let writable = fs::write(directory.path().join("probe"), "").is_ok();
    let result = save_groups(
        &groups_with_values(TuningValues::default()),
        &tunables(),
        directory.path(),
        "locked",
    );
    fs::set_permissions(directory.path(), fs::Permissions::from_mode(0o755)).unwrap();
    if !writable {
        assert!(matches!(result, Err(PresetError::Io { .. })), "{result:?}");
        assert_eq!(fs::read_to_string(&path).unwrap(), before);
        let preset = Preset::load(&path, &tunables()).unwrap();
        let saved = &preset.groups["All"];
        assert!(tuned().iter().all(|(c, f, v)| saved.get(c, f) == Some(v)));
    }
}

#[test]
fn the_shipped_presets_load() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/presets");
    let mut count = 0;
    for entry in fs::read_dir(&directory).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|extension| extension == "ron") {
            Preset::load(&path, &tunables()).unwrap_or_else(|error| panic!("{error}"));
            count += 1;
        }
    }
    assert!(
        count >= 2,
        "found {count} presets in {}",
        directory.display()
    );
}
