import type { AuthUser } from '@auth-rbac/nest-guard';
import { SystemRoles } from '@auth-rbac/nest-guard/internal';
import { Injectable } from '@nestjs/common';
import { Transactions } from '../infra/database/transactions.js';
import { AuditLog } from '../audit/index.js';
import {
  assertMayActOn,
  assertMayAssignAdminRole,
  assertMayGrant,
  notFound,
  unknownIds,
  RolesRepository,
} from '../rbac/index.js';
import { ClientRolesRepository, type ClientRoleRef } from './client-roles.repository.js';
import { ClientsService } from './clients.service.js';

/**
 * Roles of service clients, given by an administrator (the admin API, under the privilege policy
 * as for users: the actor holds every permission the client has and every one it is given, and
 * the admin role needs `roles.edit`) or by the operator (`assign-client-role`, no actor). A
 * client's tokens read its roles on every request, so a change applies at once.
 */
@Injectable()
export class ClientRolesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly clientRoles: ClientRolesRepository,
    private readonly roles: RolesRepository,
    private readonly clients: ClientsService,
    private readonly audit: AuditLog,
  ) {
    clients.whenDeleted((manager, clientId) => this.clientRoles.removeAll(manager, clientId));
  }

  async list(clientId: string): Promise<{ client_id: string; roles: ClientRoleRef[] }> {
    await this.assertKnown(clientId);
    return { client_id: clientId, roles: await this.clientRoles.rolesOf(clientId) };
  }

  /** Adds roles (already held ones stay); `actor` null is the operator at the command line. */
  async add(
    actor: AuthUser | null,
    clientId: string,
    roleIds: string[],
  ): Promise<{ client_id: string; roles: ClientRoleRef[] }> {
    await this.assertKnown(clientId);
    const roles = await this.transactions.run(async (manager) => {
      await this.clientRoles.lockClient(manager, clientId);
      const found = roleIds.length ? await this.roles.findRolesByIds(manager, roleIds) : [];
      if (found.length !== roleIds.length) {
        const known = new Set(found.map((role) => role.id));
        throw unknownIds(
          'role_ids',
          roleIds.filter((id) => !known.has(id)),
        );
      }
      if (actor) {
        const target = { type: 'client' as const, id: clientId };
        if (found.some((role) => role.name === SystemRoles.Admin))
          assertMayAssignAdminRole(actor, target, 'client.roles');
        assertMayActOn(actor, target, await this.clientRoles.permissionsOf(clientId, manager), 'client.roles');
        assertMayGrant(actor, target, await this.roles.permissionNamesOfRoles(manager, roleIds), 'client.roles');
      }
      await this.clientRoles.add(manager, clientId, roleIds);
      return this.clientRoles.rolesOf(clientId, manager);
    });
    await this.recordChange(actor, clientId, roles);
    return { client_id: clientId, roles };
  }

  async remove(
    actor: AuthUser | null,
    clientId: string,
    roleId: string,
  ): Promise<{ client_id: string; roles: ClientRoleRef[] }> {
    await this.assertKnown(clientId);
    const roles = await this.transactions.run(async (manager) => {
      await this.clientRoles.lockClient(manager, clientId);
      const [role] = await this.roles.findRolesByIds(manager, [roleId]);
      if (!role) throw notFound('Role');
      if (actor) {
        const target = { type: 'client' as const, id: clientId };
        if (role.name === SystemRoles.Admin) assertMayAssignAdminRole(actor, target, 'client.roles');
        assertMayActOn(actor, target, await this.clientRoles.permissionsOf(clientId, manager), 'client.roles');
      }
      await this.clientRoles.remove(manager, clientId, roleId);
      return this.clientRoles.rolesOf(clientId, manager);
    });
    await this.recordChange(actor, clientId, roles);
    return { client_id: clientId, roles };
  }

  /** The role id of a role name, for the command line. */
  async roleIdOf(name: string): Promise<string> {
    const role = await this.roles.findRoleByName(name);
    if (!role) throw notFound('Role');
    return role.id;
  }

  private async assertKnown(clientId: string): Promise<void> {
    if (!(await this.clients.exists(clientId))) throw notFound('Client');
  }

  private recordChange(actor: AuthUser | null, clientId: string, roles: ClientRoleRef[]): Promise<void> {
    return this.audit.record({
      type: 'client.roles',
      actorId: actor?.id ?? null,
      actorKind: actor?.kind,
      targetType: 'client',
      targetId: clientId.slice(0, 64),
      details: { client_id: clientId, roles: roles.map((role) => role.name).sort() },
    });
  }
}
