//! The γ axis that every plot against γ shares: where γ sits along a plot's width, which γ a
//! click picks, and how the keys move γ. Pure, so tested natively; `ui::widgets::gamma_axis`
//! reads the click's position from the DOM and hands it here.

/// Smallest γ the UI offers (the paper's "selective" setting): the left end of every γ axis.
pub const GAMMA_MIN: f64 = 0.01;
/// The paper's default γ, where the slider starts.
pub const GAMMA_DEFAULT: f64 = 0.75;

/// The γ's marked on every γ axis: the smallest offered, the quarters and 1.
pub const TICKS: [f64; 5] = [GAMMA_MIN, 0.25, 0.5, 0.75, 1.0];

/// How a tick's label at `gamma` is anchored under the axis: the smallest γ's label starts at
/// the axis's left end, so it clears the lowest label of the y axis beside it (centred, "0.01"
/// ran into it); the others are centred on their tick.
pub fn tick_anchor(gamma: f64) -> &'static str {
    if gamma <= GAMMA_MIN {
        "start"
    } else {
        "middle"
    }
}

/// A γ axis running from `left` to `width - right` in a plot `width` units wide (SVG viewBox
/// units), γ = [`GAMMA_MIN`] at the left end and 1 at the right.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GammaAxis {
    pub width: f64,
    pub left: f64,
    pub right: f64,
}

impl GammaAxis {
    /// Where γ sits along the plot.
    pub fn x(&self, gamma: f64) -> f64 {
        self.left + (gamma - GAMMA_MIN) / (1.0 - GAMMA_MIN) * (self.width - self.left - self.right)
    }

    /// The γ under a point `fraction` of the drawn width from the plot's left edge (0 to 1;
    /// outside the axis it is the nearer end), on the slider's steps of 0.01.
    pub fn gamma_at(&self, fraction: f64) -> f64 {
        let x = fraction * self.width;
        snap(
            GAMMA_MIN + (x - self.left) / (self.width - self.left - self.right) * (1.0 - GAMMA_MIN),
        )
    }
}

/// γ within [[`GAMMA_MIN`], 1] on the slider's steps of 0.01; a NaN (a plot not laid out yet)
/// is the smallest γ, never NaN.
pub fn snap(gamma: f64) -> f64 {
    if gamma.is_nan() {
        return GAMMA_MIN;
    }
    (gamma.clamp(GAMMA_MIN, 1.0) * 100.0).round() / 100.0
}

/// Where a key moves γ, as on a slider: the arrows by 0.01, Page Up / Page Down by 0.1, Home
/// and End to the ends. `None` for any other key (the page keeps it).
pub fn key_step(key: &str, gamma: f64) -> Option<f64> {
    let next = match key {
        "ArrowLeft" | "ArrowDown" => gamma - 0.01,
        "ArrowRight" | "ArrowUp" => gamma + 0.01,
        "PageDown" => gamma - 0.1,
        "PageUp" => gamma + 0.1,
        "Home" => GAMMA_MIN,
        "End" => 1.0,
        _ => return None,
    };
    Some(snap(next))
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_the_smallest_gammas_label_starts_at_its_tick() {
        let anchors: Vec<&str> = super::TICKS
            .iter()
            .map(|&g| super::tick_anchor(g))
            .collect();
        assert_eq!(anchors, ["start", "middle", "middle", "middle", "middle"]);
    }

    use super::*;

    const AXIS: GammaAxis = GammaAxis {
        width: 380.0,
        left: 48.0,
        right: 14.0,
    };

    #[test]
    fn the_ends_of_the_axis_are_the_ends_of_gamma() {
        assert_eq!(AXIS.x(GAMMA_MIN), 48.0);
        assert!((AXIS.x(1.0) - 366.0).abs() < 1e-9);
        // Halfway along the axis is halfway from 0.01 to 1.
        assert!((AXIS.x(0.505) - 207.0).abs() < 1e-9);
    }

    #[test]
    fn a_click_picks_the_gamma_drawn_there() {
        for g in [GAMMA_MIN, 0.1, 0.25, 0.5, 0.75, 0.99, 1.0] {
            assert_eq!(AXIS.gamma_at(AXIS.x(g) / AXIS.width), g, "γ = {g}");
        }
        // In the margins: the nearer end.
        assert_eq!(AXIS.gamma_at(0.0), GAMMA_MIN);
        assert_eq!(AXIS.gamma_at(1.0), 1.0);
        assert_eq!(AXIS.gamma_at(-3.0), GAMMA_MIN);
        assert_eq!(AXIS.gamma_at(f64::NAN), GAMMA_MIN);
    }

    #[test]
    fn keys_move_gamma_like_a_slider() {
        assert_eq!(key_step("ArrowRight", 0.75), Some(0.76));
        assert_eq!(key_step("ArrowUp", 0.75), Some(0.76));
        assert_eq!(key_step("ArrowLeft", 0.75), Some(0.74));
        assert_eq!(key_step("ArrowDown", 0.75), Some(0.74));
        assert_eq!(key_step("PageUp", 0.75), Some(0.85));
        assert_eq!(key_step("PageDown", 0.75), Some(0.65));
        assert_eq!(key_step("Home", 0.75), Some(GAMMA_MIN));
        assert_eq!(key_step("End", 0.75), Some(1.0));
        // Never past the ends.
        assert_eq!(key_step("PageUp", 0.95), Some(1.0));
        assert_eq!(key_step("ArrowLeft", GAMMA_MIN), Some(GAMMA_MIN));
        assert_eq!(key_step("Enter", 0.75), None);
        assert_eq!(key_step("a", 0.75), None);
    }

    #[test]
    fn ticks_lie_on_the_axis_in_order() {
        assert_eq!(TICKS[0], GAMMA_MIN);
        assert_eq!(TICKS[4], 1.0);
        assert!(TICKS.windows(2).all(|w| AXIS.x(w[0]) < AXIS.x(w[1])));
    }
}
