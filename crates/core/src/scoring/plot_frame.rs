//! The frame every chart draws in, in SVG viewBox units: its size and the margins that hold
//! the ticks and the axis titles. Each chart states its frame in one line (the candidates'
//! chart here in the core, the page's γ plot, weights chart and the lab's scatter plot), and
//! a chart against γ takes its [`GammaAxis`] from it, so the click's γ and the drawn axis can
//! never be worked out from two sets of numbers.

use super::gamma_axis::GammaAxis;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlotFrame {
    pub width: f64,
    pub height: f64,
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
}

impl PlotFrame {
    /// A `width` × `height` frame with its margins: `[left, right, top, bottom]`.
    pub const fn new(width: f64, height: f64, margins: [f64; 4]) -> PlotFrame {
        let [left, right, top, bottom] = margins;
        PlotFrame {
            width,
            height,
            left,
            right,
            top,
            bottom,
        }
    }

    /// The x where the plotting area ends.
    pub const fn right_x(&self) -> f64 {
        self.width - self.right
    }

    /// The y of the plotting area's bottom edge (the x axis).
    pub const fn bottom_y(&self) -> f64 {
        self.height - self.bottom
    }

    /// The plotting area's width.
    pub const fn inner_width(&self) -> f64 {
        self.width - self.left - self.right
    }

    /// The plotting area's height.
    pub const fn inner_height(&self) -> f64 {
        self.height - self.top - self.bottom
    }

    /// The SVG `viewBox` attribute.
    pub fn view_box(&self) -> String {
        format!("0 0 {} {}", self.width, self.height)
    }

    /// The γ axis along this frame's plotting area.
    pub const fn gamma_axis(&self) -> GammaAxis {
        GammaAxis {
            width: self.width,
            left: self.left,
            right: self.right,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PlotFrame;
    use crate::scoring::gamma_axis::GAMMA_MIN;

    #[test]
    fn the_plotting_area_and_the_gamma_axis_follow_the_margins() {
        const F: PlotFrame = PlotFrame::new(340.0, 200.0, [44.0, 30.0, 10.0, 44.0]);
        assert_eq!((F.right_x(), F.bottom_y()), (310.0, 156.0));
        assert_eq!((F.inner_width(), F.inner_height()), (266.0, 146.0));
        assert_eq!(F.view_box(), "0 0 340 200");
        let axis = F.gamma_axis();
        assert_eq!(axis.x(GAMMA_MIN), 44.0);
        assert_eq!(axis.x(1.0), 310.0);
        assert_eq!(axis.gamma_at(310.0 / 340.0), 1.0);
    }
}
