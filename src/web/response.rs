//! What the transport gets back from any backend, over the network (`fetch.rs`) or from the
//! engine inside the page (`in_browser.rs`). A leaf, so those two need not import each other.

/// Status, the `Retry-After` header and the body text of a response.
pub struct RawResponse {
    pub status: u16,
    pub retry_after: Option<String>,
    pub body: String,
}
