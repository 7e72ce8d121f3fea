// The Node entry (CommonJS): the main module's exports, with the markdown
// functions joined to the markdown module, which is loaded (synchronously)
// the first time one of them needs it.
'use strict';
const main = require('./ctxpack.js');

let markdown = null;
/** The markdown module's parser, loaded on first use. */
function parse(text) {
  markdown ??= require('./markdown/ctxpack_markdown.js');
  return markdown.parseMarkdownImages(text);
}

module.exports = {
  ...main,
  parseMarkdownImages: (text) => main.__parseMarkdownImages(text, parse),
  toMultimodal: (text, options) => main.__toMultimodal(text, options, parse),
  hasMultimedia: (messages, options) => main.__hasMultimedia(messages, options, parse),
  /** True once the markdown module has been loaded (for tests). */
  __markdownLoaded: () => markdown !== null,
};
