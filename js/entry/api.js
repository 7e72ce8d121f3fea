// The functions every flavour's entry adds to the main module's exports,
// bound once over the wasm modules: the markdown functions, toTextOnly,
// routeArtifact, historyImageTool, historyImageTexts and
// the refusal readers joined to the extras module; fitContext,
// repairContext and compactRequestBody joined to the full module, loaded on
// first use, the first two given their default resize; the codec module
// loaded on first use. Each entry (js/entry/<flavour>.js) loads the modules
// its own way and hands them to `bindApi`. This file binds; what it binds
// lives by concept in api/ (message memory, uploads, request bodies, the
// full module and its stashes, the codec, errors). These
// are ES modules; the build writes the Node flavour's copies as CommonJS
// (each `import { … } from './x.js';` line becomes a `require`, the one
// `export { … };` line `module.exports`).
import { codecLoader } from './api/codec.js';
import { ownErrors } from './api/errors.js';
import { fullModule } from './api/full.js';
import { rememberingChanges, rememberingEstimate, stashMemories } from './api/memory.js';
import { pictureDrawing } from './api/pictures.js';
import { requestBodyCompaction } from './api/request-body.js';
import { sharedUploads } from './api/uploads.js';

/**
 * The public functions over the flavour's modules:
 * - `main`: the main module's exports, instantiated;
 * - `extras()`: the extras module's exports (the flavour may load it on
 *   this first call);
 * - `extrasReady()` (optional): resolves once the extras module can be
 *   called; the asynchronous functions await it first;
 * - `loadFull()`: the full module's exports, instantiated, or a promise of
 *   them; called when fitContext, repairContext or compactRequestBody is
 *   first called (again after a failed load);
 * - `loadCodec()`: a fresh instance of the codec module, or a promise of
 *   one; called on first use, again after a trap or a failed load;
 * - `defaultResize` (optional): what fitContext and repairContext resize
 *   with when the caller gives no `resize`; by default `codecResize`.
 *
 * Also returns `codecModule()` (the promise of the codec module, loading it
 * if need be), `codecLoaded()` and `fullLoaded()` (true once the codec or
 * the full module was asked for) and `fullCall(options, f)` (`f(full,
 * options)` with the full module and its stash, see fullModule), which the
 * entries use without exporting them as such.
 */
function bindApi({ main, extras, extrasReady, loadFull, loadCodec, defaultResize }) {
  const ready = extrasReady ?? (() => undefined);

  const { ownError, own, unwrap } = ownErrors(main);
  const { codecModule, codecResize, loaded } = codecLoader(loadCodec);

  const resize = defaultResize ?? codecResize;
  const memories = stashMemories();
  // The full module's calls remember with its own stashes.
  const fullMemories = stashMemories();
  // Before each call that may put a placeholder where only a picture may stand.
  const drawing = pictureDrawing(main, extras);
  const full = fullModule(main, loadFull, ownError);
  const fullDrawing = pictureDrawing(null, extras);
  /** `call(full, options)` once the full module is loaded, with its stash for the main module's. */
  const inFull = (call) => (messages, options, ...rest) => full.call(options, (module, twinned) => {
    fullDrawing(module);
    return call(module, messages, twinned, ...rest);
  });
  const requestBody = requestBodyCompaction(main, (options, compact) => full.call(options, (module, twinned) => {
    fullDrawing(module);
    return compact(module, twinned);
  }));

  /** `call`, a call of the main module that may write to the stash of its options, followed by `full.wrote`. */
  const writing = (call) => (messages, options, ...rest) => {
    const done = call(messages, options, ...rest);
    const forget = () => full.wrote(options);
    done.then(forget, forget);
    return done;
  };
  const compactContext = writing(rememberingChanges((messages, options, keys) => {
    drawing();
    return main.__compactContext(messages, sharedUploads(options), keys);
  }, memories));
  const fitContext = inFull((module, messages, options) => rememberingChanges(
    (m, o, keys) => module.__fitContext(m, sharedUploads(o), resize, keys), fullMemories)(messages, options));
  const expandContext = writing(rememberingChanges((messages, options, keys) => {
    drawing();
    return main.__expandContext(messages, options, keys);
  }, memories));

  return {
    /** Replaces history images with placeholders (see the declaration); messages it cannot change are remembered between calls. */
    compactContext,
    /** Puts originals back for placeholders (see the declaration); messages are remembered between calls as compactContext's are. */
    expandContext,
    /** Accounts for a request (see the declaration); messages are remembered between calls as compactContext's are. */
    estimate: rememberingEstimate(main, memories),
    /** compactContext for a request body as JSON text (see the declaration): the full module's. */
    compactRequestBody: requestBody,
    /** Finds the images in markdown `text`. */
    parseMarkdownImages: (text) => own(() => extras().parseMarkdownImages(text)),
    /** Turns user text with markdown images into ordered content parts (the extras module's). */
    toMultimodal: async (text, options) => {
      await ready();
      return extras().__toMultimodal(text, options).catch((e) => {
        throw ownError(e);
      });
    },
    /** True when any message holds an image or file part, a placeholder, or a markdown image. */
    hasMultimedia: (messages, options) => own(() => extras().__hasMultimedia(messages, options)),
    /** For a text-only model (see the declaration): with a stash, the main module writes the inline images first. */
    toTextOnly: (messages, options) => {
      if (options?.stash === undefined || options?.stash === null) return own(() => extras().__toTextOnly(messages, options));
      return main.__stashInlineImages(messages, options).then(async (stored) => {
        full.wrote(options);
        await ready();
        return own(() => extras().__toTextOnly(messages, options, stored));
      });
    },
    /** Which part an artifact becomes for a model's capabilities (see the declaration). */
    routeArtifact: (artifact, capabilities, options) => unwrap(extras().routeArtifact(artifact, capabilities, options)),
    /** The get_history_image tool definition in a dialect (see the declaration). */
    historyImageTool: (dialect) => unwrap(extras().historyImageTool(dialect)),
    /** What an answer of the tool says besides the image (see the declaration). */
    historyImageTexts: (id) => extras().historyImageTexts(String(id ?? '')),
    /** The format of a conversation (see the declaration): the extras module reads it. */
    detectFormat: (messages, options) => own(() => extras().detectFormat(messages, options)),
    /** The name of every format (see the declaration). */
    formats: () => extras().formats(),
    parseProviderError: (textOrError) => extras().parseProviderError(textOrError),
    parseContextLengthError: (text) => extras().parseContextLengthError(text),
    /** The core's rule of which AI SDK providers take files in tool results, for the AI SDK adapter. */
    __aiSdkToolResultsTakeFiles: (provider) => extras().aiSdkToolResultsTakeFiles(provider),
    codecResize,
    /** Fits a request to its model (see the declaration): the full module's; messages are remembered between calls as compactContext's are. */
    fitContext,
    /** Fits a refused request to what the refusal names (see the declaration): the extras module reads the refusal; messages are remembered as fitContext's are. */
    repairContext: async (messages, error, options) => {
      await ready();
      const refusal = extras().parseProviderError(error);
      return inFull((module, m, o) => rememberingChanges(
        (mm, oo, keys) => module.__repairContext(mm, error, refusal, sharedUploads(oo), resize, keys), fullMemories)(m, o))(messages, options);
    },
    codecModule,
    codecLoaded: loaded,
    /** Registers a model's profile (see the declaration), with the full module too. */
    registerModelProfile: full.registerModelProfile,
    fullLoaded: full.loaded,
    fullCall: full.call,
  };
}

export { bindApi };
