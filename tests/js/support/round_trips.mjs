// Round trips as the wire shows them, counted on the client's sockets: a
// socket that writes after it last received (or writes first) begins one.
// Commands a client pipelines are written before any reply arrives, so
// they count once; commands sent one `await` at a time count each. A client
// that fills its socket's buffer writes the rest after `drain`, with replies
// coming in between: those counts mean nothing, and `flowControlled()`
// says it happened (tests keep their payloads small).
import net from 'node:net';

/**
 * Starts counting the sockets of this process to `ports` (all when not
 * given); `counts()` gives
 * {server port: round trips} since the last `reset()`; `stop()` ends it.
 */
export function countRoundTrips(ports) {
  const waiting = new WeakSet();
  let counts = new Map();
  let full = false;
  const { write, emit } = net.Socket.prototype;
  net.Socket.prototype.write = function (...args) {
    if (!waiting.has(this) && (!ports || ports.includes(this.remotePort))) {
      waiting.add(this);
      counts.set(this.remotePort, (counts.get(this.remotePort) ?? 0) + 1);
    }
    const out = write.apply(this, args);
    if (this.writableNeedDrain) full = true;
    return out;
  };
  net.Socket.prototype.emit = function (event, ...args) {
    if (event === 'data') waiting.delete(this);
    return emit.call(this, event, ...args);
  };
  return {
    counts: () => Object.fromEntries([...counts].sort(([a], [b]) => a - b)),
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    flowControlled: () => full,
    reset: () => { counts = new Map(); full = false; },
    stop: () => Object.assign(net.Socket.prototype, { write, emit }),
  };
}
