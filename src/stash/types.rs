//! The TypeScript declarations of the stash: `StashAdapter`, the options
//! of `Stash.open`, a record as `Stash.list` shows it, and the `Stash`
//! class.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const STASH_TS: &'static str = r#"
/**
 * A JavaScript object that can hold the stash: async `get`, `put`, `delete`
 * and `keys`. Values are plain objects; keys are an image's md5 and
 * `<md5>.meta`.
 */
export interface StashAdapter {
  get(key: string): Promise<unknown> | unknown;
  put(key: string, value: object): Promise<void> | void;
  delete(key: string): Promise<void> | void;
  keys(): Promise<string[]> | string[];
  /** Many values in one round trip, in order (`undefined` or `null` for a missing key). */
  getMany?(keys: string[]): Promise<unknown[]> | unknown[];
  /** Many keys written atomically (a record's image and meta together), in one round trip. */
  putMany?(entries: [string, object][]): Promise<void> | void;
  /**
   * True when the store expires records by itself: each record's keys live
   * until its meta's `expiresAt` (renewed when the meta is written again),
   * and the store's own memory policy evicts. A call then looks up only the
   * metas it names (with `getMany`), never lists `keys()` and never sweeps.
   */
  expires?: boolean;
}

/** Options of {@link Stash.open}. */
export interface StashOptions {
  /** Where records live: `'indexeddb'` (default where `indexedDB` exists), `'memory'`, or an adapter. */
  backend?: "indexeddb" | "memory" | StashAdapter;
  /** The IndexedDB database name; default `"ctxpack"`. */
  name?: string;
  /** Time to live after the last reference; default 7200 (2 h). */
  ttlSeconds?: number;
  /** Upper bound on stored payload bytes; least recently used records go first. */
  maxBytes?: number;
  /** A clock in ms since the epoch, for tests; default `Date.now`. */
  now?: () => number;
}

/** One record as {@link Stash.list} shows it. */
export interface StashEntry {
  id: string;
  mime: string;
  size: number;
  storedBytes: number;
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number;
  /** The files the image was uploaded as (offload), one per provider and account. */
  files?: StashedFile[];
}

/** An image uploaded to a provider's Files API, as its record remembers it. */
export interface StashedFile {
  provider: OffloadProvider;
  account: string;
  id?: string;
  uri?: string;
  /** When the provider lets go of it (ms since the epoch). */
  expiresAt?: number;
}

/**
 * Where history images wait while their placeholders travel: IndexedDB in
 * browsers and workers, memory, or any {@link StashAdapter}.
 */
export class Stash {
  private constructor();
  free(): void;
  /** Opens a stash. Throws `STASH_UNAVAILABLE` when IndexedDB is asked for and absent. */
  static open(options?: StashOptions): Promise<Stash>;
  /** `"indexeddb"`, `"memory"` or `"adapter"`. */
  readonly backend: "indexeddb" | "memory" | "adapter";
  readonly name: string;
  readonly ttlSeconds: number;
  readonly maxBytes: number | undefined;
  /** Every record's bookkeeping, most recently used first. */
  list(): Promise<StashEntry[]>;
  /** Removes expired records, then the least recently used above `maxBytes`. */
  sweep(): Promise<{ expired: number; evicted: number; bytes: number }>;
  /** Removes every record. */
  clear(): Promise<void>;
  /** Closes the stash (and its IndexedDB connection). */
  close(): void;
}
"#;
