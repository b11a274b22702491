import { Controller, Get, HttpException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { AccessTokenVerifier } from './access-token.js';
import type { PrincipalRecord } from './auth-guard.options.js';
import { LibraryAuthGuard } from './auth.guard.js';
import { PrincipalSource } from './principal-source.base.js';
import { RequirePermissions } from './permissions.decorator.js';
import { secretVerificationKey, StaticKeySource } from './verification-keys.js';

const SECRET = 'guard-spec-secret-0123456789-abcdefghijklmn';
const ISSUER = 'https://auth.example.com';

@Controller()
class ReportsController {
  @RequirePermissions('reports.view')
  @Get('reports')
  reports() {
    return { ok: true };
  }
}

/** A source that knows at once what `known` is set to, and counts the loads it is asked for. */
class MemorySource extends PrincipalSource {
  knownRecord: PrincipalRecord | null | undefined = undefined;
  loaded: PrincipalRecord | null = null;
  loads = 0;
  override known(): PrincipalRecord | null | undefined {
    return this.knownRecord;
  }
  async load(): Promise<PrincipalRecord | null> {
    this.loads++;
    return this.loaded;
  }
}

async function setUp() {
  const userId = randomUUID();
  const sessionId = randomUUID();
  const token = await new SignJWT({ sid: sessionId, email: 'ada@example.com', token_type: 'access' })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .setSubject(userId)
    .setIssuer(ISSUER)
    .setAudience(ISSUER)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));
  const verifier = new AccessTokenVerifier(new StaticKeySource([secretVerificationKey(SECRET)]), { issuer: ISSUER });
  const source = new MemorySource();
  const guard = new LibraryAuthGuard(new Reflector(), verifier, source);
  const record = (permissions: string[]): PrincipalRecord => ({
    id: userId,
    sessionId,
    email: 'ada@example.com',
    name: 'Ada',
    roles: ['user'],
    permissions,
  });
  const request: { headers: Record<string, string>; user?: { id: string } } = {
    headers: { authorization: `Bearer ${token}` },
  };
  const context = () => {
    const host = new ExecutionContextHost(
      [request, {}, () => undefined],
      ReportsController,
      ReportsController.prototype.reports,
    );
    host.setType('http');
    return host;
  };
  return { guard, source, record, request, context, verifier, token };
}

const statusOf = (error: unknown) => (error instanceof HttpException ? error.getStatus() : error);

describe('LibraryAuthGuard in steady state', () => {
  it('answers with a promise while the token or its caller must be looked up, then with a plain boolean', async () => {
    const { guard, source, record, request, context, verifier, token } = await setUp();
    source.loaded = record(['reports.view']);
    const first = guard.canActivate(context());
    expect(first).toBeInstanceOf(Promise);
    await expect(first).resolves.toBe(true);
    expect(source.loads).toBe(1);
    // Verified now, but the source does not know the caller at once: still a promise, and a load.
    const second = guard.canActivate(context());
    expect(second).toBeInstanceOf(Promise);
    await expect(second).resolves.toBe(true);
    expect(source.loads).toBe(2);
    expect((await verifier.verify(token))?.userId).toBe(request.user?.id);
    source.knownRecord = record(['reports.view']);
    delete request.user;
    expect(guard.canActivate(context())).toBe(true);
    expect((request as { user?: { id: string } }).user?.id).toBe(source.knownRecord.id);
    expect(source.loads).toBe(2);
  });

  it('refuses at once, with the same statuses, a caller the source knows to be revoked or lacking the permission', async () => {
    const { guard, source, record, context } = await setUp();
    source.loaded = record(['reports.view']);
    await guard.canActivate(context());
    source.knownRecord = null;
    expect(statusOf(catchSync(() => guard.canActivate(context())))).toBe(401);
    source.knownRecord = record(['reports.export']);
    expect(statusOf(catchSync(() => guard.canActivate(context())))).toBe(403);
    expect(source.loads).toBe(1);
  });
});

describe('LibraryAuthGuard reading the Authorization header', () => {
  it('knows a verified token in any spelling of the scheme, and reads another spacing the long way', async () => {
    const { guard, source, record, request, context, token } = await setUp();
    source.loaded = record(['reports.view']);
    source.knownRecord = record(['reports.view']);
    await guard.canActivate(context());
    request.headers.authorization = `bEaReR ${token}`;
    expect(guard.canActivate(context())).toBe(true);
    request.headers.authorization = `Bearer   ${token}`;
    const spaced = guard.canActivate(context());
    expect(spaced).toBeInstanceOf(Promise);
    await expect(spaced).resolves.toBe(true);
  });

  it('refuses a known token with anything added to it, and credentials of the wrong form', async () => {
    const { guard, source, record, request, context, token } = await setUp();
    source.loaded = record(['reports.view']);
    source.knownRecord = record(['reports.view']);
    await guard.canActivate(context());
    for (const authorization of [`Bearer ${token}!`, `Bearer ${token}.x`, `Basic ${token}`, 'Bearer ']) {
      request.headers.authorization = authorization;
      const error = await Promise.resolve()
        .then(() => guard.canActivate(context()))
        .catch((caught: unknown) => caught);
      expect([authorization.slice(-12), statusOf(error)]).toEqual([authorization.slice(-12), 401]);
    }
  });
});

function catchSync(call: () => unknown): unknown {
  try {
    const outcome = call();
    return new Error(`answered ${String(outcome)} instead of throwing`);
  } catch (error) {
    return error;
  }
}
