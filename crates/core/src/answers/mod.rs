//! Reading what a provider sent back: the text and token probabilities of an answer
//! ([`completion`]), the score found in them ([`rating`]), an echoed instruction, scale or
//! range refused as a score ([`echo`]), the doubts a reading carries ([`doubt`]), and a
//! failure in words ([`errors`], with its `Retry-After` read by [`retry_after`]).

pub mod completion;
pub mod doubt;
pub mod echo;
pub mod errors;
pub mod rating;
pub mod retry_after;
