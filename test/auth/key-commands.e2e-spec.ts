import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { decodeJwt, me, registerUser } from '../support/auth-factory.js';
import { createTestApp } from '../support/test-app.js';
import { TEST_JWT_SECRET } from '../support/test-config.js';
import { cliOnTestDatabase } from '../support/cli-runner.js';

const cli = cliOnTestDatabase;

describe('rotate-keys and create-client', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'auth-keys-'));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('generates an ES256 key once under DATA_DIR (owner-only), then rotates it: old tokens keep working, the JWKS lists both', async () => {
    const env = { JWT_ALGORITHM: 'ES256', DATA_DIR: dataDir };
    const first = await createTestApp({ env });
    let oldToken: string;
    try {
      oldToken = (await registerUser(first)).tokens.access_token;
    } finally {
      await first.close();
    }
    const keyFile = path.join(dataDir, 'jwt-es256-private-key.pem');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const oldKid = decodeJwt(oldToken).header.kid;

    // A restart keeps the key.
    const again = await createTestApp({ env });
    let oldIdTokenKid: string;
    try {
      expect((await me(again, oldToken)).status).toBe(200);
      const published = (await request(again.getHttpServer()).get('/.well-known/jwks.json')).body.keys;
      oldIdTokenKid = published.find((key: { kty: string }) => key.kty === 'RSA').kid;
    } finally {
      await again.close();
    }

    const rotated = await cli(['rotate-keys'], env);
    expect(rotated.code).toBe(0);
    expect(rotated.output).toMatch(/New ES256 signing key \S+ written to/);
    expect(rotated.output).toMatch(/New RS256 ID-token signing key \S+; the previous one stays in the JWKS/);
    expect(rotated.output).not.toContain('PRIVATE KEY');

    const after = await createTestApp({ env });
    try {
      const newToken = (await registerUser(after)).tokens.access_token;
      const newKid = decodeJwt(newToken).header.kid;
      expect(newKid).not.toBe(oldKid);
      expect((await me(after, oldToken)).status).toBe(200);
      expect((await me(after, newToken)).status).toBe(200);
      const jwks = await request(after.getHttpServer()).get('/.well-known/jwks.json');
      const keys = jwks.body.keys as { kid: string; kty: string }[];
      expect(
        keys
          .filter((key) => key.kty !== 'RSA')
          .map((key) => key.kid)
          .sort(),
      ).toEqual([oldKid, newKid].sort());
      // The OpenID provider's ID-token key (in the database) rotated too; the old one is still published.
      const idTokenKids = keys.filter((key) => key.kty === 'RSA').map((key) => key.kid);
      expect(idTokenKids).toHaveLength(2);
      expect(idTokenKids).toContain(oldIdTokenKid!);
    } finally {
      await after.close();
    }
  });

  it('prints new values for an HS256 secret given in the environment, the old one as previous', async () => {
    const rotated = await cli(['rotate-keys'], {});
    expect(rotated.code).toBe(0);
    expect(rotated.output).toContain(`JWT_PREVIOUS_SECRETS=${TEST_JWT_SECRET}@`);
    expect(rotated.output).toMatch(/JWT_SECRET=[A-Za-z0-9_-]{64}\n/);
  });

  it('carries only the secret it retires, stamped with the time of its retirement', async () => {
    const earlier = 'earlier-secret-0123456789-abcdefghijklmnop';
    const started = Math.floor(Date.now() / 1000);
    const rotated = await cli(['rotate-keys'], { JWT_PREVIOUS_SECRETS: `${earlier}@${started - 60}` });
    expect(rotated.code).toBe(0);
    const previous = /JWT_PREVIOUS_SECRETS=(\S+)\n/.exec(rotated.output)?.[1] ?? '';
    expect(previous).not.toContain(earlier);
    expect(previous).not.toContain(',');
    const stamped = /^(.+)@(\d+)$/.exec(previous);
    expect(stamped?.[1]).toBe(TEST_JWT_SECRET);
    expect(Number(stamped?.[2])).toBeGreaterThanOrEqual(started);
    expect(Number(stamped?.[2])).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
  });

  it('create-client prints a secret once that then authenticates introspection', async () => {
    const created = await cli(['create-client', 'inventory'], {});
    expect(created.code).toBe(0);
    const secret = /shown only now:\n(\S+)/.exec(created.output)?.[1];
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const app = await createTestApp();
    try {
      const user = await registerUser(app);
      const res = await request(app.getHttpServer())
        .post('/api/auth/introspect')
        .auth('inventory', secret!)
        .send({ token: user.tokens.access_token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ active: true, sub: user.id });
      expect(
        (
          await request(app.getHttpServer())
            .post('/api/auth/introspect')
            .auth('inventory', 'wrong')
            .send({ token: 'x' })
        ).status,
      ).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('create-client on an id that exists refuses (exit 1), and the old secret keeps working', async () => {
    const first = await cli(['create-client', 'billing'], {});
    expect(first.code).toBe(0);
    const secret = /shown only now:\n(\S+)/.exec(first.output)?.[1];
    const again = await cli(['create-client', 'billing'], {});
    expect(again.code).toBe(1);
    expect(again.output.trim().split('\n')).toHaveLength(1);
    expect(again.output).toContain('Client billing already exists; its secret is unchanged.');
    expect(again.output).toContain('--rotate-secret');
    expect(again.output).not.toContain('created');
    const app = await createTestApp();
    try {
      const introspect = (client: string, password: string) =>
        request(app.getHttpServer()).post('/api/auth/introspect').auth(client, password).send({ token: 'x' });
      expect((await introspect('billing', secret!)).status).toBe(200);

      // --rotate-secret replaces it on purpose: the new secret works, the old one no more.
      const rotated = await cli(['create-client', 'billing', '--rotate-secret'], {});
      expect(rotated.code).toBe(0);
      expect(rotated.output).toContain('Client billing: its secret was replaced');
      const next = /shown only now:\n(\S+)/.exec(rotated.output)?.[1];
      expect(next).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(next).not.toBe(secret);
      const fresh = await createTestApp();
      try {
        const check = (password: string) =>
          request(fresh.getHttpServer()).post('/api/auth/introspect').auth('billing', password).send({ token: 'x' });
        expect((await check(next!)).status).toBe(200);
        expect((await check(secret!)).status).toBe(401);
      } finally {
        await fresh.close();
      }
    } finally {
      await app.close();
    }

    // Rotating a client that does not exist creates nothing.
    const missing = await cli(['create-client', 'nobody-here', '--rotate-secret'], {});
    expect(missing.code).toBe(1);
    expect(missing.output).toContain('Client nobody-here does not exist');
  });
});
