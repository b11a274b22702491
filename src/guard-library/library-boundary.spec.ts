import { readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(import.meta.dirname, '..');

/** Every module `src/index.ts` loads at run time, following relative imports; bare ones collected. */
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
      else packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]);
    }
  }
  return { files, packages };
}

describe('the library entry (src/index.ts)', () => {
  const { files, packages } = importGraph(path.join(SRC, 'index.ts'));
  const relative = [...files].map((file) => path.relative(SRC, file));

  it('loads none of the service application: configuration, database, entities, repositories', () => {
    expect(relative.filter((file) => /^(config|database|users|settings|contents|mail|redis|health|cli)\//.test(file))).toEqual([]);
    expect(relative.filter((file) => /(\.entity|\.module|\.repository|\.service)\.ts$/.test(file) && !file.startsWith('guard-library/'))).toEqual([]);
    expect(relative).not.toContain('app.module.ts');
  });

  it('needs only Nest and the JWT library at run time', () => {
    expect([...packages].sort()).toEqual(['@nestjs/common', '@nestjs/core', '@nestjs/jwt', 'node:crypto']);
  });

  it('reuses the service decorators, AuthUser and permission check instead of copies', () => {
    expect(relative).toEqual(
      expect.arrayContaining([
        'rbac/auth-user.ts',
        'rbac/permissions.decorator.ts',
        'rbac/permissions.guard.ts',
        'rbac/permission-names.ts',
        'auth/public.decorator.ts',
        'auth/current-user.decorator.ts',
      ]),
    );
  });
});
