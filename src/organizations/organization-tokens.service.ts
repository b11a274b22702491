import type { AuthUser } from '@auth-rbac/nest-guard';
import type { PrincipalRecord } from '@auth-rbac/nest-guard/internal';
import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/index.js';
import { AppConfig } from '../config/app-config.js';
import { VersionedCache } from '../infra/redis/versioned-cache.js';
import { AuthzVersions } from '../rbac/index.js';
import { TokenService, type AuthenticationMethod } from '../sessions/index.js';
import { MembershipsRepository, type MembershipAccess } from './memberships.repository.js';
import { organizationNotFound } from './organization-access.js';
import { OrganizationsRepository } from './organizations.repository.js';

export interface OrganizationTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/** The caller's organization as `GET /api/auth/me` shows it under an organization token. */
export interface OrganizationSummary {
  id: string;
  slug: string;
  name: string;
  roles: string[];
  permissions: string[];
}

/**
 * Organization tokens: an access token of the caller's own session with the claim `org_id`.
 * Nothing is kept on the session, so several tabs may hold tokens of several organizations at
 * once; ending the session ends them all. Under such a token the caller's roles and permissions
 * are those of the membership alone (`narrow`), read per request like the instance's: cached while
 * the person's and the global authorization versions are unchanged (every membership and template
 * change bumps one), and none once the membership is gone.
 */
@Injectable()
export class OrganizationTokensService {
  private readonly cache = new VersionedCache<{ access: MembershipAccess | null }>({
    maxEntries: 10_000,
    maxAgeMs: 60_000,
  });

  constructor(
    private readonly memberships: MembershipsRepository,
    private readonly organizations: OrganizationsRepository,
    private readonly tokens: TokenService,
    private readonly versions: AuthzVersions,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  /** For a member's access token (ordinary, or of any organization): a token of `organizationId`. */
  async issue(caller: AuthUser, organizationId: string): Promise<OrganizationTokenResponse> {
    const access = caller.kind === 'person' ? await this.memberships.findAccess(organizationId, caller.id) : null;
    if (!access) throw organizationNotFound();
    const accessToken = await this.tokens.signAccess(
      { userId: caller.id, email: caller.email, sessionId: caller.sessionId },
      {
        time: new Date((caller.authTime ?? Math.floor(Date.now() / 1000)) * 1000),
        methods: [...caller.amr] as AuthenticationMethod[],
      },
      null,
      organizationId,
    );
    await this.audit.record({
      type: 'organization.token',
      actorId: caller.id,
      targetType: 'organization',
      targetId: organizationId,
      details: { session_id: caller.sessionId },
    });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: this.config.jwt.accessTokenTtl };
  }

  /** For the token endpoint's `organization_id`. */
  async isMember(organizationId: string, userId: string): Promise<boolean> {
    return (await this.memberships.findAccess(organizationId, userId)) !== null;
  }

  /**
   * The record of a live session narrowed to one organization: its roles and permissions there
   * and only those; null when the person is no member (any more).
   */
  async narrow(record: PrincipalRecord, session: { userId: string; sessionId: string; organizationId: string }) {
    const access = await this.membershipAccess(session.organizationId, session.userId);
    if (!access) return null;
    return { ...record, roles: access.roles, permissions: access.permissions, organizationId: session.organizationId };
  }

  async summary(caller: AuthUser): Promise<OrganizationSummary | undefined> {
    if (caller.organizationId === undefined) return undefined;
    const organization = await this.organizations.findById(caller.organizationId);
    if (!organization) return undefined;
    return {
      id: organization.id,
      slug: organization.slug,
      name: organization.name,
      roles: [...caller.roles],
      permissions: [...caller.permissions],
    };
  }

  private async membershipAccess(organizationId: string, userId: string): Promise<MembershipAccess | null> {
    if (!this.versions.enabled) return this.memberships.findAccess(organizationId, userId);
    const versions = await this.versions.read(userId);
    const version = versions && `${versions[0]}|${versions[1]}`;
    const key = `${organizationId}:${userId}`;
    const cached = this.cache.get(key, version);
    if (cached) return cached.access;
    const access = await this.memberships.findAccess(organizationId, userId);
    if (access) {
      Object.freeze(access.roles);
      Object.freeze(access.permissions);
    }
    this.cache.set(key, version, Object.freeze({ access }));
    return access;
  }
}
