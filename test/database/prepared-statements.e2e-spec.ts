import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { loginTokens, registerUser } from '../support/auth-factory.js';
import { createTestApp } from '../support/test-app.js';
import { fileDatabase } from '../support/test-database.js';

/**
 * DB_PREPARED_STATEMENTS: by default a sign-in's statements are prepared under a name on a
 * PostgreSQL server; `false` sends them unnamed (for a pooler that does not keep prepared
 * statements per client). One pooled connection, so that the app's own statements and the check
 * share a session. The embedded runs' PGlite never gets a named statement either way.
 */
describe('DB_PREPARED_STATEMENTS', () => {
  async function namedAfterASignIn(env: Record<string, string>): Promise<number> {
    const app: NestFastifyApplication = await createTestApp({ env: { DB_POOL_SIZE: '1', ...env } });
    try {
      const user = await registerUser(app);
      await loginTokens(app, user);
      const [{ named }]: { named: number }[] = await app
        .get(DataSource)
        .query(`SELECT count(*)::int AS named FROM pg_prepared_statements WHERE name LIKE 'auth\\_%'`);
      return named;
    } finally {
      await app.close();
    }
  }

  it('prepares the sign-in statements by default on a server, never on PGlite', async () => {
    const named = await namedAfterASignIn({});
    if ((await fileDatabase()).kind === 'server') expect(named).toBeGreaterThanOrEqual(2);
    else expect(named).toBe(0);
  });

  it('sends them unnamed with DB_PREPARED_STATEMENTS=false', async () => {
    expect(await namedAfterASignIn({ DB_PREPARED_STATEMENTS: 'false' })).toBe(0);
  });
});
