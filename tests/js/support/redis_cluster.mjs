// A 3-node Redis Cluster of Debian's redis-server for the tests: each node
// on a free port of 127.0.0.1 (its cluster bus on that port + 10000), with
// append-only persistence in a folder of its own, joined by
// `redis-cli --cluster create`; ready once every node says `cluster_state:ok`.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, isFree, startRedis } from './redis.mjs';

const run = promisify(execFile);
const cli = async (port, ...args) => (await run('redis-cli', ['-p', String(port), ...args])).stdout;

/** A free port whose cluster bus port (+10000) is free too. */
async function clusterPort() {
  for (;;) {
    const port = await freePort();
    if (port + 10000 <= 65535 && (await isFree(port + 10000))) return port;
  }
}

/** Waits until `check()` is true, up to `ms`. */
async function until(check, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch { /* not yet */ }
    if (Date.now() > end) throw new Error(`${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts a 3-node cluster. Resolves with `{ports, nodes, restart(i), stop()}`:
 * `restart(i)` stops node `i` (SIGTERM: its append-only file is flushed) and
 * starts it again on the same port and folder, resolving once the cluster
 * is whole again; `stop()` stops every node and removes the folders.
 */
export async function startCluster({ size = 3 } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctxpack-cluster-'));
  const extra = (port) => ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '2000'];
  const start = (port) => {
    const folder = path.join(dir, String(port));
    mkdirSync(folder, { recursive: true });
    return startRedis(port, folder, extra(port));
  };
  const ports = [];
  const nodes = [];
  const kill = (n) => n && n.exitCode === null && new Promise((resolve) => { n.once('exit', resolve); n.kill('SIGTERM'); });
  const stop = async () => {
    await Promise.all(nodes.map(kill));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // A port free when chosen may be taken before its node binds it (by
    // another test starting servers): then the nodes start on other ports.
    for (let attempt = 1; !nodes.length; attempt++) {
      const chosen = [];
      while (chosen.length < size) {
        const p = await clusterPort();
        if (!chosen.includes(p) && !chosen.includes(p + 10000) && !chosen.includes(p - 10000)) chosen.push(p);
      }
      const started = await Promise.allSettled(chosen.map(start));
      if (started.every((r) => r.status === 'fulfilled')) {
        ports.push(...chosen);
        nodes.push(...started.map((r) => r.value));
      } else {
        await Promise.all(started.map((r) => r.status === 'fulfilled' && kill(r.value)));
        if (attempt === 5) throw started.find((r) => r.status === 'rejected').reason;
      }
    }
    await cli(ports[0], '--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes');
    const ok = () => Promise.all(ports.map(async (p) => /cluster_state:ok/.test(await cli(p, 'cluster', 'info')))).then((all) => all.every(Boolean));
    await until(ok, 20000, 'the cluster was not ready');
    return {
      ports,
      nodes,
      dir,
      /** Stops node `i` and starts it again; resolves when the cluster is whole. */
      async restart(i, { whileDown } = {}) {
        await new Promise((resolve) => { nodes[i].once('exit', resolve); nodes[i].kill('SIGTERM'); });
        if (whileDown) await whileDown();
        nodes[i] = await start(ports[i]);
        await until(ok, 20000, 'the cluster was not whole again');
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** A connected cluster client of `kind` ('node-redis' `createCluster` or 'ioredis' `Cluster`) and how to close it. */
export async function connectCluster(kind, ports, options = {}) {
  if (kind === 'node-redis') {
    const { createCluster } = await import('redis');
    const client = createCluster({ rootNodes: ports.map((p) => ({ url: `redis://127.0.0.1:${p}` })), ...options });
    client.on('error', () => {});
    await client.connect();
    return { client, close: () => client.destroy() };
  }
  const { default: Redis } = await import('ioredis');
  const client = new Redis.Cluster(ports.map((port) => ({ host: '127.0.0.1', port })), options);
  client.on('error', () => {});
  await new Promise((resolve) => client.once('ready', resolve));
  return { client, close: () => client.disconnect() };
}

/** A connected single client of `kind` ('node-redis' `createClient` or 'ioredis' `Redis`) and how to close it. */
export async function connectSingle(kind, port) {
  if (kind === 'node-redis') {
    const { createClient } = await import('redis');
    const client = await createClient({ url: `redis://127.0.0.1:${port}` }).connect();
    return { client, close: () => client.destroy() };
  }
  const { default: Redis } = await import('ioredis');
  const client = new Redis({ port, host: '127.0.0.1' });
  await new Promise((resolve) => client.once('ready', resolve));
  return { client, close: () => client.disconnect() };
}
