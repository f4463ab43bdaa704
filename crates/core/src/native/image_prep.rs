//! The page's image pipeline, natively: an image file decoded, scaled so its longest side is at
//! most the limit, a REG box drawn in, and encoded as JPEG, with the numbers and sentences of
//! `inputs::pipeline` (the page does the same with the browser's decoder and canvas,
//! `src/web/image.rs`). So a judge sees the same width and height, at the same quality, with
//! the box in the same place, whether the image came through the page, `hj` or Python.
//!
//! Decoding is the `image` crate's, limited to the formats the page takes that it reads in
//! pure Rust (JPEG, PNG, GIF, WebP, BMP; AVIF, which the browser decodes, is refused with a
//! sentence). EXIF orientation is honoured, as `createImageBitmap` honours it; transparency is
//! flattened onto white; an animation gives its first frame. The scaling filter is Catmull-Rom
//! (a cubic, as the browser's high-quality smoothing uses; `fast_image_resize`'s), the box is
//! stroked with the canvas's geometry (`pipeline::Stroke`, anti-aliased by coverage).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::Cursor;
use std::sync::Mutex;

use base64::Engine;
use fast_image_resize as fir;
use image::codecs::jpeg::JpegEncoder;
use image::metadata::Orientation;
use image::{DynamicImage, ExtendedColorType, ImageDecoder, ImageFormat, ImageReader, RgbImage};

use crate::inputs::geometry::NormBox;
use crate::inputs::pipeline::{self, Stroke, BACKGROUND_RGB, BOX_RGB, JPEG_QUALITY};
use crate::inputs::sniff::{self, Kind, Sniffed};
use crate::providers::Image;

/// An image as it is sent.
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    /// The JPEG's bytes.
    pub jpeg: Vec<u8>,
    /// Its width and height.
    pub size: (u32, u32),
    /// The decoded image's width and height (after EXIF orientation), before scaling.
    pub original_size: (u32, u32),
    /// What the page says beside such an image (an animation's first frame).
    pub note: Option<&'static str>,
}

impl Prepared {
    /// The JPEG as a judge is sent it, inline in base64.
    pub fn image(&self) -> Image {
        Image::new(
            "image/jpeg",
            base64::engine::general_purpose::STANDARD.encode(&self.jpeg),
        )
    }
}

/// The file's format as the `image` crate reads it, or why it is refused.
fn format_of(sniffed: &Sniffed) -> Result<ImageFormat, String> {
    Ok(match sniffed.kind {
        Kind::Jpeg => ImageFormat::Jpeg,
        Kind::Png => ImageFormat::Png,
        Kind::Gif => ImageFormat::Gif,
        Kind::WebP => ImageFormat::WebP,
        Kind::Bmp => ImageFormat::Bmp,
        Kind::Avif => {
            return Err(
                "AVIF images are decoded by the browser; the command line and Python \
                        cannot read them. Convert it to JPEG or PNG, or judge it on the page."
                    .into(),
            )
        }
        _ => return Err(pipeline::NOT_DECODABLE.into()),
    })
}

/// Decodes `bytes` (of the format `sniffed` says) upright, refusing one over the pixel limit
/// before its pixels are decoded.
fn decode(bytes: &[u8], sniffed: &Sniffed) -> Result<DynamicImage, String> {
    let format = format_of(sniffed)?;
    let cut_short = || {
        let tail = &bytes[bytes.len().saturating_sub(65_536)..];
        if sniff::is_cut_short(sniffed, tail) {
            sniff::CUT_SHORT.to_string()
        } else {
            pipeline::NOT_DECODABLE.to_string()
        }
    };
    let mut decoder = ImageReader::with_format(Cursor::new(bytes), format)
        .into_decoder()
        .map_err(|_| cut_short())?;
    let size = decoder.dimensions();
    let stated = Sniffed {
        size: Some(size),
        ..*sniffed
    };
    if let Some(why) = sniff::refusal(&stated) {
        return Err(why);
    }
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).map_err(|_| cut_short())?;
    image.apply_orientation(orientation);
    Ok(image)
}

/// The image's pixels on white (JPEG has no alpha), as a canvas filled white and drawn on.
fn flatten(image: DynamicImage) -> RgbImage {
    if !image.color().has_alpha() {
        return image.into_rgb8();
    }
    let rgba = image.into_rgba8();
    let mut out = RgbImage::new(rgba.width(), rgba.height());
    for (o, p) in out.pixels_mut().zip(rgba.pixels()) {
        let [r, g, b, a] = p.0;
        o.0 = pipeline::blend(BACKGROUND_RGB, [r, g, b], f64::from(a) / 255.0);
    }
    out
}

/// `image` scaled to `width` × `height` with a Catmull-Rom cubic (`fast_image_resize`: the
/// `image` crate's own resize takes five to eight times as long).
fn scale(image: RgbImage, width: u32, height: u32) -> Result<RgbImage, String> {
    let failed = |e: &dyn std::fmt::Display| format!("The image could not be scaled ({e}).");
    let (w, h) = image.dimensions();
    let src = fir::images::Image::from_vec_u8(w, h, image.into_raw(), fir::PixelType::U8x3)
        .map_err(|e| failed(&e))?;
    let mut dst = fir::images::Image::new(width, height, fir::PixelType::U8x3);
    let cubic = fir::ResizeAlg::Convolution(fir::FilterType::CatmullRom);
    fir::Resizer::new()
        .resize(&src, &mut dst, &fir::ResizeOptions::new().resize_alg(cubic))
        .map_err(|e| failed(&e))?;
    RgbImage::from_raw(width, height, dst.into_vec()).ok_or_else(|| failed(&"no pixels"))
}

/// Strokes `b` into `image` in the REG box's colour, as the page's canvas does.
pub fn draw_box(image: &mut RgbImage, b: NormBox) {
    let (w, h) = image.dimensions();
    let stroke = Stroke::of(b, w, h);
    let (x0, y0, x1, y1) = stroke.pixel_bounds(w, h);
    for y in y0..y1 {
        for x in x0..x1 {
            let cover = stroke.coverage(x, y);
            if cover > 0.0 {
                let p = image.get_pixel_mut(x, y);
                p.0 = pipeline::blend(p.0, BOX_RGB, cover);
            }
        }
    }
}

/// `image` as a JPEG at the page's quality.
pub fn encode_jpeg(image: &RgbImage) -> Result<Vec<u8>, String> {
    let mut jpeg = Vec::new();
    JpegEncoder::new_with_quality(&mut jpeg, JPEG_QUALITY)
        .encode(
            image.as_raw(),
            image.width(),
            image.height(),
            ExtendedColorType::Rgb8,
        )
        .map_err(|e| format!("The image could not be encoded as JPEG ({e})."))?;
    Ok(jpeg)
}

/// An image file as the page sends it: refused as the page refuses it (empty, too large, not
/// an image, damaged, over the pixel limit; the page's sentences), else decoded, scaled so its
/// longest side is at most `max_side`, `red_box` drawn in when given, and encoded as JPEG.
pub fn prepare(bytes: &[u8], max_side: u32, red_box: Option<NormBox>) -> Result<Prepared, String> {
    if let Some(why) = pipeline::file_refusal(bytes.len() as f64) {
        return Err(why);
    }
    let sniffed = sniff::sniff(&bytes[..bytes.len().min(512 * 1024)]);
    if let Some(why) = sniff::refusal(&sniffed) {
        return Err(why);
    }
    let decoded = flatten(decode(bytes, &sniffed)?);
    let original_size = decoded.dimensions();
    let (w, h) = pipeline::scaled_size(original_size.0, original_size.1, max_side);
    let mut scaled = if (w, h) == original_size {
        decoded
    } else {
        scale(decoded, w, h)?
    };
    if let Some(b) = red_box {
        draw_box(&mut scaled, b);
    }
    Ok(Prepared {
        jpeg: encode_jpeg(&scaled)?,
        size: (w, h),
        original_size,
        note: sniff::note(&sniffed),
    })
}

/// The last images prepared, so items that share an image (a best-of-N group, several
/// questions on one picture) decode it once: keyed by two hashes of the file and its length,
/// the longest side and the box.
type Key = (u64, u64, usize, u32, Option<[u64; 4]>);
static RECENT: Mutex<Vec<(Key, Image)>> = Mutex::new(Vec::new());
const RECENT_COUNT: usize = 8;

fn key_of(bytes: &[u8], max_side: u32, red_box: Option<NormBox>) -> Key {
    let hash = |salt: u8| {
        let mut h = DefaultHasher::new();
        salt.hash(&mut h);
        bytes.hash(&mut h);
        h.finish()
    };
    let b = red_box.map(|b| [b.x0, b.y0, b.x1, b.y1].map(f64::to_bits));
    (hash(0), hash(1), bytes.len(), max_side, b)
}

/// [`prepare`]'s image as a judge is sent it, from the recent ones when the same file was just
/// prepared with the same box.
pub fn prepared_image(
    bytes: &[u8],
    max_side: u32,
    red_box: Option<NormBox>,
) -> Result<Image, String> {
    let key = key_of(bytes, max_side, red_box);
    let recent = || RECENT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, image)) = recent().iter().find(|(k, _)| *k == key) {
        return Ok(image.clone());
    }
    let image = prepare(bytes, max_side, red_box)?.image();
    let mut kept = recent();
    if kept.len() >= RECENT_COUNT {
        kept.remove(0);
    }
    kept.push((key, image.clone()));
    Ok(image)
}

#[cfg(test)]
#[path = "image_prep_tests.rs"]
mod tests;
