// SQL lives only in repositories: outside `*.repository.ts` and src/infra/database/ (connection,
// migrations, entities), no file of src may run a statement. dependency-cruiser keeps TypeORM's
// values out of those files (.dependency-cruiser.cjs); this finds what it cannot see, a statement
// run on an EntityManager that a transaction handed over. Run by `npm run lint:deps`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const ALLOWED = [/\.repository\.ts$/, /^src\/infra\/database\//, /\.spec\.ts$/];
const STATEMENTS = [
  [/\.query\s*\(/, 'a query'],
  [/\bcreateQueryBuilder\s*\(/, 'a query builder'],
  [/\bgetRepository\s*\(/, "a TypeORM repository (write a method in this aggregate's *.repository.ts)"],
  [/\bmanager\s*\.\s*[A-Za-z]+\s*\(/, 'a statement on an EntityManager (hand the manager to a repository)'],
];

function* files(dir) {
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(relative);
    else if (relative.endsWith('.ts')) yield relative;
  }
}

const problems = [];
for (const file of files('src')) {
  if (ALLOWED.some((pattern) => pattern.test(file))) continue;
  readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
      for (const [pattern, what] of STATEMENTS)
        if (pattern.test(line)) problems.push(`${file}:${index + 1}: ${what} outside a repository: ${line.trim()}`);
    });
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`\n${problems.length} statement(s) outside repositories (see docs/architecture.md).`);
  process.exit(1);
}
console.log('Data access: every statement of src is in a repository or src/infra/database/.');
