import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { decodeJwt, login, loginTokens, logout, me, refresh, registerUser } from '../support/auth-factory.js';
import request from 'supertest';
import { callerWithRoles } from '../support/rbac-factory.js';
import { useTestApp } from '../support/fixture.js';

/** Every statement the app sends through its connection pool, counted from the last reset. */
function statementCounter(app: NestFastifyApplication): { statements: string[]; reset(): void } {
  const counter = { statements: [] as string[], reset: () => void (counter.statements.length = 0) };
  const logger = app.get(DataSource).logger;
  const logQuery = logger.logQuery.bind(logger);
  logger.logQuery = (query, parameters, runner) => {
    counter.statements.push(query);
    return logQuery(query, parameters, runner);
  };
  return counter;
}

/**
 * What a sign-in and a refresh ask of the database: only what the rules need (the account, the
 * lockout's count, the session, the audit row), no settings read while they are cached, and a
 * refresh without a transaction when nothing races it.
 */
describe('database statements of sign-in and refresh', () => {
  let app: NestFastifyApplication;
  let counter: ReturnType<typeof statementCounter>;

  const fixture = useTestApp({ env: { OUTBOX_POLL_MS: '3600000', SINGLE_INSTANCE: 'true', REDIS_URL: undefined } });
  beforeAll(() => {
    app = fixture.app;
    counter = statementCounter(app);
  });

  /** Registration mails a verification link after it answers: wait for that delivery, which is no request's. */
  async function outboxSettled(userId: string): Promise<void> {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      const [{ pending }] = await fixture.db.query(
        `SELECT count(*)::int AS pending FROM outbox_messages WHERE user_id = $1 AND status = 'pending'`,
        [userId],
      );
      if (pending === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the registration mail was not delivered');
  }

  it('signs in with two statements and no settings read once the settings are cached', async () => {
    const user = await registerUser(app);
    await outboxSettled(user.id);
    await loginTokens(app, user);
    counter.reset();
    const res = await login(app, { email: user.email, password: user.password });
    expect(res.status).toBe(200);
    expect(counter.statements).toHaveLength(2);
    expect(counter.statements.join('\n')).not.toMatch(/FROM "?settings"?/i);
    // Before the hash, one statement reads the account and counts the attempt; after it, one
    // statement writes the session and its audit event and ends the count.
    expect(counter.statements[0]).toMatch(/FROM users u WHERE u\.email = \$1/);
    expect(counter.statements[0]).toMatch(/INSERT INTO login_failures/);
    expect(counter.statements[1]).toMatch(/INSERT INTO sessions/);
    expect(counter.statements[1]).toMatch(/DELETE FROM login_failures/);
    expect(counter.statements[1]).toMatch(/INSERT INTO audit_events/);
    const counts = await fixture.db.query(`SELECT 1 FROM login_failures WHERE subject = $1`, [`user:${user.id}`]);
    expect(counts).toEqual([]);
    const [event] = await fixture.db.query(
      `SELECT type, target_type, target_id FROM audit_events WHERE actor_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [user.id],
    );
    expect(event).toEqual({ type: 'login.success', target_type: 'session', target_id: expect.any(String) });
  });

  it('rotates a refresh token with one statement and no transaction', async () => {
    const user = await registerUser(app);
    await outboxSettled(user.id);
    counter.reset();
    const res = await refresh(app, user.tokens.refresh_token);
    expect(res.status).toBe(200);
    expect(res.body.data.user).toEqual({ id: user.id, name: user.name, email: user.email, mobile: null });
    expect(counter.statements).toHaveLength(1);
    expect(counter.statements.join('\n')).not.toMatch(/START TRANSACTION|FOR UPDATE/i);
    // The rotation's audit event is written by the compare-and-set itself, only when it moved.
    expect(counter.statements[0]).toMatch(/UPDATE sessions[\s\S]*INSERT INTO audit_events[\s\S]*FROM advanced/);
    expect((await me(app, res.body.data.access_token)).status).toBe(200);
    const [event] = await fixture.db.query(
      `SELECT type, target_type, target_id FROM audit_events WHERE actor_id = $1 AND type = 'refresh'`,
      [user.id],
    );
    expect(event).toEqual({ type: 'refresh', target_type: 'session', target_id: expect.any(String) });
  });

  it("carries a changed name and mobile into the refresh's answer, and an email changed meanwhile into the new tokens", async () => {
    const user = await registerUser(app);
    await fixture.db.query(`UPDATE users SET name = 'Renamed Person', mobile = '+4915100000077' WHERE id = $1`, [
      user.id,
    ]);
    const renamed = await refresh(app, user.tokens.refresh_token);
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.user).toEqual({
      id: user.id,
      name: 'Renamed Person',
      email: user.email,
      mobile: '+4915100000077',
    });
    const newEmail = `moved-${user.email}`;
    await fixture.db.query(`UPDATE users SET email = $2 WHERE id = $1`, [user.id, newEmail]);
    const moved = await refresh(app, renamed.body.data.refresh_token);
    expect(moved.status).toBe(200);
    expect(moved.body.data.user.email).toBe(newEmail);
    expect(decodeJwt(moved.body.data.access_token).payload.email).toBe(newEmail);
    expect(decodeJwt(moved.body.data.refresh_token).payload.email).toBe(newEmail);
    // The next rotation, with the new email in the token, is the one-statement kind again.
    counter.reset();
    expect((await refresh(app, moved.body.data.refresh_token)).status).toBe(200);
    expect(counter.statements).toHaveLength(1);
  });

  it('refuses a disabled account at refresh without moving its session, and rotates it again once re-enabled', async () => {
    const user = await registerUser(app);
    await fixture.db.query(`UPDATE users SET disabled_at = now() WHERE id = $1`, [user.id]);
    const refused = await refresh(app, user.tokens.refresh_token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('ACCOUNT_DISABLED');
    const sid = decodeJwt(user.tokens.access_token).payload.sid;
    const [session] = await fixture.db.query(`SELECT generation, revoked_at FROM sessions WHERE id = $1`, [sid]);
    expect(session).toEqual({ generation: 0, revoked_at: null });
    await fixture.db.query(`UPDATE users SET disabled_at = NULL WHERE id = $1`, [user.id]);
    expect((await refresh(app, user.tokens.refresh_token)).status).toBe(200);
  });

  it('answers who-am-I from the caller cache without a statement, and sees a role change and a disabled account at once', async () => {
    const user = await registerUser(app);
    await outboxSettled(user.id);
    expect((await me(app, user.tokens.access_token)).status).toBe(200);
    counter.reset();
    for (let i = 0; i < 3; i++) {
      const res = await me(app, user.tokens.access_token);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: user.id, email: user.email, roles: ['user'] });
    }
    expect(counter.statements).toEqual([]);

    // A change of the account's roles (through the API, which publishes it) applies to the next request.
    const admin = await callerWithRoles(app, fixture.db, ['admin']);
    const [role] = await fixture.db.query(`INSERT INTO roles (name) VALUES ($1) RETURNING id, name`, [
      `me_${Date.now()}`,
    ]);
    const added = await request(app.getHttpServer())
      .post(`/api/admin/users/${user.id}/roles`)
      .set('authorization', `Bearer ${admin.token}`)
      .send({ role_ids: [role.id] });
    expect(added.status).toBe(200);
    expect((await me(app, user.tokens.access_token)).body.data.roles).toEqual(expect.arrayContaining([role.name]));

    const second = await loginTokens(app, user);
    const disabled = await request(app.getHttpServer())
      .post(`/api/admin/users/${user.id}/disable`)
      .set('authorization', `Bearer ${admin.token}`)
      .send({});
    expect(disabled.status).toBe(200);
    expect((await me(app, user.tokens.access_token)).status).toBe(401);
    expect((await me(app, second.access_token)).status).toBe(401);
  });

  it('refuses a logged-out token it answered from the cache a moment before', async () => {
    const user = await registerUser(app);
    expect((await me(app, user.tokens.access_token)).status).toBe(200);
    expect((await me(app, user.tokens.access_token)).status).toBe(200);
    expect((await logout(app, user.tokens.access_token)).status).toBe(200);
    expect((await me(app, user.tokens.access_token)).status).toBe(401);
  });

  it('still treats the rotated token as a replay and revokes the session', async () => {
    const user = await registerUser(app);
    const rotated = await refresh(app, user.tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const replay = await refresh(app, user.tokens.refresh_token);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('REFRESH_TOKEN_REUSED');
    expect((await refresh(app, rotated.body.data.refresh_token)).status).toBe(401);
    expect((await me(app, rotated.body.data.access_token)).status).toBe(401);
  });

  it('lets exactly one of twenty parallel refreshes with one token win', async () => {
    const user = await registerUser(app);
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(app, user.tokens.refresh_token)));
    const statuses = results.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 401)).toHaveLength(19);
    const winner = results.find((res) => res.status === 200)!;
    // A parallel refresh that lost is a replay: the whole session is revoked.
    expect((await refresh(app, winner.body.data.refresh_token)).status).toBe(401);
  });
});
