import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AuditLog, type AuditEventType } from '../audit/index.js';
import type { Actor } from '../common/actor.js';
import { asConflict } from '../common/unique-violation.js';
import { Transactions } from '../infra/database/transactions.js';
import { AuthzVersions } from './authz-versions.js';

/** A change to a role or a permission, as the audit trail names it. */
export interface DefinitionChange {
  type: AuditEventType;
  actor: Actor;
  target: { type: 'role' | 'permission'; id: string };
  details?: Record<string, unknown>;
}

/** What every write of a role or a permission definition does around its own statements. */
@Injectable()
export class DefinitionWrites {
  constructor(
    private readonly transactions: Transactions,
    private readonly versions: AuthzVersions,
    private readonly audit: AuditLog,
  ) {}

  /** One transaction; a name another role or permission holds is 409. */
  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.transactions.run(work);
    } catch (error) {
      throw asConflict(error);
    }
  }

  /** After the commit: definitions touch every holder, so all cached callers go stale; then the audit row. */
  async committed(change: DefinitionChange): Promise<void> {
    await this.versions.bumpGlobal();
    await this.recorded(change);
  }

  async recorded({ type, actor, target, details }: DefinitionChange): Promise<void> {
    await this.audit.recordChange(type, actor, target, details);
  }
}
