//! The evaluator's image handlers: decode a dropped, pasted or chosen file (or a video's
//! composite), keep it, and re-encode it as it is sent (REG: with the red box drawn in).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ui::state::{AppState, ImageView};
use crate::web::{image, timing, video};

/// Decodes and downscales a dropped, pasted or chosen file. A file that cannot be used leaves
/// the previous image in place and says why.
pub fn load_image(state: AppState, file: web_sys::File) {
    decode_image(state, file, false);
}

/// `keep_box`: the same picture at another size keeps its (normalised) REG box.
fn decode_image(state: AppState, file: web_sys::File, keep_box: bool) {
    let name = file.name();
    state.inputs.image_loading.set(true);
    timing::start("hj-image-prep");
    spawn_local(async move {
        let loaded = if video::is_video(&file) {
            // The composite keeps its 1536×512 size: G-VEval's input, not a photo to shrink.
            video::composite(&file).await
        } else {
            image::load(&file, state.max_side.get_untracked()).await
        };
        match loaded {
            Ok(loaded) => {
                state.inputs.image.set_value(Some(loaded));
                state.inputs.image_file.set_value(Some(file));
                if !keep_box {
                    state.inputs.red_box.set(None);
                }
                state.inputs.image_error.set(None);
                refresh_encoded_image(state);
                timing::end("hj-image-prep");
            }
            Err(message) => {
                let kept = if state.inputs.image_view.get_untracked().is_some() {
                    " The previous image is kept."
                } else {
                    ""
                };
                state
                    .inputs.image_error
                    .set(Some(format!("\u{201c}{name}\u{201d}: {message}{kept}")));
            }
        }
        state.inputs.image_loading.set(false);
    });
}

/// Re-processes the current image, e.g. after the size limit changed.
pub fn reload_image(state: AppState) {
    if let Some(file) = state.inputs.image_file.get_value() {
        decode_image(state, file, true);
    }
}

/// Re-encodes the image as it will be sent (REG: with the red box drawn in).
pub fn refresh_encoded_image(state: AppState) {
    let file_name = state
        .inputs.image_file
        .with_value(|f| f.as_ref().map(|f| f.name()))
        .unwrap_or_default();
    let red_box = if untrack(|| state.box_active()) {
        state.inputs.red_box.get_untracked().filter(|b| b.is_usable())
    } else {
        None
    };
    let encoded = state.inputs.image.with_value(|img| {
        img.as_ref().map(|img| {
            image::encode_jpeg(img, red_box).map(|url| {
                (
                    url,
                    img.original_size,
                    (img.canvas.width(), img.canvas.height()),
                    img.note,
                )
            })
        })
    });
    match encoded {
        Some(Ok((data_url, original_size, sent_size, note))) => {
            let is_video = state
                .inputs.image_file
                .with_value(|f| f.as_ref().is_some_and(video::is_video));
            state.inputs.image_view.set(Some(ImageView {
                data_url,
                file_name,
                original_size,
                sent_size,
                is_video,
                note,
            }));
        }
        Some(Err(message)) => state.inputs.image_error.set(Some(message)),
        None => {}
    }
}
