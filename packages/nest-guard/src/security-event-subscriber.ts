import { Logger } from '@nestjs/common';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { verifySecurityEvent, type VerifiedSecurityEvent } from './security-event-token.js';
import { KeysUnavailableError, type KeySource } from './verification-keys.js';

/** The stream's state: `live` once the service said the reader is caught up, until it drops. */
export type EventStreamState = 'connecting' | 'live' | 'down' | 'stopped';

export interface EventStreamHealth {
  state: EventStreamState;
  /** The id of the last event (or `ready`) received: where a reconnection resumes. */
  lastEventId: string | null;
  /** Since when the stream is not live (ms since the epoch), null while it is. */
  downSince: number | null;
  /** Events ignored because their signature or content did not verify. */
  rejectedEvents: number;
}

export interface SubscriberOptions {
  url: string;
  authorization: string;
  keys: KeySource;
  onEvent: (event: VerifiedSecurityEvent) => void;
  /** Called when the stream becomes live or stops being so. */
  onState?: (state: EventStreamState) => void;
  /** No byte for this long (the service sends a comment every 15 s) is a dead connection. */
  idleTimeoutMs?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  fetchImpl?: typeof fetch;
}

const DEFAULT_IDLE_TIMEOUT_MS = 35_000;
const DEFAULT_MIN_BACKOFF_MS = 250;
const DEFAULT_MAX_BACKOFF_MS = 30_000;

/**
 * Follows `GET /api/auth/events` with the service's client credentials: every Security Event
 * Token is verified before it counts (a forged or unsigned one is ignored and logged), the id of
 * the last message is sent back as `Last-Event-ID` on reconnection, so nothing missed while away
 * is lost, and a dropped stream is retried with exponential back-off and jitter.
 */
export class SecurityEventSubscriber {
  private readonly logger = new Logger('AuthGuardModule');
  private state: EventStreamState = 'connecting';
  private lastEventId: string | null = null;
  private downSince: number | null = Date.now();
  private rejected = 0;
  private controller: AbortController | undefined;
  private retry: NodeJS.Timeout | undefined;
  private backoffMs: number;
  private hs256Reported = false;

  constructor(private readonly options: SubscriberOptions) {
    this.backoffMs = options.minBackoffMs ?? DEFAULT_MIN_BACKOFF_MS;
  }

  health(): EventStreamHealth {
    return {
      state: this.state,
      lastEventId: this.lastEventId,
      downSince: this.downSince,
      rejectedEvents: this.rejected,
    };
  }

  /** Whether events are known to be up to date within `maxLagMs`. */
  isFresh(maxLagMs: number, now = Date.now()): boolean {
    if (this.state === 'live') return true;
    return this.downSince !== null && this.lastEventId !== null && now - this.downSince < maxLagMs;
  }

  start(): void {
    if (this.state === 'stopped') return;
    void this.connect();
  }

  stop(): void {
    this.setState('stopped');
    clearTimeout(this.retry);
    this.controller?.abort();
  }

  private setState(state: EventStreamState): void {
    if (this.state === state) return;
    const was = this.state;
    this.state = state;
    if (state === 'live') this.downSince = null;
    else if (was === 'live') this.downSince = Date.now();
    this.options.onState?.(state);
  }

  private async connect(): Promise<void> {
    if (this.state === 'stopped') return;
    const controller = new AbortController();
    this.controller = controller;
    let idle: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => controller.abort(new Error('no data within the keep-alive interval')), this.idleTimeout);
    };
    let reason = 'the stream ended';
    try {
      touch();
      const response = await (this.options.fetchImpl ?? fetch)(this.options.url, {
        headers: {
          accept: 'text/event-stream',
          authorization: this.options.authorization,
          ...(this.lastEventId !== null ? { 'last-event-id': this.lastEventId } : {}),
        },
        signal: controller.signal,
      });
      if (response.status === 401)
        throw new Error('the client credentials were refused (check clientId and clientSecret)');
      if (!response.ok || !response.body) throw new Error(`status ${response.status}`);
      if (!response.headers.get('content-type')?.startsWith('text/event-stream'))
        throw new Error('not an event stream');
      let pending = Promise.resolve();
      const parser = createParser({
        onEvent: (message) => {
          // Verification is asynchronous; events are applied one after another, in order.
          pending = pending
            .then(() => this.handle(message))
            .catch((error: unknown) => {
              this.logger.warn(`A security event could not be applied: ${(error as Error).message}`);
              controller.abort(error);
            });
        },
      });
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        touch();
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
      await pending;
    } catch (error) {
      reason =
        controller.signal.aborted && controller.signal.reason instanceof Error
          ? controller.signal.reason.message
          : (error as Error).message;
    } finally {
      clearTimeout(idle);
    }
    if ((this.state as EventStreamState) === 'stopped') return;
    const delay = Math.round(this.backoffMs * (0.5 + Math.random() / 2));
    this.backoffMs = Math.min(this.backoffMs * 2, this.options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS);
    if (this.state === 'live') {
      this.logger.warn(`Security event stream lost (${reason}); reconnecting in ${delay} ms`);
    } else {
      this.logger.warn(`Security event stream unavailable (${reason}); retrying in ${delay} ms`);
    }
    this.setState('down');
    this.retry = setTimeout(() => void this.connect(), delay);
    this.retry.unref();
  }

  private get idleTimeout(): number {
    return this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  }

  private async handle(message: EventSourceMessage): Promise<void> {
    if (this.state === 'stopped') return;
    if (message.event === 'ready') {
      if (message.id !== undefined) this.lastEventId = message.id;
      if (this.state !== 'live') {
        this.logger.log(`Security event stream live (after event ${this.lastEventId ?? 'none'})`);
        this.backoffMs = this.options.minBackoffMs ?? DEFAULT_MIN_BACKOFF_MS;
        this.setState('live');
      }
      return;
    }
    let event: VerifiedSecurityEvent | null;
    try {
      event = await verifySecurityEvent(message.data, this.options.keys);
    } catch (error) {
      if (!(error instanceof KeysUnavailableError)) throw error;
      // Not applied and not skipped: the stream starts again from the last applied event.
      this.controller?.abort(new Error("the service's keys could not be fetched to verify an event"));
      return;
    }
    if (!event || event.name !== message.event) {
      this.rejected++;
      // Without the secret an HS256 service's events cannot be verified here (nor its tokens, which
      // are then introspected behind cacheTtlMs); said once, since it may as well be a forgery.
      if (!event && headerAlgorithm(message.data) === 'HS256' && !this.hs256Reported) {
        this.hs256Reported = true;
        this.logger.error(
          'An HS256-signed event could not be verified: if the auth service signs with HS256, give the guard its `secret`.',
        );
      }
      this.logger.warn(
        `Ignored a security event that does not verify (id ${message.id ?? 'none'}, ${message.event ?? 'message'})`,
      );
      return;
    }
    this.options.onEvent(event);
    if (message.id !== undefined) this.lastEventId = message.id;
  }
}

function headerAlgorithm(jws: string): string | null {
  try {
    return (JSON.parse(Buffer.from(jws.split('.')[0], 'base64url').toString('utf8')) as { alg?: string }).alg ?? null;
  } catch {
    return null;
  }
}
