//! The batch & meta-evaluation lab page: import, runs (direct and OpenAI's Batch API), the
//! results table, agreement with humans, the γ sweep, the scatter and run comparison.

pub(crate) mod batch_items;
pub(crate) mod batch_panel;
pub(crate) mod batch_run;
pub(crate) mod batch_state;
pub(crate) mod compare_panel;
pub(crate) mod inbox;
pub(crate) mod lab_app;
pub(crate) mod meta_panel;
pub(crate) mod open_in_evaluator;
pub(crate) mod openai_batch_run;
pub(crate) mod results_import;
pub(crate) mod results_table;
pub(crate) mod run_records;
pub(crate) mod scatter_plot;
pub(crate) mod slices;
pub(crate) mod stored_runs;
pub(crate) mod sweep_plot;
pub(crate) mod thumbnail;
