//! Where the judge runs: preset, base URL, model, API key, upload size, time limit.

use leptos::prelude::*;

use super::actions;
use super::fields::{NumberField, TextField};
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
            .map(|p| {
                if p.needs_key {
                    "Required by this provider."
                } else {
                    "Usually not needed for a local server."
                }
            })
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
            <TextField id="base-url-input" label="Base URL" kind="url" value=state.base_url placeholder="https://api.openai.com/v1"/>
            <TextField id="model-input" label="Model" value=state.model/>
            <TextField id="api-key-input" label="API key" kind="password" value=state.api_key>
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
            </TextField>
            <NumberField
                id="max-side-input"
                label="Longest image side sent (px)"
                value=state.max_side
                min=64
                max=4096
                step=64
                hint="The image is downscaled in the browser before it is sent."
                on_set=Callback::new(move |_| actions::reload_image(state))
            />
            <NumberField id="timeout-input" label="Time limit per request (s)" value=state.timeout_s min=1 max=600/>
        </fieldset>
    }
}
