//! Entry point of the web app. On the host this binary only explains how to build the app.

#[cfg(target_arch = "wasm32")]
fn main() {
    harmonic_judge::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "harmonic-judge is a browser app: build it with `trunk build --release` (see README.md)."
    );
}
