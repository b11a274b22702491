import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { SecurityEventsRepository } from '../events/index.js';
import { AuthzVersions } from '../rbac/index.js';

/** A membership whose permissions in its organization changed (roles, joining, leaving, deletion). */
export interface ChangedMembership {
  organizationId: string;
  userId: string;
}

/**
 * How a change of memberships reaches every reader: one signed `assignment-change` per person
 * and organization (`sub`, `org_id`) on the event stream, written in the change's transaction,
 * and the person's authorization version bumped after the commit, so the service's cached callers
 * and the consumers' both drop what they knew.
 */
@Injectable()
export class OrganizationChanges {
  constructor(
    private readonly events: SecurityEventsRepository,
    private readonly versions: AuthzVersions,
  ) {}

  /** In the transaction. */
  async announce(manager: EntityManager, changed: readonly ChangedMembership[]): Promise<void> {
    await this.events.append(
      manager,
      changed.map(({ organizationId, userId }) => ({ type: 'assignment-change', sub: userId, org_id: organizationId })),
    );
  }

  /** After the commit. */
  async published(changed: readonly ChangedMembership[]): Promise<void> {
    for (const userId of new Set(changed.map((change) => change.userId))) await this.versions.bumpUser(userId);
  }
}
