import { Module } from '@nestjs/common';
import { MailTransport } from '../mail/mail-transport.js';
import { smsSenderProvider } from '../sms/sms-sender.provider.js';
import { OutboxCipher } from './outbox-cipher.js';
import { OutboxRepository } from './outbox.repository.js';
import { Outbox } from './outbox.service.js';
import { RecipientLimiter } from './recipient-limiter.js';
import { RateLimitStorageModule } from '../limits/rate-limit-storage.module.js';

/** The queue of outgoing SMS and mail, and the transports that deliver it. */
@Module({
  imports: [RateLimitStorageModule],
  providers: [Outbox, OutboxRepository, OutboxCipher, MailTransport, smsSenderProvider, RecipientLimiter],
  exports: [Outbox, OutboxRepository],
})
export class OutboxModule {}
