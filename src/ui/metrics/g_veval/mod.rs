//! G-VEval: the result panel and the runner.

pub(crate) mod panel;
pub(crate) mod run;
