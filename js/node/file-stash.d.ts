import type { StashAdapter } from './ctxpack.js';

/**
 * A {@link StashAdapter} keeping each record as a JSON file in `dir`, for
 * Node hosts such as a VSCode desktop extension. Keys that could escape `dir`
 * are refused; a full disk surfaces as `QuotaExceededError`.
 */
export function fileStash(dir: string): StashAdapter;
