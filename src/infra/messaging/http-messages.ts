import { Injectable } from '@nestjs/common';
import type { OutboxKind } from './outbox.repository.js';

/** Makes the form body of an `http` message from its sealed text, at each attempt. */
export type HttpBodyRenderer = (text: string) => Promise<Record<string, string>>;

const TIMEOUT_MS = 5000;

/** A receiver that answered with an error, or did not answer: the status or the error's name only. */
export class HttpDeliveryError extends Error {
  override name = 'HttpDeliveryError';
}

/**
 * The outbox's `http` channel: a form POSTed to a URL a client registered. Its body is made by the
 * capability that queued it (registered here at start, as the back-channel logout's signed token),
 * at each attempt, so a retry carries a fresh `iat` and nothing signed waits in the table.
 */
@Injectable()
export class HttpMessages {
  private readonly renderers = new Map<OutboxKind, HttpBodyRenderer>();

  register(kind: OutboxKind, renderer: HttpBodyRenderer): void {
    this.renderers.set(kind, renderer);
  }

  /** One attempt: a 2xx delivers; anything else throws (the outbox retries with backoff). */
  async post(kind: OutboxKind, url: string, text: string): Promise<void> {
    const renderer = this.renderers.get(kind);
    if (!renderer) throw new HttpDeliveryError(`no body for ${kind}`);
    const body = new URLSearchParams(await renderer(text)).toString();
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new HttpDeliveryError((error as Error).name === 'TimeoutError' ? 'timeout' : 'network error');
    }
    await response.arrayBuffer().catch(() => undefined);
    if (!response.ok) throw new HttpDeliveryError(`HTTP ${response.status}`);
  }
}
