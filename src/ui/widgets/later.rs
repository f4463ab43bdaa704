//! The evaluator mounts in short tasks, so that no single task of the start-up blocks the main
//! thread for long (issue 43: a first visit compiles each wasm function as it first runs, so
//! the first mount is the slow one). The first task builds what the first screen shows; the
//! judge's folded settings (about 90 elements) and HarmonicEval's five empty criterion cards
//! (about 60, below the first screen), each wait for a task of their own ([`later`]).

use leptos::prelude::*;

/// Builds `view` into the element `into` in a task after the one that calls it (each call its
/// own task, in the order of the calls), under the caller's owner (so it reads the page's
/// contexts, and its effects end with that owner). Built once and never rebuilt: a reactive
/// closure would also compile the view's rebuild code. A part of the page that is replaced
/// (a `Show` hidden and shown again) calls it again with its new element.
/// The `into` element stays in the page as the built part's parent: give it the class the
/// layout needs, or `later-part` (`display: contents`, style/main.css) to lay the part out as
/// its parent's own children.
pub fn later<V: IntoView + 'static>(
    into: NodeRef<leptos::html::Div>,
    view: impl FnOnce() -> V + 'static,
) {
    use leptos::tachys::view::{Mountable, Render};
    let owner = Owner::current();
    set_timeout(
        move || {
            // Gone already (its part of the page was replaced within the task): nothing to build.
            let Some(el) = into.try_get_untracked().flatten() else {
                return;
            };
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
