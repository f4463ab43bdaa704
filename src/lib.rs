//! harmonic-judge's page: the evaluator and the lab in the browser, over the pure core
//! (`crates/core`, the crate `harmonic_judge_core`).
//!
//! `ui` (Leptos components, by page and by metric) and `web` (`fetch`, canvas image handling,
//! storage, the in-page engine) run in the browser only; they compile for the host as well, so
//! `cargo test` checks them and an editor follows them without a target setting. The core's
//! rooms are re-exported under their own names, so a path in the page such as
//! `crate::metrics::Metric` is the core's item and go-to-definition lands in `crates/core/src/`.

pub use harmonic_judge_core::{
    answers, batch, candidates, files, inputs, lab, meta, metrics, providers, scoring, transport,
};

pub mod ui;
pub mod web;
