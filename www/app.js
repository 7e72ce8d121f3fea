// The ctxpack demo: a chat frontend that compacts its context before every
// send. Plain ES modules and the web build with its explicit init.
import init, {
  Stash, toMultimodal, compactContext, expandContext, getHistoryImage, answerHistoryImageCall, estimate, CtxpackError,
  fitContext, repairContext, formats,
} from '../dist/web/index.js';
import { APIS } from './formats.js';

await init();

// `?db=NAME` gives a page its own stash and saved conversation (the tests use it).
const DB_NAME = new URLSearchParams(location.search).get('db') || 'ctxpack-demo';
const STORE_KEY = `${DB_NAME}-conversation`;
const $ = (id) => document.getElementById(id);
const stash = await Stash.open({ name: DB_NAME });

// The API selector: every format ctxpack names that the demo can build.
for (const format of formats().filter((f) => f in APIS)) {
  $('provider').append(new Option(APIS[format].label, format));
}

/** The conversation as the app holds it: full messages, OpenAI format. */
let conversation = [];
/** Images pasted, dropped or picked for the next message. */
let attachments = [];
/** The last compacted request, for the panels (and for tests). */
let lastPayload = [];
/** The request as last fitted to the selected model. */
let lastFit = { messages: [], report: null };
/** Images a sent message named that could not be read, by the message's
 * index in the conversation: `toMultimodal`'s `missing` and the text. */
const unread = new Map();

const status = (text, isError = false) => {
  $('status').textContent = text;
  $('status').classList.toggle('error', isError);
};
const kb = (n) => (n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(2)} MB`);
const b64Size = (b64) => Math.floor((b64.length * 3) / 4);

// ---- persistence: the conversation is saved compacted; images live in the stash ----

async function save() {
  // A trailing empty user turn makes every real message history, so every
  // image is stashed and only placeholders reach localStorage.
  const { messages } = await compactContext([...conversation, { role: 'user', content: '' }], { stash });
  localStorage.setItem(STORE_KEY, JSON.stringify(messages.slice(0, -1)));
}

async function load() {
  const saved = localStorage.getItem(STORE_KEY);
  if (!saved) return;
  const { messages, report } = await expandContext(JSON.parse(saved), { stash });
  conversation = messages;
  if (report.missing.length) status(`${report.missing.length} image(s) expired from the stash`);
}

// ---- composing ----

/** Puts `markdown` into the composer at the cursor, spaced from the text before it. */
function insertAtCursor(markdown) {
  const ta = $('composer');
  const at = ta.selectionStart ?? ta.value.length;
  const spaced = at > 0 && !/\s$/.test(ta.value.slice(0, at)) ? ' ' : '';
  ta.value = `${ta.value.slice(0, at)}${spaced}${markdown}${ta.value.slice(at)}`;
  ta.selectionStart = ta.selectionEnd = at + spaced.length + markdown.length;
}

function addAttachment(name, bytes, type) {
  const n = attachments.length + 1;
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  attachments.push({ name, bytes, url });
  insertAtCursor(`![${name.replace(/[[\]]/g, '')}](attachment:${n})`);
  const img = document.createElement('img');
  img.src = url;
  img.className = 'thumb';
  img.alt = name;
  $('attachments').append(img);
}

async function addFiles(files) {
  for (const f of files) {
    if (f.type.startsWith('image/')) addAttachment(f.name || 'image', new Uint8Array(await f.arrayBuffer()), f.type);
  }
}

async function resolve(url) {
  const m = /^attachment:(\d+)$/.exec(url);
  if (m) return attachments[Number(m[1]) - 1]?.bytes ?? null;
  const res = await fetch(new URL(url, location.href));
  return res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
}

async function send(event) {
  event.preventDefault();
  const text = $('composer').value.trim();
  if (!text) return;
  status('sending…');
  try {
    const { content, missing } = await toMultimodal(text, { resolve, detail: 'auto' });
    const images = content.filter((p) => p.type === 'image_url').length;
    if (missing.length) unread.set(conversation.length, { missing, text });
    conversation.push({ role: 'user', content });
    conversation.push({ role: 'assistant', content: images ? `(demo reply) I received ${images} image${images > 1 ? 's' : ''}.` : '(demo reply) Noted.' });
    $('composer').value = '';
    $('attachments').replaceChildren();
    attachments = [];
    await refresh();
    await save();
    await renderStash();
    status(missing.length ? `sent; ${missing.length} image${missing.length > 1 ? 's' : ''} could not be read and went as text` : 'sent', missing.length > 0);
  } catch (e) {
    status(e instanceof CtxpackError ? `${e.code}: ${e.message}` : String(e), true);
  }
}

// ---- rendering ----

/** The notice under a message whose images could not all be read: each one's
 * markdown, why (`toMultimodal`'s code and reason), and that it went as text. */
function unreadNotice({ missing, text }) {
  const box = document.createElement('div');
  box.className = 'notice';
  box.setAttribute('role', 'alert');
  const head = document.createElement('strong');
  head.textContent = `${missing.length} image${missing.length > 1 ? 's' : ''} could not be read; sent as text:`;
  const list = document.createElement('ul');
  list.append(...missing.map((m) => {
    const li = document.createElement('li');
    li.dataset.code = m.code;
    const md = document.createElement('code');
    md.textContent = text.slice(m.start, m.end) || m.url;
    li.append(md, ` — ${m.code}: ${m.reason}`);
    return li;
  }));
  box.append(head, list);
  return box;
}

function renderConversation() {
  const list = $('conversation');
  list.replaceChildren();
  for (const [i, m] of conversation.entries()) {
    const li = document.createElement('li');
    li.className = m.role;
    const role = document.createElement('span');
    role.className = 'role';
    role.textContent = m.role;
    li.append(role);
    const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const p of parts) {
      if (p.type === 'image_url') {
        const img = document.createElement('img');
        img.src = p.image_url.url;
        img.alt = 'image';
        li.append(img);
      } else if (p.type === 'text') {
        li.append(document.createTextNode(p.text));
      }
    }
    if (unread.has(i)) li.append(unreadNotice(unread.get(i)));
    list.append(li);
  }
  list.scrollTop = list.scrollHeight;
}

/** Long data URLs shown by their head and size; everything else as is. */
function display(messages) {
  return JSON.stringify(messages, (k, v) => {
    if (typeof v === 'string' && v.startsWith('data:') && v.length > 200) {
      const b64 = v.slice(v.indexOf(',') + 1);
      return `${v.slice(0, v.indexOf(',') + 1)}${b64.slice(0, 24)}… (${kb(b64Size(b64))} inline)`;
    }
    if (typeof v === 'string' && v.length > 200 && /^[A-Za-z0-9+/]+=*$/.test(v)) {
      return `${v.slice(0, 24)}… (${kb(b64Size(v))} of base64 inline)`;
    }
    return v;
  }, 2);
}

function placeholdersIn(messages) {
  return [...new Set([...JSON.stringify(messages).matchAll(/\[Picture:history_([0-9a-f]{32})\]/g)].map((m) => m[1]))];
}

/** The API the payload panel shows. */
const api = () => APIS[$('provider').value] ?? APIS.openai;

async function refresh() {
  renderConversation();
  const { provider } = api();
  const format = $('provider').value;
  // The estimate reads the request as held (OpenAI shape); the payload is
  // compacted in the chosen API's own shape.
  const before = estimate(conversation, { provider, stash });
  const held = conversation.map(api().build);
  const { messages, report } = await compactContext(held, { stash, format });
  lastPayload = messages;
  const { messages: compactedHeld } = await compactContext(conversation, { stash });
  const after = estimate(compactedHeld, { provider, stash });
  $('bytes-before').textContent = kb(report.bytesBefore);
  $('bytes-after').textContent = kb(report.bytesAfter);
  $('images-before').textContent = before.imageCount;
  $('images-after').textContent = after.imageCount;
  $('tokens-before').textContent = before.totalTokens.toLocaleString();
  $('tokens-after').textContent = after.totalTokens.toLocaleString();
  $('limits').textContent = after.exceeded.length ? `exceeds: ${after.exceeded.join('; ')}` : `within ${provider}'s limits (${after.limits.maxImages} images, ${kb(after.limits.maxRequestBytes)} per request)`;
  $('limits').classList.toggle('warn', after.exceeded.length > 0);
  $('payload').textContent = display(messages);
  const select = $('tool-id');
  select.replaceChildren(...placeholdersIn(messages).map((id) => {
    const o = document.createElement('option');
    o.value = id;
    o.textContent = `[Picture:history_${id.slice(0, 8)}…]`;
    return o;
  }));
  $('play-tool').disabled = select.options.length === 0;
  await refreshFit();
}

// ---- fitting: what the selected model is sent, and the retry after a refusal ----

const figures = (f) => (f ? `${f.width}×${f.height} · ${kb(f.bytes)} · ${f.tokens.toLocaleString()} tok` : '–');

function fitRows(report) {
  return report.images.map((img) => {
    const tr = document.createElement('tr');
    tr.dataset.action = img.action;
    for (const text of [img.path.replace(/^messages/, ''), figures(img.before), img.action === 'stashed' ? img.id.slice(0, 16) + '…' : figures(img.after), [img.action, ...img.reasons].join(' · ') + (img.note ? ` (${img.note})` : '')]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  });
}

async function refreshFit() {
  const model = $('model').value;
  lastFit = await fitContext(conversation, { model, stash });
  const r = lastFit.report;
  $('fit-table').tBodies[0].replaceChildren(...fitRows(r));
  $('fit-summary').textContent = `${model}: ${kb(r.bytesBefore)} → ${kb(r.bytesAfter)}, ${r.tokensBefore.toLocaleString()} → ${r.tokensAfter.toLocaleString()} tokens, ${r.changed} changed, ${r.stashed} stashed; ${r.fits ? 'fits' : `still over: ${r.problems.join('; ')}`}`;
}

async function simulateRefusal() {
  const box = $('repair');
  box.replaceChildren();
  const text = $('refusal').value;
  const head = document.createElement('p');
  head.textContent = `← ${text}`;
  box.append(head);
  try {
    const { report, refusal } = await repairContext(lastFit.messages.length ? lastFit.messages : conversation, text, { model: $('model').value, stash });
    const p = document.createElement('p');
    p.id = 'repair-summary';
    p.textContent = `read as ${refusal.kind}${refusal.limit ? ` (limit ${refusal.limit})` : ''}; the retry: ${kb(report.bytesAfter)}, ${report.imagesAfter} image(s), ${report.tokensAfter.toLocaleString()} tokens, ${report.fits ? 'within it' : 'still over'}`;
    const table = document.createElement('table');
    table.id = 'repair-table';
    table.append(...fitRows(report));
    box.append(p, table);
  } catch (e) {
    const p = document.createElement('p');
    p.id = 'repair-summary';
    p.className = 'error';
    p.textContent = e instanceof CtxpackError ? `${e.code}: ${e.message}` : String(e);
    box.append(p);
  }
  await renderStash();
}

function timeLeft(ms) {
  if (ms <= 0) return 'expired';
  const m = Math.round(ms / 60000);
  return m >= 60 ? `${Math.floor(m / 60)} h ${m % 60} min left` : `${m} min left`;
}

async function renderStash() {
  const entries = await stash.list();
  $('stash-summary').textContent = `· IndexedDB · ${entries.length} image${entries.length === 1 ? '' : 's'}, ${kb(entries.reduce((n, e) => n + e.storedBytes, 0))}`;
  $('stash-list').replaceChildren(...entries.map((e) => {
    const li = document.createElement('li');
    li.dataset.id = e.id;
    li.innerHTML = `<code></code><span></span><span class="muted"></span>`;
    li.children[0].textContent = e.id.slice(0, 12);
    li.children[1].textContent = `${e.mime} · ${kb(e.size)}`;
    li.children[2].textContent = timeLeft(e.expiresAt - Date.now());
    return li;
  }));
}

async function playTool() {
  const id = $('tool-id').value;
  if (!id) return;
  const call = { name: 'get_history_image', arguments: { image_md5: `history_${id}` } };
  const parts = await getHistoryImage(stash, call.arguments.image_md5);
  // What the app appends so the model sees the image, in the chosen API's shape.
  const format = $('provider').value;
  const answer = await answerHistoryImageCall(stash, api().call(call.arguments.image_md5), { format });
  const box = $('tool-result');
  box.replaceChildren();
  const pre = document.createElement('pre');
  pre.textContent = `→ ${call.name}(${JSON.stringify(call.arguments)})\n← ${display(parts)}`;
  const reply = document.createElement('pre');
  reply.id = 'tool-answer';
  reply.textContent = `${api().label}: messages that answer the call\n${display(answer)}`;
  box.append(pre, reply);
  if (parts[0]?.type === 'image_url') {
    const img = document.createElement('img');
    img.id = 'tool-image';
    img.src = parts[0].image_url.url;
    img.alt = 'image returned by get_history_image';
    box.append(img);
  }
  await renderStash();
}

async function reset() {
  conversation = [];
  unread.clear();
  localStorage.removeItem(STORE_KEY);
  await stash.clear();
  $('tool-result').replaceChildren();
  await refresh();
  await renderStash();
  status('new chat');
}

// ---- wiring ----

$('composer-form').addEventListener('submit', send);
$('composer').addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) send(e); });
$('composer').addEventListener('paste', (e) => {
  const files = [...(e.clipboardData?.files ?? [])];
  if (files.length) { e.preventDefault(); addFiles(files); }
});
const zone = $('dropzone');
zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
zone.addEventListener('dragleave', () => zone.classList.remove('over'));
zone.addEventListener('drop', (e) => { e.preventDefault(); zone.classList.remove('over'); addFiles([...(e.dataTransfer?.files ?? [])]); });
$('file-input').addEventListener('change', (e) => addFiles([...e.target.files]));
for (const button of document.querySelectorAll('button.sample')) {
  button.addEventListener('click', () => { insertAtCursor(button.dataset.markdown); $('composer').focus(); });
}
$('provider').addEventListener('change', refresh);
$('play-tool').addEventListener('click', playTool);
$('model').addEventListener('change', refreshFit);
$('refuse').addEventListener('click', simulateRefusal);
$('reset').addEventListener('click', reset);

await load();
await refresh();
await renderStash();
if (!conversation.length) $('composer').value = '请分析这张图：![图表](sample/chart.png)';
window.ctxDemo = { get conversation() { return conversation; }, get payload() { return lastPayload; }, get fit() { return lastFit; }, stash };
document.body.dataset.ready = 'true';
