import { createHash, randomUUID } from 'node:crypto';
import type { AuditRow } from '../../src/audit/index.js';
import { SessionsRepository } from '../../src/sessions/sessions.repository.js';
import { SessionEndings } from '../../src/sessions/session-endings.js';
import { insertUser, useMediumDatabase } from './medium-database.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('refresh rotation on a real database', () => {
  const fixture = useMediumDatabase();
  let sessions: SessionsRepository;
  beforeAll(() => {
    sessions = new SessionsRepository(fixture.db, new SessionEndings());
  });

  /** A live session at generation 0 whose refresh token is `token`. */
  async function newSession(options: { expiresAt?: Date } = {}) {
    const userId = await insertUser(fixture.db);
    const [{ email }]: { email: string }[] = await fixture.db.query(`SELECT email FROM users WHERE id = $1`, [userId]);
    const sessionId = randomUUID();
    const token = `refresh-${randomUUID()}`;
    await sessions.insert({
      id: sessionId,
      userId,
      generation: 0,
      refreshTokenHash: sha256(token),
      expiresAt: options.expiresAt ?? new Date(Date.now() + 3_600_000),
      ip: null,
      userAgent: null,
      authTime: new Date(),
      amr: ['pwd'],
    });
    return { userId, sessionId, email, token };
  }

  /** The rotation a session's first refresh token asks for, before its next hash is chosen. */
  const rotationOf = (s: { sessionId: string; userId: string; token: string; email: string }) => ({
    sessionId: s.sessionId,
    userId: s.userId,
    generation: 0,
    presentedHash: sha256(s.token),
    email: s.email,
  });

  const refreshEvent = (userId: string, sessionId: string): AuditRow => ({
    type: 'refresh',
    actorId: userId,
    targetType: 'session',
    targetId: sessionId,
    ip: null,
    userAgent: null,
    details: {},
  });

  const sessionRow = async (sessionId: string) => {
    const [row]: { generation: number; refresh_token_hash: string; revoked_reason: string | null }[] =
      await fixture.db.query(`SELECT generation, refresh_token_hash, revoked_reason FROM sessions WHERE id = $1`, [
        sessionId,
      ]);
    return row;
  };
  const refreshEvents = async (sessionId: string) => {
    const [{ count }]: { count: number }[] = await fixture.db.query(
      `SELECT count(*)::int AS count FROM audit_events WHERE type = 'refresh' AND target_id = $1`,
      [sessionId],
    );
    return count;
  };

  describe('the compare-and-set', () => {
    it('moves the session to its next generation once, with one audit event', async () => {
      const s = await newSession();
      const rotation = rotationOf(s);
      expect(
        await sessions.advanceGeneration(
          { ...rotation, nextHash: sha256('next') },
          refreshEvent(s.userId, s.sessionId),
        ),
      ).not.toBeNull();
      expect(await sessionRow(s.sessionId)).toEqual({
        generation: 1,
        refresh_token_hash: sha256('next'),
        revoked_reason: null,
      });
      expect(await refreshEvents(s.sessionId)).toBe(1);
    });

    it('of two concurrent rotations of one refresh token, exactly one wins', async () => {
      const s = await newSession();
      const rotation = rotationOf(s);
      const nextHashes = Array.from({ length: 4 }, (_, i) => sha256(`next-${i}`));
      const outcomes = await Promise.all(
        nextHashes.map((nextHash) =>
          sessions.advanceGeneration({ ...rotation, nextHash }, refreshEvent(s.userId, s.sessionId)),
        ),
      );
      expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(1);
      const winner = nextHashes[outcomes.findIndex((outcome) => outcome !== null)];
      expect(await sessionRow(s.sessionId)).toEqual({
        generation: 1,
        refresh_token_hash: winner,
        revoked_reason: null,
      });
      // The losers wrote no event: it is inserted from the update's result.
      expect(await refreshEvents(s.sessionId)).toBe(1);
    });

    it('refuses a token of an earlier generation, and a wrong token of the current one', async () => {
      const s = await newSession();
      const event = refreshEvent(s.userId, s.sessionId);
      const first = rotationOf(s);
      expect(await sessions.advanceGeneration({ ...first, nextHash: sha256('gen-1') }, event)).not.toBeNull();
      // The used token again: the generation has moved on.
      expect(await sessions.advanceGeneration({ ...first, nextHash: sha256('replay') }, event)).toBeNull();
      // The current generation with a token that is not its own.
      expect(
        await sessions.advanceGeneration(
          { ...first, generation: 1, presentedHash: sha256(s.token), nextHash: sha256('forged') },
          event,
        ),
      ).toBeNull();
      expect(await sessionRow(s.sessionId)).toEqual({
        generation: 1,
        refresh_token_hash: sha256('gen-1'),
        revoked_reason: null,
      });
      expect(await refreshEvents(s.sessionId)).toBe(1);
    });

    it('refuses a revoked session, an expired one, and an email that changed meanwhile', async () => {
      const revoked = await newSession();
      await sessions.revoke(fixture.db.manager, { sessionId: revoked.sessionId }, 'logout');
      const expired = await newSession();
      await fixture.db.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        expired.sessionId,
      ]);
      const renamed = await newSession();
      await fixture.db.query(`UPDATE users SET email = $2 WHERE id = $1`, [renamed.userId, `new-${renamed.email}`]);
      const disabled = await newSession();
      await fixture.db.query(`UPDATE users SET disabled_at = now() WHERE id = $1`, [disabled.userId]);
      const disabledForAnHour = await newSession();
      await fixture.db.query(
        `UPDATE users SET disabled_at = now(), disabled_until = now() + interval '1 hour' WHERE id = $1`,
        [disabledForAnHour.userId],
      );

      for (const s of [revoked, expired, renamed, disabled, disabledForAnHour]) {
        const rotation = rotationOf(s);
        expect(
          await sessions.advanceGeneration(
            { ...rotation, nextHash: sha256('next') },
            refreshEvent(s.userId, s.sessionId),
          ),
        ).toBeNull();
        expect((await sessionRow(s.sessionId)).generation).toBe(0);
      }
    });

    it("answers what the new access token needs: the session's proof of presence and the user's name and mobile", async () => {
      const s = await newSession();
      await fixture.db.query(`UPDATE users SET name = 'Ada Rotation', mobile = '+4915100000042' WHERE id = $1`, [
        s.userId,
      ]);
      const [{ authTime }]: { authTime: Date }[] = await fixture.db.query(
        `SELECT auth_time AS "authTime" FROM sessions WHERE id = $1`,
        [s.sessionId],
      );
      const answer = await sessions.advanceGeneration(
        { ...rotationOf(s), nextHash: sha256('next') },
        refreshEvent(s.userId, s.sessionId),
      );
      expect(answer).toEqual({
        authTime,
        amr: ['pwd'],
        clientId: null,
        scope: null,
        audience: null,
        name: 'Ada Rotation',
        mobile: '+4915100000042',
      });
    });

    it("rotates once a disabling with an end has passed, and never another user's session", async () => {
      const s = await newSession();
      await fixture.db.query(
        `UPDATE users SET disabled_at = now() - interval '2 hours', disabled_until = now() - interval '1 hour' WHERE id = $1`,
        [s.userId],
      );
      const other = await newSession();
      const rotation = rotationOf(s);
      // The same session, named with another user's id (and that user's email): nothing moves.
      expect(
        await sessions.advanceGeneration(
          { ...rotation, userId: other.userId, email: other.email, nextHash: sha256('stolen') },
          refreshEvent(other.userId, s.sessionId),
        ),
      ).toBeNull();
      expect(await refreshEvents(s.sessionId)).toBe(0);
      expect(
        await sessions.advanceGeneration(
          { ...rotation, nextHash: sha256('next') },
          refreshEvent(s.userId, s.sessionId),
        ),
      ).not.toBeNull();
      expect((await sessionRow(s.sessionId)).generation).toBe(1);
    });
  });

  describe('the locked path', () => {
    /**
     * The refresh's slow path as the session service runs it: under the row lock, the presented
     * generation and hash either match (rotate) or reveal a reuse (revoke the session).
     */
    const rotateLocked = (sessionId: string, generation: number, token: string, nextToken: string) =>
      fixture.db.transaction(async (manager) => {
        const session = await sessions.findForUpdate(manager, sessionId);
        if (!session || session.revokedAt) return 'invalid';
        if (session.generation !== generation || session.refreshTokenHash !== sha256(token)) {
          await sessions.revoke(manager, { sessionId }, 'refresh_reuse');
          return 'reused';
        }
        await sessions.setGeneration(manager, sessionId, generation + 1, sha256(nextToken));
        return 'rotated';
      });

    it('of two concurrent rotations, one rotates and the other is detected as a reuse', async () => {
      const s = await newSession();
      const outcomes = await Promise.all([
        rotateLocked(s.sessionId, 0, s.token, 'next-a'),
        rotateLocked(s.sessionId, 0, s.token, 'next-b'),
      ]);
      expect([...outcomes].sort()).toEqual(['reused', 'rotated']);
      const row = await sessionRow(s.sessionId);
      expect(row.generation).toBe(1);
      expect(row.revoked_reason).toBe('refresh_reuse');
      expect(await sessions.isLive(fixture.db.manager, s.sessionId)).toBe(false);
    });

    it('a reused token revokes the session, which announces it on the event stream', async () => {
      const s = await newSession();
      expect(await rotateLocked(s.sessionId, 0, s.token, 'gen-1')).toBe('rotated');
      expect(await rotateLocked(s.sessionId, 0, s.token, 'again')).toBe('reused');
      expect(await sessionRow(s.sessionId)).toEqual({
        generation: 1,
        refresh_token_hash: sha256('gen-1'),
        revoked_reason: 'refresh_reuse',
      });
      const events: { type: string; payload: unknown }[] = await fixture.db.query(
        `SELECT type, payload FROM security_events WHERE payload->>'sid' = $1`,
        [s.sessionId],
      );
      expect(events).toEqual([{ type: 'session-revoked', payload: { sid: s.sessionId, sub: s.userId } }]);
      // The current token of the revoked session buys nothing either.
      expect(await rotateLocked(s.sessionId, 1, 'gen-1', 'gen-2')).toBe('invalid');
      expect(
        await sessions.advanceGeneration(
          {
            sessionId: s.sessionId,
            userId: s.userId,
            generation: 1,
            presentedHash: sha256('gen-1'),
            nextHash: sha256('x'),
            email: s.email,
          },
          refreshEvent(s.userId, s.sessionId),
        ),
      ).toBeNull();
    });
  });

  describe('the sign-in statement', () => {
    it("clears the account's failed attempts with the session's insert", async () => {
      const userId = await insertUser(fixture.db);
      await fixture.db.query(`INSERT INTO login_failures (subject, failures, last_attempt_at) VALUES ($1, 4, now())`, [
        `user:${userId}`,
      ]);
      const sessionId = randomUUID();
      await sessions.insert(
        {
          id: sessionId,
          userId,
          generation: 0,
          refreshTokenHash: sha256('t'),
          expiresAt: new Date(Date.now() + 60_000),
          ip: null,
          userAgent: null,
          authTime: new Date(),
          amr: ['pwd'],
        },
        { attemptsOf: `user:${userId}` },
      );
      expect(await sessions.isLive(fixture.db.manager, sessionId)).toBe(true);
      expect(await fixture.db.query(`SELECT 1 FROM login_failures WHERE subject = $1`, [`user:${userId}`])).toEqual([]);
    });
  });
});
