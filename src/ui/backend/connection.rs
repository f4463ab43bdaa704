//! The "Check connection" action: observe the backend (model list, llama.cpp `/props`, one
//! tiny probe request) and let `providers::check::report` say what it means.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::answers::errors::{redact, JudgeError};
use crate::providers::check::{probe_request, report, Observations, Reach};
use crate::providers::llama::{props_request, read_props};
use crate::providers::{models_request, preset, read_chat, read_models, Backend, HttpRequest};
use crate::ui::state::{ConnectionState, Settings};
use crate::web::fetch;

/// Short: a check should answer quickly or say the server is not there.
const CHECK_TIMEOUT_MS: u32 = 15_000;

/// The model field suggests at most this many listed names (a list of 100k would cost the page
/// more to draw than it is worth; the report still counts them all).
const MAX_SUGGESTIONS: usize = 1000;

pub fn check_connection(state: Settings) {
    let backend = state.provider.backend();
    let preset = preset(&state.provider.preset.get_untracked());
    state.provider.connection.set(ConnectionState::Checking);
    spawn_local(async move {
        let mut obs = Observations {
            reach: Reach::Answered,
            models: None,
            llama: None,
            probe: None,
        };
        let listing = match models_request(&backend) {
            Ok(r) => r,
            Err(e) => {
                let lines = vec![e.to_string()];
                state
                    .provider
                    .connection
                    .set(ConnectionState::Done { ok: false, lines });
                return;
            }
        };
        observe_models(&mut obs, &backend, &listing).await;
        // After a refused key or a redirect, a probe would only say the same again.
        let stop = matches!(
            obs.models,
            Some(Err(
                JudgeError::KeyRejected { .. } | JudgeError::Redirect { .. }
            ))
        );
        if obs.reach == Reach::Answered && !stop {
            probe(&mut obs, &backend, preset.id == "llama_server").await;
        }
        if let Some(Ok(models)) = &obs.models {
            state.provider.models.set(
                models[..models.len().min(MAX_SUGGESTIONS)]
                    .iter()
                    .map(|m| m.id.clone())
                    .collect(),
            );
        }
        let findings = report(preset, &backend, &obs);
        let ok = findings.iter().all(|f| f.ok);
        let lines = findings
            .into_iter()
            .map(|f| {
                let mark = if f.ok { "✓" } else { "✗" };
                redact(&format!("{mark} {}", f.text), &backend.api_key)
            })
            .collect();
        state
            .provider
            .connection
            .set(ConnectionState::Done { ok, lines });
    });
}

/// Asks for the model list: whether the server answers at all (and with CORS), and what it lists.
async fn observe_models(obs: &mut Observations, backend: &Backend, listing: &HttpRequest) {
    match fetch::send(listing, CHECK_TIMEOUT_MS, None).await {
        Err(JudgeError::Network { .. }) => {
            obs.reach = if fetch::reachable_without_cors(&listing.url, CHECK_TIMEOUT_MS).await {
                Reach::CorsRefused
            } else {
                Reach::Down
            };
        }
        Err(e) => obs.models = Some(Err(e)),
        Ok(raw) if raw.status == 404 || raw.status == 405 => {} // no model list offered
        Ok(raw) if (200..300).contains(&raw.status) => {
            obs.models = Some(read_models(backend.protocol, &raw.body));
        }
        Ok(raw) => {
            let message = crate::answers::errors::error_body_message(&raw.body);
            obs.models = Some(Err(JudgeError::from_http(
                raw.status,
                message,
                raw.retry_after,
            )));
        }
    }
}

/// llama.cpp's `/props` (for llama-server) and one tiny scoring request.
async fn probe(obs: &mut Observations, backend: &Backend, llama_server: bool) {
    if llama_server {
        if let Ok(req) = props_request(backend) {
            if let Ok(raw) = fetch::send(&req, CHECK_TIMEOUT_MS, None).await {
                obs.llama = read_props(&raw.body);
            }
        }
    }
    if let Ok(req) = probe_request(backend) {
        let outcome = fetch::send(&req, CHECK_TIMEOUT_MS, None)
            .await
            .and_then(|raw| read_chat(backend.protocol, raw.status, raw.retry_after, &raw.body));
        obs.probe = Some(outcome);
    }
}
