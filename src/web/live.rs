//! The device's tabs of the lab talk over one BroadcastChannel: the tab running a stored run
//! posts each result as it is stored and when it stops (`lab::stored_run::LiveMessage`), so a
//! second tab on the same run shows it live instead of requesting its items again.
//! Where BroadcastChannel is missing, nothing is posted and the watching tab still sees the
//! run end through the run's Web Lock (`run_lock`), then reads its results from storage.

use std::cell::RefCell;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, MessageEvent};

use crate::lab::stored_run::LiveMessage;

const CHANNEL: &str = "harmonic-judge-batch-live";

thread_local! {
    static OUT: RefCell<Option<BroadcastChannel>> = const { RefCell::new(None) };
}

fn channel() -> Option<BroadcastChannel> {
    OUT.with(|c| {
        if c.borrow().is_none() {
            *c.borrow_mut() = BroadcastChannel::new(CHANNEL).ok();
        }
        c.borrow().clone()
    })
}

/// Tells the other tabs (never this one: a channel does not hear its own posts).
pub fn post(message: &LiveMessage) {
    if let Some(c) = channel() {
        let _ = c.post_message(&message.to_json().into());
    }
}

/// Calls `on_message` with every message another tab posts, for the page's lifetime.
pub fn listen(on_message: impl Fn(LiveMessage) + 'static) {
    let Ok(incoming) = BroadcastChannel::new(CHANNEL) else {
        return;
    };
    let handler = Closure::<dyn Fn(MessageEvent)>::new(move |ev: MessageEvent| {
        if let Some(m) = ev
            .data()
            .as_string()
            .and_then(|t| LiveMessage::from_json(&t))
        {
            on_message(m);
        }
    });
    incoming.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    // Kept open for the page's lifetime.
    std::mem::forget(incoming);
}
