//! Image input by drop, paste or file picker; the preview shows exactly what is sent. For REG
//! the user drags the target box on the preview (or types it), and it is drawn in red.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::inputs::geometry::NormBox;
use crate::ui::run::image_actions;
use crate::ui::state::{AppState, ImageView};

fn first_file(files: Option<web_sys::FileList>) -> Option<web_sys::File> {
    files.and_then(|f| f.get(0))
}

/// Sets the REG box and re-encodes the image with it drawn.
fn commit_box(state: AppState, b: Option<NormBox>) {
    state.inputs.red_box.set(b);
    image_actions::refresh_encoded_image(state);
}

/// What the preview line says about the file and what is sent.
fn image_info(v: &ImageView) -> String {
    if v.original_size == (0, 0) {
        // An opened result's image: its size was not recorded.
        format!("{} · the image opened from a result file", v.file_name)
    } else if v.is_video {
        format!(
            "{} · video {}×{} → frames at 0, ⅓ and ⅔ of its length, sent as one {}×{} JPEG",
            v.file_name, v.original_size.0, v.original_size.1, v.sent_size.0, v.sent_size.1
        )
    } else {
        format!(
            "{} · {}×{} → sent as {}×{} JPEG",
            v.file_name, v.original_size.0, v.original_size.1, v.sent_size.0, v.sent_size.1
        )
    }
}

#[component]
pub fn ImagePanel() -> impl IntoView {
    let state = expect_context::<AppState>();

    // Pasting an image anywhere on the page loads it (text pastes are left alone).
    let paste = window_event_listener(ev::paste, move |e: web_sys::ClipboardEvent| {
        if let Some(file) = first_file(e.clipboard_data().and_then(|d| d.files())) {
            if file.type_().starts_with("image/") {
                e.prevent_default();
                image_actions::load_image(state, file);
            }
        }
    });
    on_cleanup(move || paste.remove());

    view! {
        <div class="field">
            <label for="image-input">"Image"</label>
            <div
                class="dropzone"
                class:has-image=move || state.inputs.image_view.with(|v| v.is_some())
                on:dragover=|e: web_sys::DragEvent| e.prevent_default()
                on:drop=move |e: web_sys::DragEvent| {
                    e.prevent_default();
                    if let Some(file) = first_file(e.data_transfer().and_then(|d| d.files())) {
                        image_actions::load_image(state, file);
                    }
                }
            >
                <input
                    id="image-input"
                    data-testid="image-input"
                    type="file"
                    accept="image/*,video/*"
                    on:change=move |e| {
                        let input: web_sys::HtmlInputElement = event_target(&e);
                        if let Some(file) = first_file(input.files()) {
                            image_actions::load_image(state, file);
                        }
                    }
                />
                <p class="hint">"Drop an image here, paste one, or choose a file."</p>
                {move || state.inputs.image_view.get().map(|v| view! {
                    {preview(state, v.data_url.clone())}
                    <p class="hint" data-testid="image-info">{image_info(&v)}</p>
                    <p class="warn-text" data-testid="image-note" hidden=v.note.is_none()>{v.note}</p>
                })}
                <p class="hint" hidden=move || !state.inputs.image_loading.get()>"Reading the image…"</p>
            </div>
            <p class="error" role="alert" data-testid="image-error" hidden=move || state.inputs.image_error.with(|e| e.is_none())>
                {move || state.inputs.image_error.get()}
            </p>
            {box_edges(state)}
        </div>
    }
}

/// The image as it will be sent; for REG, dragging on it draws the target box.
fn preview(state: AppState, src: String) -> impl IntoView {
    let img = NodeRef::<leptos::html::Img>::new();
    let drag_start = StoredValue::new(None::<(f64, f64)>);
    let dragging = RwSignal::new(None::<NormBox>);
    let point = move |e: &web_sys::PointerEvent| -> Option<(f64, f64)> {
        let rect = img.get()?.get_bounding_client_rect();
        Some((
            (e.client_x() as f64 - rect.left()) / rect.width().max(1.0),
            (e.client_y() as f64 - rect.top()) / rect.height().max(1.0),
        ))
    };
    let reg = move || state.box_active();
    let on_down = move |e: web_sys::PointerEvent| {
        if !reg() {
            return;
        }
        e.prevent_default();
        if let Some(t) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        {
            // Without capture the drag still ends at the last point inside the image.
            let _ = t.set_pointer_capture(e.pointer_id());
        }
        drag_start.set_value(point(&e));
    };
    let on_move = move |e: web_sys::PointerEvent| {
        if let (Some(a), Some(b)) = (drag_start.get_value(), point(&e)) {
            dragging.set(Some(NormBox::from_corners(a, b)));
        }
    };
    let on_up = move |e: web_sys::PointerEvent| {
        if let (Some(a), Some(b)) = (drag_start.get_value(), point(&e)) {
            let b = NormBox::from_corners(a, b);
            if b.is_usable() {
                commit_box(state, Some(b));
            }
        }
        drag_start.set_value(None);
        dragging.set(None);
    };
    let overlay_style = move || {
        dragging.get().map(|b| {
            format!(
                "left:{:.2}%;top:{:.2}%;width:{:.2}%;height:{:.2}%",
                b.x0 * 100.0,
                b.y0 * 100.0,
                (b.x1 - b.x0) * 100.0,
                (b.y1 - b.y0) * 100.0
            )
        })
    };
    view! {
        <div class="preview" class:drawing=reg>
            <img
                node_ref=img
                data-testid="image-preview"
                src=src
                alt="The image as it will be sent"
                draggable="false"
                on:pointerdown=on_down
                on:pointermove=on_move
                on:pointerup=on_up
            />
            <div class="drag-box" style=overlay_style hidden=move || dragging.get().is_none()></div>
        </div>
    }
}

/// The REG box's edges typed in percent, for keyboard users and exact boxes.
fn box_edges(state: AppState) -> impl IntoView {
    let edge = move |i: usize| {
        move || {
            state
                .inputs
                .red_box
                .get()
                .map(|b| format!("{:.1}", [b.x0, b.y0, b.x1, b.y1][i] * 100.0))
                .unwrap_or_default()
        }
    };
    let set_edge = move |i: usize, ev: web_sys::Event| {
        let Ok(v) = event_target_value(&ev).parse::<f64>() else {
            return;
        };
        let b = state.inputs.red_box.get_untracked().unwrap_or(NormBox {
            x0: 0.25,
            y0: 0.25,
            x1: 0.75,
            y1: 0.75,
        });
        let mut e = [b.x0, b.y0, b.x1, b.y1];
        e[i] = v / 100.0;
        commit_box(
            state,
            Some(NormBox::from_corners((e[0], e[1]), (e[2], e[3]))),
        );
    };
    let edge_names = ["left", "top", "right", "bottom"];
    view! {
        <fieldset class="box-edges" hidden=move || !state.box_active()>
            <legend>"Target box (drag on the image, or type edges in % of width / height)"</legend>
            {(0..4).map(|i| {
                let id = format!("box-{}", edge_names[i]);
                view! {
                    <label for=id.clone()>{edge_names[i]}</label>
                    <input id=id.clone() data-testid=id type="number" min="0" max="100" step="0.5"
                        prop:value=edge(i) on:change=move |ev| set_edge(i, ev)/>
                }
            }).collect_view()}
        </fieldset>
    }
}
