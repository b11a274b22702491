import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import request, { type Response } from 'supertest';
import type { DataSource } from 'typeorm';
import { agedCopy, decodeJwt, me, registerUser, uniqueEmail, type RegisteredUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { callerWithRoles } from '../support/rbac-factory.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

function api(
  app: NestFastifyApplication,
  method: Method,
  path: string,
  token?: string,
  body?: object,
): Promise<Response> {
  const req = request(app.getHttpServer())[method](path);
  if (token) void req.set('authorization', `Bearer ${token}`);
  return body === undefined ? req : req.send(body);
}

const slug = (label = 'org') => `${label}-${randomUUID().slice(0, 8)}`;

describe('organizations: roles per customer', () => {
  const fixture = useTestApp({ smtp: true });
  let app: NestFastifyApplication;
  let db: DataSource;
  let ownerRoleId: string;
  let memberRoleId: string;

  beforeAll(async () => {
    app = fixture.app;
    db = fixture.db;
    [{ id: ownerRoleId }] = await db.query(`SELECT id FROM organization_roles WHERE name = 'owner'`);
    [{ id: memberRoleId }] = await db.query(`SELECT id FROM organization_roles WHERE name = 'member'`);
  });

  async function person(): Promise<RegisteredUser & { token: string }> {
    const user = await registerUser(app);
    return { ...user, token: user.tokens.access_token };
  }

  async function organizationOf(owner: { token: string }): Promise<string> {
    const res = await api(app, 'post', '/api/organizations', owner.token, { slug: slug(), name: 'Acme' });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  }

  /** A member added by SQL (arranging, not the behaviour under test), with the given organization roles. */
  async function addMember(organizationId: string, userId: string, roleIds: string[]): Promise<void> {
    await db.query(`INSERT INTO organization_members (organization_id, user_id) VALUES ($1, $2)`, [
      organizationId,
      userId,
    ]);
    for (const roleId of roleIds)
      await db.query(`INSERT INTO organization_member_roles (organization_id, user_id, role_id) VALUES ($1, $2, $3)`, [
        organizationId,
        userId,
        roleId,
      ]);
  }

  async function customRole(permissions: string[]): Promise<string> {
    const admin = await callerWithRoles(app, db, ['admin']);
    const all = await api(app, 'get', '/api/admin/organization-permissions', admin.token);
    const ids = (all.body.data.items as { id: string; name: string }[])
      .filter((permission) => permissions.includes(permission.name))
      .map((permission) => permission.id);
    const res = await api(app, 'post', '/api/admin/organization-roles', admin.token, {
      name: `custom-${randomUUID().slice(0, 8)}`,
      permission_ids: ids,
    });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  }

  describe('the model and its seeds', () => {
    it('seeds owner (every organization permission) and member (organization.view, members.view), apart from the instance roles', async () => {
      const admin = await callerWithRoles(app, db, ['admin']);
      const res = await api(app, 'get', '/api/admin/organization-roles', admin.token);
      expect(res.status).toBe(200);
      const roles = res.body.data.items as { name: string; is_system: boolean; permissions: { name: string }[] }[];
      const owner = roles.find((role) => role.name === 'owner')!;
      const member = roles.find((role) => role.name === 'member')!;
      expect(owner.is_system).toBe(true);
      expect(owner.permissions.map((p) => p.name).sort()).toEqual([
        'members.edit',
        'members.invite',
        'members.remove',
        'members.view',
        'organization.delete',
        'organization.edit',
        'organization.view',
      ]);
      expect(member.permissions.map((p) => p.name).sort()).toEqual(['members.view', 'organization.view']);
      const instanceRoles = await api(app, 'get', '/api/admin/roles', admin.token);
      expect(JSON.stringify(instanceRoles.body.data)).not.toContain('"owner"');
    });

    it('gives admin the instance permissions organizations.view/create/edit/delete in the group Organizations', async () => {
      const admin = await callerWithRoles(app, db, ['admin']);
      const res = await me(app, admin.token);
      expect(res.body.data.permissions).toEqual(
        expect.arrayContaining([
          'organizations.view',
          'organizations.create',
          'organizations.edit',
          'organizations.delete',
        ]),
      );
      const permissions = await api(app, 'get', '/api/admin/permissions', admin.token);
      const organizations = (permissions.body.data.items ?? permissions.body.data) as {
        name: string;
        group_name: string;
      }[];
      expect(organizations.find((p) => p.name === 'organizations.edit')?.group_name).toBe('Organizations');
    });

    it('a new organization permission goes to owner at once; owner cannot lose one (403 SYSTEM_PROTECTED)', async () => {
      const admin = await callerWithRoles(app, db, ['admin']);
      const created = await api(app, 'post', '/api/admin/organization-permissions', admin.token, {
        name: `invoices${randomUUID().slice(0, 6).replace(/[0-9]/g, 'x')}.approve`,
      });
      expect(created.status).toBe(201);
      const owner = await api(app, 'get', `/api/admin/organization-roles/${ownerRoleId}`, admin.token);
      expect(owner.body.data.permissions.map((p: { id: string }) => p.id)).toContain(created.body.data.id);
      const shrink = await api(app, 'put', `/api/admin/organization-roles/${ownerRoleId}`, admin.token, {
        permission_ids: [],
      });
      expect(shrink.status).toBe(403);
      expect(shrink.body.error.code).toBe('SYSTEM_PROTECTED');
    });

    it('an instance permission in an organization role, or an organization role given to a user, is 400 VALIDATION_FAILED', async () => {
      const admin = await callerWithRoles(app, db, ['admin']);
      const [{ id: instancePermission }] = await db.query(`SELECT id FROM permissions WHERE name = 'users.view'`);
      const res = await api(app, 'post', '/api/admin/organization-roles', admin.token, {
        name: `mixed-${randomUUID().slice(0, 8)}`,
        permission_ids: [instancePermission],
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      const user = await person();
      const given = await api(app, 'post', `/api/admin/users/${user.id}/roles`, admin.token, {
        role_ids: [memberRoleId],
      });
      expect(given.status).toBe(400);
      expect(given.body.error.code).toBe('VALIDATION_FAILED');
    });

    it('the system roles cannot be deleted (403 SYSTEM_PROTECTED)', async () => {
      const admin = await callerWithRoles(app, db, ['admin']);
      const res = await api(app, 'delete', `/api/admin/organization-roles/${memberRoleId}`, admin.token);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('SYSTEM_PROTECTED');
    });
  });

  describe('creating and reading', () => {
    it('POST /api/organizations is 201 and makes the creator its owner; GET lists it with the roles', async () => {
      const ana = await person();
      const s = slug('acme');
      const res = await api(app, 'post', '/api/organizations', ana.token, { slug: s, name: 'Acme' });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ slug: s, name: 'Acme' });
      const list = await api(app, 'get', '/api/organizations', ana.token);
      expect(list.body.data.total).toBe(1);
      expect(list.body.data.items[0].roles.map((r: { name: string }) => r.name)).toEqual(['owner']);
    });

    it('a taken slug is 409 CONFLICT; upper case or a short slug is 400 VALIDATION_FAILED; unknown fields are 400', async () => {
      const ana = await person();
      const s = slug();
      expect((await api(app, 'post', '/api/organizations', ana.token, { slug: s, name: 'A' })).status).toBe(201);
      const taken = await api(app, 'post', '/api/organizations', ana.token, { slug: s, name: 'B' });
      expect(taken.status).toBe(409);
      expect(taken.body.error.code).toBe('CONFLICT');
      for (const body of [
        { slug: 'Acme-Corp', name: 'A' },
        { slug: 'ab', name: 'A' },
        { slug: slug(), name: 'A', owner: 'x' },
      ]) {
        const res = await api(app, 'post', '/api/organizations', ana.token, body);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
      }
    });

    it('a person may belong to many organizations', async () => {
      const ana = await person();
      await organizationOf(ana);
      await organizationOf(ana);
      const list = await api(app, 'get', '/api/organizations', ana.token);
      expect(list.body.data.total).toBe(2);
    });

    it('a non-member gets 404 for a real id and for a guessed one, on every route, never 403 and never data', async () => {
      const ana = await person();
      const mallory = await person();
      const id = await organizationOf(ana);
      for (const target of [id, randomUUID()]) {
        for (const [method, path, body] of [
          ['get', `/api/organizations/${target}`],
          ['patch', `/api/organizations/${target}`, { name: 'x' }],
          ['get', `/api/organizations/${target}/members`],
          ['put', `/api/organizations/${target}/members/${ana.id}/roles`, { role_ids: [] }],
          ['delete', `/api/organizations/${target}/members/${ana.id}`],
          ['post', `/api/organizations/${target}/invitations`, { email: uniqueEmail(), role_ids: [] }],
          ['get', `/api/organizations/${target}/invitations`],
          ['post', '/api/auth/organization-token', { organization_id: target }],
        ] as [Method, string, object?][]) {
          const res = await api(app, method, path, mallory.token, body);
          expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 404, 'NOT_FOUND']);
          expect(JSON.stringify(res.body)).not.toContain('Acme');
        }
      }
    });

    it('ORGANIZATIONS_SELF_SERVICE=false: creating needs organizations.create (403 FORBIDDEN otherwise)', async () => {
      // Judged by the configuration of this very instance: a second app with the flag off.
      const { createTestApp } = await import('../support/test-app.js');
      const closed = await createTestApp({
        env: { DATABASE_URL: fixture.database.url, ORGANIZATIONS_SELF_SERVICE: 'false' },
      });
      try {
        const user = await registerUser(closed);
        const refused = await api(closed, 'post', '/api/organizations', user.tokens.access_token, {
          slug: slug(),
          name: 'A',
        });
        expect(refused.status).toBe(403);
        expect(refused.body.error.code).toBe('FORBIDDEN');
        const admin = await callerWithRoles(closed, db, ['admin']);
        expect((await api(closed, 'post', '/api/organizations', admin.token, { slug: slug(), name: 'A' })).status).toBe(
          201,
        );
      } finally {
        await closed.close();
      }
    });
  });

  describe('members and the privilege policy inside an organization', () => {
    it('members.view lists {user_id, name, email, roles, joined_at}; a member without members.edit is 403 FORBIDDEN', async () => {
      const ana = await person();
      const bob = await person();
      const id = await organizationOf(ana);
      await addMember(id, bob.id, [memberRoleId]);
      const list = await api(app, 'get', `/api/organizations/${id}/members`, bob.token);
      expect(list.status).toBe(200);
      expect(list.body.data.total).toBe(2);
      expect(Object.keys(list.body.data.items[0]).sort()).toEqual(['email', 'joined_at', 'name', 'roles', 'user_id']);
      const edit = await api(app, 'put', `/api/organizations/${id}/members/${ana.id}/roles`, bob.token, {
        role_ids: [memberRoleId],
      });
      expect(edit.status).toBe(403);
      expect(edit.body.error.code).toBe('FORBIDDEN');
    });

    it('grant ⊆ own: a member with members.edit cannot give a role holding what they lack', async () => {
      const ana = await person();
      const editor = await person();
      const target = await person();
      const id = await organizationOf(ana);
      const editorRole = await customRole(['members.edit', 'members.view', 'organization.view']);
      const strongRole = await customRole(['organization.delete', 'organization.view']);
      await addMember(id, editor.id, [editorRole]);
      await addMember(id, target.id, [memberRoleId]);
      const res = await api(app, 'put', `/api/organizations/${id}/members/${target.id}/roles`, editor.token, {
        role_ids: [memberRoleId, strongRole],
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toContain('organization.delete');
      const allowed = await api(app, 'put', `/api/organizations/${id}/members/${target.id}/roles`, editor.token, {
        role_ids: [memberRoleId],
      });
      expect(allowed.status).toBe(200);
    });

    it('target ⊆ own: a member cannot change one holding more than they do', async () => {
      const ana = await person();
      const editor = await person();
      const strong = await person();
      const id = await organizationOf(ana);
      const editorRole = await customRole(['members.edit', 'members.view', 'organization.view']);
      const strongRole = await customRole(['organization.edit', 'organization.view']);
      await addMember(id, editor.id, [editorRole]);
      await addMember(id, strong.id, [strongRole]);
      const res = await api(app, 'put', `/api/organizations/${id}/members/${strong.id}/roles`, editor.token, {
        role_ids: [memberRoleId],
      });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain('organization.edit');
    });

    it('nobody changes their own roles, and only an owner touches an owner', async () => {
      const ana = await person();
      const co = await person();
      const id = await organizationOf(ana);
      const allButOwner = await customRole([
        'members.edit',
        'members.view',
        'members.remove',
        'members.invite',
        'organization.view',
        'organization.edit',
        'organization.delete',
      ]);
      await addMember(id, co.id, [allButOwner]);
      const own = await api(app, 'put', `/api/organizations/${id}/members/${co.id}/roles`, co.token, {
        role_ids: [allButOwner, memberRoleId],
      });
      expect(own.status).toBe(403);
      const owner = await api(app, 'put', `/api/organizations/${id}/members/${ana.id}/roles`, co.token, {
        role_ids: [allButOwner],
      });
      expect(owner.status).toBe(403);
      const removeOwner = await api(app, 'delete', `/api/organizations/${id}/members/${ana.id}`, co.token);
      expect(removeOwner.status).toBe(403);
      const makeOwner = await api(app, 'post', `/api/organizations/${id}/invitations`, co.token, {
        email: uniqueEmail(),
        role_ids: [ownerRoleId],
      });
      expect(makeOwner.status).toBe(403);
    });

    it('the last owner cannot leave, lose owner or be removed (409), even by an instance administrator', async () => {
      const ana = await person();
      const admin = await callerWithRoles(app, db, ['admin']);
      const id = await organizationOf(ana);
      const leave = await api(app, 'delete', `/api/organizations/${id}/members/${ana.id}`, ana.token);
      expect(leave.status).toBe(409);
      expect(leave.body.error.code).toBe('CONFLICT');
      const lose = await api(app, 'put', `/api/organizations/${id}/members/${ana.id}/roles`, admin.token, {
        role_ids: [memberRoleId],
      });
      expect(lose.status).toBe(409);
      const removed = await api(app, 'delete', `/api/organizations/${id}/members/${ana.id}`, admin.token);
      expect(removed.status).toBe(409);
    });

    it('a member may leave', async () => {
      const ana = await person();
      const bob = await person();
      const id = await organizationOf(ana);
      await addMember(id, bob.id, [memberRoleId]);
      expect((await api(app, 'delete', `/api/organizations/${id}/members/${bob.id}`, bob.token)).status).toBe(200);
      expect((await api(app, 'get', `/api/organizations/${id}`, bob.token)).status).toBe(404);
    });

    it('POST members adds directly only for instance administrators with organizations.edit; members invite', async () => {
      const ana = await person();
      const bob = await person();
      const admin = await callerWithRoles(app, db, ['admin']);
      const id = await organizationOf(ana);
      const byOwner = await api(app, 'post', `/api/organizations/${id}/members`, ana.token, {
        user_id: bob.id,
        role_ids: [memberRoleId],
      });
      expect(byOwner.status).toBe(403);
      const byAdmin = await api(app, 'post', `/api/organizations/${id}/members`, admin.token, {
        user_id: bob.id,
        role_ids: [memberRoleId],
      });
      expect(byAdmin.status).toBe(201);
      const again = await api(app, 'post', `/api/organizations/${id}/members`, admin.token, {
        user_id: bob.id,
        role_ids: [memberRoleId],
      });
      expect(again.status).toBe(409);
      const [{ n }] = await db.query(
        `SELECT count(*)::int AS n FROM audit_events WHERE type = 'organization.member_add' AND target_id = $1
            AND details->>'as_administrator' = 'true'`,
        [id],
      );
      expect(n).toBe(1);
    });

    it('an instance role id given to a membership is 400 VALIDATION_FAILED', async () => {
      const ana = await person();
      const bob = await person();
      const id = await organizationOf(ana);
      await addMember(id, bob.id, [memberRoleId]);
      const [{ id: instanceRole }] = await db.query(`SELECT id FROM roles WHERE name = 'user'`);
      const res = await api(app, 'put', `/api/organizations/${id}/members/${bob.id}/roles`, ana.token, {
        role_ids: [instanceRole],
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    });

    it('two administrators removing each other’s owner role at once leave one owner', async () => {
      for (let round = 0; round < 5; round++) {
        const ana = await person();
        const bob = await person();
        const id = await organizationOf(ana);
        await addMember(id, bob.id, [ownerRoleId]);
        const [first, second] = await Promise.all([
          api(app, 'put', `/api/organizations/${id}/members/${bob.id}/roles`, ana.token, { role_ids: [memberRoleId] }),
          api(app, 'put', `/api/organizations/${id}/members/${ana.id}/roles`, bob.token, { role_ids: [memberRoleId] }),
        ]);
        expect([first.status, second.status].sort()).toEqual([200, 403]);
        const [{ n }] = await db.query(
          `SELECT count(*)::int AS n FROM organization_member_roles WHERE organization_id = $1 AND role_id = $2`,
          [id, ownerRoleId],
        );
        expect(n).toBe(1);
      }
    });

    it('two owners removing each other at once leave one owner', async () => {
      for (let round = 0; round < 5; round++) {
        const ana = await person();
        const bob = await person();
        const id = await organizationOf(ana);
        await addMember(id, bob.id, [ownerRoleId]);
        const results = await Promise.all([
          api(app, 'delete', `/api/organizations/${id}/members/${bob.id}`, ana.token),
          api(app, 'delete', `/api/organizations/${id}/members/${ana.id}`, bob.token),
        ]);
        expect(results.map((res) => res.status).sort()).toEqual([200, 404]);
        const [{ n }] = await db.query(
          `SELECT count(*)::int AS n FROM organization_members WHERE organization_id = $1`,
          [id],
        );
        expect(n).toBe(1);
      }
    });
  });

  describe('invitations', () => {
    async function verified(user: { id: string }): Promise<void> {
      await db.query(`UPDATE users SET email_verified_at = now() WHERE id = $1`, [user.id]);
    }

    async function invite(token: string, id: string, email: string, roleIds = [memberRoleId]) {
      const res = await api(app, 'post', `/api/organizations/${id}/invitations`, token, { email, role_ids: roleIds });
      expect(res.status).toBe(201);
      const mail = await fixture.smtp.waitForMail(email);
      const link = /\/accept-invitation\?token=([A-Za-z0-9_-]+)/.exec(mail.text);
      expect(link).not.toBeNull();
      return { invitation: res.body.data, token: link![1] };
    }

    it('mails a single-use link; the token is stored only as a hash; the answer is the same for an unknown address', async () => {
      const ana = await person();
      const bob = await person();
      const id = await organizationOf(ana);
      const known = await invite(ana.token, id, bob.email);
      const unknown = await invite(ana.token, id, uniqueEmail('nobody'));
      expect(Object.keys(known.invitation).sort()).toEqual(Object.keys(unknown.invitation).sort());
      const rows: { token_hash: string }[] = await db.query(
        `SELECT token_hash FROM organization_invitations WHERE organization_id = $1`,
        [id],
      );
      expect(rows.map((row) => row.token_hash)).not.toContain(known.token);
      expect(JSON.stringify(known.invitation)).not.toContain(known.token);

      await verified(bob);
      const accepted = await api(app, 'post', '/api/account/invitations/accept', bob.token, { token: known.token });
      expect(accepted.status).toBe(200);
      const again = await api(app, 'post', '/api/account/invitations/accept', bob.token, { token: known.token });
      expect(again.status).toBe(400);
      expect(again.body.error.code).toBe('CONFIRMATION_TOKEN_INVALID');
      const members = await api(app, 'get', `/api/organizations/${id}/members`, bob.token);
      expect(members.status).toBe(200);
    });

    it('unverified address: 403 EMAIL_NOT_VERIFIED; another address: 403 FORBIDDEN; neither uses the invitation', async () => {
      const ana = await person();
      const bob = await person();
      const eve = await person();
      await verified(eve);
      const id = await organizationOf(ana);
      const { token } = await invite(ana.token, id, bob.email);
      const unverified = await api(app, 'post', '/api/account/invitations/accept', bob.token, { token });
      expect(unverified.status).toBe(403);
      expect(unverified.body.error.code).toBe('EMAIL_NOT_VERIFIED');
      const other = await api(app, 'post', '/api/account/invitations/accept', eve.token, { token });
      expect(other.status).toBe(403);
      expect(other.body.error.code).toBe('FORBIDDEN');
      await verified(bob);
      expect((await api(app, 'post', '/api/account/invitations/accept', bob.token, { token })).status).toBe(200);
    });

    it('an expired invitation is refused', async () => {
      const ana = await person();
      const bob = await person();
      await verified(bob);
      const id = await organizationOf(ana);
      const { token, invitation } = await invite(ana.token, id, bob.email);
      await db.query(`UPDATE organization_invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        invitation.id,
      ]);
      const res = await api(app, 'post', '/api/account/invitations/accept', bob.token, { token });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('CONFIRMATION_TOKEN_INVALID');
    });

    it('two accepts at once: one joins, the other is refused', async () => {
      const ana = await person();
      const bob = await person();
      await verified(bob);
      const id = await organizationOf(ana);
      const { token } = await invite(ana.token, id, bob.email);
      const [first, second] = await Promise.all([
        api(app, 'post', '/api/account/invitations/accept', bob.token, { token }),
        api(app, 'post', '/api/account/invitations/accept', bob.token, { token }),
      ]);
      expect([first.status, second.status].sort()).toEqual([200, 400]);
    });

    it('GET /api/account/invitations lists those to the verified address; GET and DELETE manage pending ones', async () => {
      const ana = await person();
      const bob = await person();
      const id = await organizationOf(ana);
      const { invitation } = await invite(ana.token, id, bob.email);
      expect((await api(app, 'get', '/api/account/invitations', bob.token)).body.data.total).toBe(0);
      await verified(bob);
      const mine = await api(app, 'get', '/api/account/invitations', bob.token);
      expect(mine.body.data.items.map((item: { id: string }) => item.id)).toEqual([invitation.id]);
      const pending = await api(app, 'get', `/api/organizations/${id}/invitations`, ana.token);
      expect(pending.body.data.total).toBe(1);
      const withdrawn = await api(app, 'delete', `/api/organizations/${id}/invitations/${invitation.id}`, ana.token);
      expect(withdrawn.status).toBe(200);
      expect((await api(app, 'get', '/api/account/invitations', bob.token)).body.data.total).toBe(0);
    });
  });

  describe('organization tokens', () => {
    it('the same session, claim org_id, only that organization’s permissions; /auth/me shows the organization', async () => {
      const admin = await callerWithRoles(app, db, ['admin']);
      const id = await organizationOf(admin);
      const res = await api(app, 'post', '/api/auth/organization-token', admin.token, { organization_id: id });
      expect(res.status).toBe(200);
      expect(res.body.data.token_type).toBe('Bearer');
      expect(res.body.data.expires_in).toBeLessThanOrEqual(900);
      const claims = decodeJwt(res.body.data.access_token).payload;
      expect(claims.org_id).toBe(id);
      expect(claims.sid).toBe(decodeJwt(admin.token).payload.sid);
      expect(decodeJwt(admin.token).payload.org_id).toBeUndefined();
      const who = await me(app, res.body.data.access_token);
      expect(who.body.data.organization).toMatchObject({ id, roles: ['owner'] });
      expect(who.body.data.permissions).not.toContain('users.view');
      expect(who.body.data.permissions).toContain('members.edit');
      // An instance route under an organization token: the instance permissions do not apply.
      const users = await api(app, 'get', '/api/admin/users', res.body.data.access_token);
      expect(users.status).toBe(403);
      // An ordinary token has none of the organization's permissions.
      expect((await me(app, admin.token)).body.data.permissions).not.toContain('members.edit');
    });

    it('several organizations at once in several tabs; another organization’s token is 403 ORGANIZATION_MISMATCH', async () => {
      const ana = await person();
      const first = await organizationOf(ana);
      const second = await organizationOf(ana);
      const one = (await api(app, 'post', '/api/auth/organization-token', ana.token, { organization_id: first })).body
        .data.access_token;
      const two = (await api(app, 'post', '/api/auth/organization-token', ana.token, { organization_id: second })).body
        .data.access_token;
      expect((await api(app, 'get', `/api/organizations/${first}`, one)).status).toBe(200);
      expect((await api(app, 'get', `/api/organizations/${second}`, two)).status).toBe(200);
      const crossed = await api(app, 'get', `/api/organizations/${second}`, one);
      expect(crossed.status).toBe(403);
      expect(crossed.body.error.code).toBe('ORGANIZATION_MISMATCH');
      expect((await me(app, one)).body.data.organization.id).toBe(first);
      expect((await me(app, two)).body.data.organization.id).toBe(second);
    });

    it('a removed member’s organization token is refused at once; ending the session ends organization tokens', async () => {
      const ana = await person();
      const bob = await person();
      const id = await organizationOf(ana);
      await addMember(id, bob.id, [memberRoleId]);
      const token = (await api(app, 'post', '/api/auth/organization-token', bob.token, { organization_id: id })).body
        .data.access_token;
      expect((await me(app, token)).status).toBe(200);
      expect((await api(app, 'delete', `/api/organizations/${id}/members/${bob.id}`, ana.token)).status).toBe(200);
      expect((await me(app, token)).status).toBe(401);

      const anaToken = (await api(app, 'post', '/api/auth/organization-token', ana.token, { organization_id: id })).body
        .data.access_token;
      expect((await me(app, anaToken)).status).toBe(200);
      expect((await api(app, 'post', '/api/auth/logout', ana.token, {})).status).toBe(200);
      expect((await me(app, anaToken)).status).toBe(401);
    });

    it('a role change and a removal are each one event naming sub and org_id', async () => {
      const ana = await person();
      const bob = await person();
      const id = await organizationOf(ana);
      await addMember(id, bob.id, [memberRoleId]);
      const before: { n: string }[] = await db.query(`SELECT coalesce(max(id), 0)::text AS n FROM security_events`);
      await api(app, 'put', `/api/organizations/${id}/members/${bob.id}/roles`, ana.token, { role_ids: [] });
      await api(app, 'delete', `/api/organizations/${id}/members/${bob.id}`, ana.token);
      const rows: { type: string; payload: { sub: string; org_id: string } }[] = await db.query(
        `SELECT type, payload FROM security_events WHERE id > $1 AND payload->>'org_id' = $2 ORDER BY id`,
        [before[0].n, id],
      );
      expect(rows).toEqual([
        { type: 'assignment-change', payload: { sub: bob.id, org_id: id } },
        { type: 'assignment-change', payload: { sub: bob.id, org_id: id } },
      ]);
    });

    it('deleting an organization needs organization.delete and fresh authentication; a member is 403, a stale sign-in 403 REAUTHENTICATION_REQUIRED, the owner deletes it', async () => {
      const ana = await person();
      const bob = await person();
      const id = await organizationOf(ana);
      await addMember(id, bob.id, [memberRoleId]);
      const refused = await api(app, 'delete', `/api/organizations/${id}`, bob.token);
      expect(refused.status).toBe(403);
      const stale = await api(app, 'delete', `/api/organizations/${id}`, await agedCopy(ana.token, 301));
      expect(stale.status).toBe(403);
      expect(stale.body.error.code).toBe('REAUTHENTICATION_REQUIRED');
      expect((await api(app, 'get', `/api/organizations/${id}`, ana.token)).status).toBe(200);
      const deleted = await api(app, 'delete', `/api/organizations/${id}`, ana.token);
      expect(deleted.status).toBe(200);
      expect((await api(app, 'get', `/api/organizations/${id}`, ana.token)).status).toBe(404);
    });

    it('PATCH renames with organization.edit', async () => {
      const ana = await person();
      const id = await organizationOf(ana);
      const res = await api(app, 'patch', `/api/organizations/${id}`, ana.token, { name: 'Globex' });
      expect(res.status).toBe(200);
      expect(res.body.data.name).toBe('Globex');
    });

    it('PATCH changes the slug; a taken one is 409 CONFLICT, an upper-case one 400 VALIDATION_FAILED', async () => {
      const ana = await person();
      const id = await organizationOf(ana);
      const other = await api(app, 'post', '/api/organizations', ana.token, { slug: slug('taken'), name: 'Taken' });
      const wanted = slug('renamed');
      const changed = await api(app, 'patch', `/api/organizations/${id}`, ana.token, { slug: wanted });
      expect(changed.status).toBe(200);
      expect(changed.body.data.slug).toBe(wanted);
      const taken = await api(app, 'patch', `/api/organizations/${id}`, ana.token, { slug: other.body.data.slug });
      expect(taken.status).toBe(409);
      expect(taken.body.error.code).toBe('CONFLICT');
      const upper = await api(app, 'patch', `/api/organizations/${id}`, ana.token, { slug: 'Acme-Upper' });
      expect(upper.status).toBe(400);
      expect(upper.body.error.code).toBe('VALIDATION_FAILED');
      expect((await api(app, 'get', `/api/organizations/${id}`, ana.token)).body.data.slug).toBe(wanted);
    });
  });
});

describe('INVITATION_TTL', () => {
  const lifetime = async (app: NestFastifyApplication) => {
    const owner = await registerUser(app);
    const created = await api(app, 'post', '/api/organizations', owner.tokens.access_token, {
      slug: slug(),
      name: 'Acme',
    });
    const invited = await api(
      app,
      'post',
      `/api/organizations/${created.body.data.id}/invitations`,
      owner.tokens.access_token,
      {
        email: uniqueEmail('invitee'),
        role_ids: [],
      },
    );
    expect(invited.status).toBe(201);
    const { created_at: createdAt, expires_at: expiresAt } = invited.body.data as {
      created_at: string;
      expires_at: string;
    };
    return Math.round((Date.parse(expiresAt) - Date.parse(createdAt)) / 1000);
  };

  describe('by default', () => {
    const fixture = useTestApp({ smtp: true });
    it('an invitation lasts 604800 seconds (seven days)', async () => {
      expect(await lifetime(fixture.app)).toBe(604_800);
    });
  });

  describe('set to 120', () => {
    const fixture = useTestApp({ smtp: true, env: { INVITATION_TTL: '120' } });
    it('an invitation lasts 120 seconds', async () => {
      expect(await lifetime(fixture.app)).toBe(120);
    });
  });
});
