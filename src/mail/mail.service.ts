import { Injectable } from '@nestjs/common';
import type { OutboxKind } from '../outbox/outbox-message.entity.js';
import { Outbox } from '../outbox/outbox.service.js';
import type { MailMessage } from './mail-message.js';

export type { MailMessage };

/** What a mail is about, for the outbox row and the audit trail (never its content). */
export interface MailAbout {
  kind?: OutboxKind;
  userId?: string | null;
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
      payload: { to: message.to, subject: message.subject, text: message.text },
    });
  }
}
