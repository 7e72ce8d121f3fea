export * from './ctxpack.js';
import type { InitInput, InitOutput } from './ctxpack.js';

/** What `init` takes: wasm-bindgen's input for the main module, plus the markdown module's. */
export type CtxpackInitInput =
  | { module_or_path?: InitInput | Promise<InitInput>; markdown?: { module_or_path?: InitInput | Promise<InitInput> } }
  | InitInput
  | Promise<InitInput>;

/** Instantiates both modules (in parallel); every function works once it resolves. */
export default function init(options?: CtxpackInitInput): Promise<InitOutput>;

/** Instantiates the markdown module alone (once). */
export declare function initMarkdownModule(input?: { module_or_path?: InitInput | Promise<InitInput> }): Promise<unknown>;

import type { ResizeFunction } from './ctxpack.js';

/** Resizes on an `OffscreenCanvas` (browsers and workers): the default there. */
export declare const canvasResize: ResizeFunction;

/** Instantiates the codec module (once); otherwise done on its first use. */
export declare function initCodecModule(input?: { module_or_path?: InitInput | Promise<InitInput> }): Promise<unknown>;
