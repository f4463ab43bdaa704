//! The batch results: a sortable, filterable table and a detail view of one item.

use leptos::prelude::*;

use crate::lab::compare::rank_gaps_by_position;
use crate::lab::rows::first_rows;
use crate::lab::ItemResult;
use crate::scoring::criteria::Criterion;
use crate::ui::lab::batch_state::BatchState;
use crate::ui::lab::thumbnail::Thumbnail;
use crate::ui::state::Settings;

/// Rows drawn at once: a 10,000-item run stays responsive; sorting and filtering reach the rest.
const SHOWN_ROWS: usize = 100;

/// A rank gap (0…1) as a percentage: how far apart the metric and the humans place the item.
fn gap_cell(v: Option<f64>) -> String {
    v.map(|x| format!("{:.0} %", x * 100.0))
        .unwrap_or_else(|| "–".into())
}

fn cell(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "–".into())
}

/// A criterion's name with a soft hyphen before "ness", so a narrow column breaks it as
/// "Correct-ness" instead of spilling into the next header or breaking anywhere.
fn soft_hyphens(label: &str) -> String {
    match label.strip_suffix("ness") {
        Some(stem) if stem.len() > 3 => format!("{stem}\u{ad}ness"),
        _ => label.to_string(),
    }
}

/// The value a column sorts by (`gap`: the item's metric–human rank gap, for "disagreement").
fn key(r: &ItemResult, column: &str, gamma: f64, gap: Option<f64>) -> Option<f64> {
    match column {
        "overall" => r.overall(gamma),
        "disagreement" => gap,
        "human" => r.human.get("overall").and_then(|v| v.first().copied()),
        c => r.criterion_score(c),
    }
}

/// The rows matching the filter, sorted, and how many matched before the first `SHOWN_ROWS`.
/// Each row with its position among the results (where its rank gap is found).
fn shown_rows(state: Settings, b: BatchState) -> Memo<(usize, Vec<(usize, ItemResult)>)> {
    Memo::new(move |_| {
        crate::web::timing::start("hj-rows");
        let filter = b.filter.get().to_lowercase();
        let (column, descending) = b.sort.get();
        // γ only reorders the rows when sorting by the overall score or the disagreement.
        let gamma = if column == "overall" || column == "disagreement" {
            state.gamma.get()
        } else {
            state.gamma.get_untracked()
        };
        let gaps = if column == "disagreement" {
            b.results.with(|r| rank_gaps_by_position(r, gamma))
        } else {
            Vec::new()
        };
        // The first rows in order, picked in one pass: no clone or sort of every result.
        let rows = b.results.with(|r| {
            let keep = |i: usize| {
                let x: &ItemResult = &r[i];
                filter.is_empty()
                    || x.id.to_lowercase().contains(&filter)
                    || x.text.to_lowercase().contains(&filter)
                    || (filter == "failed" && x.is_failed())
            };
            let kept: Vec<bool> = (0..r.len()).map(keep).collect();
            let matching = kept.iter().filter(|k| **k).count();
            let first = if column == "id" {
                first_rows(
                    r.len(),
                    SHOWN_ROWS,
                    descending,
                    |i| kept[i],
                    |a, c| r[a].id.cmp(&r[c].id),
                )
            } else {
                let keys: Vec<f64> = r
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        let gap = gaps.get(i).copied().flatten();
                        key(x, &column, gamma, gap).unwrap_or(f64::NEG_INFINITY)
                    })
                    .collect();
                first_rows(
                    r.len(),
                    SHOWN_ROWS,
                    descending,
                    |i| kept[i],
                    |a, c| keys[a].total_cmp(&keys[c]),
                )
            };
            (
                matching,
                first
                    .into_iter()
                    .map(|i| (i, r[i].clone()))
                    .collect::<Vec<(usize, ItemResult)>>(),
            )
        });
        crate::web::timing::end("hj-rows");
        rows
    })
}

/// A sortable column header: its button sorts by `column`, a second press reverses.
fn header(b: BatchState, column: &'static str, label: String) -> impl IntoView {
    let arrow = move || {
        let (c, d) = b.sort.get();
        if c == column {
            if d {
                " ▼"
            } else {
                " ▲"
            }
        } else {
            ""
        }
    };
    // Only the sorted column says how; the others are sortable but unsorted.
    let sort_state = move || {
        let (c, d) = b.sort.get();
        (c == column).then_some(if d { "descending" } else { "ascending" })
    };
    view! {
        <th scope="col" aria-sort=sort_state>
            <button class="sort" data-testid=format!("sort-{column}") on:click=move |_| b.sort.update(|(c, d)| {
                if c == column { *d = !*d } else { *c = column.to_string(); *d = column != "id" }
            })>{label}<span aria-hidden="true">{arrow}</span></button>
        </th>
    }
}

/// One item's row: its open button, thumbnail, scores, human rating and rank gap.
fn result_row(
    state: Settings,
    b: BatchState,
    gaps: Memo<Vec<Option<f64>>>,
    (at, r): (usize, ItemResult),
) -> impl IntoView {
    let id = r.id.clone();
    let id_sel = r.id.clone();
    let id_btn = r.id.clone();
    let test_id = format!("result-{}", r.id);
    let failed = r.is_failed();
    let lost = r.failed_criteria();
    let row = r.clone();
    let is_selected = move || b.selected.with(|s| s.as_deref() == Some(id_sel.as_str()));
    view! {
        <tr class:failed=failed class:partial=r.is_partial() class:selected=is_selected.clone()
            aria-current=move || is_selected().then_some("true")
            data-failed-criteria=lost data-testid=test_id on:click=move |_| b.selected.set(Some(id.clone()))>
            <td class="item-cell"><button class="row-open" data-id=id_btn.clone()
                aria-controls="result-detail-panel"
                aria-expanded=move || if b.selected.with(|s| s.as_deref() == Some(id_btn.as_str())) { "true" } else { "false" }
                on:click=move |ev: leptos::ev::MouseEvent| {
                    // A click from the keyboard (Enter/Space: detail 0) takes focus to the details.
                    if ev.detail() == 0 { focus_later("result-detail-panel") }
                }>{r.id.clone()}</button>{(lost > 0 && !failed).then(|| view! {
                <span class="partial-note">{format!(" · {lost} of {} criteria failed", r.criteria.len())}</span>
            })}</td>
            <td class="thumb-cell"><Thumbnail image=r.image.clone()/></td>
            <td>{move || cell(row.overall(state.gamma.get()))}</td>
            {(!r.criteria.is_empty()).then(|| Criterion::ALL.iter().map(|c| {
                let doubts = r.criteria.iter().find(|x| x.name == c.id()).map(|x| x.doubts.join(" ")).unwrap_or_default();
                let title = (!doubts.is_empty()).then(|| format!("Doubtful: {doubts}"));
                view! { <td class:doubtful=!doubts.is_empty() data-doubt=doubts title=title>{cell(r.criterion_score(c.id()))}</td> }
            }).collect_view())}
            <td>{r.human.get("overall").map(|v| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")).unwrap_or_default()}</td>
            <td data-testid="result-gap">{move || gap_cell(gaps.with(|g| g.get(at).copied().flatten()))}</td>
        </tr>
    }
}

/// What the count line under the table says.
fn count_text(matching: usize, shown: usize, total: usize) -> String {
    if matching > shown {
        format!("Showing {shown} of {matching} matching items ({total} in all): sort or filter to see others; exports hold every item.")
    } else {
        format!("{matching} of {total} items.")
    }
}

#[component]
pub fn ResultsTable() -> impl IntoView {
    let state = expect_context::<Settings>();
    let b = expect_context::<BatchState>();
    let rows = shown_rows(state, b);
    let has_criteria = move || b.results.with(|r| r.iter().any(|x| !x.criteria.is_empty()));
    // Each item's metric–human rank gap, shown in its row; γ only once it has settled.
    let settled = crate::ui::lab::scatter_plot::settled_gamma(state);
    let gaps = Memo::new(move |_| {
        let gamma = settled.get();
        b.results.with(|r| rank_gaps_by_position(r, gamma))
    });
    view! {
        <section class="results-table" aria-label="Batch results">
            <div class="field">
                <label for="results-filter">"Filter (id or text; “failed” for failed items)"</label>
                <input id="results-filter" data-testid="results-filter" type="search"
                    prop:value=move || b.filter.get() on:input=move |ev| b.filter.set(event_target_value(&ev))/>
            </div>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Batch results table (scrolls sideways on small screens)">
                <table data-testid="results-table" class:wide=has_criteria>
                    <caption class="visually-hidden">"Batch results: one row per item. Press a row's item button (Enter or Space) for its details; column buttons sort."</caption>
                    <thead><tr>
                        {header(b, "id", "Item".into())}
                        <th scope="col" class="thumb-col">"Image"</th>
                        {header(b, "overall", "Overall".into())}
                        {move || has_criteria().then(|| Criterion::ALL.iter().map(|c| header(b, c.id(), soft_hyphens(c.label()))).collect_view())}
                        {header(b, "human", "Human".into())}
                        {header(b, "disagreement", "Disagree\u{ad}ment".into())}
                    </tr></thead>
                    <tbody>
                        <For each=move || rows.get().1 key=|(at, r)| (*at, r.id.clone(), r.overall(1.0).map(f64::to_bits)) let:r>
                            {result_row(state, b, gaps, r)}
                        </For>
                    </tbody>
                </table>
            </div>
            <p class="hint" data-testid="results-count">{move || {
                let (matching, shown) = rows.with(|(m, r)| (*m, r.len()));
                count_text(matching, shown, b.results.with(Vec::len))
            }}</p>
            <ItemDetail/>
        </section>
    }
}

/// Focuses the element with this id once the view has been drawn.
fn focus_later(id: &'static str) {
    request_animation_frame(move || {
        use wasm_bindgen::JsCast;
        if let Some(el) = document()
            .get_element_by_id(id)
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = el.focus();
        }
    });
}

/// Focuses the open button of the row of item `id` (if it is still shown).
fn focus_row(id: String) {
    request_animation_frame(move || {
        use wasm_bindgen::JsCast;
        let quoted = id.replace('\\', "\\\\").replace('"', "\\\"");
        if let Some(el) = document()
            .query_selector(&format!("button.row-open[data-id=\"{quoted}\"]"))
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = el.focus();
        }
    });
}

/// The selected item: its text, image name, every criterion's distribution, errors.
#[component]
fn ItemDetail() -> impl IntoView {
    let state = expect_context::<Settings>();
    let b = expect_context::<BatchState>();
    let item = move || {
        let id = b.selected.get()?;
        b.results.with(|r| r.iter().find(|x| x.id == id).cloned())
    };
    // Closing gives focus back to the row it came from.
    let close = move |id: String| {
        b.selected.set(None);
        focus_row(id);
    };
    view! {
        {move || item().map(|r| view! {
            <article class="card detail" data-testid="result-detail" id="result-detail-panel" tabindex="-1"
                aria-labelledby="result-detail-title"
                on:keydown={
                    let id = r.id.clone();
                    move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Escape" { close(id.clone()) }
                }>
                <header>
                    <h3 id="result-detail-title">{format!("Item {}", r.id)}</h3>
                    <button class="link" data-testid="result-detail-close" on:click={
                        let id = r.id.clone();
                        move |_| close(id.clone())
                    }>"Close"</button>
                </header>
                <p>{r.text.clone()}</p>
                <p class="hint">{format!("task {} · image {}", r.task, r.image.clone().unwrap_or_else(|| "–".into()))}</p>
                {r.error.clone().map(|e| view! { <p class="error">{e}</p> })}
                <ul>
                    {r.criteria.iter().map(|c| view! {
                        <li>
                            <strong>{c.name.clone()}</strong> ": "
                            {match (&c.score, &c.error) {
                                (Some(s), _) => format!(
                                    "{s:.3} (σ {}) p = {}",
                                    c.sigma.map(|x| format!("{x:.3}")).unwrap_or_else(|| "–".into()),
                                    c.distribution.map(|d| d.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(" / ")).unwrap_or_default()
                                ),
                                (None, Some(e)) => e.clone(),
                                _ => "–".into(),
                            }}
                        </li>
                    }).collect_view()}
                </ul>
                {r.score.map(|s| view! { <p>{format!("Score: {s:.4}")}</p> })}
                {crate::ui::lab::open_in_evaluator::action(state, b, &r)}
            </article>
        })}
    }
}
