//! The events on a γ axis (`crate::scoring::gamma_axis` holds the arithmetic): which γ a click or a
//! hover on a plot points at, and the keys that move γ when the plot has focus. Every plot
//! against γ (the evaluator's score curve, the lab's agreement sweep) uses these.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::scoring::gamma_axis::{key_step, GammaAxis};

/// The γ under the pointer, for a handler on the plot's `<svg>` drawn with `axis` in its
/// viewBox; `None` when the event has no element.
pub fn gamma_at_click(axis: GammaAxis, ev: &web_sys::MouseEvent) -> Option<f64> {
    let el: web_sys::Element = ev.current_target()?.unchecked_into();
    let rect = el.get_bounding_client_rect();
    Some(axis.gamma_at((ev.client_x() as f64 - rect.left()) / rect.width().max(1.0)))
}

/// Moves `gamma` as a slider's keys do; `true` when the key was one of them (its default action,
/// scrolling, is then prevented).
pub fn gamma_key(ev: &web_sys::KeyboardEvent, gamma: RwSignal<f64>) -> bool {
    let Some(next) = key_step(&ev.key(), gamma.get_untracked()) else {
        return false;
    };
    ev.prevent_default();
    gamma.set(next);
    true
}
