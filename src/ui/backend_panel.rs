//! Where the judge runs: preset, base URL, model, API key, upload size.

use leptos::prelude::*;

use super::actions;
use super::state::AppState;
use crate::providers::PRESETS;

#[component]
pub fn BackendPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let on_preset = move |ev| {
        let id = event_target_value(&ev);
        if let Some(p) = PRESETS.iter().find(|p| p.id == id) {
            state.base_url.set(p.base_url.to_string());
            state.model.set(p.model.to_string());
        }
        state.preset.set(id);
    };
    let key_hint = move || {
        PRESETS
            .iter()
            .find(|p| p.id == state.preset.get())
            .map(|p| if p.needs_key { "Required by this provider." } else { "Usually not needed for a local server." })
            .unwrap_or("Only if the endpoint asks for one.")
    };
    view! {
        <fieldset class="backend">
            <legend>"Judge backend (OpenAI-compatible)"</legend>
            <div class="field">
                <label for="preset-select">"Preset"</label>
                <select id="preset-select" data-testid="preset-select" on:change=on_preset prop:value=move || state.preset.get()>
                    {PRESETS.iter().map(|p| view! { <option value=p.id>{p.label}</option> }).collect_view()}
                    <option value="custom">"Other OpenAI-compatible server"</option>
                </select>
            </div>
            <div class="field">
                <label for="base-url-input">"Base URL"</label>
                <input
                    id="base-url-input"
                    data-testid="base-url-input"
                    type="url"
                    spellcheck="false"
                    autocomplete="off"
                    placeholder="https://api.openai.com/v1"
                    prop:value=move || state.base_url.get()
                    on:input=move |ev| state.base_url.set(event_target_value(&ev))
                />
            </div>
            <div class="field">
                <label for="model-input">"Model"</label>
                <input
                    id="model-input"
                    data-testid="model-input"
                    type="text"
                    spellcheck="false"
                    autocomplete="off"
                    prop:value=move || state.model.get()
                    on:input=move |ev| state.model.set(event_target_value(&ev))
                />
            </div>
            <div class="field">
                <label for="api-key-input">"API key"</label>
                <input
                    id="api-key-input"
                    data-testid="api-key-input"
                    type="password"
                    spellcheck="false"
                    autocomplete="off"
                    prop:value=move || state.api_key.get()
                    on:input=move |ev| state.api_key.set(event_target_value(&ev))
                />
                <small class="hint">
                    {key_hint} " Sent only to the base URL above; kept in this tab unless you tick:"
                </small>
                <label class="check">
                    <input
                        type="checkbox"
                        data-testid="remember-key-checkbox"
                        prop:checked=move || state.remember_key.get()
                        on:change=move |ev| state.remember_key.set(event_target_checked(&ev))
                    />
                    "Remember the key on this device"
                </label>
            </div>
            <div class="field">
                <label for="max-side-input">"Longest image side sent (px)"</label>
                <input
                    id="max-side-input"
                    data-testid="max-side-input"
                    type="number"
                    min="64"
                    max="4096"
                    step="64"
                    prop:value=move || state.max_side.get().to_string()
                    on:change=move |ev| {
                        if let Ok(v) = event_target_value(&ev).parse::<u32>() {
                            state.max_side.set(v.clamp(64, 4096));
                            actions::reload_image(state);
                        }
                    }
                />
                <small class="hint">"The image is downscaled in the browser before it is sent."</small>
            </div>
            <div class="field">
                <label for="timeout-input">"Time limit per request (s)"</label>
                <input
                    id="timeout-input"
                    data-testid="timeout-input"
                    type="number"
                    min="1"
                    max="600"
                    prop:value=move || state.timeout_s.get().to_string()
                    on:change=move |ev| {
                        if let Ok(v) = event_target_value(&ev).parse::<u32>() {
                            state.timeout_s.set(v.clamp(1, 600));
                        }
                    }
                />
            </div>
        </fieldset>
    }
}
