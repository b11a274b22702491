import { securityEventClaims, type SecurityEventName } from '@auth-rbac/nest-guard/internal';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config.js';
import { SecurityEventFeed, SecurityEventsRepository, type SecurityEventRow } from '../events/index.js';
import { SigningKeys } from '../sessions/index.js';

/** A comment line this often keeps proxies from closing an idle stream and tells the reader it is alive. */
export const KEEP_ALIVE_MS = 15_000;
const REPLAY_PAGE = 500;
const EVENT_ID = /^\d{1,19}$/;

/**
 * `GET /api/auth/events`: Server-Sent Events, one signed Security Event Token per event, `id:` the
 * event's id. A reader that comes back with `Last-Event-ID` gets every event after it while none
 * of them was deleted (they are kept for an access token's lifetime), else one `reset` first. After the replay an
 * unsigned `ready` (no security content: it only says the reader is caught up), then live events.
 *
 * Keys change with a restart (`rotate-keys`, new variables): the first instance to start with a
 * new signing key tells the readers (`keys-rotated`), so they fetch the key set again. Best
 * effort: a reader also refetches on a `kid` it does not know.
 */
@Injectable()
export class SecurityEventStream implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SecurityEvents');
  /** Open streams, ended at shutdown so that readers move to another instance at once. */
  private readonly open = new Set<FastifyReply['raw']>();

  constructor(
    private readonly feed: SecurityEventFeed,
    private readonly events: SecurityEventsRepository,
    private readonly keys: SigningKeys,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      if (await this.events.appendKeysRotatedUnlessTold(this.keys.currentKid))
        this.logger.log('A new signing key: keys-rotated told to the event stream');
    } catch (error) {
      this.logger.warn(`keys-rotated could not be written: ${(error as Error).message}`);
    }
  }

  onApplicationShutdown(): void {
    for (const raw of this.open) raw.end();
    this.open.clear();
  }

  async stream(clientId: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const raw = reply.raw;
    let live = false;
    let closed = false;
    let sentUpTo = 0n;
    let writing: Promise<void> = Promise.resolve();
    // One write after another, in id order, whatever signing costs.
    const enqueue = (work: () => Promise<void> | void) => {
      writing = writing.then(work).catch((error: unknown) => {
        this.logger.warn(`A security event could not be sent: ${(error as Error).message}`);
        raw.destroy();
      });
      return writing;
    };
    const sendEvent = async (event: SecurityEventRow) => {
      if (closed || BigInt(event.id) <= sentUpTo) return;
      sentUpTo = BigInt(event.id);
      const jws = await this.sign(event.type, event.payload, event.id);
      raw.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${jws}\n\n`);
    };
    // Each stream reads its own events after the last one it sent: the feed only says when to.
    const sendNew = async () => {
      for (;;) {
        const page = await this.events.findAfter(sentUpTo.toString(), REPLAY_PAGE);
        for (const event of page) await sendEvent(event);
        if (page.length < REPLAY_PAGE || closed) return;
      }
    };
    let pullQueued = false;
    const pull = () => {
      if (!live || closed || pullQueued) return;
      pullQueued = true;
      void enqueue(async () => {
        pullQueued = false;
        await sendNew();
      });
    };
    const unsubscribe = await this.feed.subscribe(pull);
    const keepAlive = setInterval(() => void enqueue(() => void raw.write(': keep-alive\n\n')), KEEP_ALIVE_MS);
    this.open.add(raw);
    raw.once('close', () => {
      this.open.delete(raw);
      closed = true;
      clearInterval(keepAlive);
      unsubscribe();
    });

    reply.hijack();
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.write(': events\n\n');
    await enqueue(async () => {
      const newest = BigInt(await this.events.lastId());
      const lastSeen = request.headers['last-event-id'];
      if (typeof lastSeen === 'string' && EVENT_ID.test(lastSeen.trim())) {
        const seen = BigInt(lastSeen.trim());
        // Nothing after `seen` was deleted (deletion goes oldest first), so the replay is complete.
        const oldest = await this.events.oldestId();
        const complete = seen === newest || (seen < newest && oldest !== null && BigInt(oldest) <= seen + 1n);
        sentUpTo = complete ? seen : newest;
        if (!complete) {
          this.logger.log(`Client ${clientId} came back after event ${seen}, no longer kept: reset`);
          raw.write(`id: ${newest}\nevent: reset\ndata: ${await this.sign('reset', {}, newest.toString())}\n\n`);
        }
      } else {
        sentUpTo = newest;
      }
      await sendNew();
      live = true;
      if (!closed) raw.write(`id: ${sentUpTo}\nevent: ready\ndata: {}\n\n`);
    });
    // Anything committed while the replay ran.
    pull();
  }

  private sign(name: SecurityEventName, payload: Record<string, unknown>, id: string): Promise<string> {
    return this.keys.signSecurityEvent({
      iss: this.keys.issuer,
      jti: randomUUID(),
      txn: id,
      ...securityEventClaims(name, payload),
    });
  }
}
