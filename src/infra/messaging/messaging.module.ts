import { Module } from '@nestjs/common';
import { MailService } from './mail.service.js';
import { MailTransport } from './mail-transport.js';
import { OutboxCipher } from './outbox-cipher.js';
import { OutboxRepository } from './outbox.repository.js';
import { Outbox } from './outbox.service.js';
import { HttpMessages } from './http-messages.js';
import { RecipientLimiter } from './recipient-limiter.js';
import { smsSenderProvider } from './sms-sender.provider.js';
import { SmsService } from './sms.service.js';

/** The queue of outgoing SMS, mail and back-channel posts, and the transports that deliver them. */
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
    HttpMessages,
  ],
  exports: [Outbox, OutboxRepository, MailService, SmsService, HttpMessages],
})
export class MessagingModule {}
