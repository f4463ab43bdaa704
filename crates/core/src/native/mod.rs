//! The core's way in without a page, natively only: what the command line (`crates/hj/src/`) and
//! the Python package (`crates/python/`) share. Nothing here decides a number: the requests are
//! `batch::plan::Plan::requests`, the answers are read by `Plan::read` and
//! `batch::openai_batch::read_output`, the figures are `lab::figures`, exactly as the lab calls
//! them; this module only reads files from disk and turns the page's settings into arguments.
//!
//! * [`settings`]: the judge (provider, base URL, model, output budget) and the metric's plan
//!   from plain strings, with the page's defaults and its sentences for what is wrong;
//! * [`files`]: a dataset (JSONL, CSV, or a ZIP holding it) and its images (the ZIP, or a folder)
//!   from disk, checked as the lab checks an import;
//! * [`disk`]: every file read from disk, each with its stated limit, special files refused;
//! * [`image_prep`]: an image prepared as the page prepares it (decoded, scaled to the longest
//!   side, the REG box drawn in, JPEG), with the `image` crate where the page has the browser's
//!   canvas;
//! * [`batch_files`]: planning (the requests as OpenAI Batch API JSONL, which vLLM's batch runner
//!   reads too) and scoring (a file of answers into the lab's results).

pub mod batch_files;
pub mod disk;
pub mod files;
pub mod image_prep;
pub mod settings;
