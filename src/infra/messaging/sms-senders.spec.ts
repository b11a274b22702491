import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildAppConfig } from '../../config/app-config.js';
import { parseEnvironment } from '../../config/environment.js';
import { createSmsSender } from './sms-sender.provider.js';
import { SmsDeliveryError } from './sms-sender.js';
import { TwilioSmsSender } from './twilio-sms-sender.js';
import { WebhookSmsSender } from './webhook-sms-sender.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real local HTTP server standing in for the gateway; answers with the given statuses in turn. */
async function gateway(statuses: number[] = [200]) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.statusCode = statuses[Math.min(received.length - 1, statuses.length - 1)];
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('SMS senders', () => {
  it('webhook: POSTs {to, message} as JSON', async () => {
    const gw = await gateway();
    try {
      await new WebhookSmsSender(`${gw.base}/sms`).send('+447700900123', 'Your code is 123456');
      expect(gw.received).toHaveLength(1);
      expect(gw.received[0]).toMatchObject({ method: 'POST', url: '/sms' });
      expect(gw.received[0].headers['content-type']).toBe('application/json');
      expect(JSON.parse(gw.received[0].body)).toEqual({ to: '+447700900123', message: 'Your code is 123456' });
    } finally {
      await gw.close();
    }
  });

  it('webhook: retries once after a 5xx, then succeeds', async () => {
    const gw = await gateway([503, 200]);
    try {
      await new WebhookSmsSender(`${gw.base}/sms`).send('+447700900123', 'code 111111');
      expect(gw.received).toHaveLength(2);
    } finally {
      await gw.close();
    }
  });

  it('webhook: fails after two 5xx, and a 4xx at once, without echoing the message', async () => {
    const failing = await gateway([500]);
    const refusing = await gateway([400]);
    try {
      const error = await new WebhookSmsSender(failing.base)
        .send('+447700900123', 'code 222222')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SmsDeliveryError);
      expect(String((error as Error).message)).not.toContain('222222');
      expect(failing.received).toHaveLength(2);
      await expect(new WebhookSmsSender(refusing.base).send('+447700900123', 'x')).rejects.toBeInstanceOf(
        SmsDeliveryError,
      );
      expect(refusing.received).toHaveLength(1);
    } finally {
      await failing.close();
      await refusing.close();
    }
  });

  it('webhook: a gateway that is down is a delivery error', async () => {
    const gw = await gateway();
    await gw.close();
    await expect(new WebhookSmsSender(gw.base).send('+447700900123', 'x')).rejects.toBeInstanceOf(SmsDeliveryError);
  });

  it('twilio: POSTs the form to the Messages resource of the account with basic auth', async () => {
    const gw = await gateway([201]);
    try {
      await new TwilioSmsSender({
        accountSid: 'AC123',
        authToken: 'tok-secret',
        from: '+15005550006',
        apiBase: gw.base,
      }).send('+447700900123', 'Your code is 654321');
      const [request] = gw.received;
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/2010-04-01/Accounts/AC123/Messages.json');
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from('AC123:tok-secret').toString('base64')}`);
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
        To: '+447700900123',
        From: '+15005550006',
        Body: 'Your code is 654321',
      });
    } finally {
      await gw.close();
    }
  });

  it('is chosen by SMS_TRANSPORT, refusing a transport without its settings', () => {
    const config = (env: Record<string, string>) =>
      buildAppConfig(parseEnvironment({ JWT_SECRET: 'x'.repeat(32), ...env }));
    expect(
      createSmsSender(config({ SMS_TRANSPORT: 'webhook', SMS_WEBHOOK_URL: 'http://127.0.0.1:9/sms' })),
    ).toBeInstanceOf(WebhookSmsSender);
    expect(() => createSmsSender(config({ SMS_TRANSPORT: 'webhook' }))).toThrow(/SMS_WEBHOOK_URL/);
    expect(() => createSmsSender(config({ SMS_TRANSPORT: 'twilio', TWILIO_ACCOUNT_SID: 'AC1' }))).toThrow(
      /TWILIO_AUTH_TOKEN/,
    );
  });
});
