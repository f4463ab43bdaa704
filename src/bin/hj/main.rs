//! `hj`, harmonic-judge on the command line: the page's metrics, requests, readings and lab
//! figures from the same core (`harmonic_judge::native` and what it calls), so a pipeline gets
//! the page's numbers. See docs/cli.md.

#[cfg(not(target_arch = "wasm32"))]
mod args;
#[cfg(not(target_arch = "wasm32"))]
mod cli;
#[cfg(not(target_arch = "wasm32"))]
mod dataset;
#[cfg(not(target_arch = "wasm32"))]
mod http;
#[cfg(not(target_arch = "wasm32"))]
mod one;
#[cfg(not(target_arch = "wasm32"))]
mod outfile;
#[cfg(not(target_arch = "wasm32"))]
mod progress;
#[cfg(not(target_arch = "wasm32"))]
mod report;
#[cfg(not(target_arch = "wasm32"))]
mod run;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    cli::main()
}

/// `hj` talks to judges over native HTTP and reads files from disk: nothing of it runs in a
/// page. A build of every binary for wasm32 (`cargo clippy --target wasm32-unknown-unknown
/// --bins`) gets this stub.
#[cfg(target_arch = "wasm32")]
fn main() {}
