//! The rules around sending a request, pure so they are tested natively: when and how to
//! retry ([`retry`]), the rate limiter ([`limiter`]), cost estimates before a run ([`cost`])
//! and the answer cache's key ([`request_key`]). The fetch itself is `web/`'s.

pub mod cost;
pub mod limiter;
pub mod request_key;
pub mod retry;
