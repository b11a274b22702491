import { AnyAudienceVerifier } from '../sessions/index.js';
import { HttpException, Injectable } from '@nestjs/common';
import { principalOfSession, ClientTokensService } from '../oidc/index.js';
import { PrincipalService } from '../rbac/index.js';
import { OrganizationTokensService } from '../organizations/index.js';
import { PrincipalRules } from '../second-factor/index.js';

export type IntrospectionResponse =
  | { active: false }
  | {
      active: true;
      sub: string;
      sid: string;
      exp: number;
      email: string;
      name: string;
      roles: string[];
      permissions: string[];
      token_type: 'access';
      /** When the session's holder last proved presence (seconds since the epoch), and how (RFC 8176). */
      auth_time?: number;
      amr: string[];
      /** A service token's client (RFC 7662 `client_id`). */
      client_id?: string;
      /** An organization token's organization. */
      org_id?: string;
    };

/**
 * RFC 7662 for the service's access tokens: the same verification as the service's own guard
 * (the guard package's verifier with the service's keys) and the same caller cache
 * (PrincipalService), so a warm token costs no database round trip and a revocation is seen at once.
 */
@Injectable()
export class IntrospectionService {
  constructor(
    private readonly verifier: AnyAudienceVerifier,
    private readonly principals: PrincipalService,
    private readonly clientTokens: ClientTokensService,
    private readonly rules: PrincipalRules,
    private readonly organizationTokens: OrganizationTokensService,
  ) {}

  async introspect(token: string): Promise<IntrospectionResponse> {
    let claims;
    try {
      claims = await this.verifier.verify(token);
    } catch (error) {
      // Any token problem is simply "not active"; anything else (a 503) goes on.
      if (error instanceof HttpException && error.getStatus() === 401) return { active: false };
      throw error;
    }
    if (!claims) return { active: false };
    const session = await principalOfSession(this.principals, this.clientTokens, claims);
    // An organization token: that organization's roles and permissions only; none once no member.
    const found =
      session && claims.organizationId !== undefined
        ? await this.organizationTokens.narrow(session, { ...claims, organizationId: claims.organizationId })
        : session;
    if (!found) return { active: false };
    // The service's own rules, by the same function its enrolment guard uses: a privileged account
    // that must enrol a second factor is answered with no role and no permission.
    const record = await this.rules.forConsumers({ ...found, kind: claims.kind });
    return {
      active: true,
      sub: record.id,
      sid: claims.sessionId,
      exp: Math.floor(claims.expiresAt / 1000),
      email: record.email,
      name: record.name,
      roles: record.roles,
      permissions: record.permissions,
      token_type: 'access',
      ...(claims.authTime !== undefined ? { auth_time: claims.authTime } : {}),
      amr: claims.amr ?? [],
      // RFC 7662: the client the token was issued to (a service token's own client).
      ...(claims.clientId !== undefined ? { client_id: claims.clientId } : {}),
      ...(claims.organizationId !== undefined ? { org_id: claims.organizationId } : {}),
    };
  }
}
