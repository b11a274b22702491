import { Logger } from '@nestjs/common';
import { SmsSender } from './sms-sender.js';

/** Development: the message, code included, goes to the log instead of a phone. */
export class LogSmsSender extends SmsSender {
  private readonly logger = new Logger('Sms');

  async send(to: string, message: string): Promise<void> {
    this.logger.log(`SMS to ${to}: ${message}`);
  }
}
