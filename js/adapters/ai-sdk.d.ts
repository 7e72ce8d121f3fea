import type { LanguageModelMiddleware, Tool, UIMessage } from 'ai';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { CompactOptions, CompactReport, OffloadProvider, Stash } from 'ctxpack';

/** The tool's name, as placeholders and the model know it. */
export declare const HISTORY_IMAGE_TOOL: 'get_history_image';

/** Options of {@link ctxpackMiddleware}: `compactContext`'s, plus a report callback. */
export type CtxpackMiddlewareOptions = Omit<CompactOptions, 'format'> & {
  /** Receives the report of each compaction. */
  onReport?: (report: CompactReport) => void;
};

/**
 * A language-model middleware (`wrapLanguageModel({ model, middleware })`)
 * whose `transformParams` compacts the prompt before each call. Unless the
 * model's provider sends a tool result's files as images
 * ({@link toolResultsTakeFiles}), the files of tool results then move into a
 * user message after the tool messages, so the model sees an image and never
 * reads base64 as text. With `offload`, the images kept for the model go as
 * references to files uploaded once, to the model's provider unless
 * `offload.provider` names one ({@link fileProviderOf}).
 */
export declare function ctxpackMiddleware(options: CtxpackMiddlewareOptions): LanguageModelMiddleware;

/**
 * Whose Files API a model of the AI SDK `provider` id (e.g.
 * `openai.responses`) takes image references from: `openai` for Responses
 * models, `anthropic`, `gemini` for `google.generative-ai`; `undefined`
 * for the others (Chat Completions takes a file id only for PDFs). With
 * `offload` and no `offload.provider`, {@link ctxpackMiddleware} offloads
 * to this provider.
 */
export declare function fileProviderOf(provider: string | undefined): OffloadProvider | undefined;

/**
 * True when the provider `provider` (a language model's `provider`, e.g.
 * `openai.responses`) sends the `file` parts of a tool result's `content`
 * output as images: `*.responses`, `anthropic.messages`,
 * `google.generative-ai`. `openai.chat` and every other provider get them in
 * a user message from {@link ctxpackMiddleware}.
 */
export declare function toolResultsTakeFiles(provider: string | undefined): boolean;

/**
 * `prompt` with the `file` parts of every tool result moved into one user
 * message after each run of tool messages; the tool results keep their text.
 * A prompt with no such file comes back as it was.
 */
export declare function moveToolResultFiles(prompt: LanguageModelV4Prompt): LanguageModelV4Prompt;

/**
 * A language-model middleware that only places tool-result files (see
 * {@link moveToolResultFiles}) for the model's provider: for a route that
 * receives already compacted messages and has no stash.
 */
export declare function toolResultFilesMiddleware(): LanguageModelMiddleware;

/** The tool's input. */
export interface HistoryImageInput {
  /** `history_<md5>` or the bare md5 from a placeholder. */
  image_md5: string;
}

/**
 * The tool's output: the image, or why there is none. An older answer whose
 * image `compactUIMessages` dropped has no `data`; the model then reads the
 * image's placeholder.
 */
export type HistoryImageOutput =
  | { found: true; id: string; mediaType: string; data?: string }
  | { found: false; id: string; message: string };

/** What the tool answers for `input`, from `stash`. */
export declare function historyImageOutput(stash: Stash, input: HistoryImageInput): Promise<HistoryImageOutput>;

/**
 * The `get_history_image` tool. With `stash` it answers itself; without, it
 * is declared only, for a client that answers with `historyImageOutput`. The
 * tool result holds the image as a `file`; use it with
 * {@link ctxpackMiddleware}, which moves the image into a user message for a
 * provider that would send it as text (`openai.chat`).
 */
export declare function historyImageTool(options?: { stash?: Stash }): Tool<HistoryImageInput, HistoryImageOutput>;

/** Compacts `useChat`'s UIMessages before they are sent. */
export declare function compactUIMessages<M extends UIMessage>(
  messages: readonly M[],
  options: Omit<CompactOptions, 'format'>,
): Promise<M[]>;
