import { Module } from '@nestjs/common';
import { MailService } from './mail.service.js';
import { MailTransport } from './mail-transport.js';
import { OutboxCipher } from './outbox-cipher.js';
import { OutboxRepository } from './outbox.repository.js';
import { Outbox } from './outbox.service.js';
import { RecipientLimiter } from './recipient-limiter.js';
import { smsSenderProvider } from './sms-sender.provider.js';
import { SmsService } from './sms.service.js';

/** The queue of outgoing SMS and mail, and the transports that deliver it. */
@Module({
  providers: [
    Outbox,
    OutboxRepository,
    OutboxCipher,
    MailTransport,
    smsSenderProvider,
    RecipientLimiter,
    MailService,
    SmsService,
  ],
  exports: [Outbox, OutboxRepository, MailService, SmsService],
})
export class MessagingModule {}
