import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { OutboxKind } from './outbox.repository.js';
import { Outbox } from './outbox.service.js';

export interface SmsMessage {
  /** The recipient; null queues a stand-in that is never sent (a mobile of nobody). */
  to: string | null;
  text: string;
  kind: OutboxKind;
  userId: string | null;
  /** The number was chosen by the request: under the per-recipient limit (see MailAbout.perRecipient). */
  perRecipient?: boolean;
}

/**
 * Sends SMS without holding the response, like MailService: the message is queued (encrypted) in
 * the outbox, in the caller's transaction when given one, and delivered by SMS_TRANSPORT after.
 */
@Injectable()
export class SmsService {
  constructor(private readonly outbox: Outbox) {}

  /** With `manager`, call `dispatch()` once the transaction has committed. */
  async send(message: SmsMessage, manager?: EntityManager): Promise<void> {
    await this.outbox.enqueue(
      {
        channel: 'sms',
        kind: message.kind,
        userId: message.userId,
        payload: { to: message.to, text: message.text, perRecipient: message.perRecipient },
      },
      manager,
    );
  }

  /** Starts sending what the caller's committed transaction queued. */
  dispatch(): void {
    this.outbox.wake();
  }
}
