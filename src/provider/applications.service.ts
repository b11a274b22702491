import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/index.js';
import type { ClientInfo } from '../common/client-info.js';
import { Transactions } from '../infra/database/transactions.js';
import { AuthzVersions, notFound } from '../rbac/index.js';
import { SessionsRepository } from '../sessions/index.js';
import { ProviderRepository } from './provider.repository.js';
import { RelyingParties } from './relying-parties.js';

export interface ApplicationResponse {
  client_id: string;
  client_name: string;
  scopes: string[];
  granted_at: Date;
  updated_at: Date;
}

/**
 * The applications a person allowed (`GET /api/account/applications`), and withdrawing one:
 * its consent is forgotten and every session issued to it ends, with its tokens.
 */
@Injectable()
export class ApplicationsService {
  constructor(
    private readonly repository: ProviderRepository,
    private readonly clients: RelyingParties,
    private readonly transactions: Transactions,
    private readonly sessions: SessionsRepository,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
  ) {}

  async list(userId: string): Promise<{ items: ApplicationResponse[]; total: number }> {
    const rows = await this.repository.findConsentsOf(userId);
    const items = await Promise.all(
      rows.map(async (row) => ({
        client_id: row.clientId,
        client_name: (await this.clients.find(row.clientId))?.name ?? row.clientId,
        scopes: row.scope.split(' ').filter(Boolean),
        granted_at: row.createdAt,
        updated_at: row.updatedAt,
      })),
    );
    return { items, total: items.length };
  }

  async revoke(userId: string, clientId: string, client: ClientInfo): Promise<Record<string, never>> {
    const ended = await this.transactions.run(async (manager) => {
      const forgotten = await this.repository.deleteConsent(manager, userId, clientId);
      if (!forgotten) return null;
      return this.sessions.revoke(manager, { userId, clientId }, 'user_revoked');
    });
    if (ended === null) throw notFound('Application');
    if (ended.length > 0) await this.versions.bumpUser(userId);
    await this.audit.record({
      type: 'provider.consent_revoke',
      actorId: userId,
      targetType: 'client',
      targetId: clientId,
      client,
      details: { sessions_ended: ended.length },
    });
    return {};
  }
}
