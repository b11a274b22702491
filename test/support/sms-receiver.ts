import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSms {
  to: string;
  message: string;
}

/**
 * A real local HTTP server standing in for the SMS gateway of `SMS_TRANSPORT=webhook`: it records
 * every `{to, message}` it is sent, and can be told to fail.
 */
export class SmsReceiver {
  readonly messages: ReceivedSms[] = [];
  failing = false;
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        if (this.failing) {
          res.statusCode = 502;
          res.end();
          return;
        }
        this.messages.push(JSON.parse(body) as ReceivedSms);
        res.statusCode = 200;
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/sms`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  to(mobile: string): ReceivedSms[] {
    return this.messages.filter((sms) => sms.to === mobile);
  }

  /** The code of the latest message to `mobile`: its only run of `length` digits. */
  codeFor(mobile: string, length = 6): string {
    const latest = this.to(mobile).at(-1);
    if (!latest) throw new Error(`no SMS to ${mobile}`);
    const runs = latest.message.match(/\d+/g) ?? [];
    const codes = runs.filter((run) => run.length === length);
    if (codes.length !== 1) throw new Error(`expected one ${length}-digit run in ${JSON.stringify(latest.message)}`);
    return codes[0];
  }
}

/** A different code of the same length. */
export function wrongCode(code: string): string {
  return code.split('').map((digit) => String((Number(digit) + 1) % 10)).join('');
}
