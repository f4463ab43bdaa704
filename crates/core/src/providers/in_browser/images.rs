//! What our own build of the in-page judge says about images (issue 57): while it reads a
//! prompt, which view of the image it is on and about how long the image has left; after the
//! answers, how many views were read, encoded and taken from memory, and how many prompt tokens
//! were taken from its cache of earlier prompts (issue 71). Pure: the engine reports
//! (engine.cpp's `hj_progress`, the `timings.images` and `timings.cache_n` of each answer), the
//! run bar shows the words.

use serde::Deserialize;
use serde_json::Value;

use super::meter::duration;

/// The engine's progress on the request it is reading (`hj_progress`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct EngineProgress {
    /// Views this request reads (0 while "auto" is still timing the global view).
    pub views: u32,
    /// Views the projector's file asks for (every image of the request).
    pub views_full: u32,
    /// Views read so far, and those left that are not in memory (each costs an encode).
    pub view: u32,
    pub to_encode: u32,
    /// Views this request encoded and took from memory.
    pub encoded: u32,
    pub reused: u32,
    /// Milliseconds one view takes to encode here, measured since the model loaded (0: none yet).
    pub ms_per_view: f64,
    /// Prompt tokens read and in all.
    pub fed: u32,
    pub n_prompt: u32,
}

impl EngineProgress {
    /// Reads the engine's JSON text; `None` for anything else (an empty string: none heard).
    pub fn parse(json: &str) -> Option<EngineProgress> {
        serde_json::from_str(json).ok()
    }

    /// "Reading the image: view 2 of 13 …", while the image is being read; `None` when the
    /// request has no image or its views are all read.
    pub fn sentence(&self) -> Option<String> {
        if self.views_full == 0 {
            return None;
        }
        if self.views == 0 {
            return Some(format!(
                "Reading the image: timing its global view on this device, to choose how many of its {} views to read (image detail: auto).",
                self.views_full
            ));
        }
        if self.view >= self.views {
            return None;
        }
        let left = if self.to_encode == 0 {
            " (from memory: encoded before)".to_string()
        } else if self.ms_per_view > 0.0 {
            format!(
                "; about {} left for it ({} a view here)",
                duration(f64::from(self.to_encode) * self.ms_per_view / 1000.0),
                seconds(self.ms_per_view)
            )
        } else {
            String::new()
        };
        Some(format!(
            "Reading the image: view {} of {}{left}.",
            self.view + 1,
            self.views
        ))
    }
}

/// One answer's `timings.images` (our build adds it beside llama-server's timings), and its
/// prompt: `timings.prompt_n` tokens read and `timings.cache_n` taken from the cache (llama-server's
/// names; our build since issue 71).
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ImageFigures {
    pub views: u32,
    pub views_full: u32,
    pub encoded: u32,
    pub reused: u32,
    pub encode_ms: f64,
    #[serde(skip)]
    pub prompt_read: u32,
    #[serde(skip)]
    pub prompt_cached: u32,
}

impl ImageFigures {
    /// The figures in an answer's JSON text, when it has them: an image's, or a prompt's
    /// tokens taken from the cache (an answer without `cache_n` is not our build's).
    pub fn of_answer(body: &str) -> Option<ImageFigures> {
        let v: Value = serde_json::from_str(body).ok()?;
        let tokens = |k: &str| v.pointer(&format!("/timings/{k}")).and_then(Value::as_u64);
        let cached = tokens("cache_n");
        let mut f = match v.pointer("/timings/images") {
            Some(images) => serde_json::from_value(images.clone()).ok()?,
            None if cached.is_some() => ImageFigures::default(),
            None => return None,
        };
        let count = |n: Option<u64>| n.map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
        f.prompt_read = count(tokens("prompt_n"));
        f.prompt_cached = count(cached);
        Some(f)
    }
}

/// The image figures of one burst of requests: summed, and the last answer's views.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImageTally {
    /// Answers with an image.
    pub answers: u32,
    /// Prompt tokens of every answer: read, and taken from the cache.
    pub prompt_read: u32,
    pub prompt_cached: u32,
    pub encoded: u32,
    pub reused: u32,
    pub encode_ms: f64,
    pub views: u32,
    pub views_full: u32,
}

impl ImageTally {
    pub fn add(&mut self, f: ImageFigures) {
        self.prompt_read = self.prompt_read.saturating_add(f.prompt_read);
        self.prompt_cached = self.prompt_cached.saturating_add(f.prompt_cached);
        if f.views_full == 0 {
            return;
        }
        self.answers += 1;
        self.encoded += f.encoded;
        self.reused += f.reused;
        self.encode_ms += f.encode_ms;
        self.views = f.views;
        self.views_full = f.views_full;
    }

    /// "The image: 1 of its 13 views read by each answer …", then "Prompts: 812 of 1,204
    /// tokens taken from memory." when any were: `None` when there is neither.
    /// `ms_per_view`: this device's measured time per view (0: unknown).
    pub fn sentence(&self, ms_per_view: f64) -> Option<String> {
        let prompts = (self.prompt_cached > 0).then(|| {
            format!(
                "Prompts: {} of {} tokens taken from memory.",
                self.prompt_cached,
                self.prompt_cached.saturating_add(self.prompt_read)
            )
        });
        match (self.image_sentence(ms_per_view), prompts) {
            (Some(i), Some(p)) => Some(format!("{i} {p}")),
            (i, p) => i.or(p),
        }
    }

    fn image_sentence(&self, ms_per_view: f64) -> Option<String> {
        if self.answers == 0 {
            return None;
        }
        let views = if self.views < self.views_full {
            let all = if ms_per_view > 0.0 {
                format!(
                    ", as all {} would take about {} here",
                    self.views_full,
                    duration(f64::from(self.views_full) * ms_per_view / 1000.0)
                )
            } else {
                String::new()
            };
            format!(
                "{} of its {} views read (the global view alone{all}; set Image detail to high for every view)",
                self.views, self.views_full
            )
        } else {
            format!(
                "{} {} read",
                self.views,
                plural(self.views, "view", "views")
            )
        };
        Some(format!(
            "The image: {views}; {} {} encoded ({}), {} taken from memory.",
            self.encoded,
            plural(self.encoded, "view", "views"),
            seconds(self.encode_ms),
            self.reused
        ))
    }
}

/// The views the judge read of the last image it answered about, as an export records them
/// inside its `engine`: `"image_views": {"read": 1, "of": 13}` (issue 57). "auto" decides once
/// per image and model, so every answer about that image read the same views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageViews {
    pub read: u32,
    pub of: u32,
}

impl ImageViews {
    /// An answer's views, when it read an image.
    pub fn of_figures(f: ImageFigures) -> Option<ImageViews> {
        (f.views_full > 0).then_some(ImageViews {
            read: f.views,
            of: f.views_full,
        })
    }

    /// `doc` (an exported result) with these views in its `engine` record; `doc` unchanged
    /// when it records no engine (another provider) or is not a JSON object.
    pub fn record(self, doc: &str) -> String {
        let Ok(Value::Object(mut obj)) = serde_json::from_str::<Value>(doc) else {
            return doc.to_string();
        };
        let Some(Value::Object(engine)) = obj.get_mut("engine") else {
            return doc.to_string();
        };
        engine.insert(
            "image_views".into(),
            serde_json::json!({"read": self.read, "of": self.of}),
        );
        Value::Object(obj).to_string()
    }
}

fn plural<'a>(n: u32, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// "0.8 s", "17 s".
fn seconds(ms: f64) -> String {
    if ms < 9_950.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        duration(ms / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_records_the_views_read_inside_its_engine() {
        let figures = ImageFigures {
            views: 1,
            views_full: 13,
            encoded: 1,
            ..ImageFigures::default()
        };
        let views = ImageViews::of_figures(figures).unwrap();
        assert_eq!(views, ImageViews { read: 1, of: 13 });
        let doc =
            r#"{"metric":"harmonic-eval","engine":{"backend":"cpu","threads":1},"score":0.5}"#;
        let v: Value = serde_json::from_str(&views.record(doc)).unwrap();
        assert_eq!(v["engine"]["image_views"]["read"], 1);
        assert_eq!(v["engine"]["image_views"]["of"], 13);
        assert_eq!(v["engine"]["threads"], 1);
        assert_eq!(v["score"], 0.5);
        // Another provider's export has no engine: nothing is added.
        let other = r#"{"metric":"fleur","provider":"openai"}"#;
        assert_eq!(views.record(other), other);
        assert_eq!(views.record("not json"), "not json");
        // An answer without an image names no views.
        assert_eq!(ImageViews::of_figures(ImageFigures::default()), None);
    }

    #[test]
    fn the_engines_progress_says_which_view_and_how_long_the_image_has_left() {
        let p = EngineProgress::parse(
            r#"{"views":13,"views_full":13,"view":2,"to_encode":11,"encoded":2,"reused":0,"encode_ms":8000,
                "fed":120,"n_prompt":940,"encoded_total":2,"reused_total":0,"ms_per_view":4000}"#,
        )
        .unwrap();
        assert_eq!(
            p.sentence().as_deref(),
            Some("Reading the image: view 3 of 13; about 44 s left for it (4.0 s a view here).")
        );
        let deciding = EngineProgress {
            views_full: 13,
            ..EngineProgress::default()
        };
        assert_eq!(
            deciding.sentence().as_deref(),
            Some("Reading the image: timing its global view on this device, to choose how many of its 13 views to read (image detail: auto).")
        );
        let first = EngineProgress {
            views: 1,
            views_full: 13,
            to_encode: 1,
            ..EngineProgress::default()
        };
        assert_eq!(
            first.sentence().as_deref(),
            Some("Reading the image: view 1 of 1.")
        );
        let kept = EngineProgress {
            to_encode: 0,
            ms_per_view: 22_000.0,
            ..first.clone()
        };
        assert_eq!(
            kept.sentence().as_deref(),
            Some("Reading the image: view 1 of 1 (from memory: encoded before).")
        );
        let done = EngineProgress { view: 1, ..first };
        assert_eq!(done.sentence(), None);
        let text_only = EngineProgress {
            fed: 10,
            n_prompt: 300,
            ..EngineProgress::default()
        };
        assert_eq!(text_only.sentence(), None);
        assert_eq!(EngineProgress::parse(""), None);
    }

    #[test]
    fn the_tally_counts_encodes_and_reuses_and_says_what_full_detail_would_cost() {
        let answer = r#"{"choices":[],"timings":{"prompt_n":940,"images":{"views":1,"views_full":13,"encoded":1,"reused":0,"encode_ms":17250.5}}}"#;
        let first = ImageFigures::of_answer(answer).unwrap();
        assert_eq!(first.encoded, 1);
        assert_eq!(first.encode_ms, 17250.5);
        assert_eq!(
            ImageFigures::of_answer(r#"{"timings":{"prompt_n":3}}"#),
            None
        );
        assert_eq!(ImageFigures::of_answer("not json"), None);
        let mut t = ImageTally::default();
        assert_eq!(t.sentence(0.0), None);
        t.add(first);
        t.add(ImageFigures {
            views: 1,
            views_full: 13,
            encoded: 0,
            reused: 1,
            encode_ms: 0.0,
            ..ImageFigures::default()
        });
        assert_eq!((t.answers, t.encoded, t.reused), (2, 1, 1));
        assert_eq!(
            t.sentence(17_250.5).as_deref(),
            Some("The image: 1 of its 13 views read (the global view alone, as all 13 would take about 3 min 44 s here; set Image detail to high for every view); 1 view encoded (17 s), 1 taken from memory.")
        );
        let mut whole = ImageTally::default();
        whole.add(ImageFigures {
            views: 2,
            views_full: 2,
            encoded: 2,
            reused: 0,
            encode_ms: 900.0,
            ..ImageFigures::default()
        });
        assert_eq!(
            whole.sentence(450.0).as_deref(),
            Some("The image: 2 views read; 2 views encoded (0.9 s), 0 taken from memory.")
        );
    }

    #[test]
    fn prompt_tokens_taken_from_the_cache_are_counted_with_or_without_an_image() {
        // A text prompt of our build (issue 71): no image, 128 of 190 tokens from the cache.
        let text = r#"{"timings":{"prompt_n":62,"cache_n":128}}"#;
        let f = ImageFigures::of_answer(text).unwrap();
        assert_eq!((f.views_full, f.prompt_read, f.prompt_cached), (0, 62, 128));
        assert_eq!(ImageViews::of_figures(f), None);
        let mut t = ImageTally::default();
        t.add(f);
        assert_eq!(t.answers, 0);
        assert_eq!(
            t.sentence(0.0).as_deref(),
            Some("Prompts: 128 of 190 tokens taken from memory.")
        );
        // Nothing from the cache: nothing said; with an image, after the image's sentence.
        let mut first = ImageTally::default();
        first.add(ImageFigures::of_answer(r#"{"timings":{"prompt_n":190,"cache_n":0}}"#).unwrap());
        assert_eq!(first.sentence(0.0), None);
        let image = r#"{"timings":{"prompt_n":10,"cache_n":100,"images":{"views":1,"views_full":1,"encoded":0,"reused":1,"encode_ms":0}}}"#;
        t.add(ImageFigures::of_answer(image).unwrap());
        assert_eq!(
            t.sentence(0.0).as_deref(),
            Some("The image: 1 view read; 0 views encoded (0.0 s), 1 taken from memory. Prompts: 228 of 300 tokens taken from memory.")
        );
    }
}
