// The example's integration tests, the same in both extension hosts: run()
// of the host's test module (node.js, web.js, reload.*.js) calls these with
// the extension's exports. The window's workspace holds chart.png; what the
// first window stashed is written to the workspace for the reloaded one.
'use strict';
const vscode = require('vscode');

const STATE = 'ctxpack-test-state.json';

/** Throws `message` unless `ok`. */
function check(ok, message) {
  if (!ok) throw new Error(message);
}

/** The extension, activated: its exports. */
async function extension() {
  const ext = vscode.extensions.getExtension('ctxpack.ctxpack-chat');
  check(ext, 'the extension is installed');
  return ext.activate();
}

const folder = () => vscode.workspace.workspaceFolders[0].uri;
const base64 = (bytes) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''));
const chartUrl = async () => `data:image/png;base64,${base64(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder(), 'chart.png')))}`;

/**
 * The user's markdown images read from the workspace, the history compacted
 * into the stash, and the model's `get_history_image` call answered. Returns
 * the stashed image's md5.
 */
async function chatChecks(api) {
  const chart = await chartUrl();
  const file = folder().path + '/chart.png';
  const text = `relative ![a](chart.png), file ![b](file://${file}), webview ![c](vscode-resource:${file}), gone ![d](nothing.png)`;
  const first = await api.prepareRequest([], text);
  const parts = first.messages.at(-1).content;
  const images = parts.filter((p) => p.type === 'image_url');
  check(images.length === 3, `three workspace images became parts: ${JSON.stringify(parts.map((p) => p.type))}`);
  for (const image of images) check(image.image_url.url === chart, 'each image part holds chart.png');
  check(first.missing.length === 1 && first.missing[0].code === 'UNRESOLVED', `nothing.png is missing: ${JSON.stringify(first.missing)}`);
  check(first.stashed === 0, 'the newest message is not compacted');

  const history = [...first.messages, { role: 'assistant', content: 'Three copies of one bar chart.' }];
  const second = await api.prepareRequest(history, 'Which bar is tallest?');
  const placeholders = JSON.stringify(second.messages).match(/\[Picture:history_([0-9a-f]{32})\]/g) ?? [];
  check(placeholders.length === 3 && second.stashed >= 1, `the history's images became placeholders: ${placeholders.length}, stashed ${second.stashed}`);
  check(!JSON.stringify(second.messages).includes(chart), 'no image bytes are left in the request');
  check(second.tools[0].function.name === 'get_history_image', 'the request offers get_history_image');
  const md5 = placeholders[0].slice('[Picture:history_'.length, -1);

  await answerChecks(api, md5, chart);
  await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder(), STATE), new TextEncoder().encode(JSON.stringify({ md5, messages: second.messages })));
  return md5;
}

/** The model's `get_history_image(md5)` is answered with chart.png, and the language model tool, where registered, gives it too. */
async function answerChecks(api, md5, chart) {
  chart ??= await chartUrl();
  const call = { id: 'call_1', type: 'function', function: { name: 'get_history_image', arguments: JSON.stringify({ image_md5: md5 }) } };
  const answer = await api.answerCall(call);
  check(answer[0].role === 'tool' && answer[0].tool_call_id === 'call_1', `a tool message answers the call: ${JSON.stringify(answer[0])}`);
  check(answer[1].role === 'user' && answer[1].content.some((p) => p.image_url?.url === chart), 'the image follows in a user message');
  if (api.tool) await toolChecks(md5, chart);
}

/** `get_history_image` as a language model tool: listed, and its invocation gives the image. */
async function toolChecks(md5, chart) {
  // As package.json declares it (contributes.languageModelTools).
  const tool = vscode.lm.tools.find((t) => t.name === 'get_history_image');
  check(tool?.inputSchema?.required?.[0] === 'image_md5' && /\[Picture:history_<md5>\]/.test(tool.description), `vscode.lm.tools lists get_history_image: ${JSON.stringify(tool)}`);
  const result = await vscode.lm.invokeTool('get_history_image', { input: { image_md5: md5 }, toolInvocationToken: undefined });
  const data = result.content.find((p) => p instanceof vscode.LanguageModelDataPart || p.mimeType);
  check(data && data.mimeType === 'image/png', `the tool's result holds the PNG: ${JSON.stringify(result.content.map((p) => p.constructor?.name))}`);
  check(`data:image/png;base64,${base64(data.data)}` === chart, "the tool's image is chart.png");
  const gone = await vscode.lm.invokeTool('get_history_image', { input: { image_md5: '0'.repeat(32) }, toolInvocationToken: undefined });
  check(gone.content.length === 1 && /not found or expired/.test(gone.content[0].value), `an unknown image is answered in words: ${JSON.stringify(gone.content)}`);
}

/** What the first window stashed (its md5 and compacted messages). */
async function stashedBefore() {
  return JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder(), STATE))));
}

module.exports = { check, extension, chatChecks, answerChecks, stashedBefore, chartUrl };
