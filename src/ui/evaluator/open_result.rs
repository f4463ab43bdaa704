//! Showing a result file (an export, a gallery example) as if it had just run, and the
//! "Open a result" file box. The file is read by the core (`crate::files::result_file`); this module
//! only puts what it read into the signals.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::files::result_file::{Body, Opened};
use crate::providers::{Backend, Image, Protocol};
use crate::ui::state::{AppState, ImageView};

/// What was opened from a file, for the note above the results.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenedNote {
    /// "dog-park.json" or an example's title.
    pub from: String,
    /// What the file says about itself: shown as its claims, apart from what the page knows.
    pub claims: Claims,
    pub metric: String,
    /// The sentence for a provider this page does not know (`Protocol::unknown`): the file
    /// is shown, but never as if OpenAI had judged it.
    pub unknown_provider: Option<String>,
}

/// What an opened result says about where it comes from; nothing here can be checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Claims {
    pub model: String,
    pub provider: String,
    pub source: Option<String>,
}

/// The opened result's note, provided by the evaluator page.
#[derive(Clone, Copy)]
pub struct OpenedView(pub RwSignal<Option<OpenedNote>>);

/// Puts a read result into the page. Refused (with a sentence) while a run is in flight.
pub fn show(state: AppState, view: OpenedView, opened: Opened, from: &str) -> Result<(), String> {
    if untrack(|| crate::ui::metrics::of(state.settings.metric.get()).running(state)) {
        return Err("A run is in progress: cancel it or wait, then open the result.".into());
    }
    state.generation.update_value(|g| *g += 1);
    state.settings.form_problems.set(Vec::new());
    state.export_error.set(None);
    let Some(metric) = crate::metrics::Metric::from_id(&opened.metric) else {
        return Err(format!(
            "This file's metric \u{201c}{}\u{201d} is not one this page knows.",
            opened.metric
        ));
    };
    state.settings.metric.set(metric);
    // Nothing of the result shown before stays: a file without an image shows none (it would
    // otherwise sit beside the new score, and Copy link would share it with that score).
    state.inputs.image.set_value(None);
    state.inputs.image_file.set_value(None);
    crate::web::in_browser::forget_image_views();
    state.inputs.image_error.set(None);
    state
        .inputs
        .image_view
        .set(opened.image.as_ref().map(|url| ImageView {
            data_url: url.clone(),
            file_name: from.to_string(),
            original_size: (0, 0),
            sent_size: (0, 0),
            is_video: false,
            note: None,
        }));
    let unknown_provider = Protocol::unknown(&opened.provider);
    let mut backend = Backend {
        // An unknown provider's scores are shown as recorded; its sentence says so, and
        // Explain asks the judge set up now, as for any opened result.
        protocol: Protocol::from_id(&opened.provider).unwrap_or_default(),
        // The file's base URL is not kept: Explain on a result without a stored answer asks
        // the backend configured now, as after any run.
        base_url: String::new(),
        model: opened.model.clone(),
        // Exported again, the result still says how it was computed, and by whom.
        engine: opened.engine,
        recorded_provider: unknown_provider
            .is_some()
            .then(|| opened.provider.trim().to_string()),
        ..Backend::default()
    };
    opened.sent.apply(&mut backend);
    if !matches!(opened.body, Body::Candidates(_)) {
        // One result opened: shown as one text, not inside an earlier comparison.
        state.reset_candidates();
    }
    // What a run or Explain of the opened result sends, as a metric takes it.
    let sent = opened.image.as_deref().and_then(Image::from_data_url);
    match opened.body {
        Body::Single(reopened) => crate::ui::metrics::show_opened(state, reopened, sent, backend),
        Body::Candidates(c) => crate::ui::metrics::show_opened_comparison(state, *c, sent, backend),
    }
    view.0.set(Some(OpenedNote {
        from: from.to_string(),
        claims: Claims {
            model: opened.model,
            provider: opened.provider,
            source: opened.source,
        },
        metric: opened.metric,
        unknown_provider,
    }));
    Ok(())
}

/// Reads a file the user chose and shows it.
pub fn open_file(
    state: AppState,
    view: OpenedView,
    error: RwSignal<Option<String>>,
    file: web_sys::File,
) {
    let name = file.name();
    // The gate: a file larger than any result is not read at all.
    if let Err(e) = crate::files::gate::size(crate::files::gate::Origin::File, file.size()) {
        error.set(Some(e));
        return;
    }
    spawn_local(async move {
        let outcome = match crate::web::files::text(&file).await {
            Ok(text) => open_text(state, view, text, name).await,
            Err(e) => Err(e),
        };
        error.set(outcome.err());
    });
}

#[component]
pub fn OpenResult() -> impl IntoView {
    let state = expect_context::<AppState>();
    let view = expect_context::<OpenedView>();
    let error = RwSignal::new(None::<String>);
    let on_change = move |ev: leptos::ev::Event| {
        let input: Option<web_sys::HtmlInputElement> = ev.target().and_then(|t| t.dyn_into().ok());
        if let Some(file) = input
            .as_ref()
            .and_then(|i| i.files())
            .and_then(|f| f.get(0))
        {
            open_file(state, view, error, file);
        }
    };
    view! {
        <div class="open-result">
            <label for="open-result-input">"Open a result file (an export of any metric)"</label>
            <input id="open-result-input" type="file" accept=".json,application/json"
                data-testid="open-result-input" on:change=on_change/>
            <p class="error" role="alert" data-testid="open-result-error">{move || error.get()}</p>
        </div>
    }
}

/// Where the shown result came from.
#[component]
pub fn OpenedPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let view = expect_context::<OpenedView>();
    // A run started on the page replaces what was opened: the note no longer describes it.
    Effect::new(move |_| {
        if crate::ui::metrics::of(state.settings.metric.get()).running(state) {
            view.0.set(None);
        }
    });
    let note = move || {
        view.0
            .get()
            .filter(|n| state.settings.metric.with(|m| m.id() == n.metric))
    };
    view! {
        {move || note().map(|n| view! {
            <div class="opened-note" data-testid="opened-note">
                <p>"Opened from " <strong>{n.from.clone()}</strong> ": no request was sent."</p>
                {claims_view(&n.claims)}
                {n.unknown_provider.clone().map(|u| view! {
                    <p class="warn-text" role="status" data-testid="opened-provider-unknown">{u}</p>
                })}
            </div>
        })}
    }
}

/// What the file says about itself, set apart and quoted: the page did not see the run, so it
/// cannot vouch for the model, the provider or the source a file names.
fn claims_view(c: &Claims) -> Option<impl IntoView> {
    let judge = match (c.model.trim(), c.provider.trim()) {
        ("", "") => None,
        (m, "") => Some(format!("judged by {m}")),
        ("", p) => Some(format!("judged through {p}")),
        (m, p) => Some(format!("judged by {m} through {p}")),
    };
    (judge.is_some() || c.source.is_some()).then(|| {
        view! {
            <div class="opened-claims" data-testid="opened-claims">
                <p class="claims-head">"This file says (the page cannot check it):"</p>
                {judge.map(|j| view! { <p data-testid="opened-model">{j}</p> })}
                {c.source.clone().map(|s| view! { <p data-testid="opened-source">{s}</p> })}
            </div>
        }
    })
}

/// Reading a result file and showing it, in the `open` chunk.
#[leptos::wasm_split::wasm_split(open, wasm_split_path = ::leptos::wasm_split, fallible)]
fn open_loaded(
    state: AppState,
    view: OpenedView,
    text: String,
    from: String,
) -> Result<Result<(), String>, crate::ui::lazy::ChunkMissing> {
    Ok(crate::files::result_file::read(&text).and_then(|o| show(state, view, o, &from)))
}

/// Shows the result file `text` came from (`from`: its name, "a share link", an example).
pub async fn open_text(
    state: AppState,
    view: OpenedView,
    text: String,
    from: String,
) -> Result<(), String> {
    crate::ui::lazy::loading(open_loaded(state, view, text, from))
        .await
        .unwrap_or_else(|crate::ui::lazy::ChunkMissing| {
            Err(crate::ui::lazy::missing("opening a result"))
        })
}
