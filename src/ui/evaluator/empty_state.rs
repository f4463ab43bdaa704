//! Before any result: what the results column will show, and where a first visit starts (the
//! gallery's example marked "Start here", which needs no key and sends nothing). Gone once a
//! run starts or a result opens.

use leptos::prelude::*;

use crate::metrics::Metric;
use crate::ui::state::AppState;

/// What a result of this metric shows, in a line.
fn what_appears(metric: Metric) -> &'static str {
    if metric.weighs_criteria() {
        "an overall score from 1 to 5; one card per criterion with the judge's rating and how sure it was; and γ, a slider that gives the criteria the judge is surest of more weight, with the plot of the score against γ and the chart of the weights."
    } else {
        "the score on the metric's own scale, how sure the judge was of it, and any doubt about the answer, said in words."
    }
}

#[component]
pub fn EmptyState() -> impl IntoView {
    let state = expect_context::<AppState>();
    let metric_ui = move || crate::ui::metrics::of(state.settings.metric.get());
    let idle = move || !metric_ui().has_run(state) && !metric_ui().running(state);
    view! {
        <section class="empty-state" data-testid="empty-state" class:hidden=move || !idle() aria-labelledby="empty-heading">
            <h3 id="empty-heading">"Your result appears here"</h3>
            <p>{move || format!("After Evaluate: {}", what_appears(state.settings.metric.get()))}</p>
            <p>
                <strong>"New here? "</strong>
                "Open the example marked \u{201c}Start here\u{201d} above: it shows a finished result, needs no key and sends nothing. To judge your own, drop an image, paste the text and press Evaluate."
            </p>
        </section>
    }
}
