import { SmsDeliveryError } from './sms-sender.js';

const TIMEOUT_MS = 5000;

/**
 * POSTs with a timeout and one retry on a network error or a 5xx; a 4xx is final. Errors carry the
 * status only, never the body sent (it holds the code).
 */
export async function postWithRetry(
  url: string,
  init: { headers: Record<string, string>; body: string },
): Promise<void> {
  let lastProblem = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const response = await fetch(url, { method: 'POST', ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
      await response.arrayBuffer().catch(() => undefined);
      if (response.ok) return;
      lastProblem = `HTTP ${response.status}`;
      if (response.status < 500) break;
    } catch (error) {
      lastProblem = (error as Error).name === 'TimeoutError' ? 'timeout' : 'network error';
    }
  }
  throw new SmsDeliveryError(`SMS gateway refused the message (${lastProblem})`);
}
