import { Logger } from '@nestjs/common';
import pg from 'pg';

/**
 * One dedicated connection that LISTENs on a channel (PostgreSQL NOTIFY, delivered at commit to
 * every listener on every instance). It reconnects after a second when the connection drops;
 * `onNotify` is also called at every (re)connection, since anything sent while it was away is lost.
 * The embedded database does not deliver notifications across its socket: callers poll there.
 */
export class DatabaseNotifications {
  private readonly logger = new Logger('DatabaseNotifications');
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly onNotify: () => void,
  ) {
    if (!/^[a-z_]+$/.test(channel)) throw new Error('A channel name is lower-case letters and underscores.');
  }

  /** Whether the connection is up now (notifications arrive). */
  get listening(): boolean {
    return this.client !== undefined;
  }

  start(): void {
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.url });
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      if (error) this.logger.warn(`LISTEN ${this.channel} lost: ${error.message}; reconnecting`);
      void client.end().catch(() => undefined);
      this.schedule();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', () => this.onNotify());
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
      if (this.stopped) {
        await client.end();
        return;
      }
      this.client = client;
      this.onNotify();
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.logger.warn(`LISTEN ${this.channel} failed: ${(error as Error).message}; retrying`);
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.connect(), 1000);
    this.retry.unref();
  }
}
