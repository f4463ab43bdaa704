//! harmonic-judge: VLM-as-a-judge metrics computed in the browser.
//!
//! The crate is split in two halves:
//!
//! * a **pure core** (everything outside `ui` and `web`) with no browser dependency: the metric
//!   math, prompt templates, provider request building and response parsing. It compiles on the
//!   host and is tested with a plain `cargo test`;
//! * the **browser half** (`ui`, `web`), compiled only for `wasm32`: Leptos components, `fetch`,
//!   canvas image handling and storage.
//!
//! The method is HarmonicEval (Ohi et al., "HarmonicEval: Multi-modal, Multi-task, Multi-criteria
//! Automatic Evaluation Using a Vision Language Model"); see `metrics::harmonic_eval`.

pub mod answers;
pub mod batch;
pub mod candidates;
pub mod files;
#[cfg(not(target_arch = "wasm32"))]
#[doc(hidden)]
pub mod fuzzing;
pub mod inputs;
pub mod lab;
pub mod meta;
pub mod metrics;
/// Native only: what the command line (`src/bin/hj/`) and the Python package (`src/python/`) share.
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
pub mod providers;
pub mod scoring;
pub mod transport;

#[cfg(target_arch = "wasm32")]
pub mod ui;
#[cfg(target_arch = "wasm32")]
pub mod web;
