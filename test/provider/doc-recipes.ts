import { readFileSync } from 'node:fs';
import path from 'node:path';

const DOC = path.resolve(import.meta.dirname, '../../docs/openid-provider.md');

/**
 * The files of a recipe of docs/openid-provider.md as a reader copies them: each code block of the
 * section whose first line names a file (`// app.js`, `<!-- index.html -->`, `# site.conf`), by
 * that name, unchanged.
 */
export function providerRecipe(title: string): Record<string, string> {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(`\n## ${title}`);
  if (start < 0) throw new Error(`docs/openid-provider.md has no "## ${title}"`);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const files: Record<string, string> = {};
  for (const [, body] of section.matchAll(/```\w+\n([\s\S]*?)```/g)) {
    const named = /^(?:\/\/|#|<!--) ([\w./-]+)[^\n]*\n/.exec(body);
    if (named) files[named[1]] = body;
  }
  return files;
}
