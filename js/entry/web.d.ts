export * from './ctxpack.js';
import type { InitInput, InitOutput } from './ctxpack.js';

/** Where a module's `.wasm` comes from: what wasm-bindgen's init takes. */
export type ModuleInput = { module_or_path?: InitInput | Promise<InitInput> };

/**
 * Every module's file at once: the URL of the package's `dist/wasm/` folder,
 * or a function reading a file of it by its path in that folder
 * (`"ctxpack_bg.wasm"`, `"extras/ctxpack_extras_bg.wasm"`,
 * `"full/ctxpack_full_bg.wasm"`, `"codec/ctxpack_codec_bg.wasm"`) — what a
 * bundled web extension passes.
 */
export type WasmFiles = string | URL | ((file: string) => InitInput | Promise<InitInput>);

/** What `init` takes: every module's files (`wasm`), or wasm-bindgen's input for the main module plus the others' (`extras`, `full`, `codec`). */
export type CtxpackInitInput =
  | { wasm?: WasmFiles; module_or_path?: InitInput | Promise<InitInput>; extras?: ModuleInput; /** The older name of `extras`. */ markdown?: ModuleInput; /** fitContext, repairContext and compactRequestBody's module, loaded on first use. */ full?: ModuleInput; codec?: ModuleInput }
  | InitInput
  | Promise<InitInput>;

/**
 * Instantiates the main and extras modules (in parallel) and says where
 * the full and codec modules are (each loaded on first use); every function works once it
 * resolves. A module that cannot be loaded rejects with a `CtxpackError`
 * (`MODULE_LOAD_FAILED`) saying how to pass its file; a later call tries again.
 */
export default function init(options?: CtxpackInitInput): Promise<InitOutput>;

/** Instantiates the extras module alone (once). */
export declare function initExtrasModule(input?: ModuleInput): Promise<unknown>;

import type { ResizeFunction } from './ctxpack.js';

/** Resizes on an `OffscreenCanvas` (browsers and workers): the default there. */
export declare const canvasResize: ResizeFunction;

/** Instantiates the codec module (once); otherwise done on its first use. */
export declare function initCodecModule(input?: ModuleInput): Promise<unknown>;
