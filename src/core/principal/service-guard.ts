import { AuthGuardModule, type PrincipalRecord } from '@auth-rbac/nest-guard';
import { PrincipalService } from './principal.service.js';
import { RbacCoreModule } from './rbac-core.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { SigningKeys } from '../sessions/signing-keys.js';
import { isUuid } from '../sessions/token.service.js';
import { AppConfig } from '../../config/app-config.js';

/**
 * The service guards its own routes with the package other services import: one verification
 * path and one set of decorators. Keys are the service's own (every key that still verifies), and
 * the caller comes from PrincipalService, whose cache every revocation and authorization change
 * invalidates on every instance; the package's own cache is off (`cacheTtlMs` 0). The guard is
 * placed among the application's global guards by AppModule, after the rate limit.
 */
export const ServiceAuthGuardModule = AuthGuardModule.forRootAsync({
  imports: [SessionsModule, RbacCoreModule],
  inject: [SigningKeys, PrincipalService, AppConfig],
  useFactory: (keys: SigningKeys, principals: PrincipalService, config: AppConfig) => ({
    keys,
    // `@RequireFreshAuth()` on the service's own routes: REAUTH_MAX_AGE.
    reauthMaxAgeSeconds: config.jwt.reauthMaxAge,
    permissionsFrom: {
      query: (userId: string, sessionId: string) => principalOfSession(principals, userId, sessionId),
    },
  }),
  globalGuard: false,
});

/** The caller of a live session; ids that are not UUIDs are a bad token, not a database error. */
export async function principalOfSession(
  principals: PrincipalService,
  userId: string,
  sessionId: string,
): Promise<PrincipalRecord | null> {
  if (!isUuid(userId) || !isUuid(sessionId)) return null;
  const user = await principals.load(sessionId, userId);
  return (
    user && {
      id: user.id,
      email: user.email,
      name: user.name,
      roles: [...user.roles],
      permissions: [...user.permissions],
    }
  );
}
