//! The evaluator's image handlers: decode a dropped, pasted or chosen file (or a video's
//! composite), keep it, and re-encode it as it is sent (REG: with the red box drawn in).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ui::state::{AppState, ImageView};
use crate::web::image::{self, LoadedImage, Prepared};
use crate::web::{timing, video};

/// Decodes and downscales a dropped, pasted or chosen file. A file that cannot be used leaves
/// the previous image in place and says why.
pub fn load_image(state: AppState, file: web_sys::File) {
    decode_image(state, file, false);
}

/// `keep_box`: the same picture at another size keeps its (normalised) REG box. The decoding
/// code arrives with the first image (the `image` chunk, not the first visit's wasm); until it
/// is here the image counts as being read, so an Evaluate waits for it.
fn decode_image(state: AppState, file: web_sys::File, keep_box: bool) {
    state.inputs.image_loading.set(true);
    timing::start("hj-image-prep");
    // A new picture starts without a box.
    let red_box = if keep_box { sent_box(state) } else { None };
    let load = crate::ui::lazy::loading(decode_loaded(state, file, keep_box, red_box));
    spawn_local(async move {
        if load.await.is_err() {
            refuse(state, crate::ui::lazy::missing("reading images"));
            state.inputs.image_loading.set(false);
        }
    });
}

#[leptos::wasm_split::wasm_split(image, wasm_split_path = ::leptos::wasm_split, fallible)]
fn decode_loaded(
    state: AppState,
    file: web_sys::File,
    keep_box: bool,
    red_box: Option<crate::inputs::geometry::NormBox>,
) -> Result<(), crate::ui::lazy::ChunkMissing> {
    let name = file.name();
    spawn_local(async move {
        let prepared = if video::is_video(&file) {
            // The composite keeps its 1536×512 size: G-VEval's input, not a photo to shrink.
            match video::composite(&file).await {
                Ok(image) => {
                    image::encode_jpeg(&image, red_box).map(|sent| Prepared { image, sent })
                }
                Err(e) => Err(e),
            }
        } else {
            image::prepare_image(&file, state.settings.max_side.get_untracked(), red_box).await
        };
        match prepared {
            Ok(Prepared { image, sent }) => {
                state.inputs.image_file.set_value(Some(file));
                if !keep_box {
                    state.inputs.red_box.set(None);
                }
                state.inputs.image_error.set(None);
                show(state, sent, Shown::of(&image));
                state.inputs.image.set_value(Some(image));
                timing::end("hj-image-prep");
            }
            Err(message) => refuse(state, format!("\u{201c}{name}\u{201d}: {message}")),
        }
        state.inputs.image_loading.set(false);
    });
    Ok(())
}

/// Says why an image could not be used, and that the previous one (if any) stays in place.
fn refuse(state: AppState, why: String) {
    let kept = if state.inputs.image_view.get_untracked().is_some() {
        " The previous image is kept."
    } else {
        ""
    };
    state.inputs.image_error.set(Some(format!("{why}{kept}")));
}

/// Re-processes the current image, e.g. after the size limit changed.
pub fn reload_image(state: AppState) {
    if let Some(file) = state.inputs.image_file.get_value() {
        decode_image(state, file, true);
    }
}

/// The box drawn into what is sent: the usable REG box, only while it applies.
fn sent_box(state: AppState) -> Option<crate::inputs::geometry::NormBox> {
    if untrack(|| state.box_active()) {
        state
            .inputs
            .red_box
            .get_untracked()
            .filter(|b| b.is_usable())
    } else {
        None
    }
}

/// Re-encodes the kept image as it will be sent (REG: with the red box drawn in).
pub fn refresh_encoded_image(state: AppState) {
    let red_box = sent_box(state);
    let encoded = state.inputs.image.with_value(|img| {
        img.as_ref()
            .map(|img| image::encode_jpeg(img, red_box).map(|sent| (sent, Shown::of(img))))
    });
    match encoded {
        Some(Ok((sent, shown))) => show(state, sent, shown),
        Some(Err(message)) => state.inputs.image_error.set(Some(message)),
        None => {}
    }
}

/// What the preview says of a kept image: its size before and as sent, and its note.
struct Shown {
    original_size: (u32, u32),
    sent_size: (u32, u32),
    note: Option<&'static str>,
}

impl Shown {
    fn of(image: &LoadedImage) -> Shown {
        Shown {
            original_size: image.original_size,
            sent_size: (image.canvas.width(), image.canvas.height()),
            note: image.note,
        }
    }
}

/// Shows the image as sent (`data_url`) with where it came from.
fn show(state: AppState, data_url: String, shown: Shown) {
    let (file_name, is_video) = state.inputs.image_file.with_value(|f| {
        f.as_ref()
            .map_or((String::new(), false), |f| (f.name(), video::is_video(f)))
    });
    state.inputs.image_view.set(Some(ImageView {
        data_url,
        file_name,
        original_size: shown.original_size,
        sent_size: shown.sent_size,
        is_video,
        note: shown.note,
    }));
}
