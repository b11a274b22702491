import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DataSource } from 'typeorm';
import { refresh, registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { call, callerWithPermissions } from '../support/rbac-factory.js';

interface ListedSession {
  id: string;
  created_at: string;
  last_used_at: string | null;
}

/** A session's "last used" starts at its sign-in and moves with each refresh. */
describe('a session’s last use', () => {
  const fixture = useTestApp();
  let app: NestFastifyApplication;
  let db: DataSource;
  beforeAll(() => void ({ app, db } = fixture));

  it('is the sign-in time for a new session, in the holder’s list and an administrator’s', async () => {
    const user = await registerUser(app);
    const own = await call(app, 'get', '/api/account/sessions', user.tokens.access_token);
    expect(own.status).toBe(200);
    const [session]: ListedSession[] = own.body.data.items;
    expect(session.last_used_at).not.toBeNull();
    expect(Date.parse(session.last_used_at!)).toBeGreaterThanOrEqual(Date.parse(session.created_at));

    const editor = await callerWithPermissions(app, db, ['users.view', 'users.edit']);
    const listed = await call(app, 'get', `/api/admin/users/${user.id}/sessions`, editor.token);
    expect(listed.status).toBe(200);
    expect(listed.body.data.items.map((item: ListedSession) => item.last_used_at)).toEqual([session.last_used_at]);
  });

  it('moves forward when the session is refreshed', async () => {
    const user = await registerUser(app);
    const before: ListedSession = (await call(app, 'get', '/api/account/sessions', user.tokens.access_token)).body.data
      .items[0];
    const rotated = await refresh(app, user.tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const after: ListedSession = (await call(app, 'get', '/api/account/sessions', rotated.body.data.access_token)).body
      .data.items[0];
    expect(after.id).toBe(before.id);
    expect(Date.parse(after.last_used_at!)).toBeGreaterThanOrEqual(Date.parse(before.last_used_at!));
  });
});
