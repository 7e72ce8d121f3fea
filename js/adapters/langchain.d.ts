import type { BaseMessage } from '@langchain/core/messages';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import type { AgentMiddleware } from 'langchain';
import type { CompactOptions, CompactReport, Stash } from 'ctxpack';

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

/** Agent middleware that compacts the messages of each model call. */
export declare function ctxpackMiddleware(options: CtxpackLangChainOptions): AgentMiddleware;

/** The `get_history_image` tool, answering with a standard image block. */
export declare function historyImageTool(options: { stash: Stash }): DynamicStructuredTool;
