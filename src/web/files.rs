//! Reading dropped files: their bytes and text, and inflating ZIP entries with the browser's
//! own `DecompressionStream("deflate-raw")` (native code, no inflate crate in the download).

use js_sys::{Function, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, ReadableWritablePair, Response};

pub async fn bytes(blob: &Blob) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(blob.array_buffer())
        .await
        .map_err(|_| "The file could not be read.".to_string())?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

pub async fn text(blob: &Blob) -> Result<String, String> {
    JsFuture::from(blob.text())
        .await
        .ok()
        .and_then(|v| v.as_string())
        .ok_or_else(|| "The file could not be read as text.".to_string())
}

/// A Blob holding `data` with the given MIME type.
pub fn blob(data: &[u8], mime: &str) -> Result<Blob, String> {
    let parts = js_sys::Array::of1(&Uint8Array::from(data));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|_| "Could not create a Blob.".to_string())
}

/// Inflates raw DEFLATE data (a ZIP entry with method 8).
pub async fn inflate_raw(data: &[u8]) -> Result<Vec<u8>, String> {
    let fail = || "A file in the ZIP could not be decompressed.".to_string();
    let source = blob(data, "application/octet-stream")?;
    // web-sys marks DecompressionStream unstable; reach the constructor through the global.
    let global = js_sys::global();
    let constructor: Function = Reflect::get(&global, &"DecompressionStream".into())
        .ok()
        .and_then(|c| c.dyn_into().ok())
        .ok_or("This browser cannot decompress ZIP files (no DecompressionStream).")?;
    let args = js_sys::Array::of1(&JsValue::from_str("deflate-raw"));
    let stream = Reflect::construct(&constructor, &args).map_err(|_| fail())?;
    let half = |name: &str| Reflect::get(&stream, &name.into()).map_err(|_| fail());
    let pair = ReadableWritablePair::new(
        &half("readable")?.unchecked_into(),
        &half("writable")?.unchecked_into(),
    );
    let inflated = source.stream().pipe_through(&pair);
    let response = Response::new_with_opt_readable_stream(Some(&inflated)).map_err(|_| fail())?;
    let buffer = JsFuture::from(response.array_buffer().map_err(|_| fail())?)
        .await
        .map_err(|_| fail())?;
    Ok(Uint8Array::new(&buffer.unchecked_into()).to_vec())
}
