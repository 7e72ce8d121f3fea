import type { BaseMessage } from '@langchain/core/messages';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import type { AgentMiddleware } from 'langchain';
import type { CompactOptions, CompactReport, OffloadProvider, Stash } from 'ctxpack';

/** Options of the adapter: `compactContext`'s, plus a report callback. */
export type CtxpackLangChainOptions = Omit<CompactOptions, 'format'> & {
  /** Receives the report of each compaction. */
  onReport?: (report: CompactReport) => void;
};

/** Compacts LangChain messages; a message that does not change is returned as it was. */
export declare function compactMessages<M extends BaseMessage>(
  messages: readonly M[],
  options: Omit<CompactOptions, 'format'>,
): Promise<{ messages: M[]; report: CompactReport }>;

/**
 * Whose Files API `model` takes image references from: `anthropic` for
 * `ChatAnthropic`, `gemini` for `ChatGoogleGenerativeAI`, `openai` for
 * `ChatOpenAI` on the Responses API; `undefined` for the others (Chat
 * Completions takes a file id only for PDFs). With `offload` and no
 * `offload.provider`, {@link ctxpackMiddleware} offloads to this provider.
 */
export declare function fileProviderOf(model: unknown): OffloadProvider | undefined;

/**
 * True when `model` sends a tool message's images as images: `ChatAnthropic`.
 * `ChatOpenAI` (Chat Completions refuses an image in a tool message),
 * `ChatGoogleGenerativeAI` (it writes them as JSON text into the function
 * response) and every other model get them in a human message from
 * {@link ctxpackMiddleware}.
 */
export declare function toolMessagesTakeImages(model: unknown): boolean;

/**
 * `messages` with the images and other media blocks of every tool message
 * moved into one human message after each run of tool messages; the tool
 * messages keep their text. Messages holding none come back as they were.
 */
export declare function moveToolMessageMedia<M extends BaseMessage>(messages: readonly M[]): BaseMessage[];

/**
 * Agent middleware that compacts the messages of each model call, then, for
 * a model that takes no image in a tool message ({@link toolMessagesTakeImages}),
 * moves tool messages' images into a human message after them. A call that
 * sends images by reference to Anthropic's Files API gets that API's beta
 * (`files-api-2025-04-14`) among its `betas`, which `ChatAnthropic` sends as
 * the `anthropic-beta` header.
 */
export declare function ctxpackMiddleware(options: CtxpackLangChainOptions): AgentMiddleware;

/**
 * The `get_history_image` tool, answering with the image as an `image_url`
 * block holding a data URL (the block `ChatOpenAI`, `ChatAnthropic` and
 * `ChatGoogleGenerativeAI` each send as their API's image). Use it with
 * {@link ctxpackMiddleware}.
 */
export declare function historyImageTool(options: { stash: Stash }): DynamicStructuredTool;
