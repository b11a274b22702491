import { Module } from '@nestjs/common';
import { MailTransport } from '../mail/mail-transport.js';
import { smsSenderProvider } from '../sms/sms-sender.provider.js';
import { OutboxCipher } from './outbox-cipher.js';
import { OutboxRepository } from './outbox.repository.js';
import { Outbox } from './outbox.service.js';

/** The queue of outgoing SMS and mail, and the transports that deliver it. */
@Module({
  providers: [Outbox, OutboxRepository, OutboxCipher, MailTransport, smsSenderProvider],
  exports: [Outbox, OutboxRepository],
})
export class OutboxModule {}
