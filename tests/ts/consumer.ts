// A TypeScript consumer of every exported function: type-checked in the tests
// (tsc --noEmit) so the generated .d.ts cannot drift from what apps write.
import { fileStash } from 'ctxpack/node';
import {
  md5Hex,
  estimate,
  hasMultimedia,
  parseContextLengthError,
  routeArtifact,
  sanitizeToolResult,
  toTextOnly,
  type EstimateReport,
  type RouteResult,
  CtxpackError,
  Stash,
  compactContext,
  compactRequestBody,
  expandContext,
  getHistoryImage,
  historyImageTool,
  historyImageTexts,
  type CompactReport,
  type ExpandReport,
  type StashAdapter,
  type StashEntry,
  detectFormat,
  parseMarkdownImages,
  toMultimodal,
  type ContentPart,
  type CtxpackErrorCode,
  type Format,
  type MarkdownImage,
  type MultimodalContent,
  answerHistoryImageCall,
  modelProfile,
  registerModelProfile,
  parseProviderError,
  type ImageDetail,
  type ImageMime,
  type ModelProfile,
  type ProfileOverrides,
  type TokenRule,
  type ProviderRefusal,
  type RefusalKind,
  fitContext,
  repairContext,
  codecResize,
  type FitReport,
  type ImageFit,
  type FitReason,
  type ResizeFunction,
} from 'ctxpack';
import ctxpack from 'ctxpack';

/** `import`'s default export: the CommonJS module `require` gives, the same functions. */
export async function openThroughDefault(): Promise<Stash> {
  const { report } = await ctxpack.compactContext([], { stash: await ctxpack.Stash.open({ backend: 'memory' }) });
  return report.stashed > 0 ? ctxpack.Stash.open({ backend: 'memory' }) : Stash.open({ backend: 'memory' });
}

export async function fitting(stash: Stash, messages: unknown[], error: unknown): Promise<number> {
  const fitted: { messages: unknown[]; report: FitReport } = await fitContext(messages, {
    model: 'claude-sonnet-4-5',
    stash,
    keepNewest: false,
    maxTokens: 100_000,
    profile: { maxImages: 50, maxRequestBytes: null },
  });
  const resize: ResizeFunction = codecResize;
  const first: ImageFit | undefined = fitted.report.images[0];
  // A click the model gives in the sent image, in the original's pixels.
  const click = first?.scale ? { x: 100 * first.scale.x, y: 40 * first.scale.y } : { x: 100, y: 40 };
  const why: FitReason[] = first?.reasons.filter((r) => r === 'exif-orientation' || r === 'unsupported-format') ?? [];
  const quality: number | undefined = first?.after?.quality ?? first?.before?.orientation;
  const repaired = await repairContext(fitted.messages, error, { model: 'gpt-4o', resize });
  return repaired.report.tokensAfter + (first?.after?.tokens ?? 0) + repaired.refusal.kind.length + click.x + why.length + (quality ?? 0);
}

export async function rulesAndRefusals(stash: Stash, error: unknown): Promise<number> {
  const profile: ModelProfile = modelProfile('claude-sonnet-4-5');
  const edge: number | null = profile.manyImagesLongEdge;
  const refusal: ProviderRefusal | null = parseProviderError(error);
  const kind: RefusalKind | undefined = refusal?.kind;
  const lostFile: string | undefined = refusal?.kind === 'file-missing' ? refusal.fileId : undefined;
  const answer: unknown[] = await answerHistoryImageCall(stash, { id: 'c', type: 'function', function: { name: 'get_history_image', arguments: '{}' } }, { format: 'openai' });
  const aiSdkAnswer: unknown[] = await answerHistoryImageCall(stash, { type: 'tool-call', toolCallId: 'c', toolName: 'get_history_image', input: { image_md5: 'x' } }, { format: 'ai-sdk', provider: 'openai.chat' });
  const parts: ContentPart[] = await getHistoryImage(stash, 'x', { format: 'langchain-python' });
  return (edge ?? 0) + (kind ? 1 : 0) + (lostFile?.length ?? 0) + answer.length + aiSdkAnswer.length + parts.length + (profile.tokens.kind === 'anthropic-pixels' ? profile.tokens.longEdge : 0);
}

export function profilesAsData(messages: unknown[]): number {
  // A model ctxpack does not know, registered once with a whole profile.
  const spec: ProfileOverrides = {
    provider: 'openai',
    tokens: { kind: 'openai-patches', multiplierMilli: 1200, maxPatches: 2048 },
    accepts: ['image/png', 'image/jpeg'],
    defaultDetail: 'high',
    maxImages: 16,
    maxRequestBytes: null,
    source: 'acme docs, read 2026-11-25',
  };
  const registered: ModelProfile = registerModelProfile('acme-vision', spec);
  const accepts: ImageMime[] = registered.accepts;
  const detail: ImageDetail | null = registered.defaultDetail;
  const rule: TokenRule = modelProfile('claude-opus-4-7').tokens;
  const perToken: number = rule.kind === 'anthropic-pixels' ? rule.pixelsPerToken : 0;
  const box: number = rule.kind === 'openai-tiles' ? rule.fitBox + rule.shortestSide + rule.tile + rule.lowBox : 0;
  // A whole profile for one call, and the fields of a known model's.
  const report = estimate(messages, { model: 'acme-vision-2', profile: { provider: 'anthropic', tokens: { kind: 'anthropic-pixels', longEdge: 1000, maxTokens: 900 } } });
  const tweaked = estimate(messages, { model: 'gemini-3-pro', profile: { defaultDetail: 'low', accepts: ['image/png'] } });
  const animated: boolean = registered.acceptsAnimated;
  return accepts.length + (detail ? 1 : 0) + perToken + box + report.totalTokens + tweaked.imageTokens + (animated ? 1 : 0);
}

export async function consume(text: string, readFile: (uri: string) => Promise<Uint8Array>): Promise<ContentPart[]> {
  const images: MarkdownImage[] = parseMarkdownImages(text);
  const firstEnd: number | undefined = images[0]?.end;
  const title: string | undefined = images[0]?.title;
  void firstEnd;
  void title;

  const result: MultimodalContent = await toMultimodal(text, {
    resolve: async (url) => (url.startsWith('file:') ? readFile(url) : null),
    detail: 'auto',
    format: 'openai',
    keepAlt: true,
  });
  const plain = await toMultimodal(text);
  for (const m of result.missing) {
    const code: 'INVALID_DATA_URL' | 'NOT_AN_IMAGE' | 'UNRESOLVED' = m.code;
    void code;
  }
  for (const c of result.corrected) void c.actual.toUpperCase();

  const format: Format = detectFormat([{ role: 'user', content: plain.content }]);
  const again: Format = detectFormat([['human', 'hi']], { format });
  void again;

  try {
    parseMarkdownImages(text);
  } catch (e) {
    if (e instanceof CtxpackError) {
      const code: CtxpackErrorCode = e.code;
      const where: string | undefined = e.path;
      const asError: Error = e;
      void code;
      void where;
      void asError;
    }
  }
  return result.content;
}

type OpenAiMessage = { role: 'system' | 'user' | 'assistant'; content: string | ContentPart[] };

export async function history(messages: OpenAiMessage[], adapter: StashAdapter): Promise<OpenAiMessage[]> {
  const stash: Stash = await Stash.open({ backend: 'indexeddb', name: 'chat', ttlSeconds: 3600, maxBytes: 50e6, now: () => Date.now() });
  const viaAdapter = await Stash.open({ backend: adapter });
  const inMemory = await Stash.open({ backend: 'memory' });
  const { messages: compacted, report }: { messages: OpenAiMessage[]; report: CompactReport } = await compactContext(messages, {
    stash,
    format: 'openai',
    keepRecentImages: 1,
    collapseText: false,
    onProgress: ({ done, total, bytes }) => void [done, total, bytes],
  });
  const failedPaths: string[] = report.failures.map((f) => f.path);
  void failedPaths;
  const back: { messages: OpenAiMessage[]; report: ExpandReport } = await expandContext(compacted, { stash: viaAdapter });
  const missingIds: string[] = back.report.missing.map((m) => m.id);
  void missingIds;
  const parts: ContentPart[] = await getHistoryImage(inMemory, 'history_0123456789abcdef0123456789abcdef', { format: 'anthropic', lang: 'zh' });
  void parts;
  const tool: object = historyImageTool('mcp');
  void tool;
  const texts: { placeholder: string | null; found: string; missing: string } = historyImageTexts('history_0123456789abcdef0123456789abcdef');
  void texts;
  const entries: StashEntry[] = await stash.list();
  const swept: { expired: number; evicted: number; bytes: number } = await stash.sweep();
  void entries;
  void swept;
  const kind: 'indexeddb' | 'memory' | 'adapter' = stash.backend;
  void kind;
  await stash.clear();
  stash.close();
  return compacted;
}

export const diskStash: Promise<Stash> = Stash.open({ backend: fileStash('/tmp/ctxpack-stash') });

export async function binary(stash: Stash, messages: OpenAiMessage[]): Promise<void> {
  const result = { metadata: { imageBase64: 'data:image/png;base64,AAAA', imagePath: '/x.png' } };
  const clean: typeof result = await sanitizeToolResult(result, { stash, thresholdBytes: 4096, fields: ['thumb'] });
  void clean;
  const routed: RouteResult = routeArtifact({ id: 'a1', filename: 'report.pdf', bytes: new Uint8Array([37, 80, 68, 70]) }, { vision: true, file: false }, { lang: 'zh', format: 'anthropic' });
  const viaFn: RouteResult = routeArtifact({ id: 'a2', text: 'hi' }, () => ({ vision: false }));
  void routed.part.type;
  void viaFn.routing;
  const text: OpenAiMessage[] = toTextOnly(messages);
  const textStashed: OpenAiMessage[] = await toTextOnly(messages, { stash });
  void text;
  void textStashed;
  const multi: boolean = hasMultimedia(messages);
  void multi;
  const report: EstimateReport = estimate(messages, { provider: 'anthropic', limits: { maxImages: 20 } });
  void report.exceeded;
  // With the stash it is compacted with, an estimate remembers in that stash.
  const remembered: EstimateReport = estimate(messages, { model: 'gpt-4o', stash });
  void remembered.totalTokens;
  const err = parseContextLengthError('maximum context length is 10 tokens, requested 20');
  if (err) void (err.requested - err.max);
  const compacted = await compactContext(messages, { stash, sanitizeToolResults: true, model: { provider: 'bedrock', maxImages: 10 } });
  const byId = await compactContext(messages, { stash, model: 'claude-sonnet-4-5', profile: { maxImages: 50 }, limits: { maxRequestBytes: 1 << 20 } });
  void byId;
  if (!compacted.report.fits) void compacted.report.limitProblem;
  const served: { body: string; report: CompactReport } = await compactRequestBody('{"messages":[]}', { stash, format: 'anthropic', keepRecentImages: 2 });
  void served.body.length;
  const chunks: readonly Uint8Array[] = [new TextEncoder().encode('{"messages":'), new TextEncoder().encode('[]}')];
  const pieces: { body: Uint8Array[]; report: CompactReport } = await compactRequestBody(chunks, { stash });
  void pieces.body.map((piece) => piece.byteLength);
  const offloaded = await compactContext(messages, {
    stash,
    keepRecentImages: 5,
    offload: { upload: async (image) => ({ id: `file-${image.md5}`, expiresAt: Date.now() + image.bytes }), provider: 'openai', account: 'key-1', minBytes: 0 },
  });
  const saved: number = offloaded.report.offloadedBytes + offloaded.report.uploaded + offloaded.report.offloaded;
  void saved;
  // @ts-expect-error: a provider whose Files API offload does not name.
  await compactContext(messages, { stash, offload: { upload: async () => ({}), provider: 'bedrock' } });
  const fittedByRef = await fitContext(messages, { model: 'claude-sonnet-4-5', stash, offload: { upload: async () => ({ id: 'file_1' }) } });
  const uploads: number | undefined = fittedByRef.report.offload?.uploaded;
  void uploads;
  const repaired = await repairContext(messages, new Error('No such File object: file-1'), { model: 'gpt-5', stash, offload: { upload: async () => ({ id: 'file-2' }) } });
  const reuploaded: number | undefined = repaired.reupload?.uploaded;
  void reuploaded;
}

export const placeholderId: string = `history_${md5Hex('iVBORw0KGgo=')}`;
