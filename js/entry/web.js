// The browser and worker entry: the main module's exports, with the extras
// module's functions joined to them (the markdown functions, toTextOnly,
// routeArtifact, the tool definition and the refusal readers; see api.js). `init()` instantiates both modules in
// parallel, so every synchronous function works once it resolves.
import initMain, * as main from './ctxpack.js';
import initExtras, * as extras from './extras/ctxpack_extras.js';
import { bindApi } from './api.js';
import { canvasAvailable, canvasResize } from './canvas-resize.js';

export * from './ctxpack.js';
export { canvasResize };

let extrasInit = null;

/** Each module's file, in the package's `dist/wasm/` folder. */
const WASM_FILES = { main: 'ctxpack_bg.wasm', extras: 'extras/ctxpack_extras_bg.wasm', full: 'full/ctxpack_full_bg.wasm', codec: 'codec/ctxpack_codec_bg.wasm' };

/**
 * What wasm-bindgen's init takes for module `which`, from `wasm` (init's
 * option): a folder holding the package's `dist/wasm/` files (a URL, or a
 * string a URL is made of), or a function reading one of them by its path
 * in that folder (`'extras/ctxpack_extras_bg.wasm'`) that returns bytes,
 * a `Response` or a promise of either. `undefined` without one.
 */
function moduleInput(wasm, which) {
  if (wasm === undefined) return undefined;
  const file = WASM_FILES[which];
  if (typeof wasm === 'function') return { module_or_path: Promise.resolve().then(() => wasm(file)) };
  const folder = String(wasm).endsWith('/') ? String(wasm) : `${wasm}/`;
  // A relative folder is the page's or the worker's.
  return { module_or_path: new URL(file, new URL(folder, globalThis.location?.href)) };
}

/**
 * The CtxpackError for module `which` that failed to load with `cause`:
 * what was missing, and how to pass its file.
 */
function loadError(which, cause) {
  const why = cause instanceof Error ? cause.message : String(cause);
  const error = new Error(
    `could not load ctxpack's ${which} module (${why}); where its .wasm cannot be found next to the script ` +
      "(a bundled web extension, a worker without import.meta.url), pass init({ wasm }): the URL of the package's " +
      "dist/wasm/ folder, or a function reading a file of it by its path (e.g. with vscode.workspace.fs.readFile)",
    { cause },
  );
  // The class of every error ctxpack throws (its prototype runs to Error's,
  // as the main module sets it when it makes one).
  Object.setPrototypeOf(main.CtxpackError.prototype, Error.prototype);
  Object.setPrototypeOf(error, main.CtxpackError.prototype);
  Object.defineProperty(error, 'name', { value: 'CtxpackError' });
  Object.defineProperty(error, 'code', { value: 'MODULE_LOAD_FAILED', enumerable: true });
  return error;
}

/**
 * Instantiates the extras module (once): `input` is what wasm-bindgen's
 * init takes (`{module_or_path}`); by default the `.wasm` next to its script.
 * A load that failed is tried again on the next call.
 */
export function initExtrasModule(input) {
  if (extrasInit === null) {
    const loading = initExtras(input).catch((e) => {
      throw loadError('extras', e);
    });
    extrasInit = loading;
    loading.catch(() => {
      if (extrasInit === loading) extrasInit = null;
    });
  }
  return extrasInit;
}

/**
 * Instantiates the main and extras modules in parallel, and says where
 * the full and codec modules are (each loaded on its first use). `options`:
 * - `wasm`: where every module's file is (see `moduleInput`): a bundled web
 *   extension or a worker passes its own files this way;
 * - or, module by module, what wasm-bindgen's init takes for the main
 *   module (`{module_or_path}`, a URL, a `Response`…), plus `extras`,
 *   `full` and `codec` for the others'.
 * A load that fails throws a `CtxpackError` (`MODULE_LOAD_FAILED`) saying
 * what was missing; the next call tries again.
 */
export default async function init(options) {
  const given = options && typeof options === 'object' && Object.getPrototypeOf(options) === Object.prototype ? options : undefined;
  const wasm = given?.wasm;
  let mainInput = options;
  let extrasInput;
  try {
    // `markdown`: the extras module's older name.
    extrasInput = given && 'extras' in given ? given.extras : given && 'markdown' in given ? given.markdown : moduleInput(wasm, 'extras');
    if (given && 'codec' in given) codecInput = given.codec;
    // The codec's file is read on its first use, and so is the full module's.
    else if (wasm !== undefined) codecInput = () => moduleInput(wasm, 'codec');
    if (given && 'full' in given) fullInput = given.full;
    else if (wasm !== undefined) fullInput = () => moduleInput(wasm, 'full');
    if (given) {
      const { extras: _e, markdown: _m, codec: _c, full: _f, wasm: _w, ...rest } = given;
      mainInput = 'module_or_path' in rest ? rest : moduleInput(wasm, 'main');
    }
  } catch (e) {
    // A folder no URL can be made of.
    throw loadError('main', e);
  }
  const loadingMain = initMain(mainInput).catch((e) => {
    throw loadError('main', e);
  });
  const [exports] = await Promise.all([loadingMain, initExtrasModule(extrasInput)]);
  return exports;
}

let codecInput;
let codecInstances = 0;
let fullInput;

const { codecModule, fullCall: _fullCall, ...api } = bindApi({
  main,
  extras: () => extras,
  extrasReady: () => initExtrasModule(),
  // Imported by a literal path, which a bundler follows; instantiated from
  // `init`'s `full` or `wasm` option, else the .wasm next to its script.
  loadFull: async () => {
    const m = await import('./full/ctxpack_full.js');
    await m.default(typeof fullInput === 'function' ? fullInput() : fullInput).catch((e) => {
      throw loadError('full', e);
    });
    return m;
  },
  // Each instance is a fresh copy of the glue, which holds its instance. The
  // first is imported by a literal path, which a bundler follows (a web
  // extension bundled into one file holds the glue); a later one, after a
  // trap, by a URL of its own, which only an unbundled script can import.
  loadCodec: async () => {
    const fresh = `./codec/ctxpack_codec.js?instance=${codecInstances + 1}`;
    const m = codecInstances++ === 0 ? await import('./codec/ctxpack_codec.js') : await import(/* webpackIgnore: true */ /* @vite-ignore */ fresh);
    await m.default(typeof codecInput === 'function' ? codecInput() : codecInput).catch((e) => {
      throw loadError('codec', e);
    });
    return m;
  },
  // Browsers and workers resize on a canvas; without one, the codec module.
  defaultResize: canvasAvailable ? canvasResize : undefined,
});

/**
 * Resizes with the codec module (decoders, resizer and encoders compiled
 * from Rust), which is fetched and instantiated on first use: `input` is
 * what wasm-bindgen's init takes, by default the `.wasm` next to its script.
 */
export function initCodecModule(input) {
  if (input !== undefined) codecInput = input;
  return codecModule();
}

export const {
  parseMarkdownImages, toMultimodal, hasMultimedia, toTextOnly, routeArtifact, historyImageTool, historyImageTexts, parseProviderError, parseContextLengthError, detectFormat, formats,
  codecResize, fitContext, repairContext, compactContext, compactRequestBody, estimate, expandContext, registerModelProfile, __aiSdkToolResultsTakeFiles,
} = api;
