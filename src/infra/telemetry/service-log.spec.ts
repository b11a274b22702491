import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { NestLogLines, ServiceLog } from './service-log.js';

/** A ServiceLog writing JSON lines into an array, and a Fastify app it records. */
function recorded(level: string): { app: FastifyInstance; log: ServiceLog; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const log = new ServiceLog({ level }, output);
  let next = 0;
  const app = Fastify({ genReqId: () => `request-${++next}` });
  log.recordRequests(app);
  return {
    app,
    log,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('ServiceLog', () => {
  it('gives each of several requests served at once its own id on the lines logged while serving it', async () => {
    const { app, log, lines } = recorded('info');
    const nest = new NestLogLines(log);
    app.post('/work', async (request) => {
      const { delay } = request.body as { delay: number };
      nest.log('before the wait', 'Probe');
      await sleep(delay);
      nest.warn('after the wait', 'Probe');
      return { ok: true };
    });
    // The first request waits longest, so its second line comes after the others'.
    const responses = await Promise.all(
      [30, 10, 0].map((delay) => app.inject({ method: 'POST', url: '/work', payload: { delay } })),
    );
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    for (const id of ['request-1', 'request-2', 'request-3']) {
      const mine = lines().filter((line) => line.reqId === id);
      expect(mine.map((line) => line.msg)).toEqual(['before the wait', 'after the wait', 'request completed']);
      expect(mine[2]).toMatchObject({ level: 30, req: { id, method: 'POST', url: '/work' }, res: { statusCode: 200 } });
    }
    nest.log('outside any request', 'Probe');
    expect(lines().at(-1)).toMatchObject({ msg: 'outside any request', context: 'Probe' });
    expect(lines().at(-1)).not.toHaveProperty('reqId');
    await app.close();
  });

  it('writes no request line below its level, and a 503 as a warning', async () => {
    const { app, lines } = recorded('warn');
    app.get('/fine', async () => ({ ok: true }));
    app.get('/away', async (_request, reply) => reply.code(503).send({ ok: false }));
    expect((await app.inject({ method: 'GET', url: '/fine' })).statusCode).toBe(200);
    expect(lines()).toEqual([]);
    expect((await app.inject({ method: 'GET', url: '/away' })).statusCode).toBe(503);
    expect(lines()).toEqual([
      expect.objectContaining({ level: 40, msg: 'request errored', reqId: 'request-2', res: { statusCode: 503 } }),
    ]);
    await app.close();
  });

  it('logs an Error passed to Nest as err, with its message and stack', () => {
    const { log, lines } = recorded('info');
    new NestLogLines(log).error(new Error('went wrong'), 'Probe');
    const [line] = lines();
    expect(line).toMatchObject({ level: 50, context: 'Probe', err: { message: 'went wrong', type: 'Error' } });
    expect(String((line.err as { stack: string }).stack)).toContain('went wrong');
  });

  it("writes Nest's start-up narration at debug, other lines at their own level", () => {
    const { log, lines } = recorded('info');
    const nest = new NestLogLines(log);
    nest.log('Mapped {/api/auth/me, GET} route', 'RouterExplorer');
    nest.log('Nest application successfully started', 'NestApplication');
    expect(lines()).toEqual([expect.objectContaining({ level: 30, context: 'NestApplication' })]);
  });
});
