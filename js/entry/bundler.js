// The bundler entry: the main module's exports, with the markdown functions,
// toTextOnly, routeArtifact and the refusal readers joined to the extras
// module (see api.js; both .wasm files are imported, the bundler
// loads them). The full module (fitContext, repairContext,
// compactRequestBody) and the codec module are dynamic imports: bundlers split it into
// a chunk fetched the first time an image must change without a canvas.
import * as main from './ctxpack.js';
import * as extras from './extras/ctxpack_extras.js';
import { bindApi } from './api.js';
import { canvasAvailable, canvasResize } from './canvas-resize.js';

export * from './ctxpack.js';
export { canvasResize };

export const {
  parseMarkdownImages, toMultimodal, hasMultimedia, toTextOnly, routeArtifact, historyImageTool, historyImageTexts, parseProviderError, parseContextLengthError, detectFormat, formats,
  codecResize, fitContext, repairContext, compactContext, compactRequestBody, estimate, expandContext, registerModelProfile, __aiSdkToolResultsTakeFiles,
} = bindApi({
  main,
  extras: () => extras,
  // A chunk of its own, fetched when fitContext, repairContext or
  // compactRequestBody is first called.
  loadFull: () => import('./full/ctxpack_full.js'),
  // The bundler's module holds the one instance it instantiated.
  loadCodec: () => import('./codec/ctxpack_codec.js'),
  defaultResize: canvasAvailable ? canvasResize : undefined,
});
