//! `compactContext`, `expandContext`, `getHistoryImage` and
//! `historyImageTool`: convert, call the core over the stash, convert back.
//! Messages the operation did not change are returned as the caller's own
//! values; the caller's objects are never mutated.

use crate::api::call::{Answer, Call, CallStash};
use crate::api::compact_settings::{
    offloaded, progress_of, uploader_of, CompactSettings, OffloadSettings,
};
use crate::convert::array_arg;
use crate::convert::message_memo::{self, keys_of, Seen};
use crate::convert::to_js_kept;
use crate::promise::to_promise;
use crate::stash::stash_from_js;
use crate::stash::StashInner;
use crate::CtxpackError;
use ctxpack_core::calls::history_image_dialect;
use ctxpack_core::history::{
    history_image, settle_inputs, settle_inputs_for_expansion, CompactCall, CompactOptions,
    ExpandCall, Input, Settled,
};
use js_sys::{Array, Promise};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The `ToolDialectName` union, made from the core's format list.
#[wasm_bindgen(typescript_custom_section)]
const TOOL_DIALECT_TS: &'static str = ctxpack_core::messages::TOOL_DIALECT_UNION_TS;

#[wasm_bindgen(typescript_custom_section)]
const HISTORY_TS: &'static str = r#"
/** Why an image stayed inline. */
export interface CompactFailure {
  path: string;
  md5?: string;
  code: CtxpackErrorCode;
  reason: string;
}

/** What {@link compactContext} did. */
export interface CompactReport {
  format: Format;
  newestUserIndex: number | null;
  /**
   * The first message holding an image this call stashed for the first time
   * (`null` when none): images an earlier call stashed come back as the same
   * placeholders, so a provider's prompt cache holds the messages before it
   * from the previous request. Log it to see your cache behaviour.
   */
  firstChangedIndex: number | null;
  /** The message given the cache breakpoint (`null` when none was asked, the format needs none, or the messages hold four already). */
  cacheBreakpointIndex: number | null;
  stashed: number;
  deduplicated: number;
  written: number;
  kept: number;
  urls: number;
  failed: number;
  refreshed: number;
  missing: number;
  bytesBefore: number;
  bytesAfter: number;
  failures: CompactFailure[];
  expired: number;
  evicted: number;
  overBudget: boolean;
  binariesStashed: number;
  limitStashed: number;
  /** False when the request exceeds the model's limits even after compaction. */
  fits: boolean;
  limitProblem?: string;
  /** Image parts sent as references to files at the provider (offload). */
  offloaded: number;
  /** Images uploaded by this call (offload). */
  uploaded: number;
  /** Base64 bytes the references carry in the images' place. */
  offloadedBytes: number;
  /** Why no image went by reference, when offload was asked and the format's API takes none (or another provider's). */
  offloadNote?: string;
}

/** What {@link expandContext} did. */
export interface ExpandReport {
  format: Format;
  restored: number;
  missing: { id: string; path: string }[];
  corrupted: number;
  bytesBefore: number;
  bytesAfter: number;
}

/** Progress of a compaction, reported as images are hashed. */
export interface CompactProgress {
  done: number;
  total: number;
  bytes: number;
}

/**
 * How evictions move, so a provider's prompt cache survives: the
 * recent-image window fills up to `keepRecentImages + images - 1` and then
 * drops `images` at once, and a limit on images is met with `headroom` of
 * it to spare, stashing in batches of that many (a byte or token limit: of
 * `images`). Between the steps, turns only append. `slack: false` is the
 * one-image-per-turn rule.
 */
export interface Slack {
  /** Images the window drops at once, at least 1; default 8. */
  images?: number;
  /** The share of an image limit kept free when it is met, 0 to 0.9; default 0.2. */
  headroom?: number;
}

/** Options of {@link compactContext}. */
export interface CompactOptions {
  stash: Stash;
  format?: Format;
  /**
   * Also keep at least this many of the newest history images inline;
   * default 0. With the default `slack`, up to 7 more ride along until the
   * window drops a batch.
   */
  keepRecentImages?: number;
  /** How the window and the limits move; default `{images: 8, headroom: 0.2}`, `false` for one image a turn. */
  slack?: Slack | false;
  /**
   * Put one prompt-cache breakpoint at the end of what the next request
   * keeps as it is, where the format marks them: Anthropic's
   * `cache_control: {type: 'ephemeral'}` on that message's last block, and
   * in `ai-sdk` messages `providerOptions.anthropic.cacheControl` (which
   * `@ai-sdk/anthropic` sends). Skipped when the messages hold four
   * already; other formats' APIs cache by themselves. Default false.
   */
  cacheBreakpoint?: boolean;
  /** Fold a message left with only text into one string (the dootask shape); default false. */
  collapseText?: boolean;
  onProgress?: (progress: CompactProgress) => void;
  /** Also stash binary payloads in tool results before the newest user message. */
  sanitizeToolResults?: boolean;
  /**
   * The model id (`claude-sonnet-4-5`, `gpt-4o`, `bedrock/…`), as every call
   * takes it: further history images are stashed, oldest first, until the
   * request fits its profile's limits (with `profile` and `limits`
   * applied). Older, still accepted: `{provider, maxImages?,
   * maxRequestBytes?, limits?}`, a provider's limits with yours over them.
   */
  model?: string | { provider: Provider; maxImages?: number; maxRequestBytes?: number; limits?: RequestLimits };
  /** With a model id: figures of its profile to replace, or a whole profile (with `provider`). */
  profile?: ProfileOverrides;
  /** With a model id: limits to replace the profile's. */
  limits?: RequestLimits;
  /**
   * Send the history images kept for the model (`keepRecentImages`) as
   * references to files uploaded once to the provider, instead of their
   * base64 on every request. See {@link OffloadOptions}.
   */
  offload?: OffloadOptions;
}

/** A provider whose Files API images are uploaded to. */
export type OffloadProvider = "openai" | "anthropic" | "gemini";

/** An image to upload, as {@link OffloadOptions.upload} receives it. */
export interface UploadImage {
  /** Its bytes. */
  data: Uint8Array;
  mediaType: string;
  /** Its id, as in its placeholder: the MD5 of its base64 text. */
  md5: string;
  /** Its size in bytes. */
  bytes: number;
}

/** What an upload gives back: the file's `id` (OpenAI, Anthropic) or `uri` (Gemini), and when the provider deletes it. */
export interface UploadedFile {
  id?: string;
  uri?: string;
  /** Ms since the epoch; the file is uploaded again 10 minutes before. */
  expiresAt?: number;
}

/**
 * Offload: the app's own upload (an AI SDK `uploadFile` call, the
 * provider SDK's `files.create`, or its server's endpoint: keys stay with
 * the app). Each image is uploaded once per provider and account; the
 * stash remembers its file beside the original. Where the format's API
 * takes no file reference (Chat Completions, MCP, Ollama) images stay
 * inline and `report.offloadNote` says why; a failed upload leaves its
 * image inline with an `UPLOAD_FAILED` failure.
 */
export interface OffloadOptions {
  upload(image: UploadImage): Promise<UploadedFile>;
  /** Whose files; default the format's own (`openai-responses`: openai, `anthropic`, `gemini` and `gemini-interactions`: gemini). */
  provider?: OffloadProvider;
  /** Keeps the files of different keys or projects apart; default `""`. */
  account?: string;
  /** Smaller images stay inline; default 32768. */
  minBytes?: number;
}

/**
 * Replaces every inline image before the newest user message with
 * `[Picture:history_<md5>]`, after its original is committed to the stash.
 * The newest user message and everything after it are returned untouched.
 * Stash failures never throw: the image stays inline and the report says why.
 * A message object sent again unchanged (compared leaf by leaf) that
 * compaction cannot change is not read again from its third send: keep your
 * message objects, and a long chat costs what is new (see docs/performance.md).
 */
export function compactContext<M>(messages: readonly M[], options: CompactOptions): Promise<{ messages: M[]; report: CompactReport }>;

/**
 * Puts the originals back for every placeholder the stash still holds; the
 * rest are listed as missing. Message objects sent again unchanged that
 * name no placeholder are not read again (one memory with
 * {@link compactContext}).
 */
export function expandContext<M>(messages: readonly M[], options: { stash: Stash; format?: Format }): Promise<{ messages: M[]; report: ExpandReport }>;

/**
 * Answers a `get_history_image` call: the image as content parts of `format`
 * (default `"openai"`; `"langchain"` gives LangChain JS's standard block
 * `{type:'image', mimeType, data}`, `"langchain-python"` Python LangChain's
 * `{type:'image', mime_type, base64}` for servers such as the dootask
 * backend), or one text part the model can read when the id is invalid or the
 * image expired. Accepts `history_<md5>` or a bare md5.
 */
export function getHistoryImage(stash: Stash, id: string, options?: { format?: Format | "langchain-python"; lang?: "en" | "zh" }): Promise<ContentPart[]>;

/**
 * The `get_history_image` tool definition in the dialect of a format's API:
 * `"openai"` (Chat Completions function calling), `"openai-responses"` and
 * `"gemini-interactions"` (a flat `{type:'function', name, description,
 * parameters}`), `"anthropic"` or `"mcp"`; another name throws.
 */
export function historyImageTool(dialect: ToolDialectName): object;

/**
 * What an answer of the `get_history_image` tool says besides the image, for
 * image `id` as the model passed it: `placeholder` is `[Picture:history_<md5>]`
 * (null when `id` is no image id), `found` the text before the image, and
 * `missing` the text when the image is gone. `answerHistoryImageCall` and the
 * AI SDK and LangChain adapters use these words.
 */
export function historyImageTexts(id: string): { placeholder: string | null; found: string; missing: string };
"#;

/// `compactContext` with what the JavaScript side says of each message,
/// compared leaf by leaf with what an earlier call read (`keys`: 0 new, -1
/// sent before unchanged, else the key of its digest; see
/// `convert::message_memo`):
/// the messages are read now, before the promise is made, so what was
/// compared is what is compacted. The promise resolves to `{changed,
/// values, report, keys}` (see `args::changes`), `keys` giving each
/// message read its key (0: none).
#[wasm_bindgen(js_name = __compactContext, skip_typescript)]
pub fn compact_context_js(messages: JsValue, options: JsValue, keys: JsValue) -> Promise {
    match Compaction::read(&messages, &options, &keys) {
        Ok(compaction) => to_promise(Box::pin(compaction.run(Answer::Changes))),
        Err(e) => to_promise(Box::pin(async move { Err(e) })),
    }
}

/// `compactContext` awaited from Rust, remembering nothing: `{messages,
/// report}`, the messages the call did not change the caller's own.
pub async fn compact_context(messages: JsValue, options: JsValue) -> Result<JsValue, CtxpackError> {
    let array = array_arg(&messages, "messages")?;
    let compaction = Compaction::read(&messages, &options, &JsValue::UNDEFINED)?;
    compaction.run(Answer::Whole(array)).await
}

/// A compaction whose messages and options are read.
struct Compaction {
    call: Call,
    inputs: Vec<Input>,
    keys: Vec<Seen>,
    settled: Settled,
    options: CompactOptions,
    stash: Rc<StashInner>,
    offload: Option<OffloadSettings>,
}

impl Compaction {
    /// Reads the options, and each message not known by its key.
    fn read(
        messages: &JsValue,
        options: &JsValue,
        keys: &JsValue,
    ) -> Result<Compaction, CtxpackError> {
        let call = Call::new(Some(options))?;
        let CompactSettings {
            format,
            options,
            stash,
            offload,
        } = CompactSettings::read(&call)?;
        let array = array_arg(messages, "messages")?;
        let keys = keys_of(keys, array.length());
        let loose = options.sanitize_tool_results;
        let mut read = |i: usize| call.message(&array, i, loose);
        let mut inputs = message_memo::inputs(call.table.memory(), &keys, &mut read)?;
        let settled = settle_inputs(&mut inputs, format, &options, &mut read)?;
        Ok(Compaction {
            call,
            inputs,
            keys,
            settled,
            options,
            stash,
            offload,
        })
    }

    /// Compacts, keeps the digests the core made, and answers as asked.
    async fn run(self, answer: Answer) -> Result<JsValue, CtxpackError> {
        let Compaction {
            call,
            mut inputs,
            keys,
            settled,
            options,
            stash,
            offload,
        } = self;
        let mut progress = progress_of(&call)?;
        let store = CallStash::new(&stash, &call);
        let payloads = call.payloads();
        let uploader = uploader_of(offload.as_ref(), &call.table);
        let compaction = CompactCall::new(store.access(), options, &payloads);
        let (outcome, digests) = offloaded(compaction, offload.as_ref(), uploader.as_ref())
            .with_progress(&mut progress)
            .run(&mut inputs, &settled)
            .await?;
        drop(inputs);
        answer.give(
            &call,
            outcome,
            message_memo::keep(call.table.memory(), &keys, digests),
        )
    }
}

/// `expandContext` with what the JavaScript side says of each message
/// (`keys`, as `__compactContext` takes them): the messages are read now,
/// before the promise is made; a message known by a digest that names no
/// placeholder is not read (expansion leaves it as it is). The promise
/// resolves to `{changed, values, report, keys}`.
#[wasm_bindgen(js_name = __expandContext, skip_typescript)]
pub fn expand_context_js(messages: JsValue, options: JsValue, keys: JsValue) -> Promise {
    match Expansion::read(&messages, &options, &keys) {
        Ok(expansion) => to_promise(Box::pin(expansion.run(Answer::Changes))),
        Err(e) => to_promise(Box::pin(async move { Err(e) })),
    }
}

/// `expandContext` awaited from Rust, remembering nothing: `{messages,
/// report}`, the messages the call did not change the caller's own.
pub async fn expand_context(messages: JsValue, options: JsValue) -> Result<JsValue, CtxpackError> {
    let expansion = Expansion::read(&messages, &options, &JsValue::UNDEFINED)?;
    let array = array_arg(&messages, "messages")?;
    expansion.run(Answer::Whole(array)).await
}

/// An expansion whose messages and options are read.
struct Expansion {
    call: Call,
    inputs: Vec<Input>,
    keys: Vec<Seen>,
    settled: Settled,
    stash: Rc<StashInner>,
}

impl Expansion {
    /// Reads the options, and each message not known by its key.
    fn read(
        messages: &JsValue,
        options: &JsValue,
        keys: &JsValue,
    ) -> Result<Expansion, CtxpackError> {
        let call = Call::new(Some(options))?;
        let stash = call.stash()?;
        let format = call.opts.format()?;
        let array = array_arg(messages, "messages")?;
        let keys = keys_of(keys, array.length());
        let mut read = |i: usize| call.message(&array, i, false);
        let mut inputs = message_memo::inputs(call.table.memory(), &keys, &mut read)?;
        let settled = settle_inputs_for_expansion(&mut inputs, format, &mut read)?;
        Ok(Expansion {
            call,
            inputs,
            keys,
            settled,
            stash,
        })
    }

    /// Expands, keeps the digests the core made, and answers as asked.
    async fn run(self, answer: Answer) -> Result<JsValue, CtxpackError> {
        let Expansion {
            call,
            inputs,
            keys,
            settled,
            stash,
        } = self;
        let store = CallStash::new(&stash, &call);
        let payloads = call.payloads();
        let expansion = ExpandCall::new(store.access(), &payloads);
        let (outcome, digests) = expansion.run(inputs, &settled).await?;
        answer.give(
            &call,
            outcome,
            message_memo::keep(call.table.memory(), &keys, digests),
        )
    }
}

/// See the TypeScript declaration.
#[wasm_bindgen(js_name = getHistoryImage, skip_typescript)]
pub fn get_history_image_js(stash: JsValue, id: JsValue, options: Option<JsValue>) -> Promise {
    to_promise(Box::pin(get_history_image(stash, id, options)))
}

/// `getHistoryImage`, awaited from Rust.
pub async fn get_history_image(
    stash: JsValue,
    id: JsValue,
    options: Option<JsValue>,
) -> Result<JsValue, CtxpackError> {
    let stash = stash_from_js(&stash, "stash")?;
    let call = Call::new(options.as_ref())?;
    let opts = &call.opts;
    let dialect = history_image_dialect(opts.string("format")?.as_deref(), &call.options_path())?;
    let lang = opts.lang()?;
    // A non-string id is an invalid id, answered in text like any other.
    let id = id.as_string().unwrap_or_default();
    let store = CallStash::new(&stash, &call);
    let parts = history_image(store.access(), &id, dialect, lang, &call.payloads()).await;
    Ok(parts
        .iter()
        .map(|p| to_js_kept(p, &call.table))
        .collect::<Array>()
        .into())
}
