//! The sentences that say why a score is doubtful, shown beside it (see `crate::answers::doubt`).

use leptos::prelude::*;

use crate::answers::doubt::Doubt;

/// One warning line per doubt; nothing when there is none.
pub fn doubt_notes(doubts: &[Doubt]) -> impl IntoView {
    doubts
        .iter()
        .map(|d| view! { <p class="warn-text" data-doubt-reason=d.code()>{d.sentence()}</p> })
        .collect_view()
}
