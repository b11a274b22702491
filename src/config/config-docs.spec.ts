import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderEnvExample, TABLE_END, TABLE_START, withConfigurationTable } from './config-docs.js';
import { InvalidEnvironmentError, parseEnvironment } from './environment.js';
import { VARIABLES } from './variables.js';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('the configuration, declared once', () => {
  it('.env.example is what the declaration renders (run `npm run config:docs` after changing it)', () => {
    expect(read('.env.example')).toBe(renderEnvExample());
  });

  it("docs/configuration.md's table is what the declaration renders (run `npm run config:docs`)", () => {
    const document = read('docs/configuration.md');
    expect(document).toContain(TABLE_START);
    expect(document).toContain(TABLE_END);
    expect(document).toBe(withConfigurationTable(document));
  });

  it('names every declared variable in .env.example and in the table, each once', () => {
    const example = read('.env.example');
    const document = read('docs/configuration.md');
    for (const name of Object.keys(VARIABLES)) {
      expect(example.match(new RegExp(`^(# )?${name}=`, 'gm'))).toHaveLength(1);
      expect(document.match(new RegExp(`^\\| \`${name}\` \\|`, 'gm'))).toHaveLength(1);
    }
  });

  it('validates every declared variable, optional ones included, and ignores undeclared ones', () => {
    // A number where none is allowed, or a word where a number is: each declared variable that
    // can be wrong is refused by name, so none is left out of the validation.
    for (const name of Object.keys(VARIABLES)) {
      const refused = [[], '-1', 'not a valid value for anything:'].some((value) => {
        try {
          parseEnvironment({ [name]: value as unknown as string });
          return false;
        } catch (error) {
          return error instanceof InvalidEnvironmentError && error.problems.some((p) => p.startsWith(`${name}=`));
        }
      });
      expect({ name, refused }).toEqual({ name, refused: true });
    }
    expect(() => parseEnvironment({ NOT_A_VARIABLE: '-1', PATH: '/bin' })).not.toThrow();
  });

  it('writes a default into .env.example exactly as the validation reads it', () => {
    const values = Object.fromEntries(
      read('.env.example')
        .split('\n')
        .filter((line) => /^[A-Z0-9_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const parsed = parseEnvironment(values) as Record<string, unknown>;
    for (const [name, variable] of Object.entries(VARIABLES)) {
      if (variable.default !== undefined) expect([name, parsed[name]]).toEqual([name, variable.default]);
    }
  });
});
