import type { LanguageModelMiddleware, Tool, UIMessage } from 'ai';
import type { CompactOptions, CompactReport, Stash } from 'ctxpack';

/** The tool's name, as placeholders and the model know it. */
export declare const HISTORY_IMAGE_TOOL: 'get_history_image';

/** Options of {@link ctxpackMiddleware}: `compactContext`'s, plus a report callback. */
export type CtxpackMiddlewareOptions = Omit<CompactOptions, 'format'> & {
  /** Receives the report of each compaction. */
  onReport?: (report: CompactReport) => void;
};

/**
 * A language-model middleware (`wrapLanguageModel({ model, middleware })`)
 * whose `transformParams` compacts the prompt before each call.
 */
export declare function ctxpackMiddleware(options: CtxpackMiddlewareOptions): LanguageModelMiddleware;

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
 * is declared only, for a client that answers with `historyImageOutput`.
 */
export declare function historyImageTool(options?: { stash?: Stash }): Tool<HistoryImageInput, HistoryImageOutput>;

/** Compacts `useChat`'s UIMessages before they are sent. */
export declare function compactUIMessages<M extends UIMessage>(
  messages: readonly M[],
  options: Omit<CompactOptions, 'format'>,
): Promise<M[]>;
