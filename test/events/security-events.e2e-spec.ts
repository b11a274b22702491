import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { logout } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { callerWithRoles, roleWithPermissions } from '../support/rbac-factory.js';
import { openSse, type SseReader } from '../support/sse-reader.js';
import type { EventSourceMessage } from 'eventsource-parser';

const CLIENT = { id: 'reports', secret: 'reports-secret-0123456789-abcdefghijkl' };
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const AUTH = { authorization: basic(CLIENT.id, CLIENT.secret) };
const SESSION_REVOKED = 'https://schemas.openid.net/secevent/caep/event-type/session-revoked';
const CREDENTIAL_CHANGE = 'https://schemas.openid.net/secevent/caep/event-type/credential-change';
const es256Key = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

const urlOf = async (app: NestFastifyApplication) => (await app.getUrl()).replace('[::1]', '127.0.0.1');

describe('GET /api/auth/events: signed security events, from every instance, with replay', () => {
  const fixture = useTestApp({
    instances: 2,
    listen: true,
    env: { SERVICE_CLIENTS: `${CLIENT.id}:${CLIENT.secret}`, JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: es256Key() },
  });
  let apps: NestFastifyApplication[];
  let db: DataSource;
  const readers: SseReader[] = [];
  beforeAll(() => void ({ apps, db } = fixture));
  afterEach(() => readers.splice(0).forEach((reader) => reader.close()));

  const open = async (app: NestFastifyApplication, headers: Record<string, string> = AUTH) => {
    const reader = await openSse(`${await urlOf(app)}/api/auth/events`, headers);
    readers.push(reader);
    return reader;
  };
  const verified = async (message: EventSourceMessage): Promise<JWTPayload> => {
    const jwks = (await request(apps[0].getHttpServer()).get('/.well-known/jwks.json')).body;
    const { payload, protectedHeader } = await jwtVerify(message.data, createLocalJWKSet(jwks), {
      typ: 'secevent+jwt',
    });
    expect(protectedHeader.kid).toEqual(expect.any(String));
    return payload;
  };

  it('refuses a caller without client credentials, or with wrong ones', async () => {
    for (const headers of [{}, { authorization: basic(CLIENT.id, 'wrong-secret') }]) {
      const res = await fetch(`${await urlOf(apps[0])}/api/auth/events`, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        success: false,
        error: { code: 'UNAUTHENTICATED', message: 'Client authentication failed.' },
      });
    }
  });

  it('streams a logout on one instance to a reader of the other, as a signed SET with id, kid, iat, jti, iss', async () => {
    const reader = await open(apps[0]);
    expect(reader.status).toBe(200);
    await reader.next((message) => message.event === 'ready');
    const person = await callerWithRoles(apps[1], db, ['user']);
    const sid = (JSON.parse(Buffer.from(person.token.split('.')[1], 'base64url').toString()) as { sid: string }).sid;
    expect((await logout(apps[1], person.token)).status).toBe(200);
    const message = await reader.next((m) => m.event === 'session-revoked' && m.data.length > 0, 3_000);
    expect(message.id).toMatch(/^\d+$/);
    expect(decodeProtectedHeader(message.data)).toMatchObject({ alg: 'ES256', typ: 'secevent+jwt' });
    const claims = await verified(message);
    expect(claims).toMatchObject({
      iat: expect.any(Number),
      jti: expect.any(String),
      iss: expect.any(String),
      events: { [SESSION_REVOKED]: { sid, sub: person.id } },
    });
    expect(claims.exp).toBeUndefined();
  });

  // Ids 2 to 31 cross a digit boundary: a read sorted by the id as text sent "10" before "2" and
  // then skipped 2 to 9 (docs/events.md, "Departures and limits").
  it('streams every one of many concurrent logouts on two instances, each once, in id order', async () => {
    const reader = await open(apps[0]);
    const from = (await reader.next((message) => message.event === 'ready')) && reader.messages.length;
    const people = await Promise.all(Array.from({ length: 30 }, (_, i) => callerWithRoles(apps[i % 2], db, ['user'])));
    const statuses = await Promise.all(people.map((person, i) => logout(apps[i % 2], person.token)));
    expect(new Set(statuses.map((res) => res.status))).toEqual(new Set([200]));
    await reader.next(
      () => reader.messages.slice(from).filter((message) => message.event === 'session-revoked').length >= 30,
      10_000,
    );
    const told = reader.messages.slice(from).filter((message) => message.event === 'session-revoked');
    const subs = await Promise.all(
      told.map(
        async (message) => Object.values((await verified(message)).events as Record<string, { sub: string }>)[0].sub,
      ),
    );
    expect(new Set(subs)).toEqual(new Set(people.map((person) => person.id)));
    const ids = told.map((message) => BigInt(message.id!));
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
    const stored: { id: string }[] = await db.query(
      `SELECT id::text AS id FROM security_events WHERE type = 'session-revoked' AND payload->>'sub' = ANY($1)`,
      [people.map((person) => person.id)],
    );
    expect(stored).toHaveLength(30);
  });

  it('tells a role assignment and a role change, in id order', async () => {
    const reader = await open(apps[1]);
    await reader.next((message) => message.event === 'ready');
    const admin = await callerWithRoles(apps[0], db, ['admin']);
    const person = await callerWithRoles(apps[0], db, ['user']);
    const role = await roleWithPermissions(db, ['contents.view']);
    const server = apps[0].getHttpServer();
    expect(
      (
        await request(server)
          .post(`/api/admin/users/${person.id}/roles`)
          .set('authorization', `Bearer ${admin.token}`)
          .send({ role_ids: [role.id] })
      ).status,
    ).toBe(200);
    expect(
      (
        await request(server)
          .put(`/api/admin/roles/${role.id}`)
          .set('authorization', `Bearer ${admin.token}`)
          .send({ permission_ids: [] })
      ).status,
    ).toBe(200);
    const assignment = await reader.next((m) => m.event === 'assignment-change');
    expect((await verified(assignment)).events).toEqual({
      'urn:auth-rbac:secevent:assignment-change': { sub: person.id },
    });
    const roleChange = await reader.next((m) => m.event === 'role-change');
    expect((await verified(roleChange)).events).toEqual({ 'urn:auth-rbac:secevent:role-change': { role: role.name } });
    expect(BigInt(roleChange.id!)).toBeGreaterThan(BigInt(assignment.id!));
  });

  it('tells the end of every session of a user as a credential-change with not_before', async () => {
    const reader = await open(apps[0]);
    await reader.next((message) => message.event === 'ready');
    const admin = await callerWithRoles(apps[0], db, ['admin']);
    const person = await callerWithRoles(apps[0], db, ['user']);
    const before = Math.floor(Date.now() / 1000);
    const res = await request(apps[0].getHttpServer())
      .delete(`/api/admin/users/${person.id}/sessions`)
      .set('authorization', `Bearer ${admin.token}`);
    expect(res.status).toBe(200);
    const message = await reader.next((m) => m.event === 'credential-change');
    const claims = await verified(message);
    const told = (claims.events as Record<string, { sub: string; not_before: number }>)[CREDENTIAL_CHANGE];
    expect(told.sub).toBe(person.id);
    expect(told.not_before).toBeGreaterThanOrEqual(before);
  });

  it('tells a new signing key once (keys-rotated, with its kid), whichever instance starts first', async () => {
    const reader = await open(apps[1], { ...AUTH, 'last-event-id': '0' });
    await reader.next((message) => message.event === 'ready');
    const told = reader.messages.filter((message) => message.event === 'keys-rotated');
    expect(told).toHaveLength(1);
    const { keys } = (await request(apps[0].getHttpServer()).get('/.well-known/jwks.json')).body as {
      keys: { kid: string }[];
    };
    expect((await verified(told[0])).events).toEqual({
      'urn:auth-rbac:secevent:keys-rotated': { kid: keys[0].kid },
    });
  });

  it('replays what a reader missed after Last-Event-ID, and answers an unknown one with reset', async () => {
    const first = await open(apps[0]);
    const ready = await first.next((message) => message.event === 'ready');
    first.close();
    const a = await callerWithRoles(apps[1], db, ['user']);
    const b = await callerWithRoles(apps[1], db, ['user']);
    await logout(apps[1], a.token);
    await logout(apps[1], b.token);
    const again = await open(apps[1], { ...AUTH, 'last-event-id': ready.id! });
    const readyAgain = await again.next((message) => message.event === 'ready');
    const replayed = again.messages.filter((message) => message.event === 'session-revoked');
    const subs = await Promise.all(
      replayed.map(
        async (message) => Object.values((await verified(message)).events as Record<string, { sub: string }>)[0].sub,
      ),
    );
    expect(subs).toEqual([a.id, b.id]);
    expect(BigInt(readyAgain.id!)).toBeGreaterThanOrEqual(BigInt(replayed[1].id!));

    const lost = await open(apps[0], { ...AUTH, 'last-event-id': '1' });
    // Event 2, which a reader that saw 1 has not seen, is gone (older than an access token's life).
    await db.query(`DELETE FROM security_events WHERE id <= 2`);
    const lostAgain = await open(apps[0], { ...AUTH, 'last-event-id': '1' });
    lost.close();
    const reset = await lostAgain.next((message) => message.event === 'reset');
    expect(Object.keys((await verified(reset)).events as object)).toEqual(['urn:auth-rbac:secevent:reset']);
  });

  it('lists the permission names to a client, and to nobody else', async () => {
    const server = apps[0].getHttpServer();
    expect((await request(server).get('/api/auth/permissions')).status).toBe(401);
    const res = await request(server).get('/api/auth/permissions').set(AUTH);
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual(expect.arrayContaining(['contents.view', 'users.edit']));
    expect(res.body.data.total).toBe(res.body.data.items.length);
  });
});
