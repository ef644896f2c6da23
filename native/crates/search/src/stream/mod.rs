//! Streaming searches: output formatted in Rust, handed over in bounded chunks through an
//! `Outbox` while the search runs, in path order through a reorder window or in walk order.

pub(crate) mod json;
pub(crate) mod ordered;
mod outbox;
mod window;

pub use outbox::Outbox;
