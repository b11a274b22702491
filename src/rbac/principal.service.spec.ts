import type { UsersRepository } from '../identity/index.js';
import type { AccessRepository, PrincipalRow } from './access.repository.js';
import type { AuthzVersions } from './authz-versions.js';
import { PrincipalService } from './principal.service.js';

const session = { sessionId: '6f1c2a7e-8d3b-4c5a-9e0f-1a2b3c4d5e6f', userId: '0b9e8d7c-6a5f-4e3d-8c2b-1a0f9e8d7c6b' };

function serviceWith(row: PrincipalRow) {
  const reads = { count: 0 };
  const access = {
    findPrincipalOfActiveSession: async () => {
      reads.count += 1;
      return { ...row, roles: [...row.roles], permissions: [...row.permissions] };
    },
  } as unknown as AccessRepository;
  const versions = { enabled: true, read: async () => ['1', '1'] } as unknown as AuthzVersions;
  return { principals: new PrincipalService({} as UsersRepository, access, versions), reads };
}

const row: PrincipalRow = {
  id: session.userId,
  name: 'Ada',
  email: 'ada@example.com',
  mobile: null,
  emailVerified: true,
  roles: ['editor'],
  permissions: ['contents.view', 'contents.edit'],
  sessionExpiresAt: new Date(Date.now() + 3_600_000),
};

describe('PrincipalService cache', () => {
  it('hands every request of a session the one cached record, which cannot be changed', async () => {
    const { principals, reads } = serviceWith(row);
    const first = await principals.load(session);
    const second = await principals.load(session);
    expect(reads.count).toBe(1);
    expect(second).toBe(first);

    expect(() => first!.roles.push('admin')).toThrow(TypeError);
    expect(() => first!.permissions.push('users.delete')).toThrow(TypeError);
    expect(() => {
      first!.permissions[0] = 'users.delete';
    }).toThrow(TypeError);
    expect(() => {
      first!.email = 'mallory@example.com';
    }).toThrow(TypeError);

    expect(await principals.load(session)).toEqual({
      id: session.userId,
      kind: 'person',
      email: 'ada@example.com',
      name: 'Ada',
      roles: ['editor'],
      permissions: ['contents.view', 'contents.edit'],
    });
  });

  it('keeps the profile stored beside the record unchanged too', async () => {
    const { principals } = serviceWith(row);
    await principals.load(session);
    const profile = await principals.profile({ id: session.userId, sessionId: session.sessionId });
    expect(() => {
      profile!.email_verified = false;
    }).toThrow(TypeError);
    expect(await principals.profile({ id: session.userId, sessionId: session.sessionId })).toEqual({
      id: session.userId,
      name: 'Ada',
      email: 'ada@example.com',
      mobile: null,
      email_verified: true,
    });
  });
});
