// Each line below must fail to type-check: the tests assert that tsc reports
// an error on exactly these lines, proving the .d.ts is specific, not `any`.
import { Stash, answerHistoryImageCall, fitContext, compactContext, compactRequestBody, detectFormat, estimate, historyImageTool, historyImageTexts, modelProfile, registerModelProfile, parseMarkdownImages, routeArtifact, toMultimodal } from 'ctxpack';

declare const stash: Stash;

parseMarkdownImages(42); // @expect-error
toMultimodal('x', { format: 'xml' }); // @expect-error
toMultimodal('x', { detail: 'max' }); // @expect-error
const n: number = detectFormat([]); // @expect-error
void n;
parseMarkdownImages('x')[0].width; // @expect-error
historyImageTool('gemini'); // @expect-error
historyImageTexts(42); // @expect-error
compactContext([], { format: 'openai' }); // @expect-error
compactContext([], { stash: null as unknown as Stash, model: 42 }); // @expect-error
compactRequestBody({ messages: [] }, { stash }); // @expect-error
compactRequestBody('{}', { format: 'openai' }); // @expect-error
compactRequestBody(['{}'], { stash }); // @expect-error
Stash.open({ backend: 'redis' }); // @expect-error
estimate([], { provider: 'acme' }); // @expect-error
estimate([], { model: 'gpt-4o', stash: 'a stash' }); // @expect-error
routeArtifact({ filename: 'x.pdf' }, {}); // @expect-error
modelProfile(42); // @expect-error
answerHistoryImageCall(stash, {}, {}); // @expect-error
answerHistoryImageCall(stash, {}, { format: 'ai-sdk', provider: 7 }); // @expect-error
fitContext([], { stash: undefined }); // @expect-error
registerModelProfile('acme', { provider: 'mistral' }); // @expect-error
registerModelProfile('acme', { maxImagez: 3 }); // @expect-error
registerModelProfile('acme', { accepts: ['image/svg+xml'] }); // @expect-error
fitContext([], { model: 'x', profile: { tokens: { kind: 'anthropic-pixels', longEdge: 1568 } } }); // @expect-error
