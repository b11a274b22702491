import type { LoggerService } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { oneLine } from '../infra/telemetry/startup-logger.js';

/**
 * Nest's messages while a command starts, as one plain line each on standard error: warnings
 * only (errors come back to main.ts, which prints the failure once). No colours, no stacks.
 */
export class CliLogger implements LoggerService {
  log(): void {}

  error(): void {}

  warn(message: unknown): void {
    const text = oneLine(message);
    // No command signs a token with a secret made up for this process; rotate-keys says so itself.
    if (text.startsWith('JWT_SECRET is not set')) return;
    process.stderr.write(`warning: ${text}\n`);
  }

  debug(): void {}

  verbose(): void {}

  fatal(): void {}
}

/** Error codes of a database that does not answer at its address. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN']);

/** A command's failure in one line, saying what it means when it is the database not answering. */
export function oneLineFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNREACHABLE.has(code)) {
    return `The database cannot be reached (${oneLine(error)}): check DATABASE_URL and that the server runs.`;
  }
  return oneLine(error);
}

/** The project's version, from its package.json (found upwards from this file, in dist or src). */
export function cliVersion(): string {
  for (let directory = import.meta.dirname; ; directory = path.dirname(directory)) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'auth-rbac-service' && manifest.version) return manifest.version;
    } catch {
      // No package.json here: look one folder up.
    }
    if (path.dirname(directory) === directory) return 'unknown';
  }
}
