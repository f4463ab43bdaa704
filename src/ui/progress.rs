//! A request-backed result's progress and the last run's inputs: a leaf that both the app's
//! state and the candidates' state use.

/// Progress of one request-backed result (a criterion, a FLEUR score) in the current run.
#[derive(Clone, Debug, PartialEq)]
pub enum Progress<T> {
    Idle,
    Running,
    /// Waiting to retry after a rate limit or server failure; says why and for how long.
    Retrying(String),
    /// `cached`: answered from the local cache, no request sent.
    Done {
        result: T,
        cached: bool,
    },
    Failed(String),
}

impl<T> Progress<T> {
    /// The `data-state` value of the result's element.
    pub fn id(&self) -> &'static str {
        match self {
            Progress::Idle => "idle",
            Progress::Running => "running",
            Progress::Retrying(_) => "retrying",
            Progress::Done { .. } => "done",
            Progress::Failed(_) => "error",
        }
    }

    pub fn result(&self) -> Option<&T> {
        match self {
            Progress::Done { result, .. } => Some(result),
            _ => None,
        }
    }

    pub fn is_active(&self) -> bool {
        matches!(self, Progress::Running | Progress::Retrying(_))
    }

    pub fn is_cached(&self) -> bool {
        matches!(self, Progress::Done { cached: true, .. })
    }

    /// The badge text.
    pub fn label(&self) -> &'static str {
        match self {
            Progress::Idle => "not run",
            Progress::Running => "asking…",
            Progress::Retrying(_) => "waiting to retry",
            Progress::Done { cached: true, .. } => "done · from cache",
            Progress::Done { .. } => "done",
            Progress::Failed(_) => "failed",
        }
    }

    /// Why it is waiting (retrying) or why it failed.
    pub fn note(&self) -> Option<String> {
        match self {
            Progress::Retrying(m) => Some(m.clone()),
            _ => None,
        }
    }

    pub fn error(&self) -> Option<String> {
        match self {
            Progress::Failed(m) => Some(m.clone()),
            _ => None,
        }
    }
}

/// Progress of an "Explain" follow-up.
#[derive(Clone, Debug, PartialEq)]
pub enum ExplainState {
    Idle,
    Running,
    Done(String),
    Failed(String),
    /// A stored explanation (an opened result's, or an earlier answer) that asking again could
    /// not replace: the text stays, with the sentence that says why it was not asked again.
    Kept(String, String),
}

impl ExplainState {
    /// The explanation this slot holds, if any (exported, shared and kept in the history).
    pub fn stored(&self) -> Option<&str> {
        match self {
            ExplainState::Done(t) | ExplainState::Kept(t, _) => Some(t),
            _ => None,
        }
    }

    /// What the card shows as the explanation.
    pub fn shown(&self) -> String {
        match self {
            ExplainState::Idle => String::new(),
            ExplainState::Running => "Asking the judge why…".into(),
            ExplainState::Done(t) | ExplainState::Failed(t) | ExplainState::Kept(t, _) => t.clone(),
        }
    }

    /// Why a stored explanation was not asked again.
    pub fn kept_note(&self) -> Option<String> {
        match self {
            ExplainState::Kept(_, why) => Some(why.clone()),
            _ => None,
        }
    }

    /// After a failed ask: the stored text stays (with the reason), else the failure shows.
    pub fn after_failure(previous: Option<String>, why: String) -> ExplainState {
        match previous {
            Some(text) => ExplainState::Kept(
                text,
                format!("Not asked again: {why} The stored explanation is shown above."),
            ),
            None => ExplainState::Failed(why),
        }
    }
}
