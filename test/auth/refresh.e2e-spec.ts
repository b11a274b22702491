import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHmac } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  decodeJwt,
  loginTokens,
  me,
  refresh,
  registerUser,
  sha256Hex,
  sleep,
  type TokenPair,
} from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';

interface SessionRow {
  generation: number;
  refresh_token_hash: string;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

describe('POST /api/auth/refresh: rotation and reuse detection', () => {
  let app: NestFastifyApplication;
  let db: DataSource;

  const fixture = useTestApp();
  beforeAll(() => void ({ app, db } = fixture));

  const sessionOf = async (tokens: Pick<TokenPair, 'access_token'>): Promise<SessionRow[]> =>
    db.query(`SELECT generation, refresh_token_hash, revoked_at, revoked_reason FROM sessions WHERE id = $1`, [
      decodeJwt(tokens.access_token).payload.sid,
    ]);

  it('rotates: a valid, unused refresh token buys a new working pair', async () => {
    const user = await registerUser(app);
    const res = await refresh(app, user.tokens.refresh_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 900,
        user: { id: user.id, name: user.name, email: user.email, mobile: null },
      },
    });
    expect(res.body.data.refresh_token).not.toBe(user.tokens.refresh_token);
    expect((await me(app, res.body.data.access_token)).status).toBe(200);
    // The session row stores only the hash of the one refresh token that may still be used.
    const [session] = await sessionOf(user.tokens);
    expect(session.generation).toBe(1);
    expect(session.refresh_token_hash).toBe(sha256Hex(res.body.data.refresh_token));
    expect(session.revoked_at).toBeNull();
  });

  it('keeps rotating along a chain: each new refresh token works exactly once', async () => {
    const user = await registerUser(app);
    let current = user.tokens;
    for (let i = 0; i < 4; i += 1) {
      const res = await refresh(app, current.refresh_token);
      expect(res.status).toBe(200);
      current = res.body.data;
    }
    expect((await me(app, current.access_token)).status).toBe(200);
    expect((await sessionOf(current))[0].generation).toBe(4);
  });

  it('login -> refresh -> the old refresh token again is reuse: 401 REFRESH_TOKEN_REUSED, and the new tokens die too', async () => {
    const user = await registerUser(app);
    const first = await loginTokens(app, user);
    const rotated = await refresh(app, first.refresh_token);
    expect(rotated.status).toBe(200);
    const second: TokenPair = rotated.body.data;

    const replay = await refresh(app, first.refresh_token);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({
      success: false,
      error: { code: 'REFRESH_TOKEN_REUSED', message: expect.any(String) },
    });
    expect(replay.headers['set-cookie']).toBeUndefined();

    // Both tokens of the new pair, and the old access token, are dead.
    const newAccess = await me(app, second.access_token);
    expect(newAccess.status).toBe(401);
    expect(newAccess.body.error.code).toBe('UNAUTHENTICATED');
    const newRefresh = await refresh(app, second.refresh_token);
    expect(newRefresh.status).toBe(401);
    expect(newRefresh.body.error.code).toBe('UNAUTHENTICATED');
    expect((await me(app, first.access_token)).status).toBe(401);

    const [session] = await sessionOf(first);
    expect(session.revoked_at).toBeInstanceOf(Date);
    expect(session.revoked_reason).toBe('refresh_reuse');

    // Only that session: the registration's session of the same user is untouched.
    expect((await me(app, user.tokens.access_token)).status).toBe(200);
  });

  it('treats replaying any earlier generation as reuse, not just the last one', async () => {
    const user = await registerUser(app);
    const gen1: TokenPair = (await refresh(app, user.tokens.refresh_token)).body.data;
    const gen2: TokenPair = (await refresh(app, gen1.refresh_token)).body.data;
    const replay = await refresh(app, user.tokens.refresh_token);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('REFRESH_TOKEN_REUSED');
    expect((await me(app, gen2.access_token)).status).toBe(401);
    expect((await refresh(app, gen2.refresh_token)).status).toBe(401);
  });

  it('20 parallel refreshes with one token: exactly one 200, the rest refused as reuse, and no two live tokens remain', async () => {
    const user = await registerUser(app);
    const tokens = await loginTokens(app, user);
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(app, tokens.refresh_token)));

    const winners = results.filter((res) => res.status === 200);
    const losers = results.filter((res) => res.status !== 200);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(19);
    // The first replay to take the row lock is detected as reuse and revokes the session; replays
    // queued behind it find a revoked session, which is a plain 401 UNAUTHENTICATED.
    for (const res of losers) {
      expect(res.status).toBe(401);
      expect(['REFRESH_TOKEN_REUSED', 'UNAUTHENTICATED']).toContain(res.body.error.code);
    }
    expect(losers.filter((res) => res.body.error.code === 'REFRESH_TOKEN_REUSED').length).toBeGreaterThanOrEqual(1);

    // The session row: one generation advanced, holding only the winner's hash, and revoked by
    // the replays (the contract: of two parallel refreshes one wins, the other is reuse).
    const rows = await sessionOf(tokens);
    expect(rows).toHaveLength(1);
    expect(rows[0].generation).toBe(1);
    expect(rows[0].refresh_token_hash).toBe(sha256Hex(winners[0].body.data.refresh_token));
    expect(rows[0].revoked_reason).toBe('refresh_reuse');

    // At most one of the refresh tokens handed out still works (here: none, the session is revoked).
    const returned: string[] = winners.map((res) => res.body.data.refresh_token);
    const working = [];
    for (const token of [...returned, tokens.refresh_token]) {
      if ((await refresh(app, token)).status === 200) working.push(token);
    }
    expect(working.length).toBeLessThanOrEqual(1);
    expect(working).toHaveLength(0);
    expect((await me(app, winners[0].body.data.access_token)).status).toBe(401);
  });

  it("carries the session's end in every refresh token (session_exp), and never signs one past it", async () => {
    const user = await registerUser(app);
    const sid = decodeJwt(user.tokens.access_token).payload.sid;
    const [{ end }]: { end: number }[] = await db.query(
      `SELECT floor(extract(epoch FROM expires_at))::int AS end FROM sessions WHERE id = $1`,
      [sid],
    );
    let current = user.tokens.refresh_token;
    for (let i = 0; i < 3; i += 1) {
      const claims = decodeJwt(current).payload as { session_exp: number; exp: number };
      expect(claims.session_exp).toBe(end);
      expect(claims.exp).toBeLessThanOrEqual(end);
      const res = await refresh(app, current);
      expect(res.status).toBe(200);
      current = res.body.data.refresh_token;
    }
  });

  it('rotates a refresh token issued before it carried session_exp, and its successor carries it', async () => {
    const user = await registerUser(app);
    const sid = decodeJwt(user.tokens.access_token).payload.sid;
    // The token as the service signed it before: the same header and claims, without session_exp,
    // and the session's row holding its hash.
    const { header, payload } = decodeJwt(user.tokens.refresh_token);
    const { session_exp: sessionEnd, ...olderClaims } = payload as Record<string, unknown>;
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
    const signingInput = `${encode(header)}.${encode(olderClaims)}`;
    const older = `${signingInput}.${createHmac('sha256', TEST_JWT_SECRET).update(signingInput).digest('base64url')}`;
    await db.query(`UPDATE sessions SET refresh_token_hash = $2 WHERE id = $1`, [sid, sha256Hex(older)]);

    const res = await refresh(app, older);
    expect(res.status).toBe(200);
    expect((decodeJwt(res.body.data.refresh_token).payload as { session_exp: number }).session_exp).toBe(sessionEnd);
    expect((await refresh(app, res.body.data.refresh_token)).status).toBe(200);
    // Used once, it is a replay like any other.
    const replay = await refresh(app, older);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('REFRESH_TOKEN_REUSED');
  });

  it('does not revoke the session when a token of the wrong type is presented', async () => {
    const user = await registerUser(app);
    const res = await refresh(app, user.tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
    expect((await refresh(app, user.tokens.refresh_token)).status).toBe(200);
  });
});

describe('SESSION_MAX_AGE', () => {
  let app: NestFastifyApplication;

  const fixture = useTestApp({ env: { SESSION_MAX_AGE: '2', DB_POOL_SIZE: '3' } });
  beforeAll(() => void ({ app } = fixture));

  it("stops rotation (and access) once the session's absolute lifetime has passed", async () => {
    const loginStarted = Date.now();
    const user = await registerUser(app);
    // Within the lifetime rotation works, and the refresh token never outlives the session.
    const rotated = await refresh(app, user.tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const claims = decodeJwt(rotated.body.data.refresh_token).payload as { exp: number };
    expect(claims.exp * 1000).toBeLessThanOrEqual(loginStarted + 2000 + 1000);

    await sleep(Math.max(0, loginStarted + 3200 - Date.now()));
    const res = await refresh(app, rotated.body.data.refresh_token);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
    // The access token has 900 s of its own, but its session is over.
    expect((await me(app, rotated.body.data.access_token)).status).toBe(401);
  });
});
