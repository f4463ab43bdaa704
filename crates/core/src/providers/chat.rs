//! Provider-neutral chat messages and sampling settings. Each adapter (`openai`, `gemini`,
//! `anthropic`) turns these into its own wire format.

/// Sampling settings for a judge request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChatParams {
    /// `None` sends no temperature: the API's default (MAEV's paper asks for exactly that).
    pub temperature: Option<f64>,
    /// `None` asks for no logprobs at all (explanations).
    pub top_logprobs: Option<u8>,
    pub max_tokens: u32,
    /// Nucleus sampling; `None` leaves the provider's default (MAEV uses 0.2).
    pub top_p: Option<f64>,
    /// Sampling seed; `None` sends none. Set by [`Tuning::apply`] in repeatable mode.
    pub seed: Option<u64>,
    /// A request whose answer is scored (its output budget is the metric's setting), as
    /// opposed to an explanation, a caption or the connection check.
    pub scoring: bool,
}

/// How the user's settings shape every request beyond the metric's own parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tuning {
    /// The output budget (`max_tokens`) of scoring requests; `None` keeps the metric's.
    pub max_tokens: Option<u32>,
    /// The backend is llama.cpp's server: send `cache_prompt: false`, because a prompt served
    /// partly from its cache gets different logprobs than the same prompt computed afresh.
    pub llama_cpp: bool,
    /// Repeatable mode: requests that sample get a fixed seed (and the app sends requests one
    /// at a time, since llama.cpp batches parallel requests and that changes the numbers).
    pub repeatable: bool,
}

/// The seed sent with sampling requests in repeatable mode. Any fixed number does.
pub const REPEATABLE_SEED: u64 = 20_250_101;

impl Tuning {
    /// The metric's parameters as this tuning sends them.
    pub fn apply(self, params: ChatParams) -> ChatParams {
        // No temperature sent means the provider's default, which samples.
        let samples = params.temperature != Some(0.0) || params.top_p.is_some();
        ChatParams {
            max_tokens: match (params.scoring, self.max_tokens) {
                (true, Some(n)) => n.max(1),
                _ => params.max_tokens,
            },
            seed: params
                .seed
                .or((self.repeatable && samples).then_some(REPEATABLE_SEED)),
            ..params
        }
    }
}

impl ChatParams {
    /// Rating requests: greedy, with the 20 alternatives OpenAI and Gemini allow at most. A few
    /// tokens are enough for `**Rating: 4**`.
    pub const RATING: ChatParams = ChatParams {
        temperature: Some(0.0),
        top_logprobs: Some(20),
        max_tokens: 20,
        top_p: None,
        seed: None,
        scoring: true,
    };
    /// Free-text explanations.
    pub const EXPLAIN: ChatParams = ChatParams {
        temperature: Some(0.0),
        top_logprobs: None,
        max_tokens: 400,
        top_p: None,
        seed: None,
        scoring: false,
    };
}

/// A content part of a chat message.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Text(String),
    Image(Image),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Instructions (G-VEval's reference-only prompt is sent this way, as its authors did).
    System,
    User,
    Assistant,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub role: Role,
    pub parts: Vec<Part>,
}

impl Message {
    pub fn user(parts: Vec<Part>) -> Message {
        Message {
            role: Role::User,
            parts,
        }
    }

    pub fn assistant(text: impl Into<String>) -> Message {
        Message {
            role: Role::Assistant,
            parts: vec![Part::Text(text.into())],
        }
    }

    pub fn system(text: impl Into<String>) -> Message {
        Message {
            role: Role::System,
            parts: vec![Part::Text(text.into())],
        }
    }

    pub fn has_image(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Image(_)))
    }

    /// The message's text parts joined, images left out.
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(t.as_str()),
                Part::Image(_) => None,
            })
            .collect()
    }
}

/// For APIs that take instructions apart from the turns (Gemini, Anthropic): the system text,
/// and the other messages. A lone system prompt becomes the user turn, since those APIs need
/// at least one.
pub fn split_system(messages: &[Message]) -> (Option<String>, Vec<Message>) {
    let system: Vec<String> = messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(Message::text)
        .collect();
    let rest: Vec<Message> = messages
        .iter()
        .filter(|m| m.role != Role::System)
        .cloned()
        .collect();
    if system.is_empty() {
        return (None, rest);
    }
    if rest.is_empty() {
        return (
            None,
            vec![Message::user(vec![Part::Text(system.join("\n\n"))])],
        );
    }
    (Some(system.join("\n\n")), rest)
}

/// An image as it is sent: its media type and its bytes in base64. Gemini and Anthropic take
/// the two apart; OpenAI's format (and llama.cpp's) takes them as one data URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// `image/jpeg`, `image/png`, …
    pub mime: String,
    pub base64: String,
}

impl Image {
    pub fn new(mime: impl Into<String>, base64: impl Into<String>) -> Image {
        Image {
            mime: mime.into(),
            base64: base64.into(),
        }
    }

    /// The image of a `data:<mime>;base64,<data>` URL (what a canvas gives and a result file
    /// keeps); `None` for any other URL.
    pub fn from_data_url(url: &str) -> Option<Image> {
        let rest = url.strip_prefix("data:")?;
        let (meta, data) = rest.split_once(',')?;
        let mime = meta.strip_suffix(";base64")?;
        if mime.is_empty() {
            return None;
        }
        Some(Image::new(mime, data))
    }

    /// The image as one `data:` URL.
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime, self.base64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuning_sets_the_budget_of_scoring_requests_and_seeds_sampling_ones() {
        let t = Tuning {
            max_tokens: Some(64),
            llama_cpp: true,
            repeatable: true,
        };
        assert_eq!(t.apply(ChatParams::RATING).max_tokens, 64);
        assert_eq!(t.apply(ChatParams::RATING).seed, None); // greedy: nothing to seed
        assert_eq!(t.apply(ChatParams::EXPLAIN).max_tokens, 400);
        let sampled = ChatParams {
            temperature: Some(1.0),
            ..ChatParams::RATING
        };
        assert_eq!(t.apply(sampled).seed, Some(REPEATABLE_SEED));
        let off = Tuning {
            repeatable: false,
            ..t
        };
        assert_eq!(off.apply(sampled).seed, None);
        assert_eq!(
            Tuning::default().apply(ChatParams::RATING),
            ChatParams::RATING
        );
    }

    #[test]
    fn data_urls_split_into_mime_and_payload() {
        let url = "data:image/jpeg;base64,/9j/AA==";
        assert_eq!(
            Image::from_data_url(url),
            Some(Image::new("image/jpeg", "/9j/AA=="))
        );
        assert_eq!(Image::from_data_url("data:image/png,raw"), None);
        assert_eq!(Image::from_data_url("https://x/y.jpg"), None);
        assert_eq!(Image::from_data_url("file:///x.png"), None);
        assert_eq!(Image::from_data_url("data:;base64,AAAA"), None);
        // Written back as the same URL (OpenAI's and llama.cpp's format).
        assert_eq!(
            Image::from_data_url(url).map(|i| i.data_url()).as_deref(),
            Some(url)
        );
    }

    #[test]
    fn system_text_is_split_off_or_becomes_the_user_turn() {
        let (sys, rest) = split_system(&[
            Message::system("rules"),
            Message::user(vec![Part::Text("q".into())]),
        ]);
        assert_eq!(sys.as_deref(), Some("rules"));
        assert_eq!(rest.len(), 1);
        let (sys, rest) = split_system(&[Message::system("only")]);
        assert_eq!(sys, None);
        assert_eq!(
            (rest[0].role, rest[0].text()),
            (Role::User, "only".to_string())
        );
    }

    #[test]
    fn text_joins_only_text_parts() {
        let m = Message::user(vec![
            Part::Text("a".into()),
            Part::Image(Image::new("image/jpeg", "AA")),
            Part::Text("b".into()),
        ]);
        assert_eq!(m.text(), "ab");
        assert!(m.has_image());
        assert!(!Message::assistant("4").has_image());
    }
}
