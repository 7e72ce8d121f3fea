'use strict';
// `ctxpack proxy`: a local HTTP server in front of the Anthropic, OpenAI
// and Gemini APIs (ctxpack/proxy's handler), for agents that take a base
// URL: Claude Code (ANTHROPIC_BASE_URL), Codex and OpenAI-compatible apps
// (OPENAI_BASE_URL), Gemini clients (their base URL option).
const http = require('node:http');
const ctxpack = require('../dist/node/index.js');
const { createProxy, DEFAULT_KEEP_RECENT_IMAGES, formatLogLine } = require('../dist/proxy/index.cjs');
const { STASH_FLAGS, ServeUsageError, commandFlags, flagHelp, openServeStash } = require('./serve-args.cjs');

const FLAGS = {
  '--port': { key: 'port', arg: 'int', help: 'N           listen on port N (default: 8787; 0 picks a free one)' },
  '--host': { key: 'host', arg: 'text', help: 'H           listen on H (default: 127.0.0.1; another address lets others use your keys\' requests: see docs/proxy.md)' },
  '--keep-recent-images': { key: 'keepRecentImages', arg: 'int', help: `N  keep the N newest history images inline (default: ${DEFAULT_KEEP_RECENT_IMAGES})` },
  '--no-slack': { key: 'noSlack', help: '         evict one image a turn (default: 8 at once, so the prompt cache keeps its prefix)' },
  '--no-fit': { key: 'noFit', help: '           do not fit bodies to their model\'s limits' },
  '--anthropic-upstream': { key: 'anthropic', arg: 'text', help: 'URL  where Anthropic requests go (default: https://api.anthropic.com)' },
  '--openai-upstream': { key: 'openai', arg: 'text', help: 'URL     where OpenAI requests go (default: https://api.openai.com)' },
  '--gemini-upstream': { key: 'gemini', arg: 'text', help: 'URL     where Gemini requests go (default: https://generativelanguage.googleapis.com)' },
  '--offload': { key: 'offload', help: '          upload the history images kept inline to the provider\'s Files API once, with the request\'s own key, and send them by reference (Anthropic, OpenAI Responses)' },
  ...STASH_FLAGS,
  '--quiet': { key: 'quiet', help: '            no log line per request' },
  '--json-log': { key: 'jsonLog', help: '         log each request as one JSON object per line' },
};

const USAGE = `usage: ctxpack proxy [options]

A local HTTP proxy in front of the Anthropic, OpenAI and Gemini APIs: request
bodies compacted (history images → placeholders, originals in the stash) and
fitted to their model, everything else passed through, answers streamed as
they arrive, refusals for size or images repaired before the client sees them.

  ANTHROPIC_BASE_URL=http://127.0.0.1:8787 claude
  OPENAI_BASE_URL=http://127.0.0.1:8787/v1 your-app

options:
${flagHelp(FLAGS)}

One line per request goes to stderr: path, model, bytes in → out, images
stashed/kept/uploaded, the first message changed, the upstream's status and
the time ctxpack added. No key is ever logged or stored.
`;

/** Runs the proxy until SIGINT or SIGTERM; resolves to the exit code. */
async function main(argv) {
  const { opts, exit } = commandFlags(argv, FLAGS, USAGE);
  if (exit !== undefined) return exit;
  let opened;
  let handler;
  try {
    opened = await openServeStash(ctxpack, opts);
    const upstreams = Object.fromEntries(['anthropic', 'openai', 'gemini'].filter((p) => opts[p] !== undefined).map((p) => [p, opts[p]]));
    const log = opts.quiet ? false : opts.jsonLog ? (entry) => process.stderr.write(`${JSON.stringify(entry)}\n`) : (entry) => process.stderr.write(`${formatLogLine(entry)}\n`);
    handler = createProxy({
      stash: opened.stash, upstreams, log, fit: !opts.noFit, offload: Boolean(opts.offload),
      keepRecentImages: opts.keepRecentImages, ...(opts.noSlack ? { slack: false } : {}),
    });
  } catch (e) {
    process.stderr.write(`ctxpack: ${e.message}\n`);
    await opened?.close();
    return e instanceof ServeUsageError || e instanceof TypeError ? 1 : 3;
  }
  const server = http.createServer(handler);
  // Agents' bodies reach tens of megabytes and answers stream for minutes.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  const host = opts.host ?? '127.0.0.1';
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8787, host, resolve);
  }).catch(async (e) => {
    process.stderr.write(`ctxpack: cannot listen on ${host}:${opts.port ?? 8787}: ${e.message}\n`);
    await opened.close();
    process.exit(1);
  });
  const { port } = server.address();
  const shown = host.includes(':') ? `[${host}]` : host;
  process.stderr.write(`ctxpack proxy: listening on http://${shown}:${port} (stash: ${opened.where})\n`);
  await new Promise((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  server.close();
  server.closeAllConnections();
  handler.close();
  await opened.close();
  return 0;
}

module.exports = { main };
