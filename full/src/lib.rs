//! ctxpack's full module: the main crate built with its `full` feature, as
//! a wasm module of its own, kept out of the main module's size budget.
//! It holds everything the main module holds, and `fitContext`,
//! `repairContext` and `compactRequestBody` (with their offload and repair
//! phases), which a page's first compaction does not need. The package's
//! JavaScript entry loads it the first time one of them is called, and
//! hands it, for each stash of the main module, a stash of its own over
//! the same storage (`Stash.__twin`): records either module writes are the
//! other's to read, and each keeps its own memory of what it was given.
#![deny(missing_docs)]

#[cfg(target_arch = "wasm32")]
pub use ctxpack::*;
