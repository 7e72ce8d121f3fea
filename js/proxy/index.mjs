// ctxpack/proxy for ES modules: the CommonJS module's exports (one copy of
// its code and of the wasm instance, whichever way an app loads it).
import proxy from './index.cjs';

export const { createProxy, formatLogLine, DEFAULT_KEEP_RECENT_IMAGES } = proxy;
