import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** An open `GET /api/auth/events` as a test reads it: every message, and a way to wait for one. */
export interface SseReader {
  status: number;
  messages: EventSourceMessage[];
  comments: string[];
  /** The first message (at or after `from`) that matches, waiting up to `timeoutMs`. */
  next(match: (message: EventSourceMessage) => boolean, timeoutMs?: number, from?: number): Promise<EventSourceMessage>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseReader> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const messages: EventSourceMessage[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const parser = createParser({
    onEvent: (message) => {
      messages.push(message);
      for (const wake of waiters) wake();
    },
    onComment: (comment) => comments.push(comment),
  });
  if (response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) {
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
          parser.feed(decoder.decode(chunk, { stream: true }));
      } catch {
        // Closed by the test.
      }
    })();
  }
  return {
    status: response.status,
    messages,
    comments,
    next(match, timeoutMs = 5_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.slice(from).find(match);
          if (!found) return false;
          waiters.delete(wake);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const wake = () => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no matching event in ${timeoutMs} ms; got ${JSON.stringify(messages.slice(from))}`));
        }, timeoutMs);
        waiters.add(wake);
        check();
      });
    },
    close: () => controller.abort(),
  };
}
