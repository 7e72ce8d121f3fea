// What the calls over messages remember of message objects between calls
// (each stash's own), and those calls as the entry binds them: the main
// module is handed each message's key and answers only the messages it
// changed.
import { snapshot, unchanged } from './snapshot.js';

/** What the memory holds of a message object met once: only that it was met. */
const MET = {};

/**
 * What the main module's calls over messages (compactContext, estimate,
 * expandContext, fitContext) remember of message objects between calls. Beside each message object
 * the memory notes, the first time it is met, only that it was. The second
 * time, the object is read and remembered (key -1 asks the main module for
 * a digest of it), and the memory keeps what was read of it with the
 * digest's key (0 when the core made none: a message compaction may
 * change, read on every call). From then on a message that is, leaf by
 * leaf, what was read is handed over by its key and not read; one that
 * changed is read, and remembered again. A message sent once (a server
 * parses new objects from every request) costs one note and nothing in the
 * main module. A WeakMap: a conversation no longer sent is let go with its
 * messages.
 */
function messageMemory() {
  const read = new WeakMap();
  return {
    /** The key of each message for the main module, and a snapshot of each to be read and remembered. */
    look(messages) {
      const keys = new Float64Array(messages.length);
      const snaps = new Array(messages.length);
      for (let i = 0; i < messages.length; i++) {
        const m = messages[i];
        if (typeof m !== 'object' || m === null) continue;
        const seen = read.get(m);
        if (seen === undefined) read.set(m, MET);
        else if (seen !== MET && unchanged(m, seen.snap)) {
          // Key 0: unchanged, but the core keeps no digest of it.
          keys[i] = seen.key;
        } else {
          snaps[i] = snapshot(m);
          if (snaps[i] !== null) keys[i] = -1;
        }
      }
      return { keys, snaps };
    },
    /** Remembers what was read of each message snapshotted, with the key the main module `learned` for it. */
    learn(messages, snaps, learned) {
      for (let i = 0; i < messages.length; i++) {
        // A message the core made no digest of (it may change it: an
        // inline image) keeps key 0, and is read on every call.
        if (snaps[i] !== undefined) read.set(messages[i], snaps[i] === null ? MET : { snap: snaps[i], key: learned[i] });
      }
    },
  };
}

/** The memory of a call without a stash: nothing is remembered. */
const NONE = Object.freeze({
  look: () => ({ keys: undefined, snaps: [] }),
  learn() {},
});

/**
 * The message memories of the stashes calls are made with, one for each
 * `Stash` object (the main module keeps its side of each with that stash):
 * two stashes share nothing, and a stash no longer held is let go with its
 * memory. A call without a stash remembers nothing.
 */
function stashMemories() {
  const byStash = new WeakMap();
  return {
    /** The memory of the call with `options`. */
    of(options) {
      const stash = options?.stash;
      if (typeof stash !== 'object' || stash === null) return NONE;
      let memory = byStash.get(stash);
      if (memory === undefined) byStash.set(stash, (memory = messageMemory()));
      return memory;
    },
  };
}

/**
 * An asynchronous call of the main module over messages (`call`:
 * `__compactContext`, `__expandContext`, `__fitContext` or
 * `__repairContext`), with the memory of its stash (`memories`, see
 * stashMemories): it answers the indices and values of the messages it
 * changed (each other message is the caller's own), and whatever else the
 * call answers (a repair's refusal).
 */
function rememberingChanges(call, memories) {
  return function (messages, options) {
    if (!Array.isArray(messages)) return call(messages, options, undefined);
    const memory = memories.of(options);
    const { keys, snaps } = memory.look(messages);
    return call(messages, options, keys).then(({ changed, values, report, keys: learned, ...rest }) => {
      memory.learn(messages, snaps, learned);
      const out = messages.slice();
      for (let k = 0; k < changed.length; k++) out[changed[k]] = values[k];
      return { messages: out, report, ...rest };
    });
  };
}

/**
 * `report` saying whether its model is past its end-of-life date: the core
 * knows the date, the host the day (UTC).
 */
function withRetirement(report) {
  const today = new Date().toISOString().slice(0, 10);
  report.pastRetirement = report.modelRetired != null && report.modelRetired <= today;
  return report;
}

/** estimate over the main module, with the memory of its stash (see stashMemories). */
function rememberingEstimate(main, memories) {
  return function estimate(messages, options) {
    if (!Array.isArray(messages)) return withRetirement(main.__estimate(messages, options, undefined).report);
    const memory = memories.of(options);
    const { keys, snaps } = memory.look(messages);
    const { report, keys: learned } = main.__estimate(messages, options, keys);
    memory.learn(messages, snaps, learned);
    return withRetirement(report);
  };
}

export { stashMemories, rememberingChanges, rememberingEstimate };
