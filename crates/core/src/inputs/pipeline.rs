//! The one image pipeline's numbers: what every door does to an image before a judge sees it.
//! The page does it with the browser's decoder and canvas (`src/web/image.rs`), the command line
//! and Python with the `image` crate (`native::image_prep`); both take their sizes, quality,
//! colours, the REG box's stroke and the sentences for a refused file from here, so a judge is
//! sent the same width and height, at the same JPEG quality, with the box in the same place,
//! whichever door the image came through.
//!
//! The steps: refuse an empty or too large file ([`file_refusal`]), read the header and refuse
//! what it names (`sniff::refusal`), decode (honouring EXIF orientation), flatten transparency
//! onto [`BACKGROUND_RGB`], scale so the longest side is at most the limit ([`scaled_size`]: never
//! up, rounded to whole pixels), stroke the REG box ([`Stroke`]) in [`BOX_RGB`], and encode as
//! JPEG at [`JPEG_QUALITY`].

use super::geometry::{box_stroke, fit_within, NormBox};

/// The longest side an image is sent at: the page's default for its "longest side" setting,
/// and what the command line and Python send.
pub const MAX_SIDE: u32 = 1024;

/// Files above this are refused before decoding, so a huge upload cannot freeze the tab.
pub const MAX_FILE_BYTES: u64 = 50 * 1024 * 1024;

/// JPEG quality of the image as sent, on the 0–100 scale of libjpeg and the `image` crate.
pub const JPEG_QUALITY: u8 = 90;

/// [`JPEG_QUALITY`] on the browser's 0–1 scale (`canvas.toDataURL("image/jpeg", q)`).
pub fn jpeg_quality_browser() -> f64 {
    f64::from(JPEG_QUALITY) / 100.0
}

/// What transparent pixels are flattened onto (JPEG has no alpha): white, not black.
pub const BACKGROUND_RGB: [u8; 3] = [255, 255, 255];
/// [`BACKGROUND_RGB`] as a canvas fill style.
pub const BACKGROUND_CSS: &str = "#ffffff";

/// The REG box's colour.
pub const BOX_RGB: [u8; 3] = [255, 0, 0];
/// [`BOX_RGB`] as a canvas stroke style.
pub const BOX_CSS: &str = "#ff0000";

/// Said when a file cannot be decoded (and was not found cut short).
pub const NOT_DECODABLE: &str = "This file could not be decoded as an image. It may be damaged, \
                                 or not a JPEG, PNG, WebP, GIF, BMP or AVIF file.";

/// Size of an image of `width` × `height` as sent with the longest side at most `max_side`
/// (never scaled up; each side rounded to the nearest pixel, at least 1).
pub fn scaled_size(width: u32, height: u32, max_side: u32) -> (u32, u32) {
    fit_within(width, height, max_side)
}

/// Why a file of `bytes` is refused before anything is read from it: empty, or over
/// [`MAX_FILE_BYTES`]. The sentences the page says.
pub fn file_refusal(bytes: f64) -> Option<String> {
    if bytes == 0.0 {
        return Some("The file is empty (0 bytes).".into());
    }
    let limit = MAX_FILE_BYTES as f64;
    (bytes > limit).then(|| {
        format!(
            "The file is {:.0} MB; images up to {:.0} MB are accepted.",
            bytes / 1_048_576.0,
            limit / 1_048_576.0
        )
    })
}

/// The REG box as it is stroked into a `width` × `height` image (the image as sent, after
/// scaling): the rectangle in pixels and the line's width, centred on the rectangle's edges as a
/// canvas's `strokeRect` draws it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stroke {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub line_width: f64,
}

impl Stroke {
    /// The stroke of `b` (normalised, so it maps to any size of the image) in a `width` ×
    /// `height` image.
    pub fn of(b: NormBox, width: u32, height: u32) -> Stroke {
        let (x, y, w, h) = b.to_pixels(width, height);
        Stroke {
            x,
            y,
            w,
            h,
            line_width: box_stroke(width, height),
        }
    }

    /// The pixels the stroke may touch, `(x0, y0, x1, y1)` with the ends excluded, within a
    /// `width` × `height` image.
    pub fn pixel_bounds(&self, width: u32, height: u32) -> (u32, u32, u32, u32) {
        let half = self.line_width / 2.0;
        let clamp = |v: f64, max: u32| v.clamp(0.0, f64::from(max)) as u32;
        (
            clamp((self.x - half).floor(), width),
            clamp((self.y - half).floor(), height),
            clamp((self.x + self.w + half).ceil(), width),
            clamp((self.y + self.h + half).ceil(), height),
        )
    }

    /// How much of pixel `(px, py)` (the unit square at that corner) the stroke covers, 0 to 1:
    /// the outer rectangle's overlap less the inner one's, as an anti-aliased canvas fills it.
    pub fn coverage(&self, px: u32, py: u32) -> f64 {
        let half = self.line_width / 2.0;
        let (px, py) = (f64::from(px), f64::from(py));
        let overlap = |x0: f64, y0: f64, x1: f64, y1: f64| {
            let ox = (x1.min(px + 1.0) - x0.max(px)).max(0.0);
            let oy = (y1.min(py + 1.0) - y0.max(py)).max(0.0);
            if x1 > x0 && y1 > y0 {
                ox * oy
            } else {
                0.0
            }
        };
        let (x1, y1) = (self.x + self.w, self.y + self.h);
        let outer = overlap(self.x - half, self.y - half, x1 + half, y1 + half);
        let inner = overlap(self.x + half, self.y + half, x1 - half, y1 - half);
        (outer - inner).clamp(0.0, 1.0)
    }
}

/// `base` with `colour` laid over it at `alpha` (0 to 1), rounded to the nearest level.
pub fn blend(base: [u8; 3], colour: [u8; 3], alpha: f64) -> [u8; 3] {
    let a = alpha.clamp(0.0, 1.0);
    let mix = |b: u8, c: u8| (f64::from(b) * (1.0 - a) + f64::from(c) * a).round() as u8;
    [
        mix(base[0], colour[0]),
        mix(base[1], colour[1]),
        mix(base[2], colour[2]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_for_landscape_portrait_and_small_images() {
        assert_eq!(scaled_size(1600, 1200, MAX_SIDE), (1024, 768));
        assert_eq!(scaled_size(4032, 3024, MAX_SIDE), (1024, 768));
        assert_eq!(scaled_size(1200, 1600, MAX_SIDE), (768, 1024));
        // Rounded, not truncated: 1003 × 1024 / 1500 = 684.7.
        assert_eq!(scaled_size(1500, 1003, MAX_SIDE), (1024, 685));
        assert_eq!(scaled_size(64, 48, MAX_SIDE), (64, 48));
        assert_eq!(scaled_size(1024, 1024, MAX_SIDE), (1024, 1024));
        assert_eq!(scaled_size(5000, 2, MAX_SIDE), (1024, 1));
    }

    #[test]
    fn the_quality_on_both_scales() {
        assert_eq!(JPEG_QUALITY, 90);
        assert_eq!(jpeg_quality_browser(), 0.9);
    }

    #[test]
    fn a_file_is_refused_empty_or_over_the_limit() {
        assert_eq!(file_refusal(0.0).unwrap(), "The file is empty (0 bytes).");
        assert_eq!(file_refusal(MAX_FILE_BYTES as f64), None);
        assert_eq!(
            file_refusal(60.0 * 1_048_576.0).unwrap(),
            "The file is 60 MB; images up to 50 MB are accepted."
        );
    }

    #[test]
    fn the_box_maps_to_the_scaled_image_and_covers_its_edges() {
        let b = NormBox {
            x0: 0.25,
            y0: 0.25,
            x1: 0.75,
            y1: 0.75,
        };
        let s = Stroke::of(b, 1024, 768);
        assert_eq!((s.x, s.y, s.w, s.h), (256.0, 192.0, 512.0, 384.0));
        assert_eq!(s.line_width, 5.12);
        assert_eq!(s.pixel_bounds(1024, 768), (253, 189, 771, 579));
        // On the left edge (x = 256 ± 2.56): full; half-covered at its rim; nothing inside.
        assert_eq!(s.coverage(255, 300), 1.0);
        assert_eq!(s.coverage(257, 300), 1.0);
        assert!((s.coverage(253, 300) - 0.56).abs() < 1e-9);
        assert_eq!(s.coverage(512, 384), 0.0);
        assert_eq!(s.coverage(100, 100), 0.0);
        // A small image's stroke is still 2 px wide.
        assert_eq!(Stroke::of(b, 64, 48).line_width, 2.0);
        // A box at the image's edge is clipped to it.
        let whole = NormBox {
            x0: 0.0,
            y0: 0.0,
            x1: 1.0,
            y1: 1.0,
        };
        let s = Stroke::of(whole, 64, 48);
        assert_eq!(s.pixel_bounds(64, 48), (0, 0, 64, 48));
        assert_eq!(s.coverage(0, 20), 1.0);
        assert_eq!(s.coverage(1, 20), 0.0);
    }

    #[test]
    fn blending_lays_the_colour_over() {
        assert_eq!(blend([90, 120, 160], BOX_RGB, 1.0), BOX_RGB);
        assert_eq!(blend([90, 120, 160], BOX_RGB, 0.0), [90, 120, 160]);
        assert_eq!(blend([0, 100, 200], BOX_RGB, 0.5), [128, 50, 100]);
    }
}
