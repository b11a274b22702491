import { expectOneLineFailure, runCli } from '../support/cli-runner.js';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DataSource } from 'typeorm';
import { login, me, registerUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';

const cli = runCli;

describe('CLI: disable-user and enable-user on a real database', () => {
  let app: NestFastifyApplication;
  let db: DataSource;
  let url: string;
  const fixture = useTestApp({ database: 'migrated' });
  beforeAll(() => {
    ({ app, db } = fixture);
    url = fixture.database.url;
  });

  it('disable-user ends the sessions and refuses sign-in; enable-user lets it sign in again', async () => {
    const user = await registerUser(app);
    const disabled = await cli(url, ['disable-user', '--email', user.email.toUpperCase(), '--reason', 'stolen laptop']);
    expect(disabled).toEqual({ code: 0, stdout: `Disabled ${user.email}; its sessions are revoked.\n`, stderr: '' });
    expect((await me(app, user.tokens.access_token)).status).toBe(401);
    const refused = await login(app, { email: user.email, password: user.password });
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({
      status: 403,
      code: 'ACCOUNT_DISABLED',
    });
    const [row] = await db.query(`SELECT disabled_reason FROM users WHERE id = $1`, [user.id]);
    expect(row.disabled_reason).toBe('stolen laptop');
    const [event] = await db.query(
      `SELECT actor_id, details FROM audit_events WHERE type = 'user.disable' AND target_id = $1`,
      [user.id],
    );
    expect(event).toMatchObject({ actor_id: null, details: { via: 'cli' } });

    expect(await cli(url, ['enable-user', '--email', user.email])).toEqual({
      code: 0,
      stdout: `Enabled ${user.email}.\n`,
      stderr: '',
    });
    expect((await login(app, { email: user.email, password: user.password })).status).toBe(200);
  });

  it('disable-user --until prints the end, which comes by itself', async () => {
    const user = await registerUser(app);
    const until = new Date(Date.now() + 3_600_000);
    until.setMilliseconds(0);
    const result = await cli(url, ['disable-user', '--email', user.email, '--until', until.toISOString()]);
    expect(result.stdout).toBe(`Disabled ${user.email} until ${until.toISOString()}; its sessions are revoked.\n`);
    const [row] = await db.query(`SELECT disabled_until FROM users WHERE id = $1`, [user.id]);
    expect(new Date(row.disabled_until).toISOString()).toBe(until.toISOString());
  });

  it('refuses, in one line each: no account, a past or malformed --until, a missing --email, the last administrator', async () => {
    const user = await registerUser(app);
    expectOneLineFailure(
      await cli(url, ['disable-user', '--email', 'nobody@example.com']),
      'No account with the email nobody@example.com.',
    );
    expectOneLineFailure(
      await cli(url, ['disable-user', '--email', user.email, '--until', '2001-01-01T00:00:00Z']),
      'Invalid --until: it must be in the future.',
    );
    expectOneLineFailure(
      await cli(url, ['disable-user', '--email', user.email, '--until', 'soon']),
      'Invalid --until: an ISO 8601 date and time is expected (2030-01-31T12:00:00Z).',
    );
    expectOneLineFailure(await cli(url, ['disable-user']), 'disable-user needs --email.');
    expectOneLineFailure(await cli(url, ['enable-user']), 'enable-user needs --email.');

    // The seeded administrator is this database's only one.
    const [{ email }] = await db.query(
      `SELECT u.email FROM users u JOIN user_roles ur ON ur.user_id = u.id JOIN roles r ON r.id = ur.role_id
        WHERE r.name = 'admin'`,
    );
    expectOneLineFailure(
      await cli(url, ['disable-user', '--email', email]),
      'The last enabled administrator cannot be disabled.',
    );
  });

  it('--help describes both commands and their options', async () => {
    const help = await cli(url, ['disable-user', '--help']);
    expect(help.stdout).toContain('--email');
    expect(help.stdout).toContain('--reason');
    expect(help.stdout).toContain('--until');
    expect((await cli(url, ['enable-user', '--help'])).stdout).toContain('--email');
  });
});
