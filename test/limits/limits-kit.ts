import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomInt } from 'node:crypto';
import request, { type Response } from 'supertest';

/**
 * A client address no other test (and no earlier run, whose counters may still live in Redis)
 * uses: the limits count per address, and the suite's requests all come from 127.0.0.1.
 */
export function uniqueAddress(): string {
  return `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

/** A POST as if from `address` (X-Forwarded-For: it counts only when TRUST_PROXY says so). */
export function postFrom(app: NestFastifyApplication, path: string, body: object, address?: string): Promise<Response> {
  const req = request(app.getHttpServer()).post(path);
  if (address) void req.set('x-forwarded-for', address);
  return req.send(body);
}

/** `count` requests one after another, their statuses in order. */
export async function statuses(count: number, send: (i: number) => Promise<Response>): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < count; i++) result.push((await send(i)).status);
  return result;
}

/** The contract's refusal: 429, `{success: false, error: {code: 'RATE_LIMITED', message}}`, Retry-After in seconds. */
export function expectRateLimited(res: Response, maxRetryAfter = 60): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ success: false, error: { code: 'RATE_LIMITED', message: expect.any(String) } });
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  const seconds = Number(res.headers['retry-after']);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(maxRetryAfter);
}

export const repeat = <T>(value: T, count: number): T[] => Array.from({ length: count }, () => value);
