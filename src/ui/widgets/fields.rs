//! Labelled form fields bound to a signal, shared by the panels. The element id doubles as the
//! `data-testid`.

use leptos::prelude::*;

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

/// A multi-line text input that writes every keystroke to `value`.
#[component]
pub fn TextArea(
    id: &'static str,
    label: &'static str,
    value: RwSignal<String>,
    rows: u32,
    #[prop(optional)] placeholder: &'static str,
    /// Hides the field (kept in the page) while true.
    #[prop(optional, into)]
    hidden: Option<Signal<bool>>,
) -> impl IntoView {
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
                on:input=move |ev| value.set(event_target_value(&ev))
            ></textarea>
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
