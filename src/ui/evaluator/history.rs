//! The evaluator's history (issue 19, item 4): each single evaluation that finishes is kept in
//! IndexedDB as its result file (the export's document, with a thumbnail and Explain's
//! answers), the last 50 listed newest first, each reopened exactly as "Open a result" opens a
//! file, renamed or deleted. What is kept and how it is listed is `crate::files::history`; the
//! records move through `web::history`. Entered only through [`HistoryPanel`].

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::files::history::{self, Entry};
use crate::ui::evaluator::open_result::{self, OpenedView};
use crate::ui::state::AppState;
use crate::web::history as store;

#[derive(Clone, Copy)]
struct History {
    entries: RwSignal<Vec<Entry>>,
    message: RwSignal<Option<String>>,
    /// The run kept last: its generation and its entry's id (an answer Explain gives later
    /// rewrites that entry instead of adding one).
    last: StoredValue<Option<(u64, String)>>,
}

fn reload(h: History) {
    spawn_local(async move {
        match store::list().await {
            Ok(list) => h.entries.set(list),
            Err(e) => h.message.set(Some(e)),
        }
    });
}

/// Keeps the current run's result (or rewrites its entry, keeping its name and time).
fn keep(state: AppState, h: History) {
    if state.candidates.active() {
        return; // several texts: the comparison goes to the lab, not here
    }
    let page = crate::ui::metrics::of(state.settings.metric.get_untracked());
    let Some(json) = page.result_json(state) else {
        return;
    };
    let thumb = crate::ui::evaluator::share::thumbnail(state);
    let json =
        crate::files::result_file::with_extras(&json, thumb.as_deref(), &Default::default(), None);
    let generation = state.generation.get_value();
    let earlier = h
        .last
        .get_value()
        .filter(|(g, _)| *g == generation)
        .and_then(|(_, id)| {
            h.entries
                .with_untracked(|l| l.iter().find(|e| e.id == id).cloned())
        });
    let (id, saved) = match &earlier {
        Some(e) => (e.id.clone(), e.saved.clone()),
        None => (
            history::entry_id(js_sys::Date::now(), 0),
            crate::web::download::local_now().label(),
        ),
    };
    // A run with nothing to show (every criterion failed) is not worth a row.
    let Ok(mut entry) = history::new_entry(id, saved, &json) else {
        return;
    };
    if let Some(e) = earlier {
        entry.name = e.name;
    }
    h.last.set_value(Some((generation, entry.id.clone())));
    spawn_local(async move {
        match store::add(&entry).await {
            Ok(()) => {
                h.message.set(None);
                reload(h);
            }
            Err(e) => h.message.set(Some(e)),
        }
    });
}

/// Writing the entry (the result's document, its checks, the thumbnail) is in the `history`
/// chunk: it runs only after a run, never on a first visit.
#[leptos::wasm_split::wasm_split(history, wasm_split_path = ::leptos::wasm_split, fallible)]
fn keep_loaded(state: AppState, h: History) -> Result<(), crate::ui::lazy::ChunkMissing> {
    keep(state, h);
    Ok(())
}

fn keep_soon(state: AppState, h: History) {
    let load = crate::ui::lazy::loading(keep_loaded(state, h));
    spawn_local(async move {
        if load.await.is_err() {
            h.message.set(Some(crate::ui::lazy::missing(
                "keeping this run in the history",
            )));
        }
    });
}

/// Keeps each run as it finishes, and again when Explain adds an answer to it.
fn follow_runs(state: AppState, h: History) {
    Effect::new(move |was_running: Option<bool>| {
        let running = crate::ui::metrics::of(state.settings.metric.get()).running(state);
        if was_running == Some(true) && !running {
            keep_soon(state, h);
        }
        running
    });
    Effect::new(move |before: Option<usize>| {
        let explained = crate::ui::metrics::explained_count(state);
        let this_run = h.last.with_value(|l| l.as_ref().map(|(g, _)| *g))
            == Some(state.generation.get_value());
        if before.is_some_and(|b| b != explained) && explained > 0 && this_run {
            keep_soon(state, h);
        }
        explained
    });
}

/// What a click in the list asks for: `open`, `rename` or `delete` one entry.
fn act(state: AppState, view: OpenedView, h: History, target: web_sys::Element) {
    let (Some(act), Some(id)) = (
        target.get_attribute("data-act"),
        target.get_attribute("data-id"),
    ) else {
        return;
    };
    let Some(entry) = h
        .entries
        .with_untracked(|l| l.iter().find(|e| e.id == id).cloned())
    else {
        return;
    };
    match act.as_str() {
        "open" => {
            if let Err(e) = crate::files::gate::size(
                crate::files::gate::Origin::History,
                entry.file.len() as f64,
            ) {
                h.message.set(Some(e));
                return;
            }
            // Read and shown by the `open` chunk, as a file or an example is.
            spawn_local(async move {
                let shown = open_result::open_text(state, view, entry.file, entry.name).await;
                h.message.set(shown.err());
            });
        }
        "rename" => {
            let typed = target
                .closest("li")
                .ok()
                .flatten()
                .and_then(|li| li.query_selector("input").ok().flatten())
                .and_then(|i| i.dyn_into::<web_sys::HtmlInputElement>().ok())
                .map(|i| i.value())
                .unwrap_or_default();
            match history::renamed(&entry, &typed) {
                Ok(renamed) => spawn_local(async move {
                    let outcome = store::put(&renamed).await;
                    h.message.set(outcome.err());
                    reload(h);
                }),
                Err(e) => h.message.set(Some(e)),
            }
        }
        "delete" => spawn_local(async move {
            let outcome = store::delete(&entry.id).await;
            h.message.set(outcome.err());
            reload(h);
        }),
        _ => {}
    }
}

#[component]
pub fn HistoryPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let view = expect_context::<OpenedView>();
    let h = History {
        entries: RwSignal::new(Vec::new()),
        message: RwSignal::new(None),
        last: StoredValue::new(None),
    };
    reload(h);
    follow_runs(state, h);
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        {
            act(state, view, h, el);
        }
    };
    let empty = move || h.entries.with(Vec::is_empty);
    view! {
        <details class="history" data-testid="history">
            <summary>"History: your last " {history::MAX_ENTRIES} " evaluations"</summary>
            <p class="hint">"Kept in this browser only, without the key or the base URL. Open one to see it again; nothing is sent."</p>
            <p class="hint" class:hidden=move || !empty()>"Nothing yet: each evaluation is kept here when it finishes."</p>
            <ol class="history-list" data-testid="history-list" on:click=on_click
                inner_html=move || h.entries.with(|l| history::list_markup(l))></ol>
            <p class="error" role="alert" data-testid="history-error">{move || h.message.get()}</p>
        </details>
    }
}
