import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClientWithCli, type ClientSpec } from './clients.js';
import { freePort } from './free-port.js';
import { startServiceAsReadme, type RunningService } from './service-process.js';
import { createDatabase, type TestDatabase } from './test-database.js';

/** The service as a user runs it, for relying parties to sign in against. */
export interface ProviderService {
  /** `http://localhost:<PORT>`: APP_URL follows PORT when unset, and the issuer follows APP_URL. */
  issuer: string;
  service: RunningService;
  /** Registers a client with the CLI, beside the running service; resolves with its secret (null: public). */
  createClient(spec: ClientSpec): Promise<string | null>;
  stop(): Promise<void>;
}

/**
 * Starts the built service with the README's run command (`npm start` once built), as a child
 * process in a folder of its own (its `./data`), on a free loopback port (`PORT`; the service
 * listens on 127.0.0.1 by default) and on a new database of this test file, migrated and never
 * seeded, as a first start meets it. Nothing else is configured: the issuer, the signing keys and
 * the seeded accounts are the service's own defaults.
 */
export async function startProviderService(): Promise<ProviderService> {
  const database: TestDatabase = await createDatabase('migrated');
  const cwd = await mkdtemp(path.join(tmpdir(), 'provider-service-'));
  const env = { DATABASE_URL: database.url, PORT: String(await freePort()) };
  let service: RunningService;
  try {
    service = await startServiceAsReadme(cwd, env);
  } catch (error) {
    await database.drop();
    await rm(cwd, { recursive: true, force: true });
    throw error;
  }
  return {
    issuer: `http://localhost:${env.PORT}`,
    service,
    createClient: (spec) => createClientWithCli(cwd, env, spec),
    async stop() {
      await service.stop();
      await database.drop();
      await rm(cwd, { recursive: true, force: true });
    },
  };
}
