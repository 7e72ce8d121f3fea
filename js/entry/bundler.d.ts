export * from './ctxpack.js';

import type { ResizeFunction } from './ctxpack.js';

/** Resizes on an `OffscreenCanvas` (browsers and workers): the default there. */
export declare const canvasResize: ResizeFunction;
