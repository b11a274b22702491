import { postWithRetry } from './http-post.js';
import { SmsSender } from './sms-sender.js';

/** POST `{"to": "...", "message": "..."}` to SMS_WEBHOOK_URL. */
export class WebhookSmsSender extends SmsSender {
  constructor(private readonly url: string) {
    super();
  }

  send(to: string, message: string): Promise<void> {
    return postWithRetry(this.url, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to, message }),
    });
  }
}
