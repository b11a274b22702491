import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { connect, type Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createPGliteSocketServer } from '../../src/infra/database/pglite-socket-server.js';

/** One frontend message of the PostgreSQL protocol: a type letter, a length, a body. */
function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}
const text = (value: string) => Buffer.from(`${value}\0`);
const int16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);
function int32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
}

// The unnamed statement and the unnamed portal, with text parameters and text results.
const parse = (sql: string) => message('P', text(''), text(sql), int16(0));
const bind = (value: string) =>
  message('B', text(''), text(''), int16(0), int16(1), int32(Buffer.byteLength(value)), Buffer.from(value), int16(0));
const describePortal = () => message('D', Buffer.from('P'), text(''));
const execute = () => message('E', text(''), int32(0));
const flush = () => message('H');
const sync = () => message('S');

/**
 * A client that writes protocol messages one by one, as a driver would, so a test decides exactly
 * when each part of an exchange reaches the server.
 */
class RawConnection {
  private received = Buffer.alloc(0);
  private readonly messages: { type: string; body: Buffer }[] = [];
  private wake: () => void = () => undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      while (this.received.length >= 5 && this.received.length >= 1 + this.received.readInt32BE(1)) {
        const end = 1 + this.received.readInt32BE(1);
        this.messages.push({ type: this.received.toString('latin1', 0, 1), body: this.received.subarray(5, end) });
        this.received = this.received.subarray(end);
      }
      this.wake();
    });
  }

  static async open(address: string): Promise<RawConnection> {
    const [host, port] = address.split(':');
    const socket = connect(Number(port), host);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const connection = new RawConnection(socket);
    const params = Buffer.concat([text('user'), text('postgres'), text('database'), text('postgres'), text('')]);
    socket.write(Buffer.concat([int32(params.length + 8), int32(196608), params]));
    await connection.until('Z');
    return connection;
  }

  send(...messages: Buffer[]): void {
    this.socket.write(Buffer.concat(messages));
  }

  /** True once a message of this type has arrived (it stays to be read by `until`). */
  has(type: string): boolean {
    return this.messages.some((received) => received.type === type);
  }

  /** Every message up to and including the first of this type. */
  async until(type: string): Promise<{ type: string; body: Buffer }[]> {
    for (;;) {
      const index = this.messages.findIndex((received) => received.type === type);
      if (index !== -1) return this.messages.splice(0, index + 1);
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Until ReadyForQuery: the text of each value of each row, or the server's error message. */
  async result(): Promise<string[] | string> {
    const received = await this.until('Z');
    const error = received.find((m) => m.type === 'E');
    if (error) return /(?:^|\0)M([^\0]*)/.exec(error.body.toString('utf8'))?.[1] ?? 'error';
    return received
      .filter((m) => m.type === 'D')
      .map((row) => row.body.toString('utf8', 6, 6 + row.body.readInt32BE(2)));
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * Connection A sends Parse (and Flush, so it learns the statement is parsed); connection B then
 * sends a whole parameterised query; only after that does A send its Bind, Execute and Sync.
 * Returns each one's answer.
 */
async function interleave(server: PGLiteSocketServer): Promise<{ a: string[] | string; b: string[] | string }> {
  const a = await RawConnection.open(server.getServerConn());
  const b = await RawConnection.open(server.getServerConn());
  try {
    a.send(parse('SELECT ($1::int + 1)::text'), flush());
    await a.until('1'); // ParseComplete
    b.send(parse("SELECT $1::text || '-b'"), bind('x'), describePortal(), execute(), sync());
    // B's query is either done (its messages ran at once) or waiting in the server's queue.
    while (!b.has('Z') && server.getStats().queuedQueries === 0) await nextTurn();
    a.send(bind('1'), describePortal(), execute(), sync());
    return { a: await a.result(), b: await b.result() };
  } finally {
    a.close();
    b.close();
  }
}

describe("the embedded database's socket server", () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await PGlite.create();
  });
  afterAll(async () => {
    await db.close();
  });

  async function serve(server: PGLiteSocketServer) {
    await server.start();
    try {
      return await interleave(server);
    } finally {
      await server.stop();
    }
  }

  // Why src/infra/database/pglite-socket-server.ts exists. When a newer pglite-socket fails this test,
  // it keeps exchanges apart on its own: drop our wrapper.
  it("pglite-socket's server alone binds a connection's parameters to another connection's statement", async () => {
    const answers = await serve(new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 4 }));
    expect(answers).toEqual({ a: ['1-b'], b: ['x-b'] });
  });

  it("ours runs a connection's Parse, Bind, Execute and Sync with no other connection's message between", async () => {
    const answers = await serve(createPGliteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 4 }));
    expect(answers).toEqual({ a: ['2'], b: ['x-b'] });
  });
});
