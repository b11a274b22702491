import { postWithRetry } from './http-post.js';
import { SmsSender } from './sms-sender.js';

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  from: string;
  apiBase: string;
}

/** Twilio's Messages API: form-encoded POST with HTTP basic auth (account SID and auth token). */
export class TwilioSmsSender extends SmsSender {
  constructor(private readonly settings: TwilioSettings) {
    super();
  }

  send(to: string, message: string): Promise<void> {
    const { accountSid, authToken, from, apiBase } = this.settings;
    return postWithRetry(`${apiBase}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`, {
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
      },
      body: new URLSearchParams({ To: to, From: from, Body: message }).toString(),
    });
  }
}
