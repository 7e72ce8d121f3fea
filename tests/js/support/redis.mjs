// Debian's redis-server for the tests: started on a free port of
// 127.0.0.1 with append-only persistence in a folder of its own.
import { spawn } from 'node:child_process';
import net from 'node:net';

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Whether `port` of 127.0.0.1 can be listened on now. */
export function isFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** The `process_id` that the Redis server on `port` reports (`INFO server`), or null. */
export function serverPid(port) {
  return new Promise((resolve) => {
    let reply = '';
    const c = net.connect(port, '127.0.0.1', () => c.write('*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n'));
    const done = (pid) => { c.destroy(); resolve(pid); };
    c.setTimeout(2000, () => done(null));
    c.on('error', () => done(null));
    c.on('data', (d) => {
      reply += d;
      const m = /\r\nprocess_id:(\d+)\r\n/.exec(reply);
      if (m) done(Number(m[1]));
      else if (reply.startsWith('-')) done(null);
    });
  });
}

/**
 * redis-server on `port`, its data in `dir` (and `extra` arguments);
 * resolves with the process once the server answering on `port` is this
 * very process (its `INFO server` names the pid started here), so a test
 * never talks to a server another test started on the same port.
 */
export async function startRedis(port, dir, extra = []) {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '', '--daemonize', 'no', ...extra], { stdio: 'ignore' });
  let exited = false;
  child.once('exit', () => { exited = true; });
  for (let i = 0; i < 100 && !exited; i++) {
    if ((await serverPid(port)) === child.pid) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error(exited ? `redis-server could not start on port ${port} (is another server there?)` : 'redis-server did not start');
}
