import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UsersRepository, type NewUser, type SignInAccount } from '../identity/index.js';
import { UserRolesRepository } from './user-roles.repository.js';

/**
 * A new account with its first role (registration's `user`, an administrator's or the CLI's),
 * written by each table's owner in the caller's transaction.
 */
@Injectable()
export class NewAccounts {
  constructor(
    private readonly users: UsersRepository,
    private readonly userRoles: UserRolesRepository,
  ) {}

  async create(manager: EntityManager, user: NewUser, roleName: string): Promise<SignInAccount> {
    const created = await this.users.insert(manager, user);
    await this.userRoles.grantByName(manager, created.id, roleName);
    return created;
  }
}
