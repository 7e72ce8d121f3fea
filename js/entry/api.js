// The functions every flavour's entry adds to the main module's exports,
// bound once over the wasm modules: the markdown functions, routeArtifact,
// historyImageTool, historyImageTexts and
// the refusal readers joined to the markdown module, the codec module loaded
// on first use, and fitContext and repairContext given their default resize.
// Each entry (js/entry/<flavour>.js) loads the modules its own way and hands
// them to `bindApi`. This file is an ES module; the build writes the Node
// flavour's copy as CommonJS (its one `export` line becomes `module.exports`).

/**
 * The public functions over the flavour's modules:
 * - `main`: the main module's exports, instantiated;
 * - `markdown()`: the markdown module's exports (the flavour may load it on
 *   this first call);
 * - `markdownReady()` (optional): resolves once the markdown module can be
 *   called; the asynchronous functions await it first;
 * - `loadCodec()`: a fresh instance of the codec module, or a promise of
 *   one; called on first use, again after a trap or a failed load;
 * - `defaultResize` (optional): what fitContext and repairContext resize
 *   with when the caller gives no `resize`; by default `codecResize`.
 *
 * Also returns `codecModule()` (the promise of the codec module, loading it
 * if need be) and `codecLoaded()` (true once it was asked for), which the
 * entries use without exporting them as such.
 */
function bindApi({ main, markdown, markdownReady, loadCodec, defaultResize }) {
  const ready = markdownReady ?? (() => undefined);

  /** The markdown module's parser, as the main module calls it. */
  const parse = (text) => markdown().parseMarkdownImages(text);

  /** The markdown module's result, or its error thrown as a `CtxpackError`. */
  function unwrap(result) {
    if (result?.error) throw main.__ctxpackError(result.error.code, result.error.message, result.error.path);
    return result?.ok;
  }

  let codec = null;
  /** The codec module (a promise of it), loaded on first use; a load that failed is tried again on the next use. */
  function codecModule() {
    if (codec === null) {
      const loading = (async () => loadCodec())();
      codec = loading;
      loading.catch(() => {
        if (codec === loading) codec = null;
      });
    }
    return codec;
  }

  /**
   * Encodes `image` at `target` with the codec module (loaded on first use).
   * A trap (WebAssembly.RuntimeError) leaves the instance's memory as it was
   * mid-call, so the next call gets a fresh instance.
   */
  async function codecResize(image, target) {
    const loading = codecModule();
    const m = await loading;
    try {
      return m.transcodeImage(image.data, target.width, target.height, target.mime, target.quality);
    } catch (e) {
      if (e instanceof WebAssembly.RuntimeError && codec === loading) codec = null;
      throw e;
    }
  }

  const resize = defaultResize ?? codecResize;

  return {
    /** Finds the images in markdown `text`. */
    parseMarkdownImages: (text) => main.__parseMarkdownImages(text, parse),
    /** Turns user text with markdown images into ordered content parts. */
    toMultimodal: async (text, options) => {
      await ready();
      return main.__toMultimodal(text, options, parse);
    },
    /** True when any message holds an image or file part, a placeholder, or a markdown image. */
    hasMultimedia: (messages, options) => main.__hasMultimedia(messages, options, parse),
    /** Which part an artifact becomes for a model's capabilities (see the declaration). */
    routeArtifact: (artifact, capabilities, options) => unwrap(markdown().routeArtifact(artifact, capabilities, options)),
    /** The get_history_image tool definition in a dialect (see the declaration). */
    historyImageTool: (dialect) => unwrap(markdown().historyImageTool(dialect)),
    /** What an answer of the tool says besides the image (see the declaration). */
    historyImageTexts: (id) => markdown().historyImageTexts(String(id ?? '')),
    parseProviderError: (textOrError) => markdown().parseProviderError(textOrError),
    parseContextLengthError: (text) => markdown().parseContextLengthError(text),
    codecResize,
    /** Fits a request to its model (see the declaration). */
    fitContext: (messages, options) => main.__fitContext(messages, options, resize),
    /** Fits a refused request to what the refusal names (see the declaration): the markdown module reads the refusal. */
    repairContext: async (messages, error, options) => {
      await ready();
      return main.__repairContext(messages, error, markdown().parseProviderError(error), options, resize);
    },
    codecModule,
    codecLoaded: () => codec !== null,
  };
}

export { bindApi };
