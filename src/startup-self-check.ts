import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { oneLine } from './infra/telemetry/startup-logger.js';
import { oneFactor, TokenService } from './sessions/index.js';

/** The service cannot do its one job: it must not start, let alone report itself ready. */
export class StartupCheckError extends Error {
  override readonly name = 'StartupCheckError';
}

/**
 * Before the service listens (so before /health/ready can say `ok`): an access token signed with
 * the configured keys must verify through the same code every request uses. A runtime or key that
 * cannot sign (an unsupported Node, a key for another algorithm) would otherwise give a service
 * that answers every sign-in with 500.
 */
export async function checkTokenSigning(app: INestApplication): Promise<void> {
  const tokens = app.get(TokenService);
  const identity = { userId: randomUUID(), email: 'self-check@example.invalid', sessionId: randomUUID() };
  try {
    const token = await tokens.signAccess(identity, oneFactor('pwd'));
    const claims = await tokens.verify(token, 'access');
    if (claims.sub !== identity.userId) throw new Error('the verified token names another subject');
  } catch (error) {
    throw new StartupCheckError(
      `Start-up self-check failed: a token signed with the configured keys does not verify (${oneLine(error)}); no sign-in could work. Check JWT_ALGORITHM and its key, and run on Node 22.12 or newer.`,
    );
  }
}
