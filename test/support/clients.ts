import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ClientsService } from '../../src/clients/index.js';

const CLI = path.resolve(import.meta.dirname, '../../dist/src/cli/main.js');

/** A first-party application of the client registry (no consent asked), as the provider's tests register them. */
export interface ClientSpec {
  id: string;
  name: string;
  /** A browser or native app: no secret. Otherwise confidential. */
  public?: boolean;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
}

/** Registers the client in the registry of an app made in the test's process; resolves with its secret (null: public). */
export async function registerClient(app: NestFastifyApplication, spec: ClientSpec): Promise<string | null> {
  const { secret } = await app.get(ClientsService).register(
    spec.id,
    {
      name: spec.name,
      type: spec.public ? 'public' : 'confidential',
      redirectUris: spec.redirectUris,
      postLogoutRedirectUris: spec.postLogoutRedirectUris ?? [],
      firstParty: true,
      backchannelLogoutUri: null,
    },
    'admin',
  );
  return secret ?? null;
}

/**
 * Registers the client as docs/openid-provider.md says: `npm run cli -- create-client <id> --name ...
 * --first-party --redirect-uri ...` (the built CLI, `node dist/src/cli/main.js`, which is what `npm
 * run cli` runs), in the service's folder with the service's environment. Resolves with the secret
 * it printed once (null: a public client, which has none).
 */
export function createClientWithCli(
  cwd: string,
  env: Record<string, string>,
  spec: ClientSpec,
): Promise<string | null> {
  const args = ['create-client', spec.id, '--name', spec.name, '--first-party'];
  if (spec.public) args.push('--public');
  for (const uri of spec.redirectUris) args.push('--redirect-uri', uri);
  for (const uri of spec.postLogoutRedirectUris ?? []) args.push('--post-logout-redirect-uri', uri);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const created = new RegExp(
        `^Client ${spec.id} created(?:\\. Its secret, shown only now:\\n(\\S+)|: a public client)`,
        'm',
      ).exec(stdout);
      if (code !== 0 || !created) return reject(new Error(`create-client failed (${code}):\n${stdout}${stderr}`));
      resolve(created[1] ?? null);
    });
  });
}
