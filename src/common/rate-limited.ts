import { AppException } from './app-exception.js';

/** 429 RATE_LIMITED with `Retry-After` in whole seconds (at least 1), as the contract answers every limit. */
export function rateLimited(message: string, retryAfterSeconds: number): AppException {
  return new AppException('RATE_LIMITED', message, undefined, {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
}
