//! Reading dropped files: their bytes and text, and inflating ZIP entries with the browser's
//! own `DecompressionStream("deflate-raw")` (native code, no inflate crate in the download).

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, ReadableStreamDefaultReader, ReadableWritablePair};

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

/// Inflates raw DEFLATE data (a ZIP entry with method 8), stopping as soon as the output would
/// pass `limit` bytes (the size the archive states), so an entry that lies about its size
/// cannot make the page unpack more than that.
pub async fn inflate_raw(data: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    through(
        data,
        "DecompressionStream",
        limit,
        "A file in the ZIP could not be decompressed.",
    )
    .await
    .map_err(|e| {
        e.unwrap_or_else(|| {
            "This browser cannot decompress ZIP files (no DecompressionStream).".into()
        })
    })
}

/// Compresses `data` to raw DEFLATE with the browser's `CompressionStream("deflate-raw")`
/// (share links; no compression crate in the download).
pub async fn deflate_raw(data: &[u8]) -> Result<Vec<u8>, String> {
    let fail = "The result could not be compressed for a link.";
    through(data, "CompressionStream", usize::MAX, fail)
        .await
        .map_err(|e| e.unwrap_or_else(|| fail.into()))
}

/// A new `(De)CompressionStream("deflate-raw")`; `Err(None)` when the browser has none.
fn new_stream(
    stream_class: &str,
    fail: impl Fn() -> Option<String>,
) -> Result<JsValue, Option<String>> {
    // web-sys marks the compression streams unstable; reach the constructor through the global.
    let global = js_sys::global();
    let constructor: Function = Reflect::get(&global, &stream_class.into())
        .ok()
        .and_then(|c| c.dyn_into().ok())
        .ok_or(None)?;
    let args = js_sys::Array::of1(&JsValue::from_str("deflate-raw"));
    Reflect::construct(&constructor, &args).map_err(|_| fail())
}

/// `obj.name(...args)`.
fn call(obj: &JsValue, name: &str, args: &[&JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = Reflect::get(obj, &name.into())?.dyn_into()?;
    f.apply(obj, &args.iter().copied().collect::<js_sys::Array>())
}

/// Inflates a share link's raw DEFLATE data, handing the browser's
/// `DecompressionStream("deflate-raw")` `slice` bytes at a time and stopping as soon as the
/// output passes `limit` (`Ok(None)` then). Chromium inflates a whole written chunk before the
/// first read returns, so the slice is what bounds one step's work: deflate expands at most
/// about 1,032 times. `Err(None)`: the browser has no such stream.
pub async fn inflate_sliced(
    data: &[u8],
    slice: usize,
    limit: usize,
) -> Result<Option<Vec<u8>>, Option<String>> {
    let fail = || Some("This share link is damaged: it could not be read.".to_string());
    let stream = new_stream("DecompressionStream", fail)?;
    let half = |name: &str| Reflect::get(&stream, &name.into()).map_err(|_| fail());
    let writer = call(&half("writable")?, "getWriter", &[]).map_err(|_| fail())?;
    let readable: web_sys::ReadableStream = half("readable")?.unchecked_into();
    let reader: ReadableStreamDefaultReader = readable.get_reader().unchecked_into();
    let stop = Rc::new(Cell::new(false));
    // The writer waits for each slice to be taken (the stream's backpressure) before the next,
    // so the output is never more than one slice ahead of the reads below.
    let input = Uint8Array::from(data);
    let (slice, feeding) = (slice.max(1) as u32, stop.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let mut start = 0;
        while start < input.length() && !feeding.get() {
            let end = (start + slice).min(input.length());
            let Ok(written) = call(&writer, "write", &[&input.subarray(start, end)]) else {
                return;
            };
            if JsFuture::from(Promise::from(written)).await.is_err() {
                return;
            }
            start = end;
        }
        if !feeding.get() {
            if let Ok(closed) = call(&writer, "close", &[]) {
                let _ = JsFuture::from(Promise::from(closed)).await;
            }
        }
    });
    let mut out: Vec<u8> = Vec::new();
    loop {
        let Ok(chunk) = JsFuture::from(reader.read()).await else {
            stop.set(true);
            return Err(fail());
        };
        if Reflect::get(&chunk, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true)
        {
            return Ok(Some(out));
        }
        let value: Uint8Array = Reflect::get(&chunk, &"value".into())
            .map_err(|_| fail())?
            .unchecked_into();
        let len = value.length() as usize;
        if out.len() + len > limit {
            stop.set(true);
            let _ = reader.cancel();
            return Ok(None);
        }
        let start = out.len();
        out.resize(start + len, 0);
        value.copy_to(&mut out[start..]);
    }
}

/// `data` piped through a `(De)CompressionStream("deflate-raw")`; `Err(None)` when the
/// browser has no such stream.
async fn through(
    data: &[u8],
    stream_class: &str,
    limit: usize,
    failed: &str,
) -> Result<Vec<u8>, Option<String>> {
    let fail = || Some(failed.to_string());
    let source = blob(data, "application/octet-stream").map_err(Some)?;
    let stream = new_stream(stream_class, fail)?;
    let half = |name: &str| Reflect::get(&stream, &name.into()).map_err(|_| fail());
    let pair = ReadableWritablePair::new(
        &half("readable")?.unchecked_into(),
        &half("writable")?.unchecked_into(),
    );
    let inflated = source.stream().pipe_through(&pair);
    let reader: ReadableStreamDefaultReader = inflated.get_reader().unchecked_into();
    let mut out: Vec<u8> = Vec::with_capacity(limit.min(1 << 20));
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(|_| fail())?;
        let done = Reflect::get(&chunk, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            return Ok(out);
        }
        let value: Uint8Array = Reflect::get(&chunk, &"value".into())
            .map_err(|_| fail())?
            .unchecked_into();
        let len = value.length() as usize;
        if out.len() + len > limit {
            let _ = reader.cancel();
            return Err(Some(format!(
                "it unpacks to more than the {limit} bytes the ZIP states, so it was not unpacked \
                 further"
            )));
        }
        let start = out.len();
        out.resize(start + len, 0);
        value.copy_to(&mut out[start..]);
    }
}
