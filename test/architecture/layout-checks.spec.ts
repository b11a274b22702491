import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The layout checks of `npm run lint:deps` that are scripts of this repository, run on small
 * planted trees: each one passes a tree that keeps its rule and refuses one that breaks it.
 */
const SCRIPTS = path.resolve(import.meta.dirname, '../../scripts');

function plant(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'layout-check-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

function run(script: string, files: Record<string, string>, argsOf: (root: string) => string[]) {
  const root = plant(files);
  roots.push(root);
  const result = spawnSync(process.execPath, [path.join(SCRIPTS, script), ...argsOf(root)], {
    cwd: root,
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('scripts/check-data-access.mjs', () => {
  const check = (files: Record<string, string>) => run('check-data-access.mjs', files, (root) => [root]);

  const entity = {
    'src/infra/database/entities/note.entity.ts': `import { Entity } from 'typeorm';
export type NoteKind = 'short' | 'long';
@Entity({ name: 'notes' })
export class Note {}
`,
  };
  const repository = `import { DataSource } from 'typeorm';
import type { NoteKind } from '../infra/database/entities/note.entity.js';
export interface NoteRow { id: string; authorId: string; kind: NoteKind }
export class NotesRepository {
  constructor(private readonly dataSource: DataSource) {}
  async find(id: string): Promise<NoteRow | null> {
    const [row]: NoteRow[] = await this.dataSource.query(
      \`SELECT id, author_id AS "authorId", kind FROM notes WHERE id = $1\`,
      [id],
    );
    return row ?? null;
  }
}
`;

  it('passes SQL in a repository answering one camelCase row, with snake_case only inside its SQL', () => {
    const result = check({ ...entity, 'src/notes/notes.repository.ts': repository });
    expect(result.output).toContain('Data access: statements only in repositories');
    expect(result.status).toBe(0);
  });

  it('refuses a statement outside a repository', () => {
    const result = check({
      ...entity,
      'src/notes/notes.service.ts': `export async function count(manager: { query(sql: string): Promise<unknown> }) {
  return manager.query('SELECT count(*) FROM notes');
}
`,
    });
    expect(result.status).toBe(1);
    expect(result.output).toContain('src/notes/notes.service.ts:2: a query outside a repository');
  });

  it('refuses a snake_case row key declared or read in a repository', () => {
    const result = check({
      ...entity,
      'src/notes/notes.repository.ts': repository
        .replace('authorId: string', 'author_id: string')
        .replace('return row ?? null;', 'return row && { ...row, author: row.author_id };'),
    });
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      "src/notes/notes.repository.ts:3: a snake_case row key 'author_id' (alias the column to camelCase in SQL)",
    );
    expect(result.output).toContain("src/notes/notes.repository.ts:11: a snake_case row key 'author_id'");
  });

  it('refuses an ORM call in a repository', () => {
    const result = check({
      ...entity,
      'src/notes/notes.repository.ts': repository.replace(
        'return row ?? null;',
        "await this.dataSource.manager.update('notes', { id }, { kind: 'long' });\n    return row ?? null;",
      ),
    });
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      'src/notes/notes.repository.ts:11: an ORM call on an EntityManager in a repository (write SQL)',
    );
  });

  it('refuses an entity class imported outside the database folder, as a value or as a type', () => {
    const result = check({
      ...entity,
      'src/notes/notes.service.ts': `import { Note } from '../infra/database/entities/note.entity.js';
export const table = Note;
`,
      'src/notes/note-view.ts': `import type { Note } from '../infra/database/entities/note.entity.js';
export type NoteView = Note;
`,
    });
    expect(result.status).toBe(1);
    expect(result.output).toContain('src/notes/notes.service.ts:1: an entity class imported (Note)');
    expect(result.output).toContain("src/notes/note-view.ts:1: an entity class's type (Note)");
  });

  const writer = (name: string, sql: string) => `import type { EntityManager } from 'typeorm';
export class ${name} {
  async write(manager: EntityManager, id: string): Promise<void> {
    await manager.query(\`${sql}\`, [id]);
  }
}
`;

  it("passes a table written by one repository, whose statement another composes from the owner's export", () => {
    const result = check({
      'src/notes/notes.repository.ts': `import type { EntityManager } from 'typeorm';
/** The insert of a note's event, for statements of other tables to compose. */
export const noteEventInsert = (param: string) => \`INSERT INTO note_events (note_id) VALUES (\${param})\`;
export class NotesRepository {
  async remove(manager: EntityManager, id: string): Promise<void> {
    await manager.query(\`UPDATE notes SET removed = true WHERE id = $1\`, [id]);
    await manager.query(noteEventInsert('$1'), [id]);
  }
}
`,
      'src/archive/archive.repository.ts': `import type { EntityManager } from 'typeorm';
import { noteEventInsert } from '../notes/notes.repository.js';
export class ArchiveRepository {
  async archive(manager: EntityManager, id: string): Promise<void> {
    // Reads of another table are free: SELECT * FROM notes. Only writes have one owner.
    await manager.query(\`WITH a AS (DELETE FROM archived_notes WHERE id = $1) \${noteEventInsert('$1')}\`, [id]);
  }
}
`,
    });
    expect(result.output).toContain('one repository writing each table');
    expect(result.status).toBe(0);
  });

  it.each([
    ['an INSERT', 'INSERT INTO notes (id) VALUES ($1)'],
    ['an UPDATE', 'UPDATE notes SET removed = true WHERE id = $1'],
    ['a DELETE', 'DELETE FROM notes WHERE id = $1'],
    ['a write inside a CTE', 'WITH gone AS (DELETE FROM "notes" WHERE id = $1 RETURNING id) SELECT id FROM gone'],
  ])('refuses a table that a second repository writes with %s, naming both', (_kind, sql) => {
    const result = check({
      'src/notes/notes.repository.ts': writer('NotesRepository', 'UPDATE notes SET title = $1'),
      'src/archive/archive.repository.ts': writer('ArchiveRepository', sql),
    });
    expect(result.status).toBe(1);
    expect(result.output).toContain(
      'notes: written by 2 repositories (src/archive/archive.repository.ts, src/notes/notes.repository.ts)',
    );
  });
});

describe('scripts/check-folder-cycles.mjs', () => {
  const check = (files: Record<string, string>) => run('check-folder-cycles.mjs', files, () => []);

  it('passes folders that import one way only', () => {
    const result = check({
      'src/a/x.ts': `import { y } from '../b/y.js';\nexport const x = y;\n`,
      'src/b/y.ts': `export const y = 1;\n`,
    });
    expect(result.output).toContain('no cycle between folders, nor between files of the console');
    expect(result.status).toBe(0);
  });

  it('refuses two folders that import each other through different files (no file cycle)', () => {
    const result = check({
      'src/a/x.ts': `import { y } from '../b/y.js';\nexport const x = y;\n`,
      'src/a/z.ts': `export const z = 1;\n`,
      'src/b/y.ts': `import { z } from '../a/z.js';\nexport const y = z;\n`,
    });
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/folder cycle: src\/(a ⇄ src\/b|b ⇄ src\/a)/);
  });

  it('refuses a cycle between nested folders', () => {
    const result = check({
      'src/a/one/x.ts': `import { y } from '../two/y.js';\nexport const x = y;\n`,
      'src/a/one/z.ts': `export const z = 1;\n`,
      'src/a/two/y.ts': `import { z } from '../one/z.js';\nexport const y = z;\n`,
    });
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/folder cycle: src\/a\/(one ⇄ src\/a\/two|two ⇄ src\/a\/one)/);
  });

  it("refuses two files of the console's front end that import each other", () => {
    const result = check({
      'src/console/src/app.tsx': `import { Screen } from './screen';\nexport const App = () => Screen;\n`,
      'src/console/src/screen.tsx': `import { App } from './app';\nexport const Screen = () => App;\n`,
    });
    expect(result.status).toBe(1);
    expect(result.output).toContain('file cycle in the console: src/console/src/app.tsx → src/console/src/screen.tsx');
  });
});
