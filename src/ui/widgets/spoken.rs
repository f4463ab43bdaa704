//! A distribution in words, for screen readers: the visually hidden sentence beside a
//! rating's or a digit's probability bars (HarmonicEval's criterion cards, FLEUR's digits).

/// The bars' numbers as one sentence for screen readers (the bars themselves are hidden from
/// them): "Probability of each rating: 1: 0.0 %, 2: 5.0 %, …". `first` is the first bar's value.
pub(crate) fn spoken(p: &[f64], first: usize) -> String {
    let parts: Vec<String> = p
        .iter()
        .enumerate()
        .map(|(i, x)| format!("{}: {:.1} %", i + first, x * 100.0))
        .collect();
    format!("Probability of each rating: {}.", parts.join(", "))
}
