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

pub mod aggregate;
pub mod batch;
pub mod candidates;
pub mod completion;
pub mod cost;
pub mod criteria;
pub mod doubt;
pub mod echo;
pub mod errors;
pub mod export_name;
pub mod first_visit;
#[cfg(not(target_arch = "wasm32"))]
#[doc(hidden)]
pub mod fuzzing;
pub mod gamma_axis;
pub mod gate;
pub mod history;
pub mod geometry;
pub mod lab;
pub mod limiter;
pub mod meta;
pub mod metrics;
pub mod providers;
pub mod rating;
pub mod request_key;
pub mod result_file;
pub mod retry;
pub mod retry_after;
pub mod share;
pub mod site;
pub mod sniff;
pub mod small_sort;
pub mod storage_refusal;
pub mod task;
pub mod text_checks;

#[cfg(target_arch = "wasm32")]
pub mod ui;
#[cfg(target_arch = "wasm32")]
pub mod web;
