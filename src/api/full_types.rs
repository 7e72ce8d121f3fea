//! The declarations of the full module's functions (`fitContext`,
//! `repairContext`, `compactRequestBody`, and the types they take and
//! answer): every build declares them, so that the main module's `.d.ts`,
//! the one every flavour ships, holds them; the full module answers them.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const FIT_TS: &'static str = r#"
/** Why an image changed. */
export type FitReason = "larger-than-model-reads" | "over-long-edge" | "many-image-rule" | "over-image-bytes" | "too-many-images" | "over-context" | "over-request-bytes" | "unsupported-format" | "exif-orientation";

/** An image's figures as the model counts them. */
export interface ImageFigures {
  width: number;
  height: number;
  /** Decoded bytes. */
  bytes: number;
  /** Length of its base64 text. */
  base64Bytes: number;
  tokens: number;
  mime: string;
  /** The JPEG quality chosen, for an image ctxpack encoded as JPEG. */
  quality?: number;
  /** The EXIF orientation (2–8) the original is stored with; width and height are as shown. */
  orientation?: number;
}

/** From sent pixels to the original's (as shown): a point (x, y) in the sent image is (x * scale.x, y * scale.y) in the original. */
export interface ImageScale {
  x: number;
  y: number;
}

/** What became of one image. */
export interface ImageFit {
  /** JSON path of the image part in the messages given. */
  path: string;
  action: "kept" | "downscaled" | "reencoded" | "stashed" | "failed";
  reasons: FitReason[];
  /** As given; null for an image given by URL. */
  before: ImageFigures | null;
  /** As sent; null when stashed. */
  after: ImageFigures | null;
  /** `history_<md5>` of the original in the stash, when it changed. */
  id?: string;
  /** For a changed image: the scale from sent pixels to the original's, to map coordinates the model gives back. */
  scale?: ImageScale;
  /** True when an animated image was sent as its first frame only. */
  firstFrameOnly?: boolean;
  note?: string;
}

/** What {@link fitContext} did. */
export interface FitReport {
  /** The profile row that applied. */
  model: string;
  provider: string;
  format: Format;
  /** True when the request meets every limit of the model. */
  fits: boolean;
  /** What is still over (empty when it fits). */
  problems: string[];
  imagesBefore: number;
  imagesAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  bytesBefore: number;
  bytesAfter: number;
  /** Images downscaled or re-encoded. */
  changed: number;
  stashed: number;
  /** The first message holding an image this call stashed for the first time (`null` when none): images are resized the same way on every turn, so a provider's prompt cache holds the messages before it from the previous request. */
  firstChangedIndex: number | null;
  images: ImageFit[];
  /** With {@link FitOptions.offload}: the compaction that sent the history images left inline by reference, as fitted. */
  offload?: CompactReport;
}

/** An image to resize, as {@link FitOptions.resize} receives it. */
export interface ResizeInput {
  data: Uint8Array;
  mime: string;
  width: number;
  height: number;
}

/** What to make of it. */
export interface ResizeTarget {
  width: number;
  height: number;
  /** `image/png` or `image/jpeg`. */
  mime: "image/png" | "image/jpeg";
  /** JPEG quality, 1–100. */
  quality: number;
}

/** A resize function: the image encoded at the target's size and type. */
export type ResizeFunction = (image: ResizeInput, target: ResizeTarget) => Promise<{ data: Uint8Array | ArrayBuffer | string; mime?: string }>;

/**
 * Resizes with the codec module (PNG, JPEG, GIF and WebP decoders,
 * `fast_image_resize`, JPEG and PNG encoders, compiled from Rust), loaded on
 * first use: the default in Node and wherever there is no `OffscreenCanvas`.
 */
export const codecResize: ResizeFunction;

/** Options of {@link fitContext}. */
export interface FitOptions {
  /** The model id (`claude-sonnet-4-5`, `gpt-4o`, `gemini-2.5-pro`, `anthropic/…`), as every call takes it. */
  model: string;
  /** Figures of the model's profile to replace, or a whole profile (with `provider`). */
  profile?: ProfileOverrides;
  /** Limits to replace the profile's. */
  limits?: RequestLimits;
  /** Where originals go: history images stashed to fit, and the originals of changed images. */
  stash?: Stash;
  /** Replaces the default resize (a canvas in browsers and workers, the codec module in Node). */
  resize?: ResizeFunction;
  /** Send the newest user turn's images as they are; default false. */
  keepNewest?: boolean;
  /** Tokens the request may hold; default the model's context window. */
  maxTokens?: number;
  /** History images stashed to fit go in batches, so the next turns only append; see {@link Slack}. */
  slack?: Slack | false;
  format?: Format;
  /**
   * The history images the fitting leaves inline go by reference to files
   * uploaded once, as fitted (a compaction keeping every history image
   * runs after the fitting; the newest turn's images stay inline). Needs
   * `stash`. See {@link OffloadOptions}.
   */
  offload?: OffloadOptions;
}

/**
 * The cheapest request `model` accepts that loses nothing: images larger
 * than the model reads are downscaled to the size it reads at (same
 * tokens); images over a hard limit (pixels, the many-image rule, bytes)
 * are shrunk and re-encoded until they fit; with too many images, tokens
 * or bytes, the oldest history images are stashed. The originals of
 * changed images are stashed first, and an image is replaced only once its
 * original committed. The only function that may change the newest turn's
 * images. Message objects sent again unchanged that hold no inline image
 * are not read again (one memory with {@link compactContext}).
 */
export function fitContext<M>(messages: readonly M[], options: FitOptions): Promise<{ messages: M[]; report: FitReport }>;

/**
 * A retry for a refused request: reads the refusal (as
 * {@link parseProviderError} does), tightens the model's limits to what it
 * names and fits the messages to them. Throws `NOT_A_REFUSAL` when the
 * error is not about size or images, and `CANNOT_FIT` when the request
 * cannot be brought under the named limit.
 *
 * A `file-missing` refusal (the provider lost a file an image was
 * offloaded as) with a `stash`: the records forget the file, each
 * reference to it becomes its original again, uploaded anew with
 * `offload` (inline without), and the request is fitted; `reupload` is
 * that compaction's report.
 */
export function repairContext<M>(messages: readonly M[], error: unknown, options: FitOptions): Promise<{ messages: M[]; report: FitReport; refusal: ProviderRefusal; reupload?: CompactReport }>;
"#;

#[wasm_bindgen(typescript_custom_section)]
const REQUEST_BODY_TS: &'static str = r#"
/**
 * {@link compactContext} for a request body as a server receives it: the
 * JSON text of `{messages, …}` (`input` for `openai-responses` and
 * `gemini-interactions`, `contents` for `gemini`; without `format`, the
 * first of `messages`, `contents`, `input` the body has) or of a bare array
 * of messages, given as a string, as its UTF-8 bytes (a `Uint8Array` or a
 * Node `Buffer`), or as the chunks a server read it in (an array of
 * `Uint8Array`s, in order: they are compared and spliced where they lie,
 * never joined). The body comes back in the form it was given, every byte
 * as sent but the messages compaction changed, written as compact JSON
 * (the same string, array or list of chunks when none changed; chunks
 * come back as the pieces to write in order, views of the chunks given
 * between the changed messages). Long image payloads are read where they lie in the text,
 * never copied beside it. Send the body upstream as it is.
 *
 * The stash remembers the body: the next one compacted with that stash,
 * which a client sends with the same history and a few new messages, is
 * compared with it, and only the bytes after those the two share are
 * copied into wasm and read. The messages within the shared bytes are
 * taken as they were read, their images not decoded or hashed again. The
 * stash holds the last four bodies (a server may answer several
 * conversations at once), each until the conversation's next body takes
 * its place, until four newer ones push it out, or until the stash is
 * closed. A string is encoded first (and the body decoded back when a
 * message changed): a server holding the bytes saves both.
 */
export function compactRequestBody(body: string, options: CompactOptions): Promise<{ body: string; report: CompactReport }>;
export function compactRequestBody(body: Uint8Array, options: CompactOptions): Promise<{ body: Uint8Array; report: CompactReport }>;
export function compactRequestBody(body: readonly Uint8Array[], options: CompactOptions): Promise<{ body: Uint8Array[]; report: CompactReport }>;
"#;
