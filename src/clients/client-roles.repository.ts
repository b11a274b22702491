import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { PermissionRow, RoleRow } from '../rbac/index.js';

/**
 * A row of `client_roles`, the one shape the table's statements answer in: every column aliased to
 * its camelCase name (`role_id AS "roleId"`).
 */
export interface ClientRoleRow {
  /** Not a foreign key: clients of SERVICE_CLIENTS live in the environment, not in `service_clients`. */
  clientId: string;
  roleId: string;
  createdAt: Date;
}

/** A role the client holds, as the join with `roles` reads it. */
export type ClientRoleRef = Pick<RoleRow, 'id' | 'name'>;

/** The roles given to service clients (`client_roles`). */
@Injectable()
export class ClientRolesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async rolesOf(clientId: string, manager: EntityManager = this.dataSource.manager): Promise<ClientRoleRef[]> {
    return manager.query(
      `SELECT r.id, r.name FROM client_roles cr JOIN roles r ON r.id = cr.role_id
        WHERE cr.client_id = $1 ORDER BY r.name`,
      [clientId],
    );
  }

  /** The union of the permissions of the client's roles. */
  async permissionsOf(clientId: string, manager: EntityManager = this.dataSource.manager): Promise<string[]> {
    const rows: Pick<PermissionRow, 'name'>[] = await manager.query(
      `SELECT DISTINCT p.name FROM client_roles cr
         JOIN role_permissions rp ON rp.role_id = cr.role_id
         JOIN permissions p ON p.id = rp.permission_id
        WHERE cr.client_id = $1`,
      [clientId],
    );
    return rows.map((row) => row.name);
  }

  /** Serialises changes of one client's roles (a transaction-scoped advisory lock on its id). */
  async lockClient(manager: EntityManager, clientId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('client_roles:' || $1))`, [clientId]);
  }

  async add(manager: EntityManager, clientId: string, roleIds: string[]): Promise<void> {
    if (roleIds.length === 0) return;
    await manager.query(
      `INSERT INTO client_roles (client_id, role_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING`,
      [clientId, roleIds],
    );
  }

  /** Every role of a client (its deletion: a client made later with the same id starts with none). */
  async removeAll(manager: EntityManager, clientId: string): Promise<void> {
    await manager.query(`DELETE FROM client_roles WHERE client_id = $1`, [clientId]);
  }

  async remove(manager: EntityManager, clientId: string, roleId: string): Promise<void> {
    await manager.query(`DELETE FROM client_roles WHERE client_id = $1 AND role_id = $2`, [clientId, roleId]);
  }
}
