// What a chat extension does with ctxpack, the same in both extension hosts:
// the host's entry (node.js, web.js) hands it ctxpack's API and the stash
// where that host keeps history images.
'use strict';

/**
 * The workspace file an image's URL in the user's text names, or null for a
 * URL that is no file of it. A path relative to the workspace folder; a
 * `file:` or `vscode-resource:` URI (what a webview or an editor gives) is
 * that path on the workspace's file system, read through the workspace's own
 * URI so that it works where `file:` is no file system of this host (the web
 * worker host, a remote window).
 */
function imageUri(vscode, url) {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) return folder ? vscode.Uri.joinPath(folder, url) : null;
  const uri = vscode.Uri.parse(url);
  if (uri.scheme !== 'file' && uri.scheme !== 'vscode-resource') return null;
  // `vscode-resource://file///home/…` names the file in its path.
  const filePath = uri.authority === 'file' ? uri.path.replace(/^\/+/, '/') : uri.path;
  return folder ? folder.with({ path: filePath }) : vscode.Uri.file(filePath);
}

/** The bytes of base64 `text`. */
const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/**
 * The chat's side of ctxpack: `ctxpack` is the package's API, `stash` the
 * opened Stash.
 */
function openChat(vscode, ctxpack, stash) {
  /** Reads an image of the user's text from the workspace; null when there is none. */
  async function readImage(url) {
    const uri = imageUri(vscode, url);
    if (!uri) return null;
    try {
      return await vscode.workspace.fs.readFile(uri);
    } catch {
      return null; // listed in `missing`
    }
  }

  return {
    /**
     * The messages to send: the history, compacted (images the model has
     * seen become placeholders, their originals in the stash), then the
     * user's new message with its markdown images as image parts.
     */
    async prepareRequest(history, userText) {
      const { content, missing } = await ctxpack.toMultimodal(userText, { resolve: readImage });
      const { messages, report } = await ctxpack.compactContext([...history, { role: 'user', content }], { stash });
      return { messages, missing, stashed: report.stashed, tools: [ctxpack.historyImageTool('openai')] };
    },

    /** The messages that answer the model's `get_history_image` call (OpenAI's shape). */
    answerCall(call) {
      return ctxpack.answerHistoryImageCall(stash, call, { format: 'openai' });
    },

    /**
     * `get_history_image` as a language model tool of VS Code: the image as
     * a data part. A VS Code whose tool results hold no images (before
     * LanguageModelDataPart) gets the answer for an image it cannot have:
     * ask the user to share it again.
     */
    async invokeTool(input) {
      const id = String(input?.image_md5 ?? '');
      const parts = await ctxpack.getHistoryImage(stash, id, { format: 'anthropic' });
      return new vscode.LanguageModelToolResult(parts.map((part) => {
        if (part.type === 'text') return new vscode.LanguageModelTextPart(part.text);
        if (vscode.LanguageModelDataPart) return vscode.LanguageModelDataPart.image(fromBase64(part.source.data), part.source.media_type);
        return new vscode.LanguageModelTextPart(ctxpack.historyImageTexts(id).missing);
      }));
    },
  };
}

/**
 * Registers the chat's `get_history_image` tool where the host has language
 * model tools; the disposable goes to the extension's subscriptions.
 */
function registerTool(vscode, context, chat) {
  if (typeof vscode.lm?.registerTool !== 'function') return false;
  context.subscriptions.push(vscode.lm.registerTool('get_history_image', { invoke: (options) => chat.invokeTool(options.input) }));
  return true;
}

module.exports = { openChat, registerTool, imageUri };
