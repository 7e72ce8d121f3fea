// The Node entry (CommonJS): the main module's exports, with the markdown
// functions, routeArtifact and the refusal readers joined to the markdown
// module, which is loaded (synchronously) the first time one of them needs it.
'use strict';
const main = require('./ctxpack.js');

let markdown = null;
/** The markdown module, loaded on first use. */
function markdownModule() {
  markdown ??= require('./markdown/ctxpack_markdown.js');
  return markdown;
}

/** The markdown module's parser. */
function parse(text) {
  return markdownModule().parseMarkdownImages(text);
}

/** Which part an artifact becomes for a model's capabilities: the markdown module's answer, or its error thrown as a `CtxpackError`. */
function routeArtifact(artifact, capabilities, options) {
  const result = markdownModule().routeArtifact(artifact, capabilities, options);
  if (result?.error) throw main.__ctxpackError(result.error.code, result.error.message, result.error.path);
  return result?.ok;
}

let codec = null;
/** A fresh instance of the codec module (not the one `require` cached). */
function loadCodec() {
  const file = require.resolve('./codec/ctxpack_codec.js');
  delete require.cache[file];
  return require(file);
}
/**
 * Encodes `image` at `target` with the codec module, loaded on first use.
 * A trap (WebAssembly.RuntimeError) leaves the instance's memory as it was
 * mid-call, so the next call gets a fresh instance.
 */
function codecResize(image, target) {
  return new Promise((resolve) => {
    codec ??= loadCodec();
    try {
      resolve(codec.transcodeImage(image.data, target.width, target.height, target.mime, target.quality));
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError) codec = null;
      throw e;
    }
  });
}

module.exports = {
  ...main,
  parseMarkdownImages: (text) => main.__parseMarkdownImages(text, parse),
  toMultimodal: (text, options) => main.__toMultimodal(text, options, parse),
  hasMultimedia: (messages, options) => main.__hasMultimedia(messages, options, parse),
  routeArtifact,
  parseProviderError: (textOrError) => markdownModule().parseProviderError(textOrError),
  parseContextLengthError: (text) => markdownModule().parseContextLengthError(text),
  codecResize,
  fitContext: (messages, options) => main.__fitContext(messages, options, codecResize),
  // The markdown module reads the refusal.
  repairContext: async (messages, error, options) =>
    main.__repairContext(messages, error, markdownModule().parseProviderError(error), options, codecResize),
  /** True once the codec module has been loaded (for tests). */
  __codecLoaded: () => codec !== null,
  /** True once the markdown module has been loaded (for tests). */
  __markdownLoaded: () => markdown !== null,
};
