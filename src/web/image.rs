//! Decoding, downscaling and encoding the image in the browser. The numbers (longest side,
//! quality, colours, the REG box's stroke) and the sentences are the core's
//! (`inputs::pipeline`), which the command line and Python follow with the `image` crate.
//!
//! The browser's own decoder (`createImageBitmap`) and canvas JPEG encoder are used rather than
//! the `image` crate: they are native code, honour EXIF orientation, cover every format the
//! browser shows, and add nothing to the wasm download (the `image` crate with JPEG/PNG/WebP
//! decoders and a JPEG encoder costs several hundred KiB of wasm and runs slower than native).

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageBitmap};

use crate::inputs::geometry::NormBox;
use crate::inputs::pipeline::{self, Stroke};
use crate::inputs::sniff;

/// The downscaled image, kept as a canvas so the REG box can be redrawn without decoding again.
pub struct LoadedImage {
    pub canvas: HtmlCanvasElement,
    pub original_size: (u32, u32),
    /// Said beside the preview: an animation's first frame, a file cut short.
    pub note: Option<&'static str>,
}

/// Bytes `start..end` of `file` (clamped to its size).
async fn read_range(file: &web_sys::Blob, start: f64, end: f64) -> Vec<u8> {
    let Ok(part) = file.slice_with_f64_and_f64(start.max(0.0), end) else {
        return Vec::new();
    };
    match JsFuture::from(part.array_buffer()).await {
        Ok(buf) => js_sys::Uint8Array::new(&buf).to_vec(),
        Err(_) => Vec::new(),
    }
}

fn document() -> Result<web_sys::Document, String> {
    web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| "No document.".to_string())
}

fn canvas_2d(
    width: u32,
    height: u32,
) -> Result<(HtmlCanvasElement, CanvasRenderingContext2d), String> {
    let canvas: HtmlCanvasElement = document()?
        .create_element("canvas")
        .map_err(|_| "Could not create a canvas.".to_string())?
        .unchecked_into();
    canvas.set_width(width);
    canvas.set_height(height);
    let ctx = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .ok_or_else(|| "The browser refused a 2D canvas.".to_string())?
        .unchecked_into::<CanvasRenderingContext2d>();
    Ok((canvas, ctx))
}

/// Decodes `file` and scales it so its longest side is at most `max_side`.
async fn load(file: &web_sys::Blob, max_side: u32) -> Result<LoadedImage, String> {
    let size = file.size();
    if let Some(why) = pipeline::file_refusal(size) {
        return Err(why);
    }
    let not_decodable = || pipeline::NOT_DECODABLE.to_string();
    // The header first: name what is not an image, refuse what is too large to decode.
    let sniffed = sniff::sniff(&read_range(file, 0.0, 512.0 * 1024.0).await);
    if let Some(why) = sniff::refusal(&sniffed) {
        return Err(why);
    }
    let cut_short = sniff::is_cut_short(&sniffed, &read_range(file, size - 65536.0, size).await);
    let not_decodable = || {
        if cut_short {
            sniff::CUT_SHORT.to_string()
        } else {
            not_decodable()
        }
    };
    let window = web_sys::window().ok_or("No window.")?;
    let promise = window
        .create_image_bitmap_with_blob(file)
        .map_err(|_| not_decodable())?;
    let bitmap: ImageBitmap = JsFuture::from(promise)
        .await
        .map_err(|_| not_decodable())?
        .unchecked_into();
    let original_size = (bitmap.width(), bitmap.height());
    let (w, h) = pipeline::scaled_size(original_size.0, original_size.1, max_side);
    let drawn = (|| {
        let (canvas, ctx) = canvas_2d(w, h)?;
        // JPEG has no alpha: flatten transparent images onto white, not black.
        ctx.set_fill_style_str(pipeline::BACKGROUND_CSS);
        ctx.fill_rect(0.0, 0.0, w as f64, h as f64);
        // web-sys has no binding for imageSmoothingQuality; set the property directly.
        let _ = js_sys::Reflect::set(&ctx, &"imageSmoothingQuality".into(), &"high".into());
        ctx.draw_image_with_image_bitmap_and_dw_and_dh(&bitmap, 0.0, 0.0, w as f64, h as f64)
            .map_err(|_| not_decodable())?;
        Ok::<_, String>(canvas)
    })();
    bitmap.close();
    Ok(LoadedImage {
        canvas: drawn?,
        original_size,
        note: sniff::note(&sniffed),
    })
}

/// An image decoded and downscaled (kept, so the REG box can move without decoding again) and
/// encoded as it is sent.
pub struct Prepared {
    pub image: LoadedImage,
    /// The JPEG as a `data:` URL (what the preview shows; `Image::from_data_url` gives what a
    /// provider is sent).
    pub sent: String,
}

/// The one image pipeline of both pages: decodes `file`, scales it so its longest side is at
/// most `max_side`, and encodes it as it is sent, with `red_box` drawn in when given (REG).
pub async fn prepare_image(
    file: &web_sys::Blob,
    max_side: u32,
    red_box: Option<NormBox>,
) -> Result<Prepared, String> {
    let image = load(file, max_side).await?;
    let sent = encode_jpeg(&image, red_box)?;
    Ok(Prepared { image, sent })
}

/// The image as it will be sent: a JPEG data URL, with the REG box drawn in red if given.
pub fn encode_jpeg(image: &LoadedImage, red_box: Option<NormBox>) -> Result<String, String> {
    let (w, h) = (image.canvas.width(), image.canvas.height());
    let source = match red_box {
        None => image.canvas.clone(),
        Some(b) => {
            let (canvas, ctx) = canvas_2d(w, h)?;
            ctx.draw_image_with_html_canvas_element(&image.canvas, 0.0, 0.0)
                .map_err(|_| "Could not draw the box.".to_string())?;
            let stroke = Stroke::of(b, w, h);
            ctx.set_stroke_style_str(pipeline::BOX_CSS);
            ctx.set_line_width(stroke.line_width);
            ctx.stroke_rect(stroke.x, stroke.y, stroke.w, stroke.h);
            canvas
        }
    };
    source
        .to_data_url_with_type_and_encoder_options(
            "image/jpeg",
            &JsValue::from_f64(pipeline::jpeg_quality_browser()),
        )
        .map_err(|_| "The browser could not encode the image as JPEG.".to_string())
}
