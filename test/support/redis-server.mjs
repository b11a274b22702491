import { spawn, spawnSync } from 'node:child_process';
import { createServer, connect } from 'node:net';

/**
 * The run's Redis: `TEST_REDIS_URL` when given (a Redis whose databases the tests may empty), else
 * a `redis-server` the run starts on a free loopback port, with nothing saved to disk, and stops
 * at its end. `REDIS_URL` is never read: it names the developer's own Redis, whose databases the
 * suite must not flush.
 */
export async function startTestRedis() {
  if (process.env.TEST_REDIS_URL) return { url: process.env.TEST_REDIS_URL, stop: async () => undefined };
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    throw new Error(
      'The tests need a Redis of their own, and some of its databases are emptied: set TEST_REDIS_URL=redis://HOST:PORT ' +
        '(never your own Redis), or install redis-server so that the run starts one on a free port.',
    );
  }
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--databases', '16'],
    { stdio: 'ignore', detached: false },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function answersPing(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
