//! A request body read as text, for servers: the whole JSON body a client
//! sent (`{model, messages, …}`, `{input, …}`, `{contents, …}` or a bare
//! array) is parsed once by `serde_json` where it lies, each message becomes
//! a value for the flows, and what compaction changed is written back as
//! text edits of the body, so that the host splices the few changed
//! messages into the text it holds and nothing else is copied out.
//!
//! Long image payloads are not copied out of the body: a message's value
//! carries a reference to where the payload lies in the text
//! ([`BodyText`]), read through [`BodyText`]'s [`Payloads`] when it is
//! hashed, and expanded again when a changed message is written.
//!
//! A message compaction can never change is remembered by its text
//! ([`BodyMemo`]): sent again in the next request, it is neither parsed
//! nor decoded again.
//!
//! [`Payloads`]: crate::media::Payloads

mod edits;
mod error;
mod locate;
mod memo;
mod previous;
mod resume;
mod text;
mod value_seed;

pub use edits::{body_edits, BodyEdit};
pub use error::BodyError;
pub use locate::{read_body, read_body_bytes, RequestBody};
pub use memo::BodyMemo;
pub use previous::{PreviousBody, ReadAgain, ReadInputs};
pub use text::{BodyText, BODY_TABLE};
