//! Browser-only glue: network, images, storage, downloads. Kept thin; decisions live in the
//! pure modules.

pub mod download;
pub mod fetch;
pub mod image;
pub mod storage;
