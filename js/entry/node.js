// The Node entry (CommonJS): the main module's exports, with the markdown
// functions, routeArtifact and the refusal readers joined to the markdown
// module (see api.js), which is loaded (synchronously) the first time one of
// them needs it.
'use strict';
const main = require('./ctxpack.js');
const { bindApi } = require('./api.js');

let markdown = null;

const { codecModule, codecLoaded, ...api } = bindApi({
  main,
  markdown: () => (markdown ??= require('./markdown/ctxpack_markdown.js')),
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
  /** True once the markdown module has been loaded (for tests). */
  __markdownLoaded: () => markdown !== null,
};
