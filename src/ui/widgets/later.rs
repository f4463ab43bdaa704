//! The evaluator mounts in short tasks, so that no single task of the start-up blocks the main
//! thread for long (issue 43: a first visit compiles each wasm function as it first runs, so
//! the first mount is the slow one). The first task builds what the first screen shows; the
//! judge's folded settings, a third of the page's elements, wait for the next one ([`later`]).

use leptos::prelude::*;

/// True from the task after the one that calls it: `{move || ready.get().then(|| view! {…})}`.
pub fn later() -> ReadSignal<bool> {
    let (ready, set) = signal(false);
    set_timeout(move || set.set(true), std::time::Duration::ZERO);
    ready
}

/// Marks `hj-mounted` (read by `scripts/bench.py` and the end-to-end tests) once what [`later`]
/// waited for is built, then calls `after`: a timeout set from inside a timeout runs after
/// every one set before it.
pub fn mounted(after: impl FnOnce() + 'static) {
    set_timeout(
        move || {
            set_timeout(
                move || {
                    after();
                    if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
                        perf.mark("hj-mounted").ok();
                    }
                },
                std::time::Duration::ZERO,
            )
        },
        std::time::Duration::ZERO,
    );
}
