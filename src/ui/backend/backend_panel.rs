//! Where the judge runs: provider, base URL, model, API key, image detail, limits, and the
//! connection check.

use leptos::prelude::*;

use crate::providers::{preset, ImageDetail, Protocol, PRESETS};
use crate::ui::backend::connection_panel::ConnectionPanel;
use crate::ui::run::image_actions;
use crate::ui::state::{AppState, Settings};
use crate::ui::widgets::fields::{NumberField, TextField};

/// `page`: the evaluator's state, whose image is sent again at a new size limit (the lab has
/// none).
#[component]
pub fn BackendPanel(settings: Settings, page: Option<AppState>) -> impl IntoView {
    let state = settings;
    let current = move || preset(&state.provider.preset.get());
    view! {
        <fieldset class="backend">
            <legend>"Judge backend"</legend>
            {provider_select(state)}
            <TextField id="base-url-input" label="Base URL" kind="url" value=state.provider.base_url placeholder="https://api.openai.com/v1"/>
            <TextField id="model-input" label="Model" value=state.provider.model list="model-options"/>
            <datalist id="model-options">
                {move || state.provider.models.get().into_iter().map(|m| view! { <option value=m/> }).collect_view()}
            </datalist>
            {key_field(state)}
            {detail_select(state)}
            <Show when=move || current().in_page()>
                {crate::ui::lazy::chunk("in-browser judge's settings", in_browser_view)}
            </Show>
            <ConnectionPanel settings=state/>
            <OutputSettings settings=state/>
            {limits(state, page)}
        </fieldset>
    }
}

/// The provider picker; each provider keeps its own settings.
fn provider_select(state: Settings) -> impl IntoView {
    view! {
        <div class="field">
            <label for="preset-select">"Provider"</label>
            <select
                id="preset-select"
                data-testid="preset-select"
                on:change=move |ev| state.switch_provider(event_target_value(&ev))
                prop:value=move || state.provider.preset.get()
            >
                {PRESETS.iter().map(|p| view! { <option value=p.id>{p.label}</option> }).collect_view()}
            </select>
            <small class="hint">"Each provider keeps its own URL, model, key and limits."</small>
        </div>
    }
}

/// The API key, where it goes, and whether it is remembered.
fn key_field(state: Settings) -> impl IntoView {
    let key_hint = move || {
        if preset(&state.provider.preset.get()).needs_key {
            "Required by this provider."
        } else {
            "Usually not needed for a local server."
        }
    };
    view! {
        <TextField id="api-key-input" label="API key" kind="password" value=state.provider.api_key>
            <small class="hint">
                {key_hint} " Sent only to the base URL above; kept in this tab unless you tick:"
            </small>
            <label class="check">
                <input
                    type="checkbox"
                    data-testid="remember-key-checkbox"
                    prop:checked=move || state.provider.remember_key.get()
                    on:change=move |ev| state.provider.remember_key.set(event_target_checked(&ev))
                />
                "Remember the key on this device"
            </label>
        </TextField>
    }
}

/// OpenAI's image detail, shown for OpenAI-format providers only; the in-page judge (our
/// build) reads it as how many of a tiling model's views to read.
fn detail_select(state: Settings) -> impl IntoView {
    let is_openai_protocol =
        move || preset(&state.provider.preset.get()).protocol == Protocol::OpenAi;
    let in_page = move || preset(&state.provider.preset.get()).in_page();
    let hint = move || {
        if in_page() {
            "In this page (our llama.cpp build), for a model that cuts an image into views (SmolVLM): low reads the global view alone; high every view the model's file asks for (13 for a 640×480 photo); auto times the global view on this device and reads them all only when they would take at most 20 s. Each view is encoded once and kept while the model is loaded."
        } else {
            "low: 85 tokens per image; high: tiles of 512 px; auto: OpenAI chooses (the paper setting; the low-detail extension sends low for photos, high for documents). Other servers ignore it."
        }
    };
    view! {
        <Show when=is_openai_protocol>
            <div class="field">
                <label for="detail-select">
                    {move || if in_page() { "Image detail" } else { "Image detail (OpenAI)" }}
                </label>
                <select
                    id="detail-select"
                    data-testid="detail-select"
                    prop:value=move || state.provider.image_detail.get().id()
                    on:change=move |ev| state.provider.image_detail.set(ImageDetail::from_id(&event_target_value(&ev)))
                >
                    {ImageDetail::ALL.iter().map(|d| view! { <option value=d.id()>{d.id()}</option> }).collect_view()}
                </select>
                <small class="hint">{hint}</small>
            </div>
        </Show>
    }
}

/// Image size, time limit, concurrency and retries, folded away.
fn limits(state: Settings, page: Option<AppState>) -> impl IntoView {
    view! {
        <details class="limits">
            <summary>"Limits and image size"</summary>
            <NumberField
                id="max-side-input"
                label="Longest image side sent (px)"
                value=state.max_side
                min=64
                max=4096
                step=64
                hint="The image is downscaled in the browser before it is sent."
                on_set=Callback::new(move |_| {
                    if let Some(page) = page {
                        image_actions::reload_image(page)
                    }
                })
            />
            <NumberField id="timeout-input" label="Time limit per request (s)" value=state.provider.timeout_s min=1 max=600/>
            <NumberField
                id="concurrency-input"
                label="Requests at once (this provider)"
                value=state.provider.concurrency
                min=1
                max=32
                hint="Lower it for a local server with few parallel slots (llama-server -np)."
            />
            <NumberField
                id="retries-input"
                label="Retries after a rate limit or server error"
                value=state.provider.max_retries
                min=0
                max=8
                hint="With exponential backoff; a server's Retry-After is honoured."
            />
        </details>
    }
}

/// The chosen metric's output budget and repeatable mode: the two settings a local judge most
/// often needs changed, kept in view rather than under "Limits".
#[component]
fn OutputSettings(settings: Settings) -> impl IntoView {
    let state = settings;
    let metric_name = move || state.metric.get().info().name;
    let budget_hint = move || {
        let local = preset(&state.provider.preset.get()).local;
        let default = Some(state.metric.get().info().default_max_tokens(local));
        format!(
            "The most tokens the judge may write for one {} score (default here: {}). Raise it when \
             answers are cut off before their score.",
            metric_name(),
            default.map_or("–".to_string(), |d| d.to_string())
        )
    };
    view! {
        <div class="field">
            <label for="max-tokens-input">"Output tokens (" {metric_name} ")"</label>
            <input
                id="max-tokens-input"
                data-testid="max-tokens-input"
                type="number"
                min=1
                max=8192
                prop:value=move || state.provider.max_tokens.get().to_string()
                on:change=move |ev| {
                    if let Ok(v) = event_target_value(&ev).trim().parse::<u32>() {
                        state.provider.max_tokens.set(v.clamp(1, 8192));
                    }
                }
            />
            <small class="hint">{budget_hint}</small>
        </div>
        <label class="check">
            <input
                type="checkbox"
                data-testid="repeatable-checkbox"
                id="repeatable-checkbox"
                prop:checked=move || state.provider.repeatable.get()
                on:change=move |ev| state.provider.repeatable.set(event_target_checked(&ev))
            />
            "Repeatable: one request at a time, a fixed seed where the metric samples"
        </label>
        <small class="hint">
            "Servers that batch parallel requests (llama.cpp) or reuse cached prompts give slightly \
             different numbers for the same input; this mode makes them identical run to run. \
             On by default for local servers."
        </small>
    }
}

/// The in-browser judge's settings, in their own chunk: fetched when that provider is chosen.
#[leptos::wasm_split::wasm_split(in_browser, wasm_split_path = ::leptos::wasm_split, fallible)]
fn in_browser_view() -> crate::ui::lazy::ChunkView {
    Ok(view! { <crate::ui::backend::in_browser_panel::InBrowserPanel/> }.into_any())
}
