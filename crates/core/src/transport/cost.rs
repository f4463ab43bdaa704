//! Token and cost estimates before a run, from each provider's published image-token rules and
//! an editable price table. Estimates, not bills: the provider's reported `usage` after the run
//! is the real figure, and the app shows both.

use crate::providers::{ImageDetail, Protocol};

/// Text tokens, estimated at four characters per token (the usual figure for English with
/// GPT-style tokenizers; other scripts and tokenizers differ).
pub fn text_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// Tokens a `width`×`height` image costs as input.
///
/// * OpenAI (GPT-4o family): `low` is 85; `high` fits the image in 2048×2048, scales its
///   shortest side down to 768, and charges 170 per 512-px tile plus 85. `auto` is counted as
///   `high`, the upper bound, since OpenAI does not say when it picks which.
/// * Gemini: 258 when both sides are at most 384 px, else 258 per 768×768 tile.
/// * Anthropic: about width·height/750 after fitting the long side in 1568 px.
pub fn image_tokens(protocol: Protocol, detail: ImageDetail, width: u32, height: u32) -> u64 {
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    match protocol {
        Protocol::OpenAi => {
            if detail == ImageDetail::Low {
                return 85;
            }
            let fit = (2048.0 / w.max(h)).min(1.0);
            let (w, h) = (w * fit, h * fit);
            let shrink = (768.0 / w.min(h)).min(1.0);
            let (w, h) = ((w * shrink).round(), (h * shrink).round());
            let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
            85 + 170 * tiles as u64
        }
        Protocol::Gemini => {
            if w <= 384.0 && h <= 384.0 {
                258
            } else {
                258 * ((w / 768.0).ceil() * (h / 768.0).ceil()) as u64
            }
        }
        Protocol::Anthropic => {
            let fit = (1568.0 / w.max(h)).min(1.0);
            ((w * fit * h * fit) / 750.0).ceil() as u64
        }
    }
}

/// USD per million tokens for models whose name starts with `model_prefix`.
#[derive(Clone, Debug, PartialEq)]
pub struct Price {
    pub model_prefix: String,
    pub input_per_million: f64,
    pub output_per_million: f64,
}

/// List prices when this table was written (late 2025). Users edit them in the app: prices
/// change and differ by contract.
pub const DEFAULT_PRICES: &str = "\
# model-prefix  input-$/1M  output-$/1M
gpt-4o-mini 0.15 0.60
gpt-4o 2.50 10.00
gpt-4.1-nano 0.10 0.40
gpt-4.1-mini 0.40 1.60
gpt-4.1 2.00 8.00
gemini-2.0-flash 0.10 0.40
gemini-2.5-flash-lite 0.10 0.40
gemini-2.5-flash 0.30 2.50
gemini-2.5-pro 1.25 10.00
claude-haiku-4-5 1.00 5.00
claude-sonnet-4 3.00 15.00
claude-opus-4 15.00 75.00
";

/// Reads a price table: one `prefix input output` line each; `#` starts a comment. Returns
/// the prices and, for each bad line, its number and what is wrong.
pub fn parse_prices(table: &str) -> (Vec<Price>, Vec<String>) {
    let mut prices = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in table.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let number = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
        match fields.as_slice() {
            [prefix, input, output] => match (number(input), number(output)) {
                (Some(input), Some(output)) => prices.push(Price {
                    model_prefix: prefix.to_string(),
                    input_per_million: input,
                    output_per_million: output,
                }),
                _ => problems.push(format!(
                    "Line {}: prices must be non-negative numbers.",
                    i + 1
                )),
            },
            _ => problems.push(format!(
                "Line {}: write a model prefix and two prices, e.g. \u{201c}gpt-4o 2.50 10.00\u{201d}.",
                i + 1
            )),
        }
    }
    (prices, problems)
}

/// The price of the longest matching prefix. A vendor prefix such as OpenRouter's `openai/`
/// is ignored.
pub fn price_for<'a>(prices: &'a [Price], model: &str) -> Option<&'a Price> {
    let model = model.trim();
    let model = model.rsplit('/').next().unwrap_or(model);
    prices
        .iter()
        .filter(|p| model.starts_with(p.model_prefix.as_str()))
        .max_by_key(|p| p.model_prefix.len())
}

/// The estimate of one run judging each of `texts` (several candidates, issue 21): each text's
/// own estimate (`one`: input and output tokens) added up, so N copies of one text cost N times
/// one; the image goes with every candidate's requests, so it is counted N times too.
pub fn estimate_for_texts(texts: &[String], one: impl Fn(&str) -> (u64, u64)) -> (u64, u64) {
    texts.iter().fold((0, 0), |(i, o), t| {
        let (ti, to) = one(t);
        (i + ti, o + to)
    })
}

/// Tokens and dollars, estimated or reported.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// `None` when the model has no price in the table.
    pub usd: Option<f64>,
}

impl Cost {
    pub fn priced(input_tokens: u64, output_tokens: u64, price: Option<&Price>) -> Cost {
        Cost {
            input_tokens,
            output_tokens,
            usd: price.map(|p| {
                (input_tokens as f64 * p.input_per_million
                    + output_tokens as f64 * p.output_per_million)
                    / 1e6
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_cost_each_text_once_so_three_copies_cost_three_times_one() {
        use crate::metrics::{fleur, harmonic_eval};
        let he = |text: &str| {
            let input = harmonic_eval::Input {
                text: text.to_string(),
                ..harmonic_eval::Input::default()
            };
            harmonic_eval::estimated_tokens(
                &input,
                Some((1024, 768)),
                Protocol::OpenAi,
                ImageDetail::High,
            )
        };
        let text = "A brown dog leaps over a red ball on wet grass.".to_string();
        let single = estimate_for_texts(std::slice::from_ref(&text), he);
        assert_eq!(single, he(&text));
        assert!(single.0 > 765 && single.1 > 0);
        let three = estimate_for_texts(&[text.clone(), text.clone(), text.clone()], he);
        assert_eq!(three, (3 * single.0, 3 * single.1));
        // Different texts: each one's own estimate, added up (a longer text costs more).
        let long =
            "A brown dog leaps over a red ball on wet grass while two children watch from a bench."
                .to_string();
        let mixed = estimate_for_texts(&[text.clone(), long.clone()], he);
        assert_eq!(
            mixed,
            (he(&text).0 + he(&long).0, he(&text).1 + he(&long).1)
        );
        assert!(mixed.0 > 2 * single.0);
        // The same arithmetic for a one-request metric.
        let fl = |t: &str| {
            let input = fleur::Input {
                caption: t.to_string(),
                references: None,
                image: None,
            };
            fleur::estimated_tokens(&input, Some((512, 512)), Protocol::OpenAi, ImageDetail::Low)
        };
        let one = fl(&text);
        assert_eq!(
            estimate_for_texts(&[text.clone(), text.clone(), text], fl),
            (3 * one.0, 3 * one.1)
        );
    }

    #[test]
    fn openai_image_tokens_follow_the_published_examples() {
        // OpenAI's own examples: 1024×1024 high = 765; 2048×4096 high = 1105; low = 85.
        assert_eq!(
            image_tokens(Protocol::OpenAi, ImageDetail::High, 1024, 1024),
            765
        );
        assert_eq!(
            image_tokens(Protocol::OpenAi, ImageDetail::High, 2048, 4096),
            1105
        );
        assert_eq!(
            image_tokens(Protocol::OpenAi, ImageDetail::Low, 4096, 8192),
            85
        );
        assert_eq!(
            image_tokens(Protocol::OpenAi, ImageDetail::Auto, 512, 512),
            255
        );
    }

    #[test]
    fn gemini_and_anthropic_rules() {
        assert_eq!(
            image_tokens(Protocol::Gemini, ImageDetail::Auto, 384, 300),
            258
        );
        assert_eq!(
            image_tokens(Protocol::Gemini, ImageDetail::Auto, 1024, 768),
            516
        );
        // Anthropic's example: 1092×1092 ≈ 1590 tokens.
        assert_eq!(
            image_tokens(Protocol::Anthropic, ImageDetail::Auto, 1092, 1092),
            1590
        );
    }

    #[test]
    fn prices_parse_match_by_longest_prefix_and_report_bad_lines() {
        let (prices, problems) = parse_prices(DEFAULT_PRICES);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            price_for(&prices, "gpt-4o-mini-2024-07-18")
                .unwrap()
                .input_per_million,
            0.15
        );
        assert_eq!(price_for(&prices, "gpt-4o").unwrap().input_per_million, 2.5);
        assert_eq!(
            price_for(&prices, "openai/gpt-4o")
                .unwrap()
                .output_per_million,
            10.0
        );
        assert!(price_for(&prices, "local").is_none());
        let (prices, problems) = parse_prices("a 1 2\nb x 3\nc 1\n# note\n");
        assert_eq!(prices.len(), 1);
        assert_eq!(problems.len(), 2);
        assert!(problems[0].starts_with("Line 2:") && problems[1].starts_with("Line 3:"));
    }

    #[test]
    fn cost_in_dollars() {
        let p = Price {
            model_prefix: "m".into(),
            input_per_million: 2.5,
            output_per_million: 10.0,
        };
        let c = Cost::priced(2_000, 100, Some(&p));
        assert!((c.usd.unwrap() - 0.006).abs() < 1e-12);
        assert_eq!(Cost::priced(5, 5, None).usd, None);
        assert_eq!(text_tokens("abcdefghi"), 3);
    }
}
