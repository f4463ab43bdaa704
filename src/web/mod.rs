//! Browser-only glue: network, images, storage, downloads. Kept thin; decisions live in the
//! pure modules.

pub mod batch_store;
pub mod cache;
pub mod download;
pub mod fetch;
pub mod files;
pub mod history;
pub mod image;
pub mod in_browser;
pub mod in_browser_check;
pub mod live;
pub mod response;
pub mod run_lock;
pub mod storage;
pub mod timing;
pub mod transport;
pub mod video;
