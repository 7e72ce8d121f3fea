//! The stash: where a history image's original waits while its placeholder
//! travels. This module holds the backend contract ([`StashBackend`]), the
//! records, the in-memory backend and the policy (TTL, LRU, verification);
//! IndexedDB and JavaScript adapters implement the contract at the boundary.

mod backend;
mod error;
mod memory;
mod policy;
mod record;

pub use backend::StashBackend;
pub use error::{StashError, StashErrorKind};
pub use memory::MemoryBackend;
pub use policy::{plan_maintenance, read_verified, Lookup, Maintenance, StashConfig};
pub use record::{NewRecord, RecordMeta, StoredRecord};
