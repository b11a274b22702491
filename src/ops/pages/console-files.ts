import { Injectable } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ConsoleAsset {
  body: Buffer;
  type: string;
}

export interface BuiltConsole {
  page: Buffer;
  assets: Map<string, ConsoleAsset>;
}

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/**
 * The folder `npm run build` writes the console into (`dist/console`), from `src/ops/pages`
 * (tests) and from `dist/src/ops/pages` (the build) alike; undefined when it was not built.
 */
function builtConsoleFolder(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'dist', 'console');
    if (existsSync(path.join(candidate, 'index.html'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

async function loadConsole(): Promise<BuiltConsole | null> {
  const folder = builtConsoleFolder();
  if (!folder) return null;
  const assets = new Map<string, ConsoleAsset>();
  const assetFolder = path.join(folder, 'assets');
  const names = existsSync(assetFolder) ? await readdir(assetFolder) : [];
  for (const name of names) {
    const type = TYPES[path.extname(name)];
    if (type) assets.set(name, { body: await readFile(path.join(assetFolder, name)), type });
  }
  return { page: await readFile(path.join(folder, 'index.html')), assets };
}

/**
 * The built console (src/console, built by Vite into dist/console): read on the first request and
 * kept in memory (some 50 KB). Only the files of the build are served, by name. A new build (its
 * `index.html` changed: `npm run start:dev` rebuilds on every change) is read when the page is next
 * asked for; the assets of the build in memory are served meanwhile.
 */
@Injectable()
export class ConsoleFiles {
  private built?: Promise<BuiltConsole | null>;
  private builtAt?: number;

  /** The build for the page: a newer one than in memory when there is one. */
  async forPage(): Promise<BuiltConsole | null> {
    const folder = builtConsoleFolder();
    const modified = folder ? (await stat(path.join(folder, 'index.html')).catch(() => null))?.mtimeMs : undefined;
    if (modified !== this.builtAt) {
      this.builtAt = modified;
      this.built = loadConsole();
    }
    return this.get();
  }

  get(): Promise<BuiltConsole | null> {
    return (this.built ??= loadConsole());
  }
}
