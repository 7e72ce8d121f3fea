// The Node entry (CommonJS): the main module's exports, with the markdown
// functions, toTextOnly, routeArtifact and the refusal readers joined to the
// extras module (see api.js), which is loaded (synchronously) the first time one of
// them needs it.
'use strict';
const main = require('./ctxpack.js');
const { bindApi } = require('./api.js');

let extras = null;

const { codecModule, codecLoaded, ...api } = bindApi({
  main,
  extras: () => (extras ??= require('./extras/ctxpack_extras.js')),
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
};
