//! The egui window: sliders per group, presets, and a read-out of the simulation.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use bevy_steer_core::SteeringStepStats;

use crate::preset::{load_groups, save_groups};
use crate::tuning::{TunableComponents, TuningGroups};

/// Where the panel reads and writes preset files.
#[derive(Resource, Clone, Debug)]
pub struct PresetDirectory(pub PathBuf);

/// The panel's own state: the group being tuned, the preset name typed, the last message.
#[derive(Resource, Debug)]
pub struct PanelState {
    /// Index of the group being tuned in [`TuningGroups::groups`].
    pub selected_group: usize,
    /// The preset name in the text field.
    pub preset_name: String,
    /// The last message, and whether it reports an error.
    pub status: Option<(String, bool)>,
}

impl Default for PanelState {
    fn default() -> Self {
        Self {
            selected_group: 0,
            preset_name: "default".to_owned(),
            status: None,
        }
    }
}

impl PanelState {
    fn report(&mut self, message: String, is_error: bool) {
        if is_error {
            warn!("bevy_steer_egui: {message}");
        } else {
            info!("bevy_steer_egui: {message}");
        }
        self.status = Some((message, is_error));
    }
}

/// Width of the panel, fixed so the layout is the same on every run.
const PANEL_WIDTH: f32 = 380.0;
/// Width of the sliders' rails.
const SLIDER_WIDTH: f32 = 170.0;
/// Height of the sliders' scroll area: the window stays on screen however many behaviours a group
/// has.
const SLIDERS_HEIGHT: f32 = 480.0;

/// Draws the tuning window.
pub fn tuning_panel(
    mut contexts: EguiContexts,
    mut groups: ResMut<TuningGroups>,
    tunables: Res<TunableComponents>,
    mut state: ResMut<PanelState>,
    directory: Res<PresetDirectory>,
    stats: Option<Res<SteeringStepStats>>,
) -> Result {
    let context = contexts.ctx_mut()?;
    egui::Window::new("Steering tuning")
        .anchor(egui::Align2::LEFT_TOP, [8.0, 8.0])
        .resizable(false)
        .default_width(PANEL_WIDTH)
        .show(context, |ui| {
            ui.set_width(PANEL_WIDTH);
            ui.spacing_mut().slider_width = SLIDER_WIDTH;
            if let Some(stats) = &stats {
                ui.label(format!(
                    "agents: {}    step: {:.2} ms",
                    stats.agents,
                    stats.duration.as_secs_f64() * 1000.0
                ));
            }
            ui.separator();

            let selected = state.selected_group.min(groups.groups().len() - 1);
            let label_of = |index: usize| {
                let group = &groups.groups()[index];
                format!("{} ({} agents)", group.label, group.agents)
            };
            let mut chosen = selected;
            egui::ComboBox::from_label("group")
                .selected_text(label_of(selected))
                .show_ui(ui, |ui| {
                    for index in 0..groups.groups().len() {
                        ui.selectable_value(&mut chosen, index, label_of(index));
                    }
                });
            state.selected_group = chosen;

            if groups.groups()[chosen].agents == 0 {
                ui.label("no agents in this group yet");
            }
            let mut changes = Vec::new();
            egui::ScrollArea::vertical()
                .max_height(SLIDERS_HEIGHT)
                .show(ui, |ui| {
                    let values = &groups.groups()[chosen].values;
                    for component in tunables.components() {
                        let Some(fields) = values.0.get(&component.name) else {
                            continue;
                        };
                        // A newtype's slider is labelled by the type already.
                        if !component.is_newtype() {
                            ui.label(egui::RichText::new(&component.name).strong());
                        }
                        for field in &component.fields {
                            let Some(mut value) = fields.get(&field.name).copied() else {
                                continue;
                            };
                            let slider = egui::Slider::new(&mut value, field.tunable.range())
                                .text(&field.label)
                                .logarithmic(field.tunable.logarithmic)
                                // A log scale starting at zero would spend half the rail below 1.
                                .smallest_positive(1.0)
                                .clamping(egui::SliderClamping::Always);
                            if ui.add(slider).changed() {
                                changes.push((component.name.clone(), field.name.clone(), value));
                            }
                        }
                    }
                });
            for (component, field, value) in changes {
                groups.set_value(chosen, &component, &field, value);
            }
            ui.separator();

            ui.horizontal(|ui| {
                ui.label("preset");
                ui.text_edit_singleline(&mut state.preset_name);
            });
            ui.horizontal(|ui| {
                let name = state.preset_name.clone();
                if ui.button("Save").clicked() {
                    match save_groups(&groups, &tunables, &directory.0, &name) {
                        Ok(path) => state.report(format!("saved {}", path.display()), false),
                        Err(error) => state.report(format!("not saved: {error}"), true),
                    }
                }
                if ui.button("Load").clicked() {
                    match load_groups(&mut groups, &tunables, &directory.0, &name) {
                        Ok(path) => state.report(format!("loaded {}", path.display()), false),
                        Err(error) => {
                            state.report(format!("not loaded, nothing changed: {error}"), true);
                        }
                    }
                }
                if ui.button("Reset").clicked() {
                    groups.reset();
                    state.report("reset to the starting values".to_owned(), false);
                }
            });
            if let Some((message, is_error)) = &state.status {
                let color = if *is_error {
                    egui::Color32::from_rgb(255, 110, 100)
                } else {
                    egui::Color32::from_rgb(150, 220, 150)
                };
                ui.add(egui::Label::new(egui::RichText::new(message).color(color)).wrap());
            }
        });
    Ok(())
}
