import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * What a service may do with the database itself: open a transaction and hand its manager to
 * repositories. Services inject this rather than the DataSource, so that every statement is
 * written in a repository (the import rules allow `typeorm` values only in repositories and here).
 */
@Injectable()
export class Transactions {
  constructor(private readonly dataSource: DataSource) {}

  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** The manager outside any transaction, for repository methods that take one. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }
}
