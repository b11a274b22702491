import { TestEnvironment } from 'jest-environment-node';
import { createDatabase } from './databases.mjs';

/**
 * The environment of the e2e tests: each test file gets databases of its own, copies of the run's
 * migrated and seeded templates, made when the file first asks, and dropped once the file's last
 * hook has run, so no app or connection of the file is still open when its database goes. Test
 * files reach it through `test/support/test-database.ts`.
 */
export default class DatabaseEnvironment extends TestEnvironment {
  /** @type {Promise<import('./databases.mjs').TestDatabase>[]} */
  #databases = [];
  /** @type {Promise<import('./databases.mjs').TestDatabase> | undefined} */
  #fileDatabase;

  async setup() {
    await super.setup();
    /** @param {import('./databases.mjs').Template} template */
    const create = (template) => {
      const database = createDatabase(template);
      this.#databases.push(database);
      return database;
    };
    this.global.testDatabases = Object.freeze({
      file: () => (this.#fileDatabase ??= create('seeded')),
      create,
    });
  }

  async teardown() {
    const drops = await Promise.allSettled(
      this.#databases.map(async (database) => {
        // One that failed to be created has nothing to drop; its test already failed.
        const created = await database.catch(() => undefined);
        await created?.drop();
      }),
    );
    await super.teardown();
    const failure = drops.find((drop) => drop.status === 'rejected');
    if (failure) throw failure.reason;
  }
}
