//! What the page is given before it sends: what a dropped file is ([`sniff`]), image
//! geometry ([`geometry`]), the one image pipeline's numbers that every door follows
//! ([`pipeline`]), checks on the pasted text ([`text_checks`]) and what keeps a first visit from
//! dead ends ([`first_visit`]).

pub mod first_visit;
pub mod geometry;
pub mod pipeline;
pub mod sniff;
pub mod text_checks;
