//! Entry point of the batch & meta-evaluation lab page (`lab/` in the built site).

#[cfg(target_arch = "wasm32")]
fn main() {
    harmonic_judge::ui::start_lab();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("harmonic-judge-lab is a browser page: build the site with scripts/build.sh (see README.md).");
}
