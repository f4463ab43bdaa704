//! Tokens and cost: the estimate before a run, the provider's reported usage after it, the
//! editable price table, and the answer cache.

use leptos::prelude::*;

use crate::providers::preset;
use crate::transport::cost::{estimate_for_texts, parse_prices, price_for, Cost, Price};
use crate::ui::metrics as metric_ui;
use crate::ui::run::runner;
use crate::ui::state::AppState;

fn dollars(usd: Option<f64>) -> String {
    match usd {
        Some(v) if v < 0.01 => format!("${v:.5}"),
        Some(v) => format!("${v:.4}"),
        None => "no price for this model".into(),
    }
}

fn usd_attr(usd: Option<f64>) -> String {
    usd.map(|v| v.to_string()).unwrap_or_default()
}

#[component]
pub fn CostPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let prices = Memo::new(move |_| parse_prices(&state.settings.provider.prices.get()));
    let estimate = Memo::new(move |_| {
        let size = state
            .inputs
            .image_view
            .with(|v| v.as_ref().map(|v| v.sent_size));
        let protocol = preset(&state.settings.provider.preset.get()).protocol;
        let detail = state.settings.provider.image_detail.get();
        let metric = metric_ui::of(state.settings.metric.get());
        let texts = if state.candidates.active() {
            state.candidates.texts.get()
        } else {
            vec![state.inputs.text.get()]
        };
        let (tokens_in, tokens_out) = estimate_for_texts(&texts, |t| {
            metric.estimate(state, t, size, protocol, detail)
        });
        let model = state.settings.provider.model.get();
        prices.with(|(p, _)| Cost::priced(tokens_in, tokens_out, price_for(p, &model)))
    });
    // Reported usage of every answer billed in this run, readable or not (cached ones cost
    // nothing): an answer the metric could not read was still generated and paid for.
    let usage = Memo::new(move |_| {
        let billed = state.billed.get();
        let model = metric_ui::of(state.settings.metric.get()).billed_model(state);
        let tokens_in = billed.iter().map(|u| u.prompt_tokens).sum();
        let tokens_out = billed.iter().map(|u| u.completion_tokens).sum();
        let answers = billed.len();
        let cost = prices.with(|(p, _)| {
            Cost::priced(tokens_in, tokens_out, model.and_then(|m| price_for(p, &m)))
        });
        (answers > 0).then_some(cost)
    });
    view! {
        <details class="cost">
            <summary>"Tokens, cost and cache"</summary>
            {estimate_line(estimate, state)}
            {usage_line(usage)}
            {price_table(state, prices)}
            {cache_row(state)}
        </details>
    }
}

/// The estimate for one evaluation, before it runs.
fn estimate_line(estimate: Memo<Cost>, state: AppState) -> impl IntoView {
    let n = move || state.candidates.labels.with(Vec::len).max(1);
    view! {
        <p
            data-testid="cost-estimate"
            data-candidates=n
            data-input-tokens=move || estimate.get().input_tokens
            data-output-tokens=move || estimate.get().output_tokens
            data-usd=move || usd_attr(estimate.get().usd)
        >
            {move || {
                let e = estimate.get();
                let of = match n() {
                    1 => String::new(),
                    n => format!(" of {n} candidates"),
                };
                format!(
                    "Estimate for one evaluation{of}: ≈ {} input tokens, at most {} output tokens, {}.",
                    e.input_tokens, e.output_tokens, dollars(e.usd)
                )
            }}
        </p>
    }
}

/// What the provider reported for the last run.
fn usage_line(usage: Memo<Option<Cost>>) -> impl IntoView {
    view! {
        <p
            data-testid="usage-total"
            data-input-tokens=move || usage.get().map(|c| c.input_tokens.to_string()).unwrap_or_default()
            data-output-tokens=move || usage.get().map(|c| c.output_tokens.to_string()).unwrap_or_default()
            data-usd=move || usage.get().map(|c| usd_attr(c.usd)).unwrap_or_default()
        >
            {move || match usage.get() {
                Some(c) => format!(
                    "Reported by the provider for the last run: {} input + {} output tokens, {}.",
                    c.input_tokens, c.output_tokens, dollars(c.usd)
                ),
                None => "No billed answers yet in this run.".to_string(),
            }}
        </p>
    }
}

/// The editable price table and what is wrong with it.
fn price_table(state: AppState, prices: Memo<(Vec<Price>, Vec<String>)>) -> impl IntoView {
    view! {
        <div class="field">
            <label for="prices-input">"Prices (USD per million tokens; edit to match your plan)"</label>
            <textarea
                id="prices-input"
                data-testid="prices-input"
                rows="6"
                spellcheck="false"
                prop:value=move || state.settings.provider.prices.get()
                on:change=move |ev| state.settings.provider.prices.set(event_target_value(&ev))
            ></textarea>
            <ul class="problems">
                {move || prices.with(|(_, problems)| problems.iter().map(|p| view! { <li>{p.clone()}</li> }).collect_view())}
            </ul>
        </div>
    }
}

/// How many answers the cache holds, and clearing it.
fn cache_row(state: AppState) -> impl IntoView {
    view! {
        <div class="cache-row">
            <span data-testid="cache-count" data-value=move || state.settings.provider.cache_count.get().map(|n| n.to_string()).unwrap_or_default()>
                {move || match state.settings.provider.cache_count.get() {
                    Some(n) => format!("{n} cached answer(s) on this device."),
                    None => "The answer cache is unavailable in this browser.".to_string(),
                }}
            </span>
            <button data-testid="clear-cache-button" on:click=move |_| runner::clear_cache(state.settings)>
                "Clear cache"
            </button>
            <span class="hint" role="status">{move || state.settings.provider.cache_message.get()}</span>
        </div>
    }
}
