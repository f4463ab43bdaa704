//! The evaluator mounts in short tasks, so that no single task of the start-up blocks the main
//! thread for long (issue 43: a first visit compiles each wasm function as it first runs, so
//! the first mount is the slow one). The first task builds what the first screen shows; the
//! judge's folded settings, a third of the page's elements, wait for the next one ([`later`]).

use leptos::prelude::*;

/// Builds `view` into the element `into` in the task after the one that calls it, under the
/// caller's owner (so it reads the page's contexts). Built once and never rebuilt: a reactive
/// closure would also compile the view's rebuild code.
pub fn later<V: IntoView + 'static>(into: NodeRef<leptos::html::Div>, view: impl FnOnce() -> V + 'static) {
    use leptos::tachys::view::{Mountable, Render};
    let owner = Owner::current();
    set_timeout(
        move || {
            let Some(el) = into.get_untracked() else { return };
            let build = move || {
                let mut built = view().into_view().build();
                built.mount(&el, None);
                // The page lives as long as the tab: what was built stays with it.
                std::mem::forget(built);
            };
            match owner {
                Some(owner) => owner.with(build),
                None => build(),
            }
        },
        std::time::Duration::ZERO,
    );
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
