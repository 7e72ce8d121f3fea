// The extension in the desktop (Node) extension host: ctxpack's Node build,
// history images kept as files under the extension's global storage.
const vscode = require('vscode');
const ctxpack = require('ctxpack');
const { fileStash } = require('ctxpack/node');
const { openChat, registerTool } = require('./chat.js');

async function activate(context) {
  const images = vscode.Uri.joinPath(context.globalStorageUri, 'images');
  const stash = await ctxpack.Stash.open({ backend: fileStash(images.fsPath) });
  context.subscriptions.push({ dispose: () => stash.close() });
  const chat = openChat(vscode, ctxpack, stash);
  return { ...chat, stash, images, tool: registerTool(vscode, context, chat) };
}

module.exports = { activate };
