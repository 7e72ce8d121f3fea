// The Node entry (CommonJS): the main module's exports, with the markdown
// functions, toTextOnly, routeArtifact and the refusal readers joined to the
// extras module, and fitContext, repairContext and compactRequestBody to the
// full module (see api.js), each loaded (synchronously) the first time one
// of its functions needs it.
'use strict';
const main = require('./ctxpack.js');
const { bindApi } = require('./api.js');

let extras = null;

const { codecModule, codecLoaded, fullLoaded, fullCall, ...api } = bindApi({
  main,
  extras: () => (extras ??= require('./extras/ctxpack_extras.js')),
  loadFull: () => require('./full/ctxpack_full.js'),
  // A fresh instance of the codec module (not the one `require` cached).
  loadCodec: () => {
    const file = require.resolve('./codec/ctxpack_codec.js');
    delete require.cache[file];
    return require(file);
  },
});

module.exports = {
  ...main,
  ...api,
  /** True once the codec module has been loaded (for tests). */
  __codecLoaded: () => codecLoaded(),
  /** True once the extras module has been loaded (for tests). */
  __extrasLoaded: () => extras !== null,
  /** True once the full module has been asked for (for tests). */
  __fullLoaded: () => fullLoaded(),
  /** `f(full, options)`: the full module and `options` with its stash for the main module's (for tests). */
  __inFull: (options, f) => fullCall(options, f),
};
