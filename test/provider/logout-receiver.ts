import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from '../support/auth-factory.js';

/** A POST the receiver was sent: its content type and its form. */
export interface ReceivedLogout {
  contentType: string | undefined;
  form: URLSearchParams;
}

/**
 * A relying party's back-channel logout endpoint (OpenID Back-Channel Logout 1.0 §2.5) on a
 * loopback port: it records every POST, and answers `failures` of them with 503 first.
 */
export class LogoutReceiver {
  readonly received: ReceivedLogout[] = [];
  /** Requests answered 503 (a receiver that is down for a moment). */
  refused = 0;
  failures = 0;
  private server?: Server;
  url = '';

  async start(path = '/backchannel-logout'): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== path) {
          res.statusCode = 404;
          res.end();
          return;
        }
        if (this.failures > 0) {
          this.failures -= 1;
          this.refused += 1;
          res.statusCode = 503;
          res.end();
          return;
        }
        this.received.push({ contentType: req.headers['content-type'], form: new URLSearchParams(body) });
        res.statusCode = 200;
        res.setHeader('cache-control', 'no-store');
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
    return this;
  }

  /** The logout tokens received so far whose payload matches, waited for up to `ms` (the contract's 5 s). */
  async waitFor(match: (payload: Record<string, unknown>) => boolean, ms = 5_000): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      for (const { form } of this.received) {
        const token = form.get('logout_token');
        if (!token) continue;
        const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
        if (match(payload)) return token;
      }
      if (Date.now() > deadline) throw new Error(`no matching logout token within ${ms} ms`);
      await sleep(25);
    }
  }

  /** Every logout token received whose payload matches. */
  tokensFor(match: (payload: Record<string, unknown>) => boolean): string[] {
    return this.received
      .map(({ form }) => form.get('logout_token'))
      .filter((token): token is string => token !== null)
      .filter((token) => match(JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString())));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
