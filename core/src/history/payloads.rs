//! What compaction reads payloads through.

use crate::media::payload::Payloads;
use crate::tool_results::SanitizeMemo;

/// What compaction reads payloads through: the payload source and, for
/// tool results' JSON texts, the sanitize memo. Anything that is both is
/// one (the payloads in wasm memory remember nothing).
pub trait CompactPayloads: Payloads + SanitizeMemo {}

impl<T: Payloads + SanitizeMemo + ?Sized> CompactPayloads for T {}
