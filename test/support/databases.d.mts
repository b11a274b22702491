export type Template = 'empty' | 'migrated' | 'seeded';
export interface TestDatabase {
  url: string;
  kind: 'server' | 'embedded';
  /** Removes the database now rather than after the test file (safe to call twice). */
  drop(): Promise<void>;
}
export function prepareTemplates(
  serverUrl: string | undefined,
  prepare: (url: string, template: 'migrated' | 'seeded') => Promise<void>,
): Promise<Record<string, string>>;
export function dropRun(env: Record<string, string | undefined>): Promise<void>;
export function createDatabase(template: Template, env?: Record<string, string | undefined>): Promise<TestDatabase>;
