//! Parts of the evaluator that not every visit needs live in wasm chunks fetched on first use
//! (`scripts/split/wasm-bindgen`, a wrapper Trunk calls in place of wasm-bindgen, cuts them out with wasm-split-cli at build time). Each chunk's entry is a function marked
//! `#[wasm_split(<chunk>, ..., fallible)]` that builds its view; [`chunk`] shows that view once
//! the chunk has arrived, and a sentence, not a dead page, when it cannot be fetched.

use leptos::prelude::*;
use leptos::wasm_split::SplitLoaderError;

/// A chunk that could not be fetched (offline, the site half-deployed).
#[derive(Debug)]
pub struct ChunkMissing;

impl From<SplitLoaderError> for ChunkMissing {
    fn from(_: SplitLoaderError) -> Self {
        ChunkMissing
    }
}

/// The sentence for an action whose code could not be fetched.
pub fn missing(what: &str) -> String {
    format!("The code for {what} could not be loaded from this site. Check the connection and try again.")
}

/// What a chunk's entry returns: its view, or that the chunk is missing.
pub type ChunkView = Result<AnyView, ChunkMissing>;

/// A chunk's entry, boxed: every chunk's view goes through one copy of [`chunk`]'s code.
type Entry = std::sync::Arc<
    dyn Fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = ChunkView>>> + Send + Sync,
>;

/// Shows the view that `entry` builds once its chunk is loaded (at once when it already is).
/// Only the boxing is generic: the view, its Suspend and its rendering are one copy in the
/// first-visit wasm whatever the number of chunks (each generic copy cost about 1 KB).
pub fn chunk<F, Fut>(what: &'static str, entry: F) -> impl IntoView
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ChunkView> + 'static,
{
    chunk_boxed(
        what,
        std::sync::Arc::new(move || {
            Box::pin(entry()) as std::pin::Pin<Box<dyn std::future::Future<Output = ChunkView>>>
        }),
    )
}

fn chunk_boxed(what: &'static str, entry: Entry) -> impl IntoView {
    move || {
        // The browser has one thread; Suspend asks for a Send future all the same.
        let load = leptos::__reexports::send_wrapper::SendWrapper::new(loading(entry()));
        Suspend::new(async move {
            match load.await {
                Ok(view) => view,
                Err(ChunkMissing) => view! {
                    <p class="error" role="alert" data-testid="chunk-missing">
                        {format!("The {what} could not be loaded from this site. Check the connection and reload the page.")}
                    </p>
                }
                .into_any(),
            }
        })
    }
}

thread_local! {
    static LOADING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Counts chunks in flight on `<body data-chunks-loading="n">` (absent when none), so a slow
/// first click shows a busy cursor (style/main.css) and a test can wait for the page's
/// code to arrive as it waits for a redraw.
fn mark_loading(delta: i32) {
    let n = LOADING.with(|c| {
        let n = c.get().saturating_add_signed(delta);
        c.set(n);
        n
    });
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let _ = if n == 0 {
            body.remove_attribute("data-chunks-loading")
        } else {
            body.set_attribute("data-chunks-loading", &n.to_string())
        };
    }
}

/// Awaits a chunk's entry (`fut`), marking the page busy from this call (not from the first
/// poll, so the mark is there when the click that asked for it returns) until it is done or
/// dropped (a view taken away while its chunk was in flight).
pub fn loading<T>(
    fut: impl std::future::Future<Output = T>,
) -> impl std::future::Future<Output = T> {
    let busy = Busy::new();
    async move {
        let out = fut.await;
        drop(busy);
        out
    }
}

/// How long a button's code may take to arrive when the action has no time limit of its own.
pub const CHUNK_WAIT_MS: u32 = 60_000;

/// After this long without the code, the form says what it is waiting for.
const SAY_WAITING_MS: u32 = 2_000;

/// Runs a button's action in its chunk (`load`: the chunk's entry, already called) and, where
/// the chunk cannot be fetched, says so as the form's one problem: "The code for {what} could
/// not be loaded…". It never waits silently or for ever (issue 72): after two seconds the form
/// says what it waits for, and after `limit_ms` (a run's: the request's time limit) it gives up
/// with a sentence; the action then never starts, even if the code arrives later. One copy for
/// every such button: each call site only boxes its future.
pub fn act(
    problems: RwSignal<Vec<String>>,
    what: &'static str,
    limit_ms: u32,
    load: impl std::future::Future<Output = Result<(), ChunkMissing>> + 'static,
) {
    let busy = Busy::new();
    leptos::task::spawn_local(report(Box::pin(load), busy, problems, what, limit_ms));
}

/// The sentence while a button's code is still on its way.
pub fn waiting(what: &str) -> String {
    format!("Waiting for the code for {what} to arrive from this site\u{2026}")
}

/// The sentence when it did not arrive within `limit_ms`.
pub fn too_slow(what: &str, limit_ms: u32) -> String {
    format!(
        "The code for {what} did not arrive from this site within {} s, so nothing was sent. Check the connection and try again.",
        limit_ms / 1000
    )
}

async fn report(
    load: std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), ChunkMissing>>>>,
    busy: Busy,
    problems: RwSignal<Vec<String>>,
    what: &'static str,
    limit_ms: u32,
) {
    use futures::future::{select, Either};
    let note = waiting(what);
    let said = {
        let note = note.clone();
        Box::pin(async move {
            crate::web::fetch::sleep(SAY_WAITING_MS.min(limit_ms), None).await;
            problems.set(vec![note]);
            crate::web::fetch::sleep(limit_ms.saturating_sub(SAY_WAITING_MS), None).await;
        })
    };
    let out = match select(load, said).await {
        Either::Left((out, _)) => Some(out),
        Either::Right(_) => None,
    };
    drop(busy);
    // The waiting note goes once the code is here; a problem the action set stays.
    if problems.with_untracked(|p| p.len() == 1 && p[0] == note) {
        problems.set(Vec::new());
    }
    match out {
        Some(Ok(())) => {}
        Some(Err(ChunkMissing)) => problems.set(vec![missing(what)]),
        None => problems.set(vec![too_slow(what, limit_ms)]),
    }
}

struct Busy;

impl Busy {
    fn new() -> Self {
        mark_loading(1);
        Busy
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        mark_loading(-1);
    }
}
