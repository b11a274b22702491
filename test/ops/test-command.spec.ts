import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const RUN_ALL = path.join(ROOT, 'scripts/run-all.mjs');

describe('npm test', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

  it('builds, then runs every tier through run-all, the timing tier last', () => {
    expect(pkg.scripts.test).toBe(
      'npm run build && node scripts/run-all.mjs test:guard test:unit test:medium:built test:e2e:built test:timing',
    );
    for (const tier of ['test:guard', 'test:unit', 'test:medium:built', 'test:e2e:built', 'test:timing'])
      expect(pkg.scripts[tier]).toBeDefined();
  });

  describe('run-all', () => {
    let folder: string;
    beforeEach(() => {
      folder = mkdtempSync(path.join(tmpdir(), 'auth-run-all-'));
    });
    afterEach(() => rmSync(folder, { recursive: true, force: true }));

    const run = (scripts: Record<string, string>, names: string[]) => {
      writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'scratch', scripts }));
      return spawnSync(process.execPath, [RUN_ALL, ...names], { cwd: folder, encoding: 'utf8' });
    };

    it('runs the later scripts after a failed one, and still fails, naming it', () => {
      const result = run({ first: 'exit 3', second: "node -e \"require('fs').writeFileSync('second-ran', '')\"" }, [
        'first',
        'second',
      ]);
      expect(existsSync(path.join(folder, 'second-ran'))).toBe(true);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('Failed: first (exit 3).');
    });

    it('succeeds when every script succeeds', () => {
      const result = run({ first: 'exit 0', second: 'exit 0' }, ['first', 'second']);
      expect(result.status).toBe(0);
    });
  });
});
