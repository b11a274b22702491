import { Injectable } from '@nestjs/common';
import { RolesRepository } from '../rbac/index.js';

/** The names of the service's permissions, sorted: what consumers' typed permissions are made of. */
@Injectable()
export class PermissionNamesService {
  constructor(private readonly roles: RolesRepository) {}

  async list(): Promise<{ items: string[]; total: number }> {
    const items = (await this.roles.listPermissions()).map((permission) => permission.name).sort();
    return { items, total: items.length };
  }
}
