'use strict';
// ctxpack/redis's round trips. A call hands over its commands, each with the
// key it touches, and gets the replies back in order:
//
//   - a single Redis (node-redis `createClient`, ioredis `Redis`): one MULTI;
//   - a Redis Cluster (node-redis `createCluster`, ioredis `Cluster`): the
//     commands grouped by hash slot, the slots by the node that serves them,
//     one pipeline per node, sent together. Writes that belong together (a
//     record's image and bookkeeping, which share a slot) go in a MULTI of
//     their own slot. No command and no transaction spans slots.
//
// Either way a call costs one round trip per node it touches.

/** CRC16/XMODEM of `bytes`: how Redis Cluster hashes a key. */
function crc16(bytes) {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The part of `key` Redis Cluster hashes: its hash tag (`{…}`, the first one, not empty), else the whole key. */
function hashTag(key) {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  return close === -1 || close === open + 1 ? key : key.slice(open + 1, close);
}

const utf8 = new TextEncoder();
/** The hash slot of `key` (0–16383). */
function slotOf(key) {
  return crc16(utf8.encode(hashTag(key))) % 16384;
}

/** Throws the first error among ioredis `[error, reply]` pairs; the replies. */
function replies(pairs) {
  return pairs.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}

/** Throws the first error among the replies of a transaction. */
function checked(list) {
  if (!Array.isArray(list)) throw new Error('the Redis transaction was aborted');
  for (const r of list) if (r instanceof Error) throw r;
  return list;
}

const lower = ([name, ...args]) => [name.toLowerCase(), ...args.map(String)];

/**
 * A single Redis: `run(commands)` sends them in one MULTI; `scanners()`
 * gives one function running SCAN on the server.
 */
function single(client) {
  if (typeof client?.call === 'function' && typeof client?.multi === 'function') {
    // ioredis: multi([[cmd, ...args]]).exec() gives [[error, reply], …].
    const send = (list) => client.call(...lower(list));
    return {
      async run(commands) {
        const out = await client.multi(commands.map(({ args }) => lower(args))).exec();
        if (!out) throw new Error('the Redis transaction was aborted');
        return replies(out);
      },
      scanners: async () => [(args) => send(args)],
    };
  }
  if (typeof client?.sendCommand === 'function' && typeof client?.multi === 'function') {
    // node-redis: multi().addCommand([...]).exec() gives the replies.
    return {
      async run(commands) {
        const multi = client.multi();
        for (const { args } of commands) multi.addCommand(args.map(String));
        return multi.exec();
      },
      scanners: async () => [(args) => client.sendCommand(args.map(String))],
    };
  }
  return null;
}

/** A cluster's answer that its map of slots is out of date: after a node moved, failed or came back. */
const STALE = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN)\b/;

/**
 * A cluster, given how to find the node of a slot (`nodeOf(slot)`: an id,
 * or undefined before the client knows the slots), how to send one node's
 * groups in one pipeline (`send(groups, atomic)`: each group the commands
 * of one slot; the replies, group by group) and, when the client does not
 * follow redirections in a pipeline itself, how to read the slots again
 * (`refresh()`): then a call told its map is stale sends again, once.
 */
function cluster({ nodeOf, send, scanners, refresh }) {
  const run = async (commands, options = {}) => {
    try {
      return await runOnce(commands, options);
    } catch (e) {
      if (!refresh || !STALE.test(String(e?.message))) throw e;
      // Every command here can be sent twice: the writes set the same values.
      await refresh();
      return runOnce(commands, options);
    }
  };
  const runOnce = async (commands, { atomic = false }) => {
    const bySlot = new Map();
    commands.forEach((command, i) => {
      const slot = slotOf(command.key);
      if (!bySlot.has(slot)) bySlot.set(slot, []);
      bySlot.get(slot).push(i);
    });
    const byNode = new Map();
    for (const [slot, indices] of bySlot) {
      // A client that does not know the slots yet sends each slot on its own.
      const node = nodeOf(slot) ?? `slot ${slot}`;
      if (!byNode.has(node)) byNode.set(node, []);
      byNode.get(node).push({ slot, indices, commands: indices.map((i) => commands[i]) });
    }
    const out = new Array(commands.length);
    await Promise.all([...byNode.values()].map(async (groups) => {
      const answers = await send(groups, atomic);
      groups.forEach(({ indices }, g) => indices.forEach((i, k) => { out[i] = answers[g][k]; }));
    }));
    return out;
  };
  return { run, scanners };
}

/** ioredis `Cluster`: a pipeline per node, with inline MULTIs for atomic groups. */
function ioredisCluster(client) {
  return cluster({
    nodeOf: (slot) => client.slots?.[slot]?.[0],
    async send(groups, atomic) {
      const pipeline = client.pipeline();
      for (const { commands } of groups) {
        if (atomic) pipeline.multi();
        for (const { args } of commands) pipeline.call(...lower(args));
        if (atomic) pipeline.exec();
      }
      const out = replies(await pipeline.exec());
      // In a transaction: MULTI's OK, a QUEUED per command, then EXEC's replies.
      let at = 0;
      return groups.map(({ commands }) => {
        if (!atomic) {
          at += commands.length;
          return out.slice(at - commands.length, at);
        }
        at += commands.length + 2;
        return checked(out[at - 1]);
      });
    },
    scanners: async () => client.nodes('master').map((node) => (args) => node.call(...lower(args))),
    // ioredis follows a redirection in a pipeline only when every command
    // got the same one, and a node it lost stays out of its pool until it
    // reads the slots again.
    refresh: () => new Promise((resolve) => client.refreshSlotsCache(() => resolve())),
  });
}

/**
 * node-redis `createCluster`: a MULTI per slot when atomic, else each
 * command on its own through the cluster client, which follows MOVED and
 * ASK itself. Sent in the same tick, they reach each node's queue together
 * and node-redis writes each queue at once: one round trip per node.
 */
function nodeRedisCluster(client) {
  return cluster({
    nodeOf: (slot) => client.slots?.[slot]?.master?.address,
    async send(groups, atomic) {
      if (atomic) {
        return Promise.all(groups.map(({ commands }) => {
          const multi = client.multi(commands[0].key);
          for (const { key, args } of commands) multi.addCommand(key, false, args.map(String));
          return multi.exec().then(checked);
        }));
      }
      return Promise.all(groups.map(({ commands }) => Promise.all(commands.map(({ key, args }) => client.sendCommand(key, true, args.map(String))))));
    },
    scanners: async () => Promise.all(client.masters.map(async (master) => {
      const node = await client.nodeClient(master);
      return (args) => node.sendCommand(args.map(String));
    })),
  });
}

/**
 * How to talk to `client`: `run(commands, {atomic})` with commands as
 * `{key, args}` gives the replies in order; `scanners()` gives a function
 * per server (per master of a cluster) that runs a command there.
 */
function batches(client) {
  if (client?.isCluster === true && typeof client.pipeline === 'function' && typeof client.nodes === 'function') return ioredisCluster(client);
  if (typeof client?.nodeClient === 'function' && typeof client?.multi === 'function' && 'masters' in client) return nodeRedisCluster(client);
  const one = single(client);
  if (one) return one;
  throw new TypeError('redisStash needs a connected node-redis (`redis`) or `ioredis` client, single or cluster');
}

module.exports = { batches, hashTag, slotOf };
