import { resealEach, type ResealReport } from '../keys/index.js';
import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config.js';
import { MailTransport } from './mail-transport.js';
import { SmsSender } from './sms-sender.js';
import { Transactions } from '../database/transactions.js';
import { OutboxCipher } from './outbox-cipher.js';
import { OutboxObserver } from './outbox-observer.js';
import { OutboxRepository, type ClaimedMessage, type OutboxChannel, type OutboxKind } from './outbox.repository.js';
import { outboxDeliveries } from '../telemetry/service-metrics.js';
import { RecipientLimiter } from './recipient-limiter.js';
import { HttpMessages } from './http-messages.js';
import { IntervalGate } from '../../common/interval-gate.js';

/** What is sealed in a row. A null recipient is a stand-in that is dropped, never sent. */
export interface OutboxPayload {
  to: string | null;
  subject?: string;
  text: string;
  /** The recipient was chosen by a request: the message goes under the per-recipient limit (RecipientLimiter). */
  perRecipient?: boolean;
}

export interface OutboxItem {
  channel: OutboxChannel;
  kind: OutboxKind;
  userId: string | null;
  payload: OutboxPayload;
}

const BATCH_SIZE = 20;
/** A claimed row comes back after this long if its sender died mid-delivery (both transports time out well before). */
const LEASE_SECONDS = 60;
/** Another instance's message is taken over once it is this overdue. */
const ORPHAN_AFTER_SECONDS = 30;
const MAX_RETRY_DELAY_MS = 15 * 60_000;
const KEEP_FINISHED_SECONDS = 24 * 3600;
const SWEEP_INTERVAL_MS = 10 * 60_000;

/**
 * Outgoing SMS, mail and back-channel posts never hold a response: a request queues the message (in its own
 * transaction, or right after it) and this process sends it. Queuing wakes the sender at once;
 * otherwise it polls for retries and for messages of instances that stopped. Failed deliveries are
 * retried with exponential backoff; the last failure is logged and audited, without content.
 */
@Injectable()
export class Outbox implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Outbox');
  /** This process's identity as a sender. */
  private readonly origin = randomUUID();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private wakeRequested = false;
  private stopped = true;
  /** The earliest retry scheduled by the last drain, so a short backoff does not wait for the poll. */
  private nextRetryAt = Infinity;
  /** Finished messages are removed on a drain at most every SWEEP_INTERVAL_MS, the first drain included. */
  private readonly sweeps = new IntervalGate(SWEEP_INTERVAL_MS, 'at once');
  private failing = false;

  constructor(
    private readonly transactions: Transactions,
    private readonly repository: OutboxRepository,
    private readonly cipher: OutboxCipher,
    private readonly sms: SmsSender,
    private readonly mail: MailTransport,
    private readonly observer: OutboxObserver,
    private readonly config: AppConfig,
    private readonly recipients: RecipientLimiter,
    private readonly http: HttpMessages,
  ) {}

  /**
   * Queues a message. Given the request's transaction manager, the row commits or rolls back with
   * that transaction, and the caller calls `wake()` once it has committed.
   */
  async enqueue(item: OutboxItem, manager?: EntityManager): Promise<void> {
    const id = randomUUID();
    const row = {
      id,
      channel: item.channel,
      kind: item.kind,
      userId: item.userId,
      origin: this.origin,
      payload: this.cipher.seal(id, item.payload),
    };
    await this.repository.insert(manager ?? this.transactions.manager, row);
    if (!manager) this.wake();
  }

  /** Sends what is due now, without waiting for the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    this.drainNow();
  }

  onApplicationBootstrap(): void {
    this.stopped = false;
    this.scheduleNext();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private drainNow(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.stopped) return;
      if (this.wakeRequested) this.drainNow();
      else this.scheduleNext();
    });
  }

  private scheduleNext(): void {
    const delay = Math.max(0, Math.min(this.config.outbox.pollMs, this.nextRetryAt - Date.now()));
    this.timer = setTimeout(() => this.drainNow(), delay);
    // A pending poll never keeps the process alive on its own.
    this.timer.unref();
  }

  private async drain(): Promise<void> {
    this.nextRetryAt = Infinity;
    try {
      await this.sweepIfDue();
      do {
        this.wakeRequested = false;
        const batch = await this.repository.claim(this.origin, BATCH_SIZE, LEASE_SECONDS, ORPHAN_AFTER_SECONDS);
        if (this.failing) this.logger.log('The outbox can be read again');
        this.failing = false;
        // A message whose bookkeeping fails (the database went away) comes back when its lease ends.
        await Promise.all(
          batch.map((message) =>
            this.deliver(message).catch((error: unknown) =>
              this.logger.warn(`Outbox message ${message.id} left for later: ${(error as Error).message}`),
            ),
          ),
        );
        if (batch.length < BATCH_SIZE && !this.wakeRequested) return;
      } while (!this.stopped);
    } catch (error) {
      // The database is away: the next poll tries again; one warning per outage.
      if (!this.failing) this.logger.warn(`The outbox cannot be read: ${(error as Error).message}`);
      this.failing = true;
    }
  }

  /**
   * `rotate-data-key`: every payload still waiting that an older key of the ring sealed is sealed
   * again under the first, so that the older key may be dropped.
   */
  async resealPayloads(): Promise<ResealReport> {
    // A row replaced meanwhile was delivered: nothing is left to seal.
    return resealEach(
      await this.repository.findSealed(),
      (row) => this.cipher.openWith(row.id, row.payload),
      (row, opened) => this.repository.replacePayload(row.id, row.payload, this.cipher.seal(row.id, opened.value)),
    );
  }

  private async deliver(message: ClaimedMessage): Promise<void> {
    let payload: OutboxPayload;
    try {
      if (!message.payload) throw new Error('no payload');
      payload = this.cipher.open<OutboxPayload>(message.id, message.payload);
    } catch {
      // Sealed under a key the data key ring no longer holds, or damaged: no attempt can succeed.
      await this.giveUp(message, 'payload cannot be opened');
      return;
    }
    // A stand-in (a flow that does the same work for an unknown account), or a message over its
    // recipient's limit (decided once, on the first attempt: a retry is the same message), is
    // dropped, and counted exactly as a delivered one: no metric tells them apart.
    if (
      payload.to === null ||
      (payload.perRecipient && message.attempts === 1 && !(await this.recipients.admit(message.channel, payload.to)))
    ) {
      await this.repository.finish(message.id, 'dropped');
      outboxDeliveries.inc({ channel: message.channel, kind: message.kind, outcome: 'sent' });
      return;
    }
    try {
      if (message.channel === 'sms') await this.sms.send(payload.to, payload.text);
      else if (message.channel === 'http') await this.http.post(message.kind, payload.to, payload.text);
      else await this.mail.deliver({ to: payload.to, subject: payload.subject ?? '', text: payload.text });
    } catch (error) {
      const reason = describeFailure(error);
      outboxDeliveries.inc({ channel: message.channel, kind: message.kind, outcome: 'failed_attempt' });
      if (message.attempts >= this.config.outbox.maxAttempts) {
        await this.giveUp(message, reason);
      } else {
        const delay = Math.min(MAX_RETRY_DELAY_MS, this.config.outbox.retryBaseMs * 2 ** (message.attempts - 1));
        this.logger.warn(
          `${message.channel} message ${message.id} (${message.kind}) attempt ${message.attempts} failed: ${reason}; next in ${delay} ms`,
        );
        await this.repository.retryLater(message.id, delay, reason);
        this.nextRetryAt = Math.min(this.nextRetryAt, Date.now() + delay);
      }
      return;
    }
    await this.repository.finish(message.id, 'sent');
    outboxDeliveries.inc({ channel: message.channel, kind: message.kind, outcome: 'sent' });
    await this.observer.delivered(message);
  }

  private async giveUp(message: ClaimedMessage, reason: string): Promise<void> {
    await this.repository.finish(message.id, 'failed', reason);
    outboxDeliveries.inc({ channel: message.channel, kind: message.kind, outcome: 'given_up' });
    this.logger.error(
      `${message.channel} message ${message.id} (${message.kind}) not delivered after ${message.attempts} attempts: ${reason}`,
    );
    await this.observer.givenUp(message, reason);
  }

  private async sweepIfDue(): Promise<void> {
    if (!this.sweeps.due()) return;
    await this.repository.deleteFinishedBefore(KEEP_FINISHED_SECONDS);
  }
}

/** What went wrong, without content: transports' messages may quote the recipient or the text. */
function describeFailure(error: unknown): string {
  const { name, message, code, responseCode } = error as {
    name?: string;
    message?: string;
    code?: unknown;
    responseCode?: number;
  };
  // SmsDeliveryError and HttpDeliveryError messages carry the receiver's status only.
  if ((name === 'SmsDeliveryError' || name === 'HttpDeliveryError') && message) return message.slice(0, 200);
  // nodemailer: an error code such as ECONNECTION, and the SMTP reply code.
  const detail = [typeof code === 'string' ? code : undefined, responseCode ? `SMTP ${responseCode}` : undefined]
    .filter(Boolean)
    .join(', ');
  return `${name ?? 'Error'}${detail ? ` (${detail})` : ''}`.slice(0, 200);
}
