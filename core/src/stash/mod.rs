//! The stash: where a history image's original waits while its placeholder
//! travels. This module holds the backend contract ([`StashBackend`]), the
//! records, the in-memory backend and the policy (TTL, LRU, verification);
//! IndexedDB and JavaScript adapters implement the contract at the boundary.

mod access;
mod backend;
mod cached;
mod commit;
mod error;
mod failure;
mod memory;
mod policy;
mod record;

pub use access::StashAccess;
pub use backend::{metas_by_id, Metas, StashBackend};
pub use cached::{CachedBackend, Generation, MetaCache, META_CACHE_MS};
pub use commit::{commit_in_steps, Commit, Committed};
pub use error::{StashError, StashErrorKind};
pub use failure::{Failure, WriteErrors};
pub use memory::MemoryBackend;
pub use policy::{
    list_by_recency, plan_maintenance, read_verified, sweep, Lookup, Maintenance, StashConfig,
    SweepReport, DEFAULT_STASH_NAME, DEFAULT_TTL_SECONDS,
};
pub use record::{NewRecord, RecordMeta, StashedFile, StoredRecord, WrittenAt};
