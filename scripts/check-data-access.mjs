// Data access in one shape, checked where dependency-cruiser cannot see (`npm run lint:deps`):
//
// 1. SQL lives only in repositories: outside `*.repository.ts` and src/infra/database/
//    (connection, migrations, entities), no file of src runs a statement. dependency-cruiser keeps
//    TypeORM's values out of those files (.dependency-cruiser.cjs); this finds a statement run on
//    an EntityManager that a transaction handed over.
// 2. Repositories write SQL, not ORM calls: no `getRepository`, query builder or
//    `manager.insert/update/save/find…`, which would answer rows in a second shape.
// 3. One row shape per table (docs/decisions/046): no snake_case key is declared or read in a
//    repository's TypeScript (its SQL aliases every column to camelCase), so none leaves it.
// 4. The entity classes only describe the schema (the migrations test compares them with the
//    migrations): outside src/infra/database/ nothing imports a class of theirs, only a type.
// 5. One owner per table: every statement that writes a table (INSERT INTO, UPDATE, DELETE FROM,
//    TRUNCATE) is written in one repository file. A statement of another capability that must
//    write the table in its own statement composes the owner's exported piece of SQL
//    (`auditEventInsert`, `revocationEvents`), so the text of a write stands in one file only.
//
// `node scripts/check-data-access.mjs [root]` checks `root/src` (the repository's by default).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..'));
const REPOSITORY = /\.repository\.ts$/;
const DATABASE = /^src\/infra\/database\//;
const SPEC = /\.spec\.ts$/;
const ENTITIES = 'src/infra/database/entities';

const STATEMENTS = [
  [/\.query\s*\(/, 'a query'],
  [/\bcreateQueryBuilder\s*\(/, 'a query builder'],
  [/\bgetRepository\s*\(/, "a TypeORM repository (write a method in this aggregate's *.repository.ts)"],
  [/\bmanager\s*\.\s*[A-Za-z]+\s*\(/, 'a statement on an EntityManager (hand the manager to a repository)'],
];
const ORM_CALLS = [
  [/\bcreateQueryBuilder\s*\(/, 'a query builder'],
  [/\bgetRepository\s*\(/, 'a TypeORM repository'],
  [
    /\bmanager\s*\.\s*(insert|update|upsert|save|remove|delete|softDelete|create|find\w*|count\w*|exists\w*|increment|decrement)\s*\(/,
    'an ORM call on an EntityManager',
  ],
];

function* files(dir) {
  if (!existsSync(path.join(ROOT, dir))) return;
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(relative);
    else if (relative.endsWith('.ts')) yield relative;
  }
}

/** The TypeScript of a file without its comments, strings and template literals (its SQL). */
function codeOf(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' '))
    .replace(/`(?:[^`\\]|\\[\s\S])*`/g, (literal) => literal.replace(/[^\n]/g, ' '))
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, "''")
    .replace(/\/\/.*$/gm, '');
}

const entityClasses = new Map();
for (const file of files(ENTITIES))
  for (const match of readFileSync(path.join(ROOT, file), 'utf8').matchAll(/export\s+(?:abstract\s+)?class\s+(\w+)/g))
    entityClasses.set(match[1], file);

/** The tables a repository's SQL writes (comments left out; keywords in capitals, as the SQL is written). */
function writtenTables(text) {
  const sql = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const tables = new Set();
  for (const match of sql.matchAll(
    /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+"?([a-z_][a-z0-9_]*)"?/g,
  ))
    tables.add(match[1]);
  return tables;
}

const writers = new Map();
const problems = [];
for (const file of files('src')) {
  if (SPEC.test(file)) continue;
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const code = codeOf(text).split('\n');
  const lines = text.split('\n');
  const report = (index, what) => problems.push(`${file}:${index + 1}: ${what}: ${lines[index].trim()}`);

  if (!REPOSITORY.test(file) && !DATABASE.test(file))
    code.forEach((line, index) => {
      for (const [pattern, what] of STATEMENTS) if (pattern.test(line)) report(index, `${what} outside a repository`);
    });

  if (REPOSITORY.test(file))
    for (const table of writtenTables(text)) writers.set(table, [...(writers.get(table) ?? []), file]);

  if (REPOSITORY.test(file))
    code.forEach((line, index) => {
      for (const [pattern, what] of ORM_CALLS)
        if (pattern.test(line)) report(index, `${what} in a repository (write SQL)`);
      const snake = line.match(/(?:\b|\.)([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b\??\s*:|\.([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b/);
      if (snake) report(index, `a snake_case row key '${snake[1] ?? snake[2]}' (alias the column to camelCase in SQL)`);
    });

  if (!DATABASE.test(file))
    for (const match of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'([^']*database\/entities[^']*)'/g)) {
      if (match[1]) continue;
      const names = match[2].split(',').map((name) => name.trim().replace(/^type\s+/, ''));
      const classes = names.filter((name) => entityClasses.has(name) && !match[2].includes(`type ${name}`));
      const index = text.slice(0, match.index).split('\n').length - 1;
      if (classes.length > 0)
        report(index, `an entity class imported (${classes.join(', ')}): read the table's row type`);
    }
  if (!DATABASE.test(file))
    for (const match of text.matchAll(/import\s+type\s+\{([^}]*)\}\s+from\s+'([^']*database\/entities[^']*)'/g)) {
      const classes = match[1]
        .split(',')
        .map((name) => name.trim())
        .filter((name) => entityClasses.has(name));
      const index = text.slice(0, match.index).split('\n').length - 1;
      if (classes.length > 0)
        report(index, `an entity class's type (${classes.join(', ')}): read the table's row type`);
    }
}

for (const [table, owners] of writers) {
  if (owners.length > 1)
    problems.push(
      `${table}: written by ${owners.length} repositories (${[...owners].sort().join(', ')}): one owns the table, ` +
        "and the others compose its owner's statement",
    );
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`\n${problems.length} data-access problem(s) (see docs/architecture.md).`);
  process.exit(1);
}
console.log(
  'Data access: statements only in repositories, SQL only, one camelCase row shape per table, one repository writing each table.',
);
