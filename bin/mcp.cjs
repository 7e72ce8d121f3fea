'use strict';
// `ctxpack mcp`: an MCP server on stdio (the official
// @modelcontextprotocol/sdk) offering `get_history_image`, answered from the
// stash `ctxpack proxy` writes to (--stash-dir or --redis): the image
// itself, or a text answer when the stash does not hold it. Claude Code:
// `claude mcp add ctxpack -- npx ctxpack mcp`; Codex: an `mcp_servers`
// entry in its config.toml.
const ctxpack = require('../dist/node/index.js');
const { STASH_FLAGS, ServeUsageError, commandFlags, flagHelp, openServeStash } = require('./serve-args.cjs');

const USAGE = `usage: ctxpack mcp [options]

An MCP server on stdio offering get_history_image: a model that sees
[Picture:history_<md5>] calls it and gets the original image back from the
stash ctxpack proxy (or any ctxpack app) keeps it in.

  claude mcp add ctxpack -- npx ctxpack mcp
  codex: [mcp_servers.ctxpack] command = "npx", args = ["ctxpack", "mcp"]

options:
${flagHelp(STASH_FLAGS)}
`;

/** The MCP server over `stash`: tools/list and tools/call. */
function mcpServer(stash) {
  const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
  const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');
  const tool = ctxpack.historyImageTool('mcp');
  const { version } = require('../package.json');
  const server = new Server({ name: 'ctxpack', version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    if (name !== tool.name) return { content: [{ type: 'text', text: `Unknown tool ${name}: this server offers ${tool.name}.` }], isError: true };
    const id = args?.image_md5;
    if (typeof id !== 'string') return { content: [{ type: 'text', text: 'image_md5 must be the id of a [Picture:history_<md5>] placeholder.' }], isError: true };
    try {
      return { content: await ctxpack.getHistoryImage(stash, id, { format: 'mcp' }) };
    } catch (e) {
      return { content: [{ type: 'text', text: `${e.code ?? 'ERROR'}: ${e.message}` }], isError: true };
    }
  });
  return server;
}

/** Serves MCP on stdio until stdin closes; resolves to the exit code. */
async function main(argv) {
  const { opts, exit } = commandFlags(argv, STASH_FLAGS, USAGE);
  if (exit !== undefined) return exit;
  let opened;
  try {
    opened = await openServeStash(ctxpack, opts);
  } catch (e) {
    process.stderr.write(`ctxpack: ${e.message}\n`);
    return e instanceof ServeUsageError ? 1 : 3;
  }
  const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
  const server = mcpServer(opened.stash);
  const closed = new Promise((resolve) => { server.onclose = resolve; });
  await server.connect(new StdioServerTransport());
  process.stderr.write(`ctxpack mcp: serving get_history_image on stdio (stash: ${opened.where})\n`);
  process.stdin.once('end', () => server.close());
  await closed;
  await opened.close();
  return 0;
}

module.exports = { main, mcpServer };
