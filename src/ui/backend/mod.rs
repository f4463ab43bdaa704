//! The backend: provider, model, key and the connection check. Used by both pages.

pub(crate) mod backend_panel;
pub(crate) mod connection;
pub(crate) mod connection_panel;
pub(crate) mod in_browser_panel;
