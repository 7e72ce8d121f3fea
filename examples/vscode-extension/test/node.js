// The integration tests in the desktop (Node) extension host, first window.
'use strict';
const vscode = require('vscode');
const { check, extension, chatChecks, stashedBefore } = require('./suite.js');

async function run() {
  check(typeof process === 'object' && process.versions?.node, 'the tests run in the Node host');
  const api = await extension();
  const md5 = await chatChecks(api);

  // The original is a file under the extension's globalStorageUri.
  check(/\/globalStorage\/ctxpack\.ctxpack-chat\/images$/.test(api.images.path), `the stash is under globalStorageUri: ${api.images.path}`);
  const files = (await vscode.workspace.fs.readDirectory(api.images)).map(([name]) => name);
  check(files.some((name) => name.includes(md5)), `a file of the stash names ${md5}: ${files}`);

  // `require` and `import` of ctxpack share one instance: the extension's
  // stash (opened through require) works with import's functions.
  const required = require('ctxpack');
  const imported = await import('ctxpack');
  check(required.Stash === imported.Stash && required.compactContext === imported.compactContext, 'require and import give the same functions');
  const { messages } = await imported.expandContext((await stashedBefore()).messages, { stash: api.stash });
  check(!JSON.stringify(messages).includes('[Picture:history_'), 'import’s expandContext restores from the stash require opened');
}

module.exports = { run };
