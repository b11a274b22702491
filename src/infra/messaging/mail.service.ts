import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { OutboxKind } from './outbox.repository.js';
import { Outbox } from './outbox.service.js';
import type { MailMessage } from './mail-message.js';

export type { MailMessage };

/** What a mail is about, for the outbox row and the audit trail (never its content). */
export interface MailAbout {
  kind?: OutboxKind;
  userId?: string | null;
  /**
   * The address was chosen by the request (a reset link, an email-change link, a verification
   * mail), not the account's own: the mail goes under the per-recipient limit (RecipientLimiter),
   * at most one per OTP_RESEND_SECONDS and OTP_HOURLY_CAP an hour to that address, whoever asks.
   * Over the limit it is dropped silently, so the answer of the request never shows it.
   */
  perRecipient?: boolean;
}

/**
 * Sends mail without holding the response: the message is queued (encrypted) in the outbox and
 * delivered by the process through SMTP_URL (or the log, outside production) right after.
 */
@Injectable()
export class MailService {
  constructor(private readonly outbox: Outbox) {}

  /**
   * Queues the mail and wakes the sender. It writes through its own connection: call it after
   * your transaction has committed, not inside it (the embedded database would wait forever).
   */
  async send(message: MailMessage, about: MailAbout = {}): Promise<void> {
    await this.outbox.enqueue({
      channel: 'mail',
      kind: about.kind ?? 'notice',
      userId: about.userId ?? null,
      payload: { to: message.to, subject: message.subject, text: message.text, perRecipient: about.perRecipient },
    });
  }

  /**
   * Queues in the caller's transaction; call `dispatch()` once it has committed. `null` queues a
   * stand-in that is never sent, for a flow that must do the same work whether or not an account
   * exists.
   */
  async queue(message: MailMessage | null, about: MailAbout, manager: EntityManager): Promise<void> {
    await this.outbox.enqueue(
      {
        channel: 'mail',
        kind: about.kind ?? 'notice',
        userId: about.userId ?? null,
        payload: message
          ? { to: message.to, subject: message.subject, text: message.text, perRecipient: about.perRecipient }
          : { to: null, subject: '', text: '', perRecipient: about.perRecipient },
      },
      manager,
    );
  }

  /** Starts sending what a committed transaction queued. */
  dispatch(): void {
    this.outbox.wake();
  }
}
