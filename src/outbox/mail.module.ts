import { Module } from '@nestjs/common';
import { OutboxModule } from './outbox.module.js';
import { MailService } from './mail.service.js';

@Module({ imports: [OutboxModule], providers: [MailService], exports: [MailService] })
export class MailModule {}
