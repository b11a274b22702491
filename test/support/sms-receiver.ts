import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSms {
  to: string;
  message: string;
}

/** How long a test waits for an SMS the service queued: delivery happens after the response. */
const DELIVERY_WAIT_MS = 10_000;

/**
 * A real local HTTP server standing in for the SMS gateway of `SMS_TRANSPORT=webhook`: it records
 * every `{to, message}` it is sent, and can be told to fail or to answer slowly.
 */
export class SmsReceiver {
  readonly messages: ReceivedSms[] = [];
  /** Every request received, delivered or refused. */
  readonly requests: ReceivedSms[] = [];
  failing = false;
  /** The status a failing gateway answers. */
  failStatus = 502;
  /** How long the gateway takes to answer. */
  delayMs = 0;
  private server?: Server;
  private readonly taken = new Map<string, number>();
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const answer = () => {
          const sms = JSON.parse(body) as ReceivedSms;
          this.requests.push(sms);
          if (this.failing) {
            res.statusCode = this.failStatus;
            res.end();
            return;
          }
          this.messages.push(sms);
          res.statusCode = 200;
          res.end('{}');
        };
        if (this.delayMs > 0) setTimeout(answer, this.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/sms`;
    return this;
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  to(mobile: string): ReceivedSms[] {
    return this.messages.filter((sms) => sms.to === mobile);
  }

  /** Resolves with the `count`-th message to `mobile` (1-based), waiting a bounded time for it. */
  async waitFor(mobile: string, count = 1, timeoutMs = DELIVERY_WAIT_MS): Promise<ReceivedSms> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const received = this.to(mobile);
      if (received.length >= count) return received[count - 1];
      if (Date.now() > deadline) throw new Error(`no SMS #${count} to ${mobile} arrived (have ${received.length})`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /**
   * The code of the next message to `mobile` this receiver has not handed out yet (its only run
   * of `length` digits), waiting for it to arrive: the service sends after it has answered.
   */
  async codeFor(mobile: string, length = 6): Promise<string> {
    const next = (this.taken.get(mobile) ?? 0) + 1;
    await this.waitFor(mobile, next);
    // Anything that arrived meanwhile is older than what the caller asks for: take the latest.
    const received = this.to(mobile);
    this.taken.set(mobile, received.length);
    const latest = received.at(-1)!;
    const runs = latest.message.match(/\d+/g) ?? [];
    const codes = runs.filter((run) => run.length === length);
    if (codes.length !== 1) throw new Error(`expected one ${length}-digit run in ${JSON.stringify(latest.message)}`);
    return codes[0];
  }
}

/** A different code of the same length. */
export function wrongCode(code: string): string {
  return code
    .split('')
    .map((digit) => String((Number(digit) + 1) % 10))
    .join('');
}
