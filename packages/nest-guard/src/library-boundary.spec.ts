import { readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = import.meta.dirname;
const manifest = JSON.parse(readFileSync(path.join(SRC, '../package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  files?: string[];
  private?: boolean;
};

/** Every module `index.ts` loads at run time, following relative imports; bare ones collected. */
function importGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const source = readFileSync(file, 'utf8');
    // `import type` and `export type` vanish at compile time; everything else is counted.
    for (const match of source.matchAll(/^(?:import|export)\s+(?!type\s)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gms)) {
      const specifier = match[1];
      if (specifier.startsWith('.')) pending.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
      else
        packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);
    }
  }
  return { files, packages };
}

describe('the package entry (index.ts)', () => {
  const { files, packages } = importGraph(path.join(SRC, 'index.ts'));

  it('stays inside the package', () => {
    expect([...files].filter((file) => !file.startsWith(SRC))).toEqual([]);
  });

  it('needs only Nest (a peer), jose, lru-cache and eventsource-parser at run time, none of the service (database, hashing, Redis, mail)', () => {
    expect([...packages].sort()).toEqual([
      '@nestjs/common',
      '@nestjs/core',
      'eventsource-parser',
      'jose',
      'lru-cache',
      'node:crypto',
    ]);
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(['eventsource-parser', 'jose', 'lru-cache']);
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).toEqual([
      '@nestjs/common',
      '@nestjs/core',
      'reflect-metadata',
      'rxjs',
    ]);
    expect(manifest.peerDependencies?.['@nestjs/common']).toBe('>=11 <13');
  });

  it('is publishable: not private, and ships only its build', () => {
    expect(manifest.private).not.toBe(true);
    expect(manifest.files).toContain('dist');
  });
});
