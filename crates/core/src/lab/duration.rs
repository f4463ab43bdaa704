//! How long, as the lab's progress line says it ("about 3m 05s left"): the page's batch panel
//! and `hj run`'s progress both call [`duration`], so the two doors word it alike.

/// `secs` as "42s", "3m 05s" or "1h 02m" (rounded to the second; a negative or non-finite
/// time reads as "0s").
pub fn duration(secs: f64) -> String {
    let s = if secs.is_finite() {
        secs.round().max(0.0) as u64
    } else {
        0
    };
    if s >= 3600 {
        format!("{}h {:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m {:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::duration;

    #[test]
    fn seconds_minutes_and_hours() {
        assert_eq!(duration(0.0), "0s");
        assert_eq!(duration(42.4), "42s");
        assert_eq!(duration(59.6), "1m 00s");
        assert_eq!(duration(185.0), "3m 05s");
        assert_eq!(duration(3599.0), "59m 59s");
        assert_eq!(duration(3600.0), "1h 00m");
        assert_eq!(duration(3720.0), "1h 02m");
        assert_eq!(duration(90_061.0), "25h 01m");
    }

    #[test]
    fn nothing_negative_or_undefined() {
        assert_eq!(duration(-5.0), "0s");
        assert_eq!(duration(f64::NAN), "0s");
        assert_eq!(duration(f64::INFINITY), "0s");
    }
}
