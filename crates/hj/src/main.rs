//! `hj`, harmonic-judge on the command line: the page's metrics, requests, readings and lab
//! figures from the same core (`harmonic_judge_core::native` and what it calls), so a pipeline gets
//! the page's numbers. See docs/cli.md.

mod cli;
mod dataset;
mod http;
mod one;
mod options;
mod outfile;
mod progress;
mod report;
mod run;

fn main() {
    cli::main()
}
