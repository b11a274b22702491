import { Injectable } from '@nestjs/common';
import { RolesRepository } from '../rbac/index.js';
import { OrganizationRolesRepository } from '../organizations/index.js';

/** The names of the service's permissions, sorted: what consumers' typed permissions are made of. */
@Injectable()
export class PermissionNamesService {
  constructor(
    private readonly roles: RolesRepository,
    private readonly organizationRoles: OrganizationRolesRepository,
  ) {}

  /** The instance's permissions and the organization permissions, which consumers' decorators name alike. */
  async list(): Promise<{ items: string[]; total: number }> {
    const all = [...(await this.roles.listPermissions()), ...(await this.organizationRoles.listPermissions())];
    const items = [...new Set(all.map((permission) => permission.name))].sort();
    return { items, total: items.length };
  }
}
