import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Transporter } from 'nodemailer';
import { AppConfig } from '../../config/app-config.js';
import type { MailMessage } from './mail-message.js';

/**
 * Hands a mail to SMTP_URL. Without it, outside production, the mail is written to the log so a
 * developer can follow the link; in production it is dropped with a warning that shows no content.
 */
@Injectable()
export class MailTransport implements OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  /** Made with the first mail: nodemailer is loaded only by a service that sends one. */
  private transport?: Promise<Transporter>;

  constructor(private readonly config: AppConfig) {}

  async deliver(message: MailMessage): Promise<void> {
    const smtpUrl = this.config.mail.smtpUrl;
    if (smtpUrl) {
      this.transport ??= import('nodemailer').then(({ default: nodemailer }) =>
        nodemailer.createTransport(smtpUrl, {
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 20_000,
        } as never),
      );
      await (await this.transport).sendMail({ from: this.config.mail.from, ...message });
      return;
    }
    if (this.config.isProduction) {
      this.logger.warn(`SMTP_URL is not set: a mail "${message.subject}" was not sent`);
      return;
    }
    this.logger.log(
      `SMTP_URL is not set; the mail follows.\nTo: ${message.to}\nSubject: ${message.subject}\n\n${message.text}`,
    );
  }

  // After every module's onModuleDestroy, so the outbox has finished its last delivery.
  async onApplicationShutdown(): Promise<void> {
    (await this.transport)?.close();
  }
}
