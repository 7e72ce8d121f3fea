#!/usr/bin/env node
// The ctxpack command line: compact, expand and account for a conversation
// stored as JSON, with history images kept in a directory (the file stash).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const ctxpack = require('../dist/node/index.js');
const { fileStash } = require('../dist/node/file-stash.js');

const USAGE = `usage:
  ctxpack compact <in.json|-> [-o out.json] [--stash-dir DIR] [--format F] [--keep-recent N]
                               [--collapse-text] [--sanitize-tool-results] [--provider P]
  ctxpack expand  <in.json|-> [-o out.json] [--stash-dir DIR] [--format F]
  ctxpack stats   <in.json|-> [--format F] [--provider P]

The input is a JSON array of messages, or an object with a "messages" array
(a request body); the output keeps that shape. Formats: openai, langchain,
anthropic, ai-sdk (detected when not given). The stash directory defaults to
./.ctxpack-stash. Progress goes to stderr.

exit codes: 0 done; 1 usage error; 2 unreadable or invalid input;
            3 stash trouble (some images stayed inline or were missing);
            4 stats: the request exceeds the provider's limits`;

const EXIT = { ok: 0, usage: 1, input: 2, stash: 3, limits: 4 };

class UsageError extends Error {}

function parseArgs(argv) {
  const [command, ...rest] = argv;
  if (!command || command === '-h' || command === '--help') return { command: 'help' };
  if (!['compact', 'expand', 'stats'].includes(command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  const opts = { command, input: null, output: null, stashDir: '.ctxpack-stash', format: undefined, keepRecent: 0, collapseText: false, sanitize: false, provider: undefined };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const value = () => {
      if (i + 1 >= rest.length) throw new UsageError(`${a} needs a value`);
      return rest[++i];
    };
    switch (a) {
      case '-o': case '--output': opts.output = value(); break;
      case '--stash-dir': opts.stashDir = value(); break;
      case '--format': opts.format = value(); break;
      case '--keep-recent': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 0) throw new UsageError('--keep-recent needs a whole number ≥ 0');
        opts.keepRecent = n;
        break;
      }
      case '--provider': opts.provider = value(); break;
      case '--collapse-text': opts.collapseText = true; break;
      case '--sanitize-tool-results': opts.sanitize = true; break;
      default:
        if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option ${a}`);
        if (opts.input !== null) throw new UsageError(`unexpected argument ${JSON.stringify(a)}`);
        opts.input = a;
    }
  }
  if (opts.input === null) throw new UsageError('missing input file');
  return opts;
}

function readInput(file) {
  let text;
  try {
    text = file === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw Object.assign(new Error(`cannot read ${file}: ${e.message}`), { exit: EXIT.input });
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw Object.assign(new Error(`${file} is not JSON: ${e.message}`), { exit: EXIT.input });
  }
  if (Array.isArray(doc)) return { doc, messages: doc, wrap: (m) => m };
  if (doc && typeof doc === 'object' && Array.isArray(doc.messages)) return { doc, messages: doc.messages, wrap: (m) => ({ ...doc, messages: m }) };
  throw Object.assign(new Error(`${file}: expected an array of messages or an object with a "messages" array`), { exit: EXIT.input });
}

function writeOutput(file, value) {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (!file || file === '-') process.stdout.write(text);
  else fs.writeFileSync(file, text);
}

const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;

function progressPrinter() {
  let last = 0;
  return ({ done, total, bytes }) => {
    const now = Date.now();
    if (total < 8 && bytes < 8 * 1048576) return;
    if (done === total || now - last > 200) {
      last = now;
      process.stderr.write(`ctxpack: hashed ${done}/${total} images (${mb(bytes)})\n`);
    }
  };
}

async function main(argv) {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`ctxpack: ${e.message}\n${USAGE}\n`);
      return EXIT.usage;
    }
    throw e;
  }
  if (opts.command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const input = readInput(opts.input);
  if (opts.command === 'stats') {
    const providers = opts.provider ? [opts.provider] : ['openai', 'anthropic', 'gemini', 'bedrock'];
    const rows = providers.map((provider) => ctxpack.estimate(input.messages, { provider, format: opts.format }));
    const first = rows[0];
    process.stdout.write(`messages: ${input.messages.length}, bytes: ${first.requestBytes}, images: ${first.imageCount}, text tokens ≈ ${first.textTokens}\n`);
    for (const r of rows) {
      process.stdout.write(`${r.provider.padEnd(10)} image tokens ${String(r.imageTokens).padStart(8)}  total ≈ ${String(r.totalTokens).padStart(8)}  ${r.exceeded.length ? `EXCEEDS: ${r.exceeded.join('; ')}` : 'within limits'}\n`);
    }
    return rows.some((r) => r.exceeded.length) ? EXIT.limits : EXIT.ok;
  }
  const stash = await ctxpack.Stash.open({ backend: fileStash(path.resolve(opts.stashDir)) });
  try {
    if (opts.command === 'compact') {
      const { messages, report } = await ctxpack.compactContext(input.messages, {
        stash,
        format: opts.format,
        keepRecentImages: opts.keepRecent,
        collapseText: opts.collapseText,
        sanitizeToolResults: opts.sanitize,
        model: opts.provider ? { provider: opts.provider } : undefined,
        onProgress: progressPrinter(),
      });
      writeOutput(opts.output, input.wrap(messages));
      process.stderr.write(`ctxpack: ${report.stashed} images stashed, ${report.kept} kept, ${report.failed} failed; ${mb(report.bytesBefore)} → ${mb(report.bytesAfter)}\n`);
      for (const f of report.failures) process.stderr.write(`ctxpack: ${f.path || 'stash'}: ${f.code}: ${f.reason}\n`);
      if (report.limitProblem) process.stderr.write(`ctxpack: ${report.limitProblem}\n`);
      return report.failed > 0 ? EXIT.stash : EXIT.ok;
    }
    const { messages, report } = await ctxpack.expandContext(input.messages, { stash, format: opts.format });
    writeOutput(opts.output, input.wrap(messages));
    process.stderr.write(`ctxpack: ${report.restored} images restored, ${report.missing.length} missing\n`);
    for (const m of report.missing) process.stderr.write(`ctxpack: missing ${m.id} at ${m.path}\n`);
    return report.missing.length ? EXIT.stash : EXIT.ok;
  } finally {
    stash.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (e) => {
    if (e instanceof ctxpack.CtxpackError) {
      process.stderr.write(`ctxpack: ${e.code}${e.path ? ` at ${e.path}` : ''}: ${e.message}\n`);
      process.exitCode = e.code.startsWith('STASH') || e.code === 'QUOTA_EXCEEDED' ? EXIT.stash : EXIT.input;
    } else {
      process.stderr.write(`ctxpack: ${e.message}\n`);
      process.exitCode = e.exit ?? EXIT.input;
    }
  },
);
