// A TypeScript consumer of every exported function: type-checked in the tests
// (tsc --noEmit) so the generated .d.ts cannot drift from what apps write.
import {
  CtxpackError,
  detectFormat,
  parseMarkdownImages,
  toMultimodal,
  type ContentPart,
  type CtxpackErrorCode,
  type Format,
  type MarkdownImage,
  type MultimodalContent,
} from 'ctxpack';

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
