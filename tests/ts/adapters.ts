// An app using the adapters, type-checked against their declarations and the
// libraries' own types.
import { generateText, wrapLanguageModel, type LanguageModel, type UIMessage } from 'ai';
import { createAgent } from 'langchain';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { Stash, answerHistoryImageCall, type CompactReport } from 'ctxpack';
import { compactUIMessages, ctxpackMiddleware, historyImageOutput, historyImageTool, moveToolResultFiles, toolResultFilesMiddleware, toolResultsTakeFiles, type HistoryImageOutput } from 'ctxpack/ai-sdk';
import * as lc from 'ctxpack/langchain';

export async function aiSdkApp(base: Exclude<LanguageModel, string>, ui: UIMessage[]): Promise<string> {
  const stash = await Stash.open({ backend: 'memory' });
  const reports: CompactReport[] = [];
  const model = wrapLanguageModel({ model: base as Parameters<typeof wrapLanguageModel>[0]['model'], middleware: ctxpackMiddleware({ stash, keepRecentImages: 1, onReport: (r) => reports.push(r) }) });
  const { text } = await generateText({ model, prompt: 'hi', tools: { get_history_image: historyImageTool({ stash }) } });
  const compacted: UIMessage[] = await compactUIMessages(ui, { stash });
  const route = wrapLanguageModel({ model: base as Parameters<typeof wrapLanguageModel>[0]['model'], middleware: toolResultFilesMiddleware() });
  await generateText({ model: route, prompt: 'hi', tools: { get_history_image: historyImageTool() } });
  const out: HistoryImageOutput = await historyImageOutput(stash, { image_md5: 'history_x' });
  // The answer for this model's provider: the image in the tool result where it takes it.
  const provider: string = base.provider;
  const answer: unknown[] = await answerHistoryImageCall(stash, { type: 'tool-call', toolCallId: 'c', toolName: 'get_history_image', input: { image_md5: 'x' } }, { format: 'ai-sdk', provider });
  const moved = toolResultsTakeFiles(provider) ? [] : moveToolResultFiles([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  return out.found ? out.mediaType + compacted.length + answer.length + moved.length : out.message + text;
}

export async function langchainApp(model: BaseChatModel) {
  const stash = await Stash.open({ backend: 'memory' });
  const agent = createAgent({ model, tools: [lc.historyImageTool({ stash })], middleware: [lc.ctxpackMiddleware({ stash })] });
  const sent = lc.toolMessagesTakeImages(model) ? [] : lc.moveToolMessageMedia([]);
  return sent.length ? null : agent;
}

// A server's stash in Redis, through node-redis or ioredis, with the
// options a compaction takes for the prompt cache.
import { createClient, createCluster } from 'redis';
import { Redis as IORedis, Cluster as IOCluster } from 'ioredis';
import { redisStash } from 'ctxpack/redis';
import { compactContext } from 'ctxpack';

export async function redisApp(url: string, tenant: string) {
  const client = createClient({ url });
  await client.connect();
  const stash = await Stash.open({ backend: redisStash(client, { prefix: `dootask_ai:cache:${tenant}:` }), ttlSeconds: 7200 });
  const io = await Stash.open({ backend: redisStash(new IORedis(url)) });
  const { report } = await compactContext([{ role: 'user', content: 'hi' }], { stash, slack: { images: 8, headroom: 0.2 }, cacheBreakpoint: true });
  const first: number | null = report.firstChangedIndex;
  const mark: number | null = report.cacheBreakpointIndex;
  return [first, mark, io];
}

// The same stash on a Redis Cluster, through either cluster client.
export async function redisClusterApp(nodes: { host: string; port: number }[]) {
  const cluster = await createCluster({ rootNodes: nodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })) }).connect();
  const viaNodeRedis = await Stash.open({ backend: redisStash(cluster, { prefix: '{tenant-7}:' }), ttlSeconds: 7200 });
  const viaIoredis = await Stash.open({ backend: redisStash(new IOCluster(nodes), { prefix: 'dootask_ai:cache:' }) });
  return [viaNodeRedis, viaIoredis];
}

// The proxy as a library: mounted on node:http, its log entries typed.
import { createServer } from 'node:http';
import { createProxy, formatLogLine, type ProxyLogEntry } from 'ctxpack/proxy';

export async function proxyServer(upstream: string) {
  const stash = await Stash.open({ backend: 'memory' });
  const entries: ProxyLogEntry[] = [];
  const handler = createProxy({ stash, keepRecentImages: 3, offload: true, upstreams: { anthropic: upstream }, log: (e) => { entries.push(e); formatLogLine(e); } });
  const server = createServer(handler);
  server.on('close', () => handler.close());
  return { server, entries };
}
