//! Image geometry the browser half needs, kept pure so it is tested natively.

/// A rectangle in image coordinates normalised to [0, 1] (so it survives downscaling).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NormBox {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl NormBox {
    /// The box spanned by two corner points in any order, clamped to the image.
    pub fn from_corners(a: (f64, f64), b: (f64, f64)) -> NormBox {
        // Sanitise before ordering: f64::min silently drops a NaN operand.
        let c = |v: f64| {
            if v.is_finite() {
                v.clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        let (ax, ay, bx, by) = (c(a.0), c(a.1), c(b.0), c(b.1));
        NormBox {
            x0: ax.min(bx),
            y0: ay.min(by),
            x1: ax.max(bx),
            y1: ay.max(by),
        }
    }

    /// A box too small to mark anything (an accidental click) is not a box.
    pub fn is_usable(&self) -> bool {
        self.x1 - self.x0 >= 0.01 && self.y1 - self.y0 >= 0.01
    }

    /// `(x, y, w, h)` in pixels of a `width` × `height` image.
    pub fn to_pixels(&self, width: u32, height: u32) -> (f64, f64, f64, f64) {
        let (w, h) = (width as f64, height as f64);
        (
            self.x0 * w,
            self.y0 * h,
            (self.x1 - self.x0) * w,
            (self.y1 - self.y0) * h,
        )
    }
}

/// Size after scaling `width` × `height` down so the longest side is at most `max_side`
/// (never up). Sides are at least 1 pixel.
pub fn fit_within(width: u32, height: u32, max_side: u32) -> (u32, u32) {
    let longest = width.max(height);
    if longest == 0 || longest <= max_side || max_side == 0 {
        return (width.max(1), height.max(1));
    }
    let scale = max_side as f64 / longest as f64;
    let s = |v: u32| ((v as f64 * scale).round() as u32).max(1);
    (s(width), s(height))
}

/// Stroke width of the REG box: visible at any size, about 0.5 % of the longest side.
pub fn box_stroke(width: u32, height: u32) -> f64 {
    (width.max(height) as f64 / 200.0).max(2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downscale_keeps_aspect_and_never_upscales() {
        assert_eq!(fit_within(4000, 3000, 1024), (1024, 768));
        assert_eq!(fit_within(3000, 4000, 1024), (768, 1024));
        assert_eq!(fit_within(800, 600, 1024), (800, 600));
        assert_eq!(fit_within(100_000, 1, 1024), (1024, 1));
    }

    #[test]
    fn boxes_are_ordered_and_clamped() {
        let b = NormBox::from_corners((0.8, 1.4), (-0.2, 0.5));
        assert_eq!(
            b,
            NormBox {
                x0: 0.0,
                y0: 0.5,
                x1: 0.8,
                y1: 1.0
            }
        );
        assert!(b.is_usable());
        assert!(!NormBox::from_corners((0.5, 0.5), (0.502, 0.9)).is_usable());
        assert_eq!(b.to_pixels(100, 200), (0.0, 100.0, 80.0, 100.0));
        let nan = NormBox::from_corners((f64::NAN, 0.0), (1.0, 1.0));
        assert_eq!(nan.x0, 0.0);
    }
}
