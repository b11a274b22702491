import { AppConfig, ConfigurationError } from '../../config/app-config.js';
import { LogSmsSender } from './log-sms-sender.js';
import { SmsSender } from './sms-sender.js';
import { TwilioSmsSender } from './twilio-sms-sender.js';
import { WebhookSmsSender } from './webhook-sms-sender.js';

/** SMS_TRANSPORT picks the sender; a transport without its settings stops the start. */
export function createSmsSender(config: AppConfig): SmsSender {
  const { sms } = config;
  switch (sms.transport) {
    case 'webhook':
      if (!sms.webhookUrl) throw new ConfigurationError('SMS_TRANSPORT=webhook needs SMS_WEBHOOK_URL.');
      return new WebhookSmsSender(sms.webhookUrl);
    case 'twilio': {
      const { accountSid, authToken, from, apiBase } = sms.twilio;
      if (!accountSid || !authToken || !from) {
        throw new ConfigurationError(
          'SMS_TRANSPORT=twilio needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM.',
        );
      }
      return new TwilioSmsSender({ accountSid, authToken, from, apiBase });
    }
    case 'log':
      return new LogSmsSender();
  }
}

export const smsSenderProvider = { provide: SmsSender, inject: [AppConfig], useFactory: createSmsSender };
