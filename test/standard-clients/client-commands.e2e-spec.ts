import { runCli } from '../support/cli-runner.js';
import request from 'supertest';
import { useTestApp } from '../support/fixture.js';
import { roleWithPermissions } from '../support/rbac-factory.js';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

const cli = runCli;

describe('create-client and assign-client-role, then the client credentials grant', () => {
  const fixture = useTestApp({ env: { SERVICE_CLIENTS: 'auditor:auditor-secret-0123456789-abcdefgh' } });

  it('gives a stored client a role whose permissions its service tokens carry', async () => {
    const created = await cli(fixture.database.url, ['create-client', 'inventory']);
    expect(created.code).toBe(0);
    const secret = created.stdout.trim().split('\n').pop()!;
    const role = await roleWithPermissions(fixture.db, ['contents.view'], 'inventory-reader');
    const assigned = await cli(fixture.database.url, [
      'assign-client-role',
      '--client',
      'inventory',
      '--role',
      role.name,
    ]);
    expect(assigned).toMatchObject({ code: 0, stdout: `Client inventory now has the roles: ${role.name}\n` });
    const granted = await request(fixture.app.getHttpServer())
      .post('/api/auth/token')
      .set('authorization', basic('inventory', secret))
      .type('form')
      .send('grant_type=client_credentials');
    expect(granted.status).toBe(200);
    const described = await request(fixture.app.getHttpServer())
      .post('/api/auth/introspect')
      .type('form')
      .send(`token=${granted.body.access_token}&client_id=auditor&client_secret=auditor-secret-0123456789-abcdefgh`);
    expect(described.status).toBe(200);
    expect(described.body).toMatchObject({
      active: true,
      sub: 'inventory',
      client_id: 'inventory',
      roles: [role.name],
      permissions: ['contents.view'],
    });
  });

  it('fails in one line for an unknown role or client', async () => {
    const unknownRole = await cli(fixture.database.url, [
      'assign-client-role',
      '--client',
      'auditor',
      '--role',
      'nope',
    ]);
    expect(unknownRole.code).not.toBe(0);
    expect(unknownRole.stderr.trim().split('\n')).toHaveLength(1);
    const unknownClient = await cli(fixture.database.url, [
      'assign-client-role',
      '--client',
      'ghost',
      '--role',
      'user',
    ]);
    expect(unknownClient.code).not.toBe(0);
    expect(unknownClient.stderr.trim()).toMatch(/not found/i);
  });
});
