// The command line, run as a user runs it: files in, files out, exit codes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../scripts/serve.mjs';
import { makeImage } from '../fixtures/make.mjs';

// The command the package installs: its `bin` entry.
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const bin = path.join(ROOT, pkg.bin.ctxpack);
const run = (args, cwd, input) => spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', input, maxBuffer: 1 << 26 });

async function workspace(images = 3) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-cli-'));
  const messages = [];
  for (let i = 0; i < images; i++) {
    const b64 = (await makeImage('png', 24, 24, 50 + i)).toString('base64');
    messages.push({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } }, { type: 'text', text: `image ${i}` }] });
    messages.push({ role: 'assistant', content: `seen ${i}` });
  }
  messages.push({ role: 'user', content: 'compare them' });
  writeFileSync(path.join(dir, 'in.json'), JSON.stringify({ model: 'gpt-x', messages }));
  return { dir, messages };
}

test('compact then expand round-trips through the file stash', async () => {
  const { dir, messages } = await workspace(9);
  try {
    const c = run(['compact', 'in.json', '-o', 'out.json', '--stash-dir', 'stash'], dir);
    assert.equal(c.status, 0, c.stderr);
    assert.match(c.stderr, /hashed 9\/9 images/, 'progress on stderr');
    assert.match(c.stderr, /9 images stashed/);
    const out = JSON.parse(readFileSync(path.join(dir, 'out.json'), 'utf8'));
    assert.equal(out.model, 'gpt-x', 'the request body shape is kept');
    assert.match(out.messages[0].content[0].text, /^\[Picture:history_[0-9a-f]{32}\]$/);
    assert.equal(readdirSync(path.join(dir, 'stash')).length, 18);
    const e = run(['expand', 'out.json', '--stash-dir', 'stash'], dir);
    assert.equal(e.status, 0, e.stderr);
    assert.deepEqual(JSON.parse(e.stdout).messages, messages);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('compact writes the file back byte for byte but the messages it changed', async () => {
  const { dir, messages } = await workspace(2);
  try {
    const input = `${JSON.stringify({ model: 'gpt-x', note: 'ü 😀', messages }, null, 4)}\n`;
    writeFileSync(path.join(dir, 'in.json'), input);
    const c = run(['compact', 'in.json', '-o', 'out.json', '--stash-dir', 'stash'], dir);
    assert.equal(c.status, 0, c.stderr);
    const out = readFileSync(path.join(dir, 'out.json'), 'utf8');
    // The text before the first message, and every message after the
    // images' (4 spaces, as written), are the input's own.
    const first = input.indexOf('{', input.indexOf('"messages"'));
    assert.equal(out.slice(0, first), input.slice(0, first));
    const from = (text) => input.lastIndexOf('{', input.indexOf(text));
    assert.ok(out.endsWith(input.slice(from('"seen 1"'))), 'the messages after the last image and the end as written');
    const seen0 = input.slice(from('"seen 0"'), input.indexOf('}', input.indexOf('"seen 0"')) + 1);
    assert.ok(seen0.includes('\n            "content"') && out.includes(seen0), 'a message between images as written');
    const parsed = JSON.parse(out);
    assert.equal(parsed.note, 'ü 😀');
    assert.match(parsed.messages[0].content[0].text, /^\[Picture:history_[0-9a-f]{32}\]$/);
    assert.deepEqual(parsed.messages.slice(1).filter((m, i) => i % 2 === 0), messages.slice(1).filter((m, i) => i % 2 === 0));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stats accounts per provider and exits 4 when a limit is exceeded', async () => {
  const { dir } = await workspace(21);
  try {
    const s = run(['stats', 'in.json'], dir);
    assert.equal(s.status, 4);
    assert.match(s.stdout, /images: 21/);
    assert.match(s.stdout, /bedrock .*EXCEEDS: 21 images; bedrock allows 20/);
    assert.match(s.stdout, /openai .*within limits/);
    assert.equal(run(['stats', 'in.json', '--provider', 'openai'], dir).status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('clear errors and documented exit codes', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-cli-'));
  try {
    assert.equal(run([], dir).status, 0);
    const usage = run(['compact'], dir);
    assert.equal(usage.status, 1);
    assert.match(usage.stderr, /missing input file/);
    assert.equal(run(['shrink', 'x.json'], dir).status, 1);
    assert.equal(run(['compact', 'x.json', '--keep-recent', 'many'], dir).status, 1);
    const missing = run(['compact', 'nope.json'], dir);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /cannot read nope\.json/);
    writeFileSync(path.join(dir, 'bad.json'), '{"messages": [');
    assert.match(run(['compact', 'bad.json'], dir).stderr, /not JSON/);
    writeFileSync(path.join(dir, 'shape.json'), JSON.stringify([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 5 } }] }]));
    const shape = run(['compact', 'shape.json'], dir);
    assert.equal(shape.status, 2);
    assert.match(shape.stderr, /INVALID_MESSAGE at messages\[0\]\.content\[0\]\.image_url\.url/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- every job, on real files ----

const md5 = (text) => createHash('md5').update(text).digest('hex');
const b64 = async (format, w, h, seed) => (await makeImage(format, w, h, seed)).toString('base64');
const read = (dir, file) => JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'ctxpack-cli-'));
/** Bytes as the command line prints them, computed here on their own. */
const human = (n) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

/** The format names the library declares (`Format` in its types). */
function libraryFormats() {
  const dts = readFileSync(path.join(ROOT, 'dist/node/ctxpack.d.ts'), 'utf8');
  return [...dts.match(/export type Format = ([^;]+);/)[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

/** One conversation per format: a history image, an answer, the newest user turn. */
function conversation(format, png) {
  const url = `data:image/png;base64,${png}`;
  switch (format) {
    case 'openai': return [
      { role: 'user', content: [{ type: 'image_url', image_url: { url, detail: 'high' } }, { type: 'text', text: 'what is it?' }] },
      { role: 'assistant', content: 'a chart' }, { role: 'user', content: 'and now?' }];
    case 'openai-responses': return [
      { role: 'user', content: [{ type: 'input_image', image_url: url, detail: 'auto' }, { type: 'input_text', text: 'what is it?' }] },
      { role: 'assistant', content: 'a chart' }, { role: 'user', content: [{ type: 'input_text', text: 'and now?' }] }];
    case 'anthropic': return [
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png }, cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'what is it?' }] },
      { role: 'assistant', content: 'a chart' }, { role: 'user', content: 'and now?' }];
    case 'ai-sdk': return [
      { role: 'user', content: [{ type: 'image', image: png, mediaType: 'image/png' }, { type: 'text', text: 'what is it?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'a chart' }] }, { role: 'user', content: [{ type: 'text', text: 'and now?' }] }];
    case 'ui-message': return [
      { id: 'u1', role: 'user', parts: [{ type: 'file', mediaType: 'image/png', url }, { type: 'text', text: 'what is it?' }] },
      { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'a chart' }] }, { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'and now?' }] }];
    case 'gemini': return [
      { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: png } }, { text: 'what is it?' }] },
      { role: 'model', parts: [{ text: 'a chart' }] }, { role: 'user', parts: [{ text: 'and now?' }] }];
    case 'langchain': return [
      ['human', [{ type: 'image_url', image_url: { url } }, { type: 'text', text: 'what is it?' }]],
      ['ai', 'a chart'], ['human', 'and now?']];
    case 'mcp': return [
      { role: 'user', content: { type: 'image', data: png, mimeType: 'image/png' } },
      { role: 'assistant', content: { type: 'text', text: 'a chart' } }, { role: 'user', content: { type: 'text', text: 'and now?' } }];
    case 'ollama': return [
      { role: 'user', content: 'what is it?', images: [png] },
      { role: 'assistant', content: 'a chart' }, { role: 'user', content: 'and now?' }];
    case 'gemini-interactions': return [
      { type: 'user_input', content: [{ type: 'image', data: png, mime_type: 'image/png' }, { type: 'text', text: 'what is it?' }] },
      { type: 'model_output', content: [{ type: 'text', text: 'a chart' }] }, { type: 'user_input', content: [{ type: 'text', text: 'and now?' }] }];
    default: throw new Error(`no conversation for ${format}`);
  }
}

test('--help and <command> --help print usage ending in a newline; unknown commands and options exit 1 with it', () => {
  const dir = tmp();
  try {
    assert.equal(pkg.bin.ctxpack, 'bin/ctxpack.cjs');
    const commands = ['compact', 'expand', 'stats', 'fit', 'repair', 'multimodal', 'sanitize', 'text-only', 'answer'];
    for (const args of [['--help'], ['-h'], ['help'], []]) {
      const h = run(args, dir);
      assert.equal(h.status, 0, args.join(' '));
      assert.ok(h.stdout.endsWith('\n'), `${args.join(' ')} ends with a newline`);
      assert.ok(!h.stdout.endsWith('\n\n'));
      for (const c of commands) assert.match(h.stdout, new RegExp(`^  ctxpack ${c} `, 'm'), c);
      assert.match(h.stdout, /exit codes: 0 done; 1 usage error; 2 unreadable or invalid input/);
      assert.equal(h.stderr, '');
    }
    // Run as the installed command: the file itself, by its #! line.
    const direct = spawnSync(bin, ['--help'], { cwd: dir, encoding: 'utf8' });
    assert.equal(direct.status, 0);
    assert.equal(direct.stdout, run(['--help'], dir).stdout);
    for (const c of commands) {
      const h = run([c, '--help'], dir);
      assert.equal(h.status, 0, c);
      assert.ok(h.stdout.startsWith(`usage: ctxpack ${c} `), c);
      assert.ok(h.stdout.endsWith('\n') && !h.stdout.endsWith('\n\n'), c);
      assert.equal(run(['help', c], dir).stdout, h.stdout);
      assert.equal(run([c, 'x.json', '-h'], dir).stdout, h.stdout, 'help wins over the rest');
      const bad = run([c, 'x.json', '--no-such-option'], dir);
      assert.equal(bad.status, 1, c);
      assert.equal(bad.stdout, '');
      assert.equal(bad.stderr, `ctxpack: unknown option --no-such-option\n${h.stdout}`);
    }
    const unknown = run(['shrink', 'x.json'], dir);
    assert.equal(unknown.stderr, `ctxpack: unknown command "shrink"\n${run(['--help'], dir).stdout}`);
    assert.equal(run(['help', 'shrink'], dir).status, 1);
    // The library's option names, kebab-case, in each command's help.
    assert.match(run(['compact', '--help'], dir).stdout, /--keep-recent-images N +keep the N newest history images inline \(default: 0\) \(--keep-recent N is the same\)/);
    assert.match(run(['fit', '--help'], dir).stdout, /--model M .*\(required\)\n[\s\S]*--keep-newest[\s\S]*--max-tokens N/);
    assert.match(run(['sanitize', '--help'], dir).stdout, /--threshold-bytes N/);
    assert.match(run(['repair', '--help'], dir).stdout, /--error TEXT[\s\S]*--error-file F/);
    assert.match(run(['stats', '--help'], dir).stdout, /--provider P[\s\S]*--model M/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--format takes every format the library declares, compact → expand round-trips in each, placeholders carry the md5', async () => {
  const formats = libraryFormats();
  assert.equal(formats.length, 10);
  const help = run(['--help'], ROOT).stdout;
  const listed = help.match(/^formats: (.+) \(detected when not given\)$/m)[1].split(', ');
  assert.deepEqual([...listed].sort(), [...formats].sort());
  // The README's Formats table names the same, and so does the table of shapes in docs/formats.md.
  for (const [file, from, to] of [['README.md', '## Formats', '## CLI'], ['docs/formats.md', '## Messages and image parts', '## Ollama']]) {
    const doc = readFileSync(path.join(ROOT, file), 'utf8');
    const table = doc.slice(doc.indexOf(from), doc.indexOf(to));
    assert.deepEqual([...table.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]).sort(), [...formats].sort(), file);
  }

  const dir = tmp();
  try {
    const png = await b64('png', 40, 30, 7);
    const placeholder = `[Picture:history_${md5(png)}]`;
    for (const format of formats) {
      const messages = conversation(format, png);
      // A request body of the format's own kind: messages, contents or input.
      const key = format === 'gemini' ? 'contents' : format === 'openai-responses' || format === 'gemini-interactions' ? 'input' : 'messages';
      writeFileSync(path.join(dir, `${format}.json`), JSON.stringify({ model: 'm', [key]: messages }));
      const c = run(['compact', `${format}.json`, '--format', format, '-o', `${format}.c.json`, '--stash-dir', 'stash'], dir);
      assert.equal(c.status, 0, `${format}: ${c.stderr}`);
      assert.match(c.stderr, /^ctxpack: 1 images stashed, 0 kept, 0 failed; /, format);
      const compacted = read(dir, `${format}.c.json`);
      assert.equal(compacted.model, 'm');
      const text = JSON.stringify(compacted[key]);
      assert.ok(text.includes(JSON.stringify(placeholder).slice(1, -1)), `${format}: ${text}`);
      assert.ok(!text.includes(png), `${format}: no payload left`);
      assert.deepEqual(compacted[key].slice(1), messages.slice(1), `${format}: the rest as it was`);
      const e = run(['expand', `${format}.c.json`, '--format', format, '--stash-dir', 'stash'], dir);
      assert.equal(e.status, 0, `${format}: ${e.stderr}`);
      assert.equal(e.stderr, 'ctxpack: 1 images restored, 0 missing\n');
      assert.deepEqual(JSON.parse(e.stdout), { model: 'm', [key]: messages }, format);
      // The same format name is taken by every command that has --format.
      assert.equal(run(['stats', `${format}.json`, '--format', format, '--provider', 'openai'], dir).status, 0, format);
      assert.equal(run(['text-only', `${format}.json`, '--format', format, '--no-stash'], dir).status, 0, format);
    }
    writeFileSync(path.join(dir, 'p.md'), 'plain');
    for (const format of formats) assert.equal(run(['multimodal', 'p.md', '--format', format], dir).status, 0, format);
    const bad = run(['compact', 'openai.json', '--format', 'openai-chat'], dir);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, new RegExp(`^ctxpack: --format must be one of ${listed.join(', ')}; got "openai-chat"\nusage: ctxpack compact `));
    // A format the messages are not in: the library's error, with its path.
    const wrong = run(['compact', 'openai.json', '--format', 'ollama'], dir);
    assert.equal(wrong.status, 2);
    assert.match(wrong.stderr, /^ctxpack: INVALID_MESSAGE at messages\[0\]\.content: /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('sizes print as B, KB and MB: a 37 KB request is "37.0 KB"', async () => {
  const dir = tmp();
  try {
    const jpeg = await b64('jpeg', 400, 280, 11); // 36.3 KB of base64
    const body = (pad) => ({ messages: [
      { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpeg}` } }, { type: 'text', text: 'x'.repeat(pad) }] },
      { role: 'assistant', content: 'ok' }, { role: 'user', content: 'next' }] });
    const target = 37 * 1024 + 20;
    const pad = target - Buffer.byteLength(JSON.stringify(body(0).messages));
    assert.ok(pad > 0 && pad < 800, `${pad}: the image is a little smaller than 37 KB`);
    writeFileSync(path.join(dir, 'in.json'), JSON.stringify(body(pad)));
    const s = run(['stats', 'in.json', '--provider', 'openai'], dir);
    assert.equal(s.status, 0, s.stderr);
    assert.equal(s.stdout.split('\n')[0], `messages: 3, bytes: ${target} (37.0 KB), images: 1, text tokens ≈ ${JSON.parse(run(['stats', 'in.json', '--provider', 'openai', '--json'], dir).stdout).textTokens}`);
    const c = run(['compact', 'in.json', '-o', 'out.json', '--stash-dir', 'stash', '--report', 'report.json'], dir);
    assert.equal(c.status, 0, c.stderr);
    const { bytesBefore, bytesAfter } = read(dir, 'report.json');
    assert.ok(bytesBefore > 37 * 1024 && bytesBefore < 37 * 1024 + 51 && bytesAfter < 1024, `${bytesBefore} ${bytesAfter}`);
    assert.equal(c.stderr, `ctxpack: 1 images stashed, 0 kept, 0 failed; 37.0 KB → ${bytesAfter} B\n`);
    // Megabytes above 1 MB.
    const big = await b64('png', 700, 600, 12); // noise-ish gradient: over 1 MB of base64
    writeFileSync(path.join(dir, 'big.json'), JSON.stringify(body(0).messages.map((m, i) => (i === 0 ? { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${big}` } }] } : m))));
    const b = run(['compact', 'big.json', '--stash-dir', 'stash', '--report', 'big-report.json'], dir);
    const r = read(dir, 'big-report.json');
    assert.ok(r.bytesBefore >= 1024 * 1024, String(r.bytesBefore));
    assert.match(b.stderr, new RegExp(`; ${human(r.bytesBefore).replace('.', '\\.')} MB`.replace(' MB MB', ' MB')));
    assert.equal(b.stderr, `ctxpack: 1 images stashed, 0 kept, 0 failed; ${human(r.bytesBefore)} → ${human(r.bytesAfter)}\n`);
    assert.match(human(r.bytesBefore), /^\d+\.\d MB$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--keep-recent-images keeps the newest history images inline; --keep-recent is the same option', async () => {
  const { dir, messages } = await workspace(3);
  try {
    // One image a turn (--no-slack): the window keeps exactly 2.
    const a = run(['compact', 'in.json', '--keep-recent-images', '2', '--no-slack', '--stash-dir', 's1'], dir);
    const b = run(['compact', 'in.json', '--keep-recent', '2', '--no-slack', '--stash-dir', 's2'], dir);
    const c = run(['compact', 'in.json', '--keep-recent-images=2', '--slack', '{"images":1}', '--stash-dir', 's3'], dir);
    assert.equal(a.status, 0, a.stderr);
    assert.equal(a.stdout, b.stdout);
    assert.equal(a.stdout, c.stdout);
    assert.match(a.stderr, /^ctxpack: 1 images stashed, 2 kept, 0 failed; /);
    const out = JSON.parse(a.stdout).messages;
    assert.equal(out[0].content[0].text, `[Picture:history_${md5(messages[0].content[0].image_url.url.split(',')[1])}]`);
    assert.deepEqual(out.slice(2), messages.slice(2));
    assert.equal(run(['compact', 'in.json', '--keep-recent-images', '-1'], dir).status, 1);
    // With the default slack the window fills up to 2 + 7 before it drops a batch.
    const d = run(['compact', 'in.json', '--keep-recent-images', '2', '--stash-dir', 's4'], dir);
    assert.match(d.stderr, /^ctxpack: 0 images stashed, 3 kept, 0 failed; /);
    const bad = run(['compact', 'in.json', '--slack', '{"images":0}', '--stash-dir', 's5'], dir);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /options\.slack\.images/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stats with --model uses the model profile; --provider and --model are one or the other', async () => {
  const { dir } = await workspace(3);
  try {
    const s = run(['stats', 'in.json', '--model', 'claude-sonnet-4-5'], dir);
    assert.equal(s.status, 0, s.stderr);
    const lines = s.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[1], /^claude-sonnet-4-5 +image tokens +\d+ +total ≈ +\d+ +within limits$/);
    const report = JSON.parse(run(['stats', 'in.json', '--model', 'claude-sonnet-4-5', '--json'], dir).stdout);
    assert.equal(report.provider, 'anthropic');
    assert.equal(report.imageCount, 3);
    // 24×24 px: 24·24/750 tokens each, rounded up.
    assert.deepEqual(report.images.map((i) => [i.width, i.height, i.tokens]), Array(3).fill([24, 24, Math.ceil((24 * 24) / 750)]));
    const over = run(['stats', 'in.json', '--model', 'gpt-4o', '--profile', '{"maxImages":2}'], dir);
    assert.equal(over.status, 4);
    assert.match(over.stdout, /^gpt-4o +.*EXCEEDS: 3 images; openai allows 2 per request$/m);
    writeFileSync(path.join(dir, 'limits.json'), JSON.stringify({ maxImages: 1 }));
    assert.equal(run(['stats', 'in.json', '--provider', 'gemini', '--limits', 'limits.json'], dir).status, 4);
    const both = run(['stats', 'in.json', '--provider', 'openai', '--model', 'gpt-4o'], dir);
    assert.equal(both.status, 1);
    assert.match(both.stderr, /^ctxpack: give --provider or --model, not both\nusage: ctxpack stats /);
    assert.equal(run(['stats', 'in.json', '--provider', 'azure'], dir).status, 1);
    const misspelt = run(['stats', 'in.json', '--model', 'gpt-4o', '--profile', '{"maxImagez":2}'], dir);
    assert.equal(misspelt.status, 2);
    assert.match(misspelt.stderr, /^ctxpack: INVALID_OPTION at options\.profile\.maxImagez: .*unknown field `maxImagez`/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('compact --model stashes history images until the model\'s limits are met, with --profile and --limits as in stats', async () => {
  const { dir } = await workspace(3);
  try {
    const report = (args) => {
      const r = run(['compact', 'in.json', '-o', 'out.json', '--stash-dir', `stash-${args.join('-').replace(/\W+/g, '')}`, '--keep-recent-images', '3', '--report', 'r.json', ...args], dir);
      assert.notEqual(r.status, 1, r.stderr);
      return JSON.parse(readFileSync(path.join(dir, 'r.json'), 'utf8'));
    };
    assert.equal(report([]).limitStashed, 0);
    assert.equal(report(['--model', 'gpt-4o', '--profile', '{"maxImages":1}']).limitStashed, 2);
    assert.equal(report(['--model', 'gpt-4o', '--limits', '{"maxImages":2}']).limitStashed, 1);
    assert.equal(report(['--provider', 'openai', '--max-images', '2']).limitStashed, 1);
    const both = run(['compact', 'in.json', '--provider', 'openai', '--model', 'gpt-4o'], dir);
    assert.equal(both.status, 1);
    assert.match(both.stderr, /^ctxpack: give --provider or --model, not both\nusage: ctxpack compact /);
    assert.match(run(['compact', 'in.json', '--profile', '{}'], dir).stderr, /--profile and --limits go with --model/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('fit makes a request within the model profile, originals in the stash for get_history_image', async () => {
  const dir = tmp();
  try {
    const history = [await b64('png', 300, 200, 21), await b64('png', 320, 240, 22)];
    const photo = await b64('jpeg', 3000, 2000, 23);
    const messages = [
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: history[0] } }, { type: 'text', text: 'first' }] },
      { role: 'assistant', content: 'one' },
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: history[1] } }, { type: 'text', text: 'second' }] },
      { role: 'assistant', content: 'two' },
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: photo } }, { type: 'text', text: 'and this photo?' }] },
    ];
    writeFileSync(path.join(dir, 'in.json'), JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages }));
    assert.equal(run(['fit', 'in.json'], dir).status, 1, '--model is required');
    const maxTokens = 1700;
    const f = run(['fit', 'in.json', '--model', 'claude-sonnet-4-5', '--max-tokens', String(maxTokens), '-o', 'out.json', '--report', 'report.json', '--stash-dir', 'stash'], dir);
    assert.equal(f.status, 0, f.stderr);
    const out = read(dir, 'out.json');
    assert.equal(out.max_tokens, 1024);
    const report = read(dir, 'report.json');
    assert.equal(report.fits, true);
    assert.equal(report.imagesAfter, 1);
    // The history images are placeholders with the md5 of their payload.
    assert.deepEqual([out.messages[0].content[0], out.messages[2].content[0]],
      history.map((h) => ({ type: 'text', text: `[Picture:history_${md5(h)}]` })));
    // The photo was downscaled to the size Claude reads.
    const photoFit = report.images.find((i) => i.path === 'messages[4].content[0]');
    assert.equal(photoFit.action, 'downscaled');
    assert.equal(photoFit.id, `history_${md5(photo)}`);
    assert.match(f.stderr, /^ctxpack: claude-sonnet-4-5 \(anthropic\): 3 → 1 images \(1 resized, 2 stashed\), tokens \d+ → \d+, \d+\.\d MB → \d+\.\d KB; fits\n/);
    assert.ok(f.stderr.includes(`ctxpack: messages[4].content[0]: downscaled 3000×2000 ${human(photoFit.before.bytes)} → ${photoFit.after.width}×${photoFit.after.height} ${human(photoFit.after.bytes)} (larger-than-model-reads) original history_${md5(photo)}\n`), f.stderr);
    // Within the profile's limits, as the library's estimate counts them.
    const { modelProfile } = await import('ctxpack');
    const profile = modelProfile('claude-sonnet-4-5');
    const s = run(['stats', 'out.json', '--model', 'claude-sonnet-4-5', '--json'], dir);
    assert.equal(s.status, 0, s.stdout);
    const est = JSON.parse(s.stdout);
    assert.deepEqual(est.exceeded, []);
    assert.ok(est.totalTokens <= maxTokens, `${est.totalTokens}`);
    assert.ok(est.imageCount <= profile.maxImages && est.requestBytes <= profile.maxRequestBytes);
    for (const img of est.images) {
      assert.ok(Math.max(img.width, img.height) <= profile.tokens.longEdge, `${img.width}×${img.height}`);
      assert.ok(img.tokens <= profile.tokens.maxTokens);
    }
    // Every original comes back from the stash, in another run.
    for (const data of [...history, photo]) {
      const a = run(['answer', '--id', `history_${md5(data)}`, '--format', 'anthropic', '--stash-dir', 'stash'], dir);
      assert.equal(a.status, 0, a.stderr);
      assert.equal(JSON.parse(a.stdout)[0].source.data, data);
    }
    // What cannot fit exits 4 and says why.
    const tight = run(['fit', 'in.json', '--model', 'gpt-4o', '--profile', '{"maxImages":1}', '--no-stash'], dir);
    assert.equal(tight.status, 4);
    assert.match(tight.stderr, /does not fit\n/);
    assert.match(tight.stderr, /^ctxpack: 2 history images must be stashed to fit, and no stash was given$/m);
    // --keep-newest leaves the newest turn's photo as it was.
    const keep = run(['fit', 'in.json', '--model', 'claude-sonnet-4-5', '--keep-newest', '--stash-dir', 'stash'], dir);
    assert.equal(keep.status, 0, keep.stderr);
    assert.equal(JSON.parse(keep.stdout).messages[4].content[0].source.data, photo);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('repair reads the provider refusal from --error or --error-file and retries within it', async () => {
  const dir = tmp();
  try {
    const pngs = [await b64('png', 30, 20, 31), await b64('png', 30, 20, 32), await b64('png', 30, 20, 33), await b64('png', 30, 20, 34)];
    const messages = [];
    pngs.forEach((p, i) => {
      messages.push({ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: p } }, { type: 'text', text: `image ${i}` }] });
      if (i < pngs.length - 1) messages.push({ role: 'assistant', content: `seen ${i}` });
    });
    writeFileSync(path.join(dir, 'in.json'), JSON.stringify(messages));
    // The body Anthropic sends back, as an app would save it.
    writeFileSync(path.join(dir, 'refusal.json'), JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'too many images and documents: 4 + 0 > 2' } }));
    const r = run(['repair', 'in.json', '--model', 'claude-sonnet-4-5', '--error-file', 'refusal.json', '--report', 'report.json', '--stash-dir', 'stash'], dir);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /^ctxpack: refusal: too-many-images \(anthropic\), limit 2, actual 4\n/);
    const out = JSON.parse(r.stdout);
    const report = read(dir, 'report.json');
    assert.ok(report.fits && report.imagesAfter <= 2, JSON.stringify(report));
    const stashed = 4 - report.imagesAfter;
    for (let i = 0; i < stashed; i++) assert.deepEqual(out[2 * i].content[0], { type: 'text', text: `[Picture:history_${md5(pngs[i])}]` });
    assert.deepEqual(out.at(-1), messages.at(-1), 'the newest turn as it was');
    // The same from stdin, and from --error: OpenAI's wording, through its SDK's error text.
    const again = run(['repair', '-', '--model', 'gpt-4o', '--error', 'Too many images in request. Max is 2.', '--stash-dir', 'stash'], dir, JSON.stringify(messages));
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /^ctxpack: refusal: too-many-images \(openai\), limit 2\n/);
    assert.ok(JSON.stringify(JSON.parse(again.stdout)).split('"type":"image"').length - 1 <= 2);
    // Not a refusal about size or images: exit 5.
    const rate = run(['repair', 'in.json', '--model', 'gpt-4o', '--error', 'Rate limit reached for gpt-4o', '--stash-dir', 'stash'], dir);
    assert.equal(rate.status, 5);
    assert.match(rate.stderr, /^ctxpack: NOT_A_REFUSAL/);
    assert.equal(rate.stdout, '');
    // One refusal, given once.
    assert.equal(run(['repair', 'in.json', '--model', 'gpt-4o'], dir).status, 1);
    assert.equal(run(['repair', 'in.json', '--model', 'gpt-4o', '--error', 'x', '--error-file', 'refusal.json'], dir).status, 1);
    assert.equal(run(['repair', 'in.json', '--error', 'Too many images in request. Max is 2.'], dir).status, 1);
    assert.equal(run(['repair', 'in.json', '--model', 'gpt-4o', '--error-file', 'none.txt'], dir).status, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('multimodal reads images relative to the markdown file and file: URLs', async () => {
  const dir = tmp();
  try {
    mkdirSync(path.join(dir, 'docs/img'), { recursive: true });
    mkdirSync(path.join(dir, 'docs/shots'), { recursive: true });
    const chart = await makeImage('png', 64, 48, 41);
    const photo = await makeImage('jpeg', 80, 60, 42);
    writeFileSync(path.join(dir, 'docs/img/chart.png'), chart);
    writeFileSync(path.join(dir, 'docs/shots/my photo.jpg'), photo);
    const abs = pathToFileURL(path.join(dir, 'docs/shots/my photo.jpg')).href;
    writeFileSync(path.join(dir, 'docs/prompt.md'), `Compare ![chart](img/chart.png) with ![photo](<shots/my photo.jpg> "the photo") and ![again](${abs}).\n\`![code](img/none.png)\` is code.`);
    const pngUrl = `data:image/png;base64,${chart.toString('base64')}`;
    const jpegUrl = `data:image/jpeg;base64,${photo.toString('base64')}`;
    // Run from elsewhere: paths are the markdown file's.
    const m = run(['multimodal', 'docs/prompt.md', '--detail', 'low', '--report', 'report.json'], dir);
    assert.equal(m.status, 0, m.stderr);
    assert.deepEqual(JSON.parse(m.stdout), [
      { type: 'text', text: 'Compare [chart]' },
      { type: 'image_url', image_url: { url: pngUrl, detail: 'low' } },
      { type: 'text', text: ' with [photo]' },
      { type: 'image_url', image_url: { url: jpegUrl, detail: 'low' } },
      { type: 'text', text: ' and [again]' },
      { type: 'image_url', image_url: { url: jpegUrl, detail: 'low' } },
      { type: 'text', text: '.\n`![code](img/none.png)` is code.' },
    ]);
    const report = read(dir, 'report.json');
    assert.deepEqual(report.images.map((i) => [i.mime, i.width, i.height, i.bytes]), [['image/png', 64, 48, chart.length], ['image/jpeg', 80, 60, photo.length], ['image/jpeg', 80, 60, photo.length]]);
    assert.deepEqual(report.missing, []);
    assert.ok(m.stderr.startsWith(`ctxpack: 3 images, 0 missing\nctxpack: img/chart.png: image/png 64×48 ${human(chart.length)}\n`), m.stderr);
    // Another format, without alt text.
    const a = run(['multimodal', 'docs/prompt.md', '--format', 'anthropic', '--no-keep-alt'], dir);
    assert.equal(a.status, 0, a.stderr);
    const parts = JSON.parse(a.stdout);
    assert.deepEqual(parts[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: chart.toString('base64') } });
    assert.equal(parts[0].text, 'Compare ');
    // From stdin: relative to the working directory.
    const s = run(['multimodal', '-'], path.join(dir, 'docs'), 'see ![c](img/chart.png)');
    assert.equal(s.status, 0, s.stderr);
    assert.deepEqual(JSON.parse(s.stdout)[1], { type: 'image_url', image_url: { url: pngUrl } });
    // An image that is not there stays as markdown, and the exit code says so.
    writeFileSync(path.join(dir, 'docs/gone.md'), 'look ![gone](img/gone.png) here');
    const g = run(['multimodal', 'docs/gone.md'], dir);
    assert.equal(g.status, 2);
    assert.deepEqual(JSON.parse(g.stdout), [{ type: 'text', text: 'look ![gone](img/gone.png) here' }]);
    assert.ok(g.stderr.includes(`ctxpack: missing img/gone.png: UNRESOLVED: resolver failed: cannot read ${path.join(dir, 'docs/img/gone.png')}: ENOENT\n`), g.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('sanitize takes a large base64 field out of a tool result into the stash; answer gives it back', async () => {
  const dir = tmp();
  try {
    const shot = await makeImage('png', 160, 120, 51);
    const data = shot.toString('base64');
    assert.ok(data.length > 10240);
    const result = { path: '/tmp/screen.png', width: 160, payload: data, note: 'a screenshot' };
    writeFileSync(path.join(dir, 'result.json'), JSON.stringify(result));
    const s = run(['sanitize', 'result.json', '--stash-dir', 'stash'], dir);
    assert.equal(s.status, 0, s.stderr);
    const marker = `[Binary:history_${md5(data)} image/png ${(shot.length / 1024).toFixed(1)}KB]`;
    assert.deepEqual(JSON.parse(s.stdout), { ...result, payload: marker });
    const outBytes = Buffer.byteLength(JSON.stringify({ ...result, payload: marker }));
    assert.equal(s.stderr, `ctxpack: 1 payloads stashed, 0 filtered; ${human(Buffer.byteLength(JSON.stringify(result)))} → ${outBytes} B\n`);
    const a = run(['answer', '--id', `history_${md5(data)}`, '--stash-dir', 'stash'], dir);
    assert.equal(a.status, 0, a.stderr);
    assert.deepEqual(JSON.parse(a.stdout), [{ type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } }]);
    // Without a stash the payload is filtered; above the threshold it stays.
    const f = run(['sanitize', 'result.json', '--no-stash'], dir);
    assert.equal(JSON.parse(f.stdout).payload, `[BINARY_DATA_FILTERED: ${(shot.length / 1024).toFixed(1)}KB]`);
    const t = run(['sanitize', 'result.json', '--no-stash', '--threshold-bytes', String(data.length + 1)], dir);
    assert.deepEqual(JSON.parse(t.stdout), result);
    const named = run(['sanitize', 'result.json', '--no-stash', '--threshold-bytes', String(data.length + 1), '--fields', 'payload'], dir);
    assert.match(JSON.parse(named.stdout).payload, /^\[BINARY_DATA_FILTERED: /);
    // A stash that cannot be written: filtered, exit 3.
    writeFileSync(path.join(dir, 'file'), 'not a directory');
    assert.equal(run(['sanitize', 'result.json', '--stash-dir', 'file'], dir).status, 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('text-only turns images into placeholders the stash holds, or descriptions without one', async () => {
  const { dir, messages } = await workspace(2);
  try {
    const ids = [0, 2].map((i) => md5(messages[i].content[0].image_url.url.split(',')[1]));
    const t = run(['text-only', 'in.json', '--stash-dir', 'stash'], dir);
    assert.equal(t.status, 0, t.stderr);
    const out = JSON.parse(t.stdout).messages;
    assert.deepEqual([out[0].content, out[2].content], [`image 0\n\n[Picture:history_${ids[0]}]`, `image 1\n\n[Picture:history_${ids[1]}]`]);
    assert.deepEqual(out.slice(3), messages.slice(3));
    // The placeholders expand from the same stash.
    assert.equal(run(['answer', '--id', ids[1], '--stash-dir', 'stash'], dir).status, 0);
    const n = run(['text-only', 'in.json', '--no-stash'], dir);
    assert.match(JSON.parse(n.stdout).messages[0].content, /^image 0\n\n\[图片1: image\/png [\d.]+ K?B, not stored\]$/);
    assert.ok(!existsSync(path.join(dir, '.ctxpack-stash')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('answer answers a get_history_image call from the stash, in the API’s own shape', async () => {
  const { dir, messages } = await workspace(2);
  try {
    assert.equal(run(['compact', 'in.json', '-o', 'out.json', '--stash-dir', 'stash'], dir).status, 0);
    const png = messages[0].content[0].image_url.url.split(',')[1];
    const id = read(dir, 'out.json').messages[0].content[0].text.match(/history_[0-9a-f]{32}/)[0];
    assert.equal(id, `history_${md5(png)}`);
    writeFileSync(path.join(dir, 'call.json'), JSON.stringify({ id: 'call_1', type: 'function', function: { name: 'get_history_image', arguments: JSON.stringify({ image_md5: id }) } }));
    const o = run(['answer', 'call.json', '--format', 'openai', '--stash-dir', 'stash'], dir);
    assert.equal(o.status, 0, o.stderr);
    const answer = JSON.parse(o.stdout);
    assert.deepEqual(answer.map((m) => m.role), ['tool', 'user']);
    assert.equal(answer[0].tool_call_id, 'call_1');
    assert.deepEqual(answer[1].content.at(-1), { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } });
    const use = { type: 'tool_use', id: 'toolu_1', name: 'get_history_image', input: { image_md5: id } };
    const an = run(['answer', '-', '--format', 'anthropic', '--stash-dir', 'stash'], dir, JSON.stringify(use));
    assert.equal(an.status, 0, an.stderr);
    const [reply] = JSON.parse(an.stdout);
    assert.equal(reply.content[0].tool_use_id, 'toolu_1');
    assert.deepEqual(reply.content[0].content.at(-1), { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } });
    const py = run(['answer', '--id', id, '--format', 'langchain-python', '--stash-dir', 'stash'], dir);
    assert.deepEqual(JSON.parse(py.stdout), [{ type: 'image', mime_type: 'image/png', base64: png }]);
    // An id the stash does not hold: the model's text answer, and exit 3.
    const gone = run(['answer', '--id', 'history_0123456789abcdef0123456789abcdef', '--lang', 'zh', '--stash-dir', 'stash'], dir);
    assert.equal(gone.status, 3);
    assert.deepEqual(JSON.parse(gone.stdout), [{ type: 'text', text: '图片不存在或已过期' }]);
    assert.equal(gone.stderr, 'ctxpack: history_0123456789abcdef0123456789abcdef is not in the stash\n');
    // A call needs its format; a call that is not get_history_image is the library's error.
    assert.equal(run(['answer', 'call.json', '--stash-dir', 'stash'], dir).status, 1);
    assert.equal(run(['answer', 'call.json', '--id', id], dir).status, 1);
    writeFileSync(path.join(dir, 'other.json'), JSON.stringify({ id: 'c', type: 'function', function: { name: 'search', arguments: '{}' } }));
    const other = run(['answer', 'other.json', '--format', 'openai', '--stash-dir', 'stash'], dir);
    assert.equal(other.status, 2);
    assert.match(other.stderr, /^ctxpack: INVALID_ARGUMENT at call\.function\.name: /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stash options reach Stash.open; stash trouble exits 3', async () => {
  const { dir } = await workspace(2);
  try {
    writeFileSync(path.join(dir, 'file'), 'not a directory');
    const c = run(['compact', 'in.json', '--stash-dir', 'file'], dir);
    assert.equal(c.status, 3);
    assert.match(c.stderr, /0 images stashed, 0 kept, 2 failed/);
    assert.equal(run(['fit', 'in.json', '--model', 'gpt-4o', '--profile', '{"maxImages":1}', '--stash-dir', 'file'], dir).status, 3);
    // A stash with a byte budget smaller than one image keeps what this run references (overBudget).
    const b = run(['compact', 'in.json', '--stash-dir', 'small', '--max-bytes', '10', '--ttl-seconds', '60', '--report', 'r.json'], dir);
    assert.equal(b.status, 0, b.stderr);
    assert.equal(read(dir, 'r.json').overBudget, true);
    assert.equal(readdirSync(path.join(dir, 'small')).length, 4);
    assert.equal(run(['compact', 'in.json', '--ttl-seconds', 'soon'], dir).status, 1);
    assert.equal(run(['fit', 'in.json', '--model', 'gpt-4o', '--no-stash', '--stash-dir', 'x'], dir).status, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
