import { jest } from '@jest/globals';
import { HttpException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { VerifiedAccessToken } from './access-token.js';
import type { PrincipalRecord } from './auth-guard.options.js';
import { EventDrivenPrincipalSource } from './event-driven-principal-source.js';
import { PrincipalSource } from './principal-source.base.js';
import type { SecurityEventSubscriber } from './security-event-subscriber.js';
import type { VerifiedSecurityEvent } from './security-event-token.js';

const claimsFor = (userId: string = randomUUID(), issuedAt = Math.floor(Date.now() / 1000)): VerifiedAccessToken => ({
  userId,
  kind: 'person',
  digest: randomUUID(),
  sessionId: randomUUID(),
  email: 'a@example.com',
  expiresAt: Date.now() + 60_000,
  issuedAt,
});

const recordOf = (claims: VerifiedAccessToken, roles = ['user']): PrincipalRecord => ({
  id: claims.userId,
  sessionId: claims.sessionId,
  email: claims.email,
  name: 'Ada',
  roles,
  permissions: ['contents.view'],
});

function setUp(options: { fresh?: boolean; failClosed?: boolean } = {}) {
  let fresh = options.fresh ?? true;
  const calls: string[] = [];
  const fallbackCalls: string[] = [];
  const subscriber = {
    isFresh: () => fresh,
    health: () => ({ state: fresh ? 'live' : 'down', lastEventId: null, downSince: null, rejectedEvents: 0 }),
  } as unknown as SecurityEventSubscriber;
  const roles = new Map<string, string[]>();
  const byToken = new Map<string, VerifiedAccessToken>();
  const fallback = new (class extends PrincipalSource {
    async load(token: string) {
      fallbackCalls.push(token);
      return recordOf(byToken.get(token)!);
    }
  })();
  const forgotten: VerifiedSecurityEvent[] = [];
  const source = new EventDrivenPrincipalSource({
    load: async (token, claims) => (calls.push(token), recordOf(claims!, roles.get(claims!.userId))),
    fallback,
    subscriber,
    maxEventLagMs: 2000,
    failClosed: options.failClosed ?? false,
    maxEntries: 3,
    verifiedTokens: { forget: (event) => forgotten.push(event) },
  });
  const token = (claims: VerifiedAccessToken, userRoles?: string[]) => {
    const value = `token-${randomUUID()}`;
    byToken.set(value, claims);
    if (userRoles) roles.set(claims.userId, userRoles);
    return value;
  };
  return { source, calls, fallbackCalls, forgotten, token, setFresh: (value: boolean) => (fresh = value) };
}

describe('EventDrivenPrincipalSource', () => {
  it('looks a caller up once, then answers without a call; concurrent first requests share it', async () => {
    const { source, calls, token } = setUp();
    const claims = claimsFor();
    const t = token(claims);
    await Promise.all([source.load(t, claims), source.load(t, claims)]);
    for (let i = 0; i < 10; i++) await expect(source.load(t, claims)).resolves.toMatchObject({ id: claims.userId });
    expect(calls).toHaveLength(1);
  });

  it('refuses a revoked session and tokens issued before not_before without a call', async () => {
    const { source, calls, token } = setUp();
    const claims = claimsFor();
    const t = token(claims);
    await source.load(t, claims);
    source.apply({ name: 'session-revoked', sid: claims.sessionId, sub: claims.userId });
    await expect(source.load(t, claims)).resolves.toBeNull();
    const older = claimsFor(randomUUID(), 1000);
    const newer = claimsFor(older.userId, 2000);
    source.apply({ name: 'credential-change', sub: older.userId, notBefore: 2000 });
    await expect(source.load(token(older), older)).resolves.toBeNull();
    await expect(source.load(token(newer), newer)).resolves.toMatchObject({ id: older.userId });
    expect(calls).toHaveLength(2);
  });

  it('looks a caller up again after an assignment-change, a role-change of a role it holds, or a reset', async () => {
    const { source, calls, token } = setUp();
    const claims = claimsFor();
    const t = token(claims, ['editors']);
    await source.load(t, claims);
    source.apply({ name: 'role-change', role: 'other' });
    await source.load(t, claims);
    expect(calls).toHaveLength(1);
    source.apply({ name: 'role-change', role: 'editors' });
    await source.load(t, claims);
    source.apply({ name: 'assignment-change', sub: claims.userId });
    await source.load(t, claims);
    source.apply({ name: 'reset' });
    await source.load(t, claims);
    expect(calls).toHaveLength(4);
  });

  it('hands every event to the verifier too, so it drops the tokens a revocation concerns', async () => {
    const { source, forgotten } = setUp();
    const events: VerifiedSecurityEvent[] = [
      { name: 'session-revoked', sid: randomUUID(), sub: randomUUID() },
      { name: 'credential-change', sub: randomUUID(), notBefore: 1 },
      { name: 'keys-rotated' },
    ];
    for (const event of events) source.apply(event);
    expect(forgotten).toEqual(events);
  });

  it("answers a caller from memory only until its token's exp", async () => {
    const { source, calls, token } = setUp();
    const claims = claimsFor();
    const t = token(claims);
    await source.load(t, claims);
    const now = jest.spyOn(Date, 'now').mockReturnValue(claims.expiresAt - 1);
    try {
      await source.load(t, claims);
      expect(calls).toHaveLength(1);
      now.mockReturnValue(claims.expiresAt);
      await source.load(t, claims);
      expect(calls).toHaveLength(2);
    } finally {
      now.mockRestore();
    }
  });

  it('keeps at most maxEntries callers', async () => {
    const { source, token } = setUp();
    for (let i = 0; i < 10; i++) {
      const claims = claimsFor();
      await source.load(token(claims), claims);
    }
    expect(source.health().cachedCallers).toBe(3);
  });

  it('uses the fallback while the stream lags, or answers 503 under failClosed', async () => {
    const open = setUp({ fresh: false });
    const claims = claimsFor();
    const t = open.token(claims);
    await expect(open.source.load(t, claims)).resolves.toMatchObject({ id: claims.userId });
    expect(open.fallbackCalls).toEqual([t]);
    expect(open.calls).toEqual([]);
    const closed = setUp({ fresh: false, failClosed: true });
    const error = await closed.source.load(closed.token(claims), claims).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HttpException);
    expect((error as HttpException).getStatus()).toBe(503);
  });

  it('tells a known caller, and a revoked one, at once; nothing while unknown, expired or lagging', async () => {
    const { source, calls, token, setFresh } = setUp();
    const claims = claimsFor();
    const t = token(claims);
    expect(source.known(t, claims)).toBeUndefined();
    await source.load(t, claims);
    expect(source.known(t, claims)).toMatchObject({ id: claims.userId, sessionId: claims.sessionId });
    setFresh(false);
    expect(source.known(t, claims)).toBeUndefined();
    setFresh(true);
    const now = jest.spyOn(Date, 'now').mockReturnValue(claims.expiresAt);
    try {
      expect(source.known(t, claims)).toBeUndefined();
    } finally {
      now.mockRestore();
    }
    source.apply({ name: 'assignment-change', sub: claims.userId });
    expect(source.known(t, claims)).toBeUndefined();
    await source.load(t, claims);
    source.apply({ name: 'session-revoked', sid: claims.sessionId, sub: claims.userId });
    expect(source.known(t, claims)).toBeNull();
    const older = claimsFor(randomUUID(), 1000);
    source.apply({ name: 'credential-change', sub: older.userId, notBefore: 2000 });
    expect(source.known(token(older), older)).toBeNull();
    expect(calls).toHaveLength(2);
  });
});
