import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { DatabaseEndpoint } from '../infra/database/database-endpoint.js';
import { DatabaseNotifications } from '../infra/database/database-notifications.js';
import { SecurityEventsRepository, type SecurityEventRow } from './security-events.repository.js';

export type SecurityEventListener = (event: SecurityEventRow) => void;

const PAGE = 500;
/**
 * How often the table is read without a notification: a safety net with LISTEN, the path without.
 * LISTEN can be accepted and still deliver nothing (a pooler in transaction mode, an embedded
 * database served over a socket), so even with it the timer keeps a revocation under a second.
 */
const POLL_WITH_LISTEN_MS = 500;
const POLL_WITHOUT_LISTEN_MS = 200;
const CLEANUP_EVERY_MS = 10 * 60_000;

/**
 * This instance's reader of the security events table, shared by every open stream: it reads by
 * id (so every instance sees every instance's events in one order) when PostgreSQL notifies a
 * commit, and on a short timer where notifications do not arrive. It runs only while a stream is
 * open. Events older than an access token's lifetime are deleted: nothing they concern is alive.
 */
@Injectable()
export class SecurityEventFeed implements OnApplicationShutdown {
  private readonly logger = new Logger('SecurityEvents');
  private readonly listeners = new Set<SecurityEventListener>();
  private lastId: bigint | undefined;
  private starting: Promise<void> | undefined;
  private notifications: DatabaseNotifications | undefined;
  private timer: NodeJS.Timeout | undefined;
  private cleanup: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private readAgain = false;

  constructor(
    private readonly events: SecurityEventsRepository,
    @Inject(DatabaseEndpoint) private readonly endpoint: DatabaseEndpoint,
    private readonly config: AppConfig,
  ) {}

  /** How long events are kept (and replayed): an access token's lifetime. */
  get retentionMs(): number {
    return this.config.jwt.accessTokenTtl * 1000;
  }

  /** Every event committed from now on, in id order, until the returned function is called. */
  async subscribe(listener: SecurityEventListener): Promise<() => void> {
    this.listeners.add(listener);
    try {
      await this.start();
    } catch (error) {
      this.listeners.delete(listener);
      throw error;
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) void this.pause();
    };
  }

  /** Reads now (after a write on this instance, so its streams need not wait for the timer). */
  poke(): void {
    if (this.lastId !== undefined) void this.read();
  }

  async onApplicationShutdown(): Promise<void> {
    this.listeners.clear();
    await this.pause();
  }

  private start(): Promise<void> {
    this.starting ??= (async () => {
      this.lastId = BigInt(await this.events.lastId());
      if (!this.endpoint.embedded) {
        this.notifications = new DatabaseNotifications(this.endpoint.url, 'security_events', () => this.poke());
        this.notifications.start();
      }
      this.schedule();
      this.cleanup = setInterval(() => void this.deleteExpired(), CLEANUP_EVERY_MS);
      this.cleanup.unref();
      void this.deleteExpired();
    })().catch((error: unknown) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  private async pause(): Promise<void> {
    if (!this.starting) return;
    this.starting = undefined;
    this.lastId = undefined;
    clearTimeout(this.timer);
    clearInterval(this.cleanup);
    const notifications = this.notifications;
    this.notifications = undefined;
    await notifications?.stop();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.listeners.size === 0) return;
    const every = this.notifications?.listening ? POLL_WITH_LISTEN_MS : POLL_WITHOUT_LISTEN_MS;
    this.timer = setTimeout(() => void this.read().finally(() => this.schedule()), every);
    this.timer.unref();
  }

  /** One reader at a time; a poke during a read reads once more after it. */
  private read(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.readAgain = false;
        await this.readNew();
      } while (this.readAgain);
      // Cleared here, in the same step as the last check: a poke after it starts a new read.
      this.reading = undefined;
    })();
    return this.reading;
  }

  private async readNew(): Promise<void> {
    try {
      for (;;) {
        if (this.lastId === undefined) return;
        const page = await this.events.findAfter(this.lastId.toString(), PAGE);
        for (const event of page) {
          this.lastId = BigInt(event.id);
          for (const listener of this.listeners) listener(event);
        }
        if (page.length < PAGE) return;
      }
    } catch (error) {
      this.logger.warn(`Security events could not be read: ${(error as Error).message}`);
    }
  }

  private async deleteExpired(): Promise<void> {
    try {
      await this.events.deleteOlderThan(new Date(Date.now() - this.retentionMs - 60_000));
    } catch (error) {
      this.logger.warn(`Old security events could not be deleted: ${(error as Error).message}`);
    }
  }
}
