import { Injectable } from '@nestjs/common';
import { OutboxObserver } from '../infra/messaging/outbox-observer.js';
import type { ClaimedMessage } from '../infra/messaging/outbox.repository.js';
import { AuditLog } from './audit-log.service.js';

/** The outbox's deliveries in the audit trail: a login code sent, and any message given up on. */
@Injectable()
export class OutboxAuditing extends OutboxObserver {
  constructor(private readonly audit: AuditLog) {
    super();
  }

  async delivered(message: ClaimedMessage): Promise<void> {
    if (message.kind === 'otp.login') await this.audit.record({ type: 'otp.sent', actorId: message.userId });
  }

  async givenUp(message: ClaimedMessage, reason: string): Promise<void> {
    await this.audit.record({
      type: 'message.undelivered',
      actorId: message.userId,
      details: { channel: message.channel, kind: message.kind, attempts: message.attempts, reason },
    });
  }
}
