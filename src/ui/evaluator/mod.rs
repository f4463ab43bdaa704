//! The one-item evaluator page: its layout, inputs, cost estimate and the actions that run it.

pub(crate) mod actions;
pub(crate) mod app;
pub(crate) mod chunks;
pub(crate) mod candidates_inputs;
pub(crate) mod candidates_panel;
pub(crate) mod candidates_plain_panel;
pub(crate) mod candidates_plain_run;
pub(crate) mod candidates_plot;
pub(crate) mod candidates_run;
pub(crate) mod candidates_state;
pub(crate) mod cost_panel;
pub(crate) mod embed;
pub(crate) mod image_actions;
pub(crate) mod image_panel;
pub(crate) mod inputs_state;
pub(crate) mod inputs_panel;
pub(crate) mod run_bar;
pub(crate) mod runner;
pub(crate) mod single_results;
pub(crate) mod examples;
pub(crate) mod open_result;
pub(crate) mod guidance;
pub(crate) mod history;
pub(crate) mod share;
