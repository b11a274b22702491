import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliDecompress, createBrotliDecompress } from 'node:zlib';
import { extract } from 'tar';

/**
 * A new PGlite cluster, as PGlite's own initdb leaves it, shipped with the service: the first
 * start on an empty data folder loads it instead of running initdb. initdb runs in a second
 * PGlite instance beside the first and holds the whole cluster in memory while it builds it,
 * which took a first start past 1.1 GB of resident memory; loading this archive costs its 40 MB.
 *
 * The archive is only valid for the PGlite release that made it, so its name carries that
 * release, and a start with another release runs initdb as before. `npm run embedded:template`
 * makes it anew for the installed release.
 */
export const TEMPLATE_FOLDER = 'assets/embedded';

/** The installed PGlite release, from its package.json (which the package does not export). */
export function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  let dir = path.dirname(entry);
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

export function templateFileName(version = pgliteVersion()): string {
  return `pgdata-pglite-${version}.tar.br`;
}

/**
 * The project's root: the nearest folder above this module that holds the template folder, from
 * `src/infra/database` (tests) and from `dist/src/infra/database` (the build) alike; none in a copy without it.
 */
function projectRoot(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, TEMPLATE_FOLDER))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Where the template of `version` is, or would be. */
export function templatePath(version = pgliteVersion()): string | undefined {
  const root = projectRoot();
  return root && path.join(root, TEMPLATE_FOLDER, templateFileName(version));
}

/**
 * Unpacks the shipped cluster into `pgdata` (which must not exist yet) as a stream, so it never
 * sits in memory whole; false when there is none for this release. It is unpacked beside
 * `pgdata` and renamed into place, so an interrupted start never leaves half a cluster behind.
 */
export async function extractClusterTemplate(pgdata: string): Promise<boolean> {
  const file = templatePath();
  if (!file || !existsSync(file)) return false;
  const partial = `${pgdata}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true, mode: 0o700 });
  try {
    await pipeline(createReadStream(file), createBrotliDecompress(), extract({ cwd: partial }));
    await rename(partial, pgdata);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
  return true;
}

/** The shipped cluster as the uncompressed tar PGlite's `loadDataDir` takes (for a cluster in memory), or none for this release. */
export async function loadClusterTemplate(): Promise<Blob | undefined> {
  const file = templatePath();
  if (!file || !existsSync(file)) return undefined;
  const compressed = await readFile(file);
  const tar = await promisify(brotliDecompress)(compressed);
  return new Blob([new Uint8Array(tar.buffer, tar.byteOffset, tar.byteLength)]);
}
