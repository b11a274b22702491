import { AuthGuardModule } from '@auth-rbac/nest-guard';
import { OidcModule, ClientTokensService, principalOfSession } from '../oidc/index.js';
import { PrincipalService, RbacModule } from '../rbac/index.js';
import { SessionsModule, SigningKeys } from '../sessions/index.js';
import { AppConfig } from '../config/app-config.js';
import { OrganizationsModule, OrganizationTokensService } from '../organizations/index.js';

/**
 * The service guards its own routes with the package other services import: one verification
 * path and one set of decorators. Keys are the service's own (every key that still verifies), and
 * the caller comes from PrincipalService, whose cache every revocation and authorization change
 * invalidates on every instance; the package's own cache is off (`cacheTtlMs` 0). The guard is
 * placed among the application's global guards by AppModule, after the rate limit.
 */
export const ServiceAuthGuardModule = AuthGuardModule.forRootAsync({
  imports: [SessionsModule, RbacModule, OidcModule, OrganizationsModule],
  inject: [SigningKeys, PrincipalService, ClientTokensService, AppConfig, OrganizationTokensService],
  useFactory: (
    keys: SigningKeys,
    principals: PrincipalService,
    clientTokens: ClientTokensService,
    config: AppConfig,
    organizationTokens: OrganizationTokensService,
  ) => ({
    keys,
    issuer: keys.issuer,
    // `@RequireFreshAuth()` on the service's own routes: REAUTH_MAX_AGE.
    reauthMaxAgeSeconds: config.jwt.reauthMaxAge,
    permissionsFrom: {
      query: async (session) => {
        const record = await principalOfSession(principals, clientTokens, session);
        // An organization token: that organization's roles and permissions, and only those.
        if (!record || session.organizationId === undefined) return record;
        return organizationTokens.narrow(record, { ...session, organizationId: session.organizationId });
      },
    },
  }),
  globalGuard: false,
});
