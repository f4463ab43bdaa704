//! Labelled form fields bound to a signal, shared by the panels. The element id doubles as the
//! `data-testid`.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::inputs::text_checks::paste_too_long;

/// A one-line text input that writes every keystroke to `value`.
#[component]
pub fn TextField(
    id: &'static str,
    label: &'static str,
    value: RwSignal<String>,
    /// The input's `type`: "text", "url" or "password".
    #[prop(default = "text")]
    kind: &'static str,
    #[prop(optional)] placeholder: &'static str,
    /// Id of a `<datalist>` of suggestions.
    #[prop(optional)]
    list: &'static str,
    /// Shown under the input (hints, extra controls).
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <input
                id=id
                data-testid=id
                type=kind
                spellcheck="false"
                autocomplete="off"
                placeholder=placeholder
                list=(!list.is_empty()).then_some(list)
                prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev))
            />
            {children.map(|c| c())}
        </div>
    }
}

/// Refuses a paste or a drop that would make a text box longer than the page accepts
/// ([`paste_too_long`]), before the browser puts it in the box: the box keeps what it had, the
/// sentence under it says why, and Chromium never lays out a megabyte (about 20 s for an
/// unbroken one, the page frozen meanwhile). Typing past the limit is still caught by the
/// form's own check when the visitor evaluates.
#[derive(Clone, Copy)]
pub struct PasteLimit {
    refused: RwSignal<Option<String>>,
}

impl PasteLimit {
    pub fn new() -> Self {
        Self {
            refused: RwSignal::new(None),
        }
    }

    /// The `paste` handler; `what` names the text in the sentence ("caption").
    pub fn on_paste(
        self,
        what: impl Fn() -> String + 'static,
    ) -> impl Fn(web_sys::ClipboardEvent) + 'static {
        move |e: web_sys::ClipboardEvent| {
            let pasted = e
                .clipboard_data()
                .and_then(|d| d.get_data("text/plain").ok());
            self.check(&what(), &e, pasted);
        }
    }

    /// The `drop` handler: text dragged onto the box, checked as a paste is.
    pub fn on_drop(
        self,
        what: impl Fn() -> String + 'static,
    ) -> impl Fn(web_sys::DragEvent) + 'static {
        move |e: web_sys::DragEvent| {
            let dropped = e
                .data_transfer()
                .and_then(|d| d.get_data("text/plain").ok());
            self.check(&what(), &e, dropped);
        }
    }

    /// Forgets the last refusal (the visitor typed or pasted something accepted).
    pub fn clear(self) {
        if self.refused.with_untracked(|r| r.is_some()) {
            self.refused.set(None);
        }
    }

    fn check(self, what: &str, e: &web_sys::Event, incoming: Option<String>) {
        let Some(incoming) = incoming.filter(|t| !t.is_empty()) else {
            return;
        };
        let Some(area) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
        else {
            return;
        };
        let start = area.selection_start().ok().flatten().unwrap_or(0) as usize;
        let end = area.selection_end().ok().flatten().unwrap_or(0) as usize;
        match paste_too_long(what, &area.value(), (start, end), &incoming) {
            Some(sentence) => {
                e.prevent_default();
                self.refused.set(Some(sentence));
            }
            None => self.clear(),
        }
    }

    /// The sentence under the box, `data-testid="{id}-refused"`, hidden while nothing was refused.
    pub fn view(self, id: &str) -> impl IntoView {
        view! {
            <p class="error" role="alert" data-testid=format!("{id}-refused") hidden=move || self.refused.with(|r| r.is_none())>
                {move || self.refused.get()}
            </p>
        }
    }
}

impl Default for PasteLimit {
    fn default() -> Self {
        Self::new()
    }
}

/// A multi-line text input that writes every keystroke to `value`; a paste or a drop that would
/// pass the page's length limit is refused with a sentence ([`PasteLimit`]).
#[component]
pub fn TextArea(
    id: &'static str,
    label: &'static str,
    /// Names the text in the refusal's sentence ("question").
    what: &'static str,
    value: RwSignal<String>,
    rows: u32,
    #[prop(optional)] placeholder: &'static str,
    /// Hides the field (kept in the page) while true.
    #[prop(optional, into)]
    hidden: Option<Signal<bool>>,
) -> impl IntoView {
    let limit = PasteLimit::new();
    view! {
        <div class="field" class:hidden=move || hidden.is_some_and(|h| h.get())>
            <label for=id>{label}</label>
            <textarea
                id=id
                data-testid=id
                dir="auto"
                rows=rows
                placeholder=placeholder
                prop:value=move || value.get()
                on:input=move |ev| {
                    limit.clear();
                    value.set(event_target_value(&ev))
                }
                on:paste=limit.on_paste(move || what.to_string())
                on:drop=limit.on_drop(move || what.to_string())
            ></textarea>
            {limit.view(id)}
        </div>
    }
}

/// A whole-number input, clamped to `min..=max` when the user commits it.
#[component]
pub fn NumberField(
    id: &'static str,
    label: &'static str,
    value: RwSignal<u32>,
    min: u32,
    max: u32,
    #[prop(default = 1)] step: u32,
    #[prop(optional)] hint: &'static str,
    /// Called after a new value is stored.
    #[prop(optional)]
    on_set: Option<Callback<()>>,
) -> impl IntoView {
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <input
                id=id
                data-testid=id
                type="number"
                min=min
                max=max
                step=step
                prop:value=move || value.get().to_string()
                on:change=move |ev| {
                    if let Ok(v) = event_target_value(&ev).trim().parse::<u32>() {
                        value.set(v.clamp(min, max));
                        if let Some(cb) = on_set {
                            cb.run(());
                        }
                    }
                }
            />
            {(!hint.is_empty()).then(|| view! { <small class="hint">{hint}</small> })}
        </div>
    }
}
