import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * pglite-socket's server with our fix for how it shares one PGlite between connections.
 *
 * What upstream does (0.2.17, pinned exactly in package.json): every connection's protocol
 * messages go into one queue and run against PGlite one message at a time. A connection keeps its
 * turn only while PGlite is inside an explicit transaction. But the `pg` driver sends each
 * parameterised query as Parse, Bind, Describe, Execute, Sync, outside any transaction: another
 * connection's Parse in between replaces the unnamed statement the first one then binds, so its
 * query fails ("portal does not exist") or, worse, runs the other connection's statement and
 * answers wrong rows. And when PGlite throws, the queue stops with `processing` still set: no
 * connection is served again.
 *
 * Why we wrap: upstream has neither fixed (electric-sql/pglite issue 1046 and pull request 977 are
 * open, and 0.2.17 is the latest release). This replaces two methods of the server's private queue:
 * a connection keeps its turn from its first extended-protocol message to its Sync (as well as
 * through its transactions), and the queue goes on after a failure.
 *
 * test/database/pglite-socket-server.e2e-spec.ts shows the interleaving, message by message, with
 * upstream's server alone and its absence with this one; test/database/embedded-concurrency.e2e-spec.ts
 * puts many pooled connections through it. When upstream's server alone no longer interleaves,
 * drop this file.
 */
export function createPGliteSocketServer(options: {
  db: PGlite;
  host: string;
  port: number;
  maxConnections: number;
}): PGLiteSocketServer {
  const server = new PGLiteSocketServer(options);
  keepExtendedExchangesTogether(server, options.db);
  return server;
}

/** What the socket server keeps of one protocol message waiting for PGlite. */
interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  resolve(bytes: number): void;
  reject(error: Error): void;
  onData(data: Uint8Array): void;
}

/** The private queue of pglite-socket 0.2.17's server, as far as this file uses it. */
interface SocketServerQueue {
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  processQueue(): Promise<void>;
  clearQueueForHandler(handlerId: number): void;
}

/** Parse, Bind, Describe, Execute, Close, Flush: parts of one extended-protocol exchange, which ends with Sync. */
const MID_EXCHANGE = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((letter) => letter.charCodeAt(0)));

function keepExtendedExchangesTogether(server: PGLiteSocketServer, db: PGlite): void {
  const queue = (server as unknown as { queryQueue?: Partial<SocketServerQueue> }).queryQueue;
  // A new pglite-socket may rename what this relies on: refuse to start rather than serve unfixed.
  if (
    !queue ||
    !Array.isArray(queue.queue) ||
    typeof queue.processQueue !== 'function' ||
    typeof queue.clearQueueForHandler !== 'function'
  ) {
    throw new Error('pglite-socket changed its query queue: review src/infra/database/pglite-socket-server.ts');
  }
  const fixed = queue as SocketServerQueue;
  let exchangeOwner: number | null = null;

  fixed.processQueue = async function processQueue(this: SocketServerQueue): Promise<void> {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner = exchangeOwner ?? (db.isInTransaction() ? this.lastHandlerId : null);
        const index = owner === null ? 0 : this.queue.findIndex((queued) => queued.handlerId === owner);
        // The owner has not sent its next message yet; its arrival restarts the queue.
        if (index === -1) break;
        const [queued] = this.queue.splice(index, 1);
        let bytes = 0;
        try {
          await db.runExclusive(() =>
            db.execProtocolRawStream(queued.message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length;
                queued.onData(data);
              },
            }),
          );
        } catch (error) {
          exchangeOwner = null;
          queued.reject(error as Error);
          continue;
        }
        exchangeOwner = MID_EXCHANGE.has(queued.message[0]) ? queued.handlerId : null;
        this.lastHandlerId = queued.handlerId;
        queued.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  };

  // A connection that closes mid-exchange must not keep the turn it will never use.
  const clearQueueForHandler = fixed.clearQueueForHandler.bind(fixed);
  fixed.clearQueueForHandler = (handlerId: number) => {
    clearQueueForHandler(handlerId);
    if (exchangeOwner === handlerId) {
      exchangeOwner = null;
      void fixed.processQueue();
    }
  };
}
