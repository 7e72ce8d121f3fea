// A CommonJS app (a VSCode desktop extension): ctxpack and ctxpack/node by
// `require` (their CommonJS declarations), the adapters by `import()`, given
// the stash it opened.
import { Stash, compactContext, type CompactReport } from 'ctxpack';
import { fileStash } from 'ctxpack/node';
import type { LanguageModel } from 'ai';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';

export async function extension(dir: string, base: Exclude<LanguageModel, string>, chat: BaseChatModel): Promise<number> {
  const stash: Stash = await Stash.open({ backend: fileStash(dir) });
  const { wrapLanguageModel } = await import('ai');
  const aiSdk = await import('ctxpack/ai-sdk');
  const lc = await import('ctxpack/langchain');
  const reports: CompactReport[] = [];
  const model = wrapLanguageModel({ model: base as Parameters<typeof wrapLanguageModel>[0]['model'], middleware: aiSdk.ctxpackMiddleware({ stash, onReport: (r) => reports.push(r) }) });
  const tool = aiSdk.historyImageTool({ stash });
  const middleware = lc.ctxpackMiddleware({ stash });
  const { report } = await compactContext([], { stash });
  return reports.length + report.stashed + (model ? 1 : 0) + (tool ? 1 : 0) + (middleware ? 1 : 0) + (chat ? 1 : 0);
}
