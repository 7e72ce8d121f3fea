// The extension in the web worker extension host (VS Code for the Web,
// vscode.dev, code-server): ctxpack's web build, bundled into one CommonJS
// file (build.mjs), its wasm modules read from the extension's own files,
// history images kept in IndexedDB.
import * as vscode from 'vscode';
import init, * as ctxpack from 'ctxpack/web';
import { openChat, registerTool } from './chat.js';

export async function activate(context) {
  const wasm = vscode.Uri.joinPath(context.extensionUri, 'node_modules/ctxpack/dist/wasm');
  await init({ wasm: (file) => vscode.workspace.fs.readFile(vscode.Uri.joinPath(wasm, file)) });
  const stash = await ctxpack.Stash.open({ name: 'ctxpack-chat' });
  context.subscriptions.push({ dispose: () => stash.close() });
  const chat = openChat(vscode, ctxpack, stash);
  return { ...chat, stash, tool: registerTool(vscode, context, chat) };
}
