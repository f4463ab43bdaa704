//! The one-item evaluator page: its layout, inputs, cost estimate and the actions that run it.

pub(crate) mod app;
pub(crate) mod candidates_inputs;
pub(crate) mod cost_panel;
pub(crate) mod embed;
pub(crate) mod empty_state;
pub(crate) mod examples;
pub(crate) mod history;
pub(crate) mod image_panel;
pub(crate) mod inputs_panel;
pub(crate) mod open_result;
pub(crate) mod present;
pub(crate) mod results_guidance;
pub(crate) mod run_bar;
pub(crate) mod share;
pub(crate) mod single_results;
