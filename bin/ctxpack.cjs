#!/usr/bin/env node
// The ctxpack command line: every job of the library on files, with history
// images and originals kept in a directory (the file stash) between runs.
// A thin binding over the Node build: each command calls one function, and
// its flags are that function's option names in kebab-case.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { fileURLToPath } = require('node:url');
const ctxpack = require('../dist/node/index.js');
const { fileStash } = require('../dist/node/file-stash.js');
const { listModels } = require('./models.cjs');

/** Every wire format name the library takes as `format` (its `Format` type), from the core's format list. */
const FORMATS = ctxpack.formats();
/** getHistoryImage also answers in Python LangChain's image block. */
const ANSWER_FORMATS = [...FORMATS, 'langchain-python'];
/** The providers `estimate` knows (its `Provider` type). */
const PROVIDERS = ['openai', 'anthropic', 'gemini', 'bedrock', 'vertex'];

const EXIT = { ok: 0, usage: 1, input: 2, stash: 3, limits: 4, notRefusal: 5 };

const EXIT_CODES = `exit codes: 0 done; 1 usage error; 2 unreadable or invalid input (a CtxpackError
            prints its code and JSON path; multimodal: an image could not be read);
            3 stash trouble (images stayed inline, were missing, or their originals
            could not be stashed; answer: the image is not in the stash);
            4 limits exceeded (stats: the request breaks a limit; compact, fit,
            repair: the result still does not fit);
            5 repair: the error is not a refusal about size or images`;

// Options, by the library's option names; flags are those names in kebab-case.
// `int`: a whole number ≥ 0; `json`: JSON text or a JSON file; `list`: comma-separated.
const OPTIONS = {
  output: { flags: ['-o', '--output'], arg: 'F', help: 'write the result to F (default: stdout)' },
  stashDir: { flags: ['--stash-dir'], arg: 'DIR', help: 'the file stash (default: ./.ctxpack-stash)' },
  noStash: { flags: ['--no-stash'], help: 'use no stash' },
  ttlSeconds: { flags: ['--ttl-seconds'], arg: 'N', int: true, help: 'stash records expire N s after their last use (default: 7200)' },
  maxBytes: { flags: ['--max-bytes'], arg: 'N', int: true, help: 'stash payload bytes kept at most; least recently used go first' },
  format: { flags: ['--format'], arg: 'F', choices: FORMATS, help: `the messages' format (detected when not given)` },
  keepRecentImages: { flags: ['--keep-recent-images', '--keep-recent'], arg: 'N', int: true, help: 'keep the N newest history images inline (default: 0)' },
  slack: { flags: ['--slack'], arg: 'JSON|F', json: true, help: 'how evictions move: {"images": N, "headroom": 0.2} (default: 8 images, a fifth of an image limit to spare)' },
  noSlack: { flags: ['--no-slack'], help: 'evict one image a turn, with no slack' },
  collapseText: { flags: ['--collapse-text'], help: 'fold a message left with only text into one string' },
  sanitizeToolResults: { flags: ['--sanitize-tool-results'], help: 'also take binary out of history tool results' },
  provider: { flags: ['--provider'], arg: 'P', choices: PROVIDERS, help: `a provider's rules: ${PROVIDERS.join(', ')}` },
  callProvider: { flags: ['--provider'], arg: 'P', help: "with --format ai-sdk: the model's provider (openai.responses, anthropic.messages, …)" },
  maxImages: { flags: ['--max-images'], arg: 'N', int: true, help: 'images per request (with --provider; default: its limit)' },
  maxRequestBytes: { flags: ['--max-request-bytes'], arg: 'N', int: true, help: 'bytes per request (with --provider; default: its limit)' },
  model: { flags: ['--model'], arg: 'M', help: 'a model id (claude-sonnet-5-5, gpt-6.2-sol, gemini-4-argon, bedrock/…; see ctxpack models)' },
  profile: { flags: ['--profile'], arg: 'JSON|F', json: true, help: "figures of the model's profile to replace, or a whole profile" },
  limits: { flags: ['--limits'], arg: 'JSON|F', json: true, help: 'request limits to use instead of the provider’s' },
  json: { flags: ['--json'], help: 'print the estimate report(s) as JSON' },
  keepNewest: { flags: ['--keep-newest'], help: "send the newest user turn's images as they are" },
  maxTokens: { flags: ['--max-tokens'], arg: 'N', int: true, help: "tokens the request may hold (default: the model's context window)" },
  error: { flags: ['--error'], arg: 'TEXT', help: "the provider's error text" },
  errorFile: { flags: ['--error-file'], arg: 'F', help: "a file holding the provider's error text or body (- for stdin)" },
  detail: { flags: ['--detail'], arg: 'D', choices: ['auto', 'low', 'high'], help: 'OpenAI detail written on image parts: auto, low or high' },
  keepAlt: { flags: ['--no-keep-alt'], negate: true, help: "drop each image's alt text from the text (kept as [alt] by default)" },
  thresholdBytes: { flags: ['--threshold-bytes'], arg: 'N', int: true, help: 'strings longer than N that are base64 are taken out (default: 10240)' },
  fields: { flags: ['--fields'], arg: 'A,B', list: true, help: 'more field names that always hold binary' },
  id: { flags: ['--id'], arg: 'ID', help: 'history_<md5>, a bare md5 or a placeholder' },
  lang: { flags: ['--lang'], arg: 'L', choices: ['en', 'zh'], help: 'language of the text answer for a missing image: en or zh (with --id)' },
  report: { flags: ['--report'], arg: 'F', help: 'write the report as JSON to F' },
  help: { flags: ['-h', '--help'], help: 'show this help' },
};

const STASH = ['stashDir', 'ttlSeconds', 'maxBytes'];

const COMMANDS = {
  compact: {
    input: '<in.json|->',
    summary: 'history images → [Picture:history_<md5>] placeholders, originals to the stash',
    fn: 'compactRequestBody',
    options: ['output', ...STASH, 'format', 'keepRecentImages', 'slack', 'noSlack', 'collapseText', 'sanitizeToolResults',
      ['model', 'stash further history images, oldest first, until the model’s limits are met (see modelProfile)'], 'profile', 'limits',
      ['provider', 'the same with a provider’s limits'], 'maxImages', 'maxRequestBytes', 'report'],
  },
  expand: {
    input: '<in.json|->',
    summary: 'placeholders → the stashed originals',
    fn: 'expandContext',
    options: ['output', ...STASH, 'format', 'report'],
  },
  stats: {
    input: '<in.json|->',
    summary: 'tokens, bytes and limits, per provider or for one model',
    fn: 'estimate',
    options: [['provider', `one provider's rules (default: each of ${PROVIDERS.join(', ')})`], ['model', "a model's own rules (see modelProfile)"], 'profile', 'limits', 'format', 'json'],
  },
  fit: {
    input: '<in.json|->',
    summary: 'a request the model accepts: images resized, the oldest stashed',
    fn: 'fitContext',
    required: ['model'],
    options: ['model', 'output', ...STASH, 'noStash', 'profile', 'keepNewest', 'maxTokens', 'slack', 'noSlack', 'format', 'report'],
  },
  repair: {
    input: '<in.json|->',
    summary: "the retry after a provider's refusal (--error TEXT or --error-file F)",
    fn: 'repairContext',
    required: ['model'],
    options: ['model', 'error', 'errorFile', 'output', ...STASH, 'noStash', 'profile', 'keepNewest', 'maxTokens', 'slack', 'noSlack', 'format', 'report'],
  },
  multimodal: {
    input: '<text.md|->',
    summary: 'markdown images → content parts (paths relative to the file, file: URLs)',
    fn: 'toMultimodal',
    options: ['output', ['format', 'the parts\' format (default: openai)'], 'detail', 'keepAlt', ['report', 'write images, missing and corrected as JSON to F']],
  },
  sanitize: {
    input: '<result.json|->',
    summary: 'binary in a tool result → short markers, payloads to the stash',
    fn: 'sanitizeToolResult',
    options: ['output', ...STASH, ['noStash', 'use no stash: payloads are filtered out'], 'thresholdBytes', 'fields'],
  },
  'text-only': {
    input: '<in.json|->',
    summary: 'images → markdown references, for a text-only model',
    fn: 'toTextOnly',
    options: ['output', ...STASH, ['noStash', 'use no stash: inline images are described'], 'format'],
  },
  answer: {
    input: '<call.json|->',
    alternative: '--id ID',
    summary: 'the get_history_image answer, from the stash',
    fn: 'answerHistoryImageCall',
    options: ['id', 'output', ...STASH,
      ['format', `the answer's format (with a call: required; with --id: default openai, langchain-python too)`],
      'callProvider', 'lang'],
  },
  models: {
    input: '[FILTER]',
    summary: "the model table: each model's image limits, token rule, context, source and date",
    fn: 'modelProfile',
    options: [['json', 'print the profiles as JSON']],
  },
};

const optionEntry = (entry) => (Array.isArray(entry) ? { key: entry[0], help: entry[1] } : { key: entry, help: undefined });

function commandUsage(name) {
  const c = COMMANDS[name];
  const lines = [`usage: ctxpack ${name} ${c.input} [options]${c.alternative ? `\n       ctxpack ${name} ${c.alternative} [options]` : ''}`, '', `${c.summary} (${c.fn}).`, '', 'options:'];
  const rows = [...c.options, 'help'].map(optionEntry).map(({ key, help }) => {
    const o = OPTIONS[key];
    const flag = `${o.flags.filter((f) => f !== '--keep-recent').join(', ')}${o.arg ? ` ${o.arg}` : ''}`;
    const alias = key === 'keepRecentImages' ? ' (--keep-recent N is the same)' : '';
    const required = c.required?.includes(key) ? ' (required)' : '';
    return [flag, `${help ?? o.help}${alias}${required}`];
  });
  const width = Math.max(...rows.map(([f]) => f.length)) + 2;
  for (const [f, h] of rows) lines.push(`  ${f.padEnd(width)}${h}`);
  if (c.options.includes('format') || c.options.some((e) => Array.isArray(e) && e[0] === 'format')) {
    lines.push('', `formats: ${(name === 'answer' ? ANSWER_FORMATS : FORMATS).join(', ')}`);
  }
  lines.push('', EXIT_CODES);
  return `${lines.join('\n')}\n`;
}

function usage() {
  const width = Math.max(...Object.entries(COMMANDS).map(([n, c]) => n.length + c.input.length)) + 3;
  const lines = ['usage: ctxpack <command> <input> [options]', '', 'commands:'];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ctxpack ${`${name} ${c.input}`.padEnd(width)}${c.summary}`);
  lines.push(`  ctxpack ${'answer --id ID'.padEnd(width)}the same, for an id`);
  lines.push(`  ctxpack ${'proxy [options]'.padEnd(width)}a local HTTP proxy compacting every request to the providers' APIs`);
  lines.push(`  ctxpack ${'mcp [options]'.padEnd(width)}an MCP server on stdio answering get_history_image from the stash`);
  lines.push(`  ctxpack ${'help [command]'.padEnd(width)}this help, or a command's options (or: <command> --help)`);
  lines.push(`  ctxpack ${'--version, -v'.padEnd(width)}the package's version`);
  lines.push(
    '',
    'Messages are a JSON array, or a request body with a "messages", "contents"',
    '(Gemini) or "input" (OpenAI Responses, Gemini Interactions) array; the output keeps that shape.',
    '- reads stdin. The stash directory (--stash-dir, default ./.ctxpack-stash)',
    'keeps originals between runs. Reports and progress go to stderr.',
    '',
    `formats: ${FORMATS.join(', ')} (detected when not given)`,
    '',
    EXIT_CODES,
  );
  return `${lines.join('\n')}\n`;
}

class UsageError extends Error {
  constructor(message, command) {
    super(message);
    this.command = command;
  }
}

const fail = (message, exit) => Object.assign(new Error(message), { exit });

function parseArgs(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help') return { help: true };
  if ((command === '-v' || command === '--version') && rest.length === 0) return { version: true };
  if (command === 'help') {
    if (rest.length > 1 || (rest[0] !== undefined && !Object.hasOwn(COMMANDS, rest[0]))) throw new UsageError(`unknown command ${JSON.stringify(rest.join(' '))}`);
    return { help: true, command: rest[0] };
  }
  if (!Object.hasOwn(COMMANDS, command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  const spec = COMMANDS[command];
  const allowed = new Map();
  for (const key of [...spec.options.map((e) => optionEntry(e).key), 'help']) for (const f of OPTIONS[key].flags) allowed.set(f, key);
  const opts = { command, input: null };
  for (let i = 0; i < rest.length; i++) {
    let a = rest[i];
    let inline;
    if (a.startsWith('--') && a.includes('=')) [a, inline] = [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)];
    if (a.startsWith('-') && a !== '-') {
      const key = allowed.get(a);
      if (!key) throw new UsageError(`unknown option ${a}`, command);
      const o = OPTIONS[key];
      if (!o.arg) {
        if (inline !== undefined) throw new UsageError(`${a} takes no value`, command);
        opts[key] = !o.negate;
        continue;
      }
      let v = inline;
      if (v === undefined) {
        if (i + 1 >= rest.length) throw new UsageError(`${a} needs a value`, command);
        v = rest[++i];
      }
      if (o.int) {
        if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new UsageError(`${a} needs a whole number ≥ 0`, command);
        v = Number(v);
      } else if (o.choices) {
        const choices = key === 'format' && command === 'answer' ? ANSWER_FORMATS : o.choices;
        if (!choices.includes(v)) throw new UsageError(`${a} must be one of ${choices.join(', ')}; got ${JSON.stringify(v)}`, command);
      } else if (o.list) {
        v = v.split(',').map((s) => s.trim()).filter(Boolean);
      }
      opts[key] = v;
      continue;
    }
    if (opts.input !== null) throw new UsageError(`unexpected argument ${JSON.stringify(a)}`, command);
    opts.input = a;
  }
  if (opts.help) return { help: true, command };
  for (const key of spec.required ?? []) if (opts[key] === undefined) throw new UsageError(`${OPTIONS[key].flags[0]} is required`, command);
  if (command === 'answer') {
    if ((opts.id === undefined) === (opts.input === null)) throw new UsageError('give either a call file or --id', command);
    if (opts.input !== null && opts.format === undefined) throw new UsageError('--format is required with a call', command);
    if (opts.input !== null && opts.lang !== undefined) throw new UsageError('--lang goes with --id', command);
    if (opts.id !== undefined && opts.callProvider !== undefined) throw new UsageError('--provider goes with a call', command);
  } else if (opts.input === null && command !== 'models') {
    throw new UsageError('missing input file', command);
  }
  if (command === 'stats' && opts.provider !== undefined && opts.model !== undefined) throw new UsageError('give --provider or --model, not both', command);
  if (command === 'stats' && opts.profile !== undefined && opts.model === undefined) throw new UsageError('--profile goes with --model', command);
  if (command === 'compact' && (opts.maxImages !== undefined || opts.maxRequestBytes !== undefined) && opts.provider === undefined) {
    throw new UsageError('--max-images and --max-request-bytes go with --provider', command);
  }
  if (command === 'compact' && opts.provider !== undefined && opts.model !== undefined) throw new UsageError('give --provider or --model, not both', command);
  if (command === 'compact' && (opts.profile !== undefined || opts.limits !== undefined) && opts.model === undefined) {
    throw new UsageError('--profile and --limits go with --model', command);
  }
  if (command === 'repair') {
    if ((opts.error === undefined) === (opts.errorFile === undefined)) throw new UsageError('give the refusal with --error TEXT or --error-file F', command);
    if (opts.errorFile === '-' && opts.input === '-') throw new UsageError('only one of the input and --error-file can be stdin', command);
  }
  if (opts.noStash && STASH.some((k) => opts[k] !== undefined)) throw new UsageError('--no-stash goes with no stash option', command);
  return opts;
}

function readText(file) {
  try {
    return file === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw fail(`cannot read ${file}: ${e.message}`, EXIT.input);
  }
}

function readJson(file) {
  const text = readText(file);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw fail(`${file} is not JSON: ${e.message}`, EXIT.input);
  }
}

/** JSON given inline (`{…}`) or as a file. */
function jsonOption(flag, value) {
  if (value === undefined) return undefined;
  if (/^\s*[{[]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch (e) {
      throw fail(`${flag} is not JSON: ${e.message}`, EXIT.input);
    }
  }
  return readJson(value);
}

/** The messages of a file: an array, or a request body holding them. */
function readMessages(file) {
  const doc = readJson(file);
  if (Array.isArray(doc)) return { messages: doc, wrap: (m) => m };
  if (doc && typeof doc === 'object') {
    for (const key of ['messages', 'contents', 'input']) {
      if (Array.isArray(doc[key])) return { messages: doc[key], wrap: (m) => ({ ...doc, [key]: m }) };
    }
  }
  throw fail(`${file}: expected an array of messages or an object with a "messages", "contents" or "input" array`, EXIT.input);
}

function writeJson(file, value) {
  writeText(file, `${JSON.stringify(value, null, 2)}\n`);
}

function writeText(file, text) {
  if (!file || file === '-') process.stdout.write(text);
  else fs.writeFileSync(file, text);
}

/** Bytes for people: B below 1 KB, KB with one decimal below 1 MB, else MB. */
function size(n) {
  if (n < 1024) return `${n} B`;
  const kb = (n / 1024).toFixed(1);
  if (n < 1048576 && kb !== '1024.0') return `${kb} KB`;
  return `${(n / 1048576).toFixed(1)} MB`;
}

const say = (line) => process.stderr.write(`ctxpack: ${line}\n`);

function progressPrinter() {
  let last = 0;
  return ({ done, total, bytes }) => {
    const now = Date.now();
    if (total < 8 && bytes < 8 * 1048576) return;
    if (done === total || now - last > 200) {
      last = now;
      say(`hashed ${done}/${total} images (${size(bytes)})`);
    }
  };
}

async function openStash(opts) {
  if (opts.noStash) return null;
  return ctxpack.Stash.open({
    backend: fileStash(path.resolve(opts.stashDir ?? '.ctxpack-stash')),
    ttlSeconds: opts.ttlSeconds,
    maxBytes: opts.maxBytes,
  });
}

/** `slack` as the flags give it: `--no-slack` is `false`, `--slack` its JSON. */
function slackOption(opts) {
  return opts.noSlack ? false : jsonOption('--slack', opts.slack);
}

/**
 * The file is compacted as text (compactRequestBody): read once, every byte
 * written back as it was but the messages compaction changed.
 */
async function compact(opts, stash) {
  const text = readText(opts.input);
  const model = opts.provider ? { provider: opts.provider, maxImages: opts.maxImages, maxRequestBytes: opts.maxRequestBytes } : opts.model;
  const { body, report } = await ctxpack.compactRequestBody(text, {
    stash,
    format: opts.format,
    keepRecentImages: opts.keepRecentImages ?? 0,
    slack: slackOption(opts),
    collapseText: opts.collapseText ?? false,
    sanitizeToolResults: opts.sanitizeToolResults ?? false,
    model,
    profile: jsonOption('--profile', opts.profile),
    limits: jsonOption('--limits', opts.limits),
    onProgress: progressPrinter(),
  });
  writeText(opts.output, body);
  if (opts.report) writeJson(opts.report, report);
  say(`${report.stashed} images stashed, ${report.kept} kept, ${report.failed} failed; ${size(report.bytesBefore)} → ${size(report.bytesAfter)}`);
  for (const f of report.failures) say(`${f.path || 'stash'}: ${f.code}: ${f.reason}`);
  if (report.limitProblem) say(report.limitProblem);
  if (report.failed > 0) return EXIT.stash;
  return report.fits === false ? EXIT.limits : EXIT.ok;
}

async function expand(opts, stash) {
  const input = readMessages(opts.input);
  const { messages, report } = await ctxpack.expandContext(input.messages, { stash, format: opts.format });
  writeJson(opts.output, input.wrap(messages));
  if (opts.report) writeJson(opts.report, report);
  say(`${report.restored} images restored, ${report.missing.length} missing`);
  for (const m of report.missing) say(`missing ${m.id} at ${m.path}`);
  return report.missing.length ? EXIT.stash : EXIT.ok;
}

function stats(opts) {
  const input = readMessages(opts.input);
  const common = { format: opts.format, limits: jsonOption('--limits', opts.limits) };
  const rows = opts.model !== undefined
    ? [{ label: opts.model, r: ctxpack.estimate(input.messages, { model: opts.model, profile: jsonOption('--profile', opts.profile), ...common }) }]
    : (opts.provider ? [opts.provider] : PROVIDERS).map((provider) => ({ label: provider, r: ctxpack.estimate(input.messages, { provider, ...common }) }));
  if (opts.json) {
    writeJson(undefined, opts.model !== undefined || opts.provider ? rows[0].r : rows.map(({ r }) => r));
  } else {
    const first = rows[0].r;
    process.stdout.write(`messages: ${input.messages.length}, bytes: ${first.requestBytes} (${size(first.requestBytes)}), images: ${first.imageCount}, text tokens ≈ ${first.textTokens}\n`);
    const width = Math.max(10, ...rows.map(({ label }) => label.length + 1));
    for (const { label, r } of rows) {
      process.stdout.write(`${label.padEnd(width)} image tokens ${String(r.imageTokens).padStart(8)}  total ≈ ${String(r.totalTokens).padStart(8)}  ${r.exceeded.length ? `EXCEEDS: ${r.exceeded.join('; ')}` : 'within limits'}\n`);
      if (r.pastRetirement) say(`${label} was retired on ${r.modelRetired}: its provider refuses it`);
    }
  }
  return rows.some(({ r }) => r.exceeded.length) ? EXIT.limits : EXIT.ok;
}

/** What fitContext and repairContext did, on stderr; the exit code it calls for. */
function fitSummary(opts, input, messages, report) {
  writeJson(opts.output, input.wrap(messages));
  if (opts.report) writeJson(opts.report, report);
  say(`${report.model} (${report.provider}): ${report.imagesBefore} → ${report.imagesAfter} images (${report.changed} resized, ${report.stashed} stashed), tokens ${report.tokensBefore} → ${report.tokensAfter}, ${size(report.bytesBefore)} → ${size(report.bytesAfter)}; ${report.fits ? 'fits' : 'does not fit'}`);
  for (const img of report.images) {
    if (img.action === 'kept' && !img.note) continue;
    const dims = (f) => (f ? `${f.width}×${f.height} ${size(f.bytes)}` : '');
    const change = img.action === 'downscaled' || img.action === 'reencoded' ? ` ${dims(img.before)} → ${dims(img.after)}` : '';
    say(`${img.path}: ${img.action}${change}${img.reasons.length ? ` (${img.reasons.join(', ')})` : ''}${img.id ? ` original ${img.id}` : ''}${img.note ? `: ${img.note}` : ''}`);
  }
  for (const p of report.problems) say(p);
  const stashTrouble = report.images.some((i) => i.action === 'failed' && /stash/.test(i.note ?? '')) || report.problems.some((p) => /stash/.test(p));
  if (stashTrouble && opts.noStash === undefined) return EXIT.stash;
  return report.fits ? EXIT.ok : EXIT.limits;
}

async function fit(opts, stash) {
  const input = readMessages(opts.input);
  const { messages, report } = await ctxpack.fitContext(input.messages, fitOptions(opts, stash));
  return fitSummary(opts, input, messages, report);
}

function fitOptions(opts, stash) {
  return {
    model: opts.model,
    profile: jsonOption('--profile', opts.profile),
    stash: stash ?? undefined,
    keepNewest: opts.keepNewest ?? false,
    maxTokens: opts.maxTokens,
    slack: slackOption(opts),
    format: opts.format,
  };
}

async function repair(opts, stash) {
  const error = opts.error ?? readText(opts.errorFile);
  const input = readMessages(opts.input);
  const { messages, report, refusal } = await ctxpack.repairContext(input.messages, error, fitOptions(opts, stash));
  const figures = [refusal.limit !== undefined && `limit ${refusal.limit}`, refusal.actual !== undefined && `actual ${refusal.actual}`].filter(Boolean);
  say(`refusal: ${refusal.kind} (${refusal.provider})${figures.length ? `, ${figures.join(', ')}` : ''}`);
  return fitSummary(opts, input, messages, report);
}

/** Reads an image the markdown names: a path relative to the markdown's directory, or a file: URL. */
function fileResolver(base) {
  return async (url) => {
    let file;
    if (/^file:/i.test(url)) {
      try {
        file = fileURLToPath(url);
      } catch {
        return null;
      }
    } else if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^[a-z]:[\\/]/i.test(url)) {
      return null; // another scheme (vscode-resource:, …): not a file here
    } else {
      file = path.resolve(base, url);
      if (!fs.existsSync(file)) {
        try {
          file = path.resolve(base, decodeURIComponent(url));
        } catch {
          // not percent-encoded: the path as written
        }
      }
    }
    try {
      return new Uint8Array(await fs.promises.readFile(file));
    } catch (e) {
      // The library lists the image in `missing` with this reason.
      throw new Error(`cannot read ${file}: ${e.code ?? e.message}`);
    }
  };
}

async function multimodal(opts) {
  const text = readText(opts.input);
  const base = opts.input === '-' ? process.cwd() : path.dirname(path.resolve(opts.input));
  const result = await ctxpack.toMultimodal(text, { resolve: fileResolver(base), detail: opts.detail, format: opts.format, keepAlt: opts.keepAlt });
  writeJson(opts.output, result.content);
  if (opts.report) writeJson(opts.report, { images: result.images, missing: result.missing, corrected: result.corrected });
  say(`${result.images.length} images, ${result.missing.length} missing`);
  for (const i of result.images) say(`${i.url}: ${i.mime}${i.width !== undefined ? ` ${i.width}×${i.height}` : ''} ${size(i.bytes)}`);
  for (const c of result.corrected) say(`${c.url}: declared ${c.declared}, is ${c.actual}`);
  for (const m of result.missing) say(`missing ${m.url}: ${m.code}: ${m.reason}`);
  return result.missing.length ? EXIT.input : EXIT.ok;
}

async function sanitize(opts, stash) {
  const result = readJson(opts.input);
  const out = await ctxpack.sanitizeToolResult(result, { stash: stash ?? undefined, thresholdBytes: opts.thresholdBytes, fields: opts.fields });
  writeJson(opts.output, out);
  const text = JSON.stringify(out);
  const stashed = text.match(/\[Binary:history_[0-9a-f]{32} [^\]]*\]/g) ?? [];
  const filtered = text.match(/\[BINARY_DATA_FILTERED: [^\]]*\]/g) ?? [];
  say(`${stashed.length} payloads stashed, ${filtered.length} filtered; ${size(Buffer.byteLength(JSON.stringify(result)))} → ${size(Buffer.byteLength(text))}`);
  return stash && filtered.length ? EXIT.stash : EXIT.ok;
}

async function textOnly(opts, stash) {
  const input = readMessages(opts.input);
  const messages = await ctxpack.toTextOnly(input.messages, { stash: stash ?? undefined, format: opts.format });
  writeJson(opts.output, input.wrap(messages));
  return EXIT.ok;
}

const ID = /(?:history_)?([0-9a-f]{32})/i;

async function answer(opts, stash) {
  let out;
  let md5;
  if (opts.id !== undefined) {
    md5 = ID.exec(opts.id)?.[1];
    out = await ctxpack.getHistoryImage(stash, opts.id, { format: opts.format, lang: opts.lang });
  } else {
    const call = readJson(opts.input);
    out = await ctxpack.answerHistoryImageCall(stash, call, { format: opts.format, provider: opts.callProvider });
    md5 = ID.exec(JSON.stringify(call))?.[1];
  }
  writeJson(opts.output, out);
  const held = md5 !== undefined && (await ctxpack.getHistoryImage(stash, md5)).some((p) => p.type === 'image_url');
  if (!held) {
    say(md5 === undefined ? 'no image id given' : `history_${md5.toLowerCase()} is not in the stash`);
    return EXIT.stash;
  }
  return EXIT.ok;
}

const RUN = { compact, expand, stats, fit, repair, multimodal, sanitize, 'text-only': textOnly, answer, models: (opts) => listModels(ctxpack, opts) };
const USES_STASH = new Set(['compact', 'expand', 'fit', 'repair', 'sanitize', 'text-only', 'answer']);

async function main(argv) {
  // The two servers: their flags and help are their own (bin/proxy.cjs, bin/mcp.cjs).
  if (argv[0] === 'proxy' || argv[0] === 'mcp') return require(`./${argv[0]}.cjs`).main(argv.slice(1));
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`ctxpack: ${e.message}\n${e.command ? commandUsage(e.command) : usage()}`);
      return EXIT.usage;
    }
    throw e;
  }
  if (opts.help) {
    process.stdout.write(opts.command ? commandUsage(opts.command) : usage());
    return EXIT.ok;
  }
  if (opts.version) {
    process.stdout.write(`${require('../package.json').version}\n`);
    return EXIT.ok;
  }
  const stash = USES_STASH.has(opts.command) ? await openStash(opts) : null;
  try {
    return await RUN[opts.command](opts, stash);
  } finally {
    stash?.close();
  }
}

const STASH_CODES = new Set(['STASH_UNAVAILABLE', 'STASH_READ_FAILED', 'STASH_WRITE_FAILED', 'QUOTA_EXCEEDED', 'TRANSACTION_ABORTED', 'VERSION_CHANGE']);

function exitFor(code) {
  if (STASH_CODES.has(code)) return EXIT.stash;
  if (code === 'CANNOT_FIT') return EXIT.limits;
  if (code === 'NOT_A_REFUSAL') return EXIT.notRefusal;
  return EXIT.input;
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (e) => {
    if (e instanceof ctxpack.CtxpackError) {
      say(`${e.code}${e.path ? ` at ${e.path}` : ''}: ${e.message}`);
      process.exitCode = exitFor(e.code);
    } else {
      say(e.message);
      process.exitCode = e.exit ?? EXIT.input;
    }
  },
);
