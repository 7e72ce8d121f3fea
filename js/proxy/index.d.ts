import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Stash } from 'ctxpack';

/** What the proxy did to one request: the `log` option's argument. */
export interface ProxyLogEntry {
  method: string;
  /** The request's path, without its query (where a Gemini key may be). */
  path: string;
  provider?: 'anthropic' | 'openai' | 'gemini';
  /** The body's `model` (Gemini: the path's). */
  model?: string;
  /** True when the body went through compaction; false when it passed through as it came. */
  compacted: boolean;
  /** Why a body passed through (a `CtxpackError` code and path, or `not UTF-8`). */
  note?: string;
  bytesIn?: number;
  bytesOut?: number;
  stashed?: number;
  kept?: number;
  /** Images left inline because their stash write or upload failed, and the first failure's code. */
  failed?: number;
  failure?: string;
  /** History images sent by reference to an uploaded file (with `offload`). */
  offloaded?: number;
  uploaded?: number;
  /** The first message this request changed (where the prompt cache's prefix ends), or null. */
  firstChangedIndex?: number | null;
  /** The upstream's status (502: unreachable). */
  status?: number;
  /** Why the upstream could not be reached. */
  error?: string;
  /** A refusal repaired and retried: its status and `parseProviderError`'s kind. */
  repaired?: { status: number; kind: string };
  /** Why a refusal could not be repaired (it was passed on to the client). */
  repairFailed?: string;
  /** Milliseconds ctxpack added: compaction, and repair when there was one. */
  addedMs: number;
}

/** Options of {@link createProxy}. */
export interface ProxyOptions {
  /** Where history images go; default a memory stash of its own. */
  stash?: Stash;
  /** History images kept inline; default 3 (see `DEFAULT_KEEP_RECENT_IMAGES`). */
  keepRecentImages?: number;
  /** How evictions move, as `compactContext`'s `slack` (default: 8 images at once). */
  slack?: { images?: number; headroom?: number } | false;
  /** Fit each body to its own `model`'s limits (default true). */
  fit?: boolean;
  /** Base URLs to send each provider's requests to; default their public APIs. */
  upstreams?: { anthropic?: string; openai?: string; gemini?: string };
  /**
   * Upload the history images the model still sees to the provider's Files
   * API once, with the request's own credentials, and send them by
   * reference (Anthropic, with the `files-api-2025-04-14` beta; OpenAI's
   * Responses API). Default false.
   */
  offload?: boolean;
  /** Called once per request; `false` logs nothing. Default: one line on stderr. */
  log?: ((entry: ProxyLogEntry) => void) | false;
}

/** A Node request handler, for `http.createServer`, Express or Fastify (`reply.hijack()` first). */
export interface ProxyHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** Closes the upstream connections kept alive. */
  close(): void;
}

/** The default of `keepRecentImages`. */
export const DEFAULT_KEEP_RECENT_IMAGES: number;

/**
 * A proxy in front of the Anthropic, OpenAI and Gemini APIs: request bodies
 * compacted and fitted, everything else passed through, answers streamed
 * as they arrive, refusals repaired before the client sees them.
 */
export function createProxy(options?: ProxyOptions): ProxyHandler;

/** The text log line for an entry, as the default `log` writes it. */
export function formatLogLine(entry: ProxyLogEntry): string;
