//! MAEV: its extra inputs, the result panel and the runner.

pub(crate) mod inputs;
pub(crate) mod panel;
pub(crate) mod run;
