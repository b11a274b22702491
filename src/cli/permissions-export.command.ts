import { writeFile } from 'node:fs/promises';
import { Command, CommandRunner, Option } from 'nest-commander';
import { RolesRepository } from '../rbac/index.js';
import { OrganizationRolesRepository } from '../organizations/index.js';

interface ExportOptions {
  format?: string;
  out?: string;
}

/**
 * The permission names as a TypeScript module for services on `@auth-rbac/nest-guard`: a constant
 * list (`as const`), its union type, and the package's `PermissionRegistry` filled with it, so that
 * `@RequirePermissions`, `@RequireAnyPermission` and `AuthUser.has` accept those names only.
 */
export function permissionsModule(names: readonly string[]): string {
  const sorted = [...new Set(names)].sort();
  return [
    '// The permissions of the auth service, written by `npm run cli -- permissions:export --format ts`.',
    '// Regenerate it when permissions change; do not edit it by hand.',
    '',
    'export const PERMISSIONS = [',
    ...sorted.map((name) => `  ${JSON.stringify(name)},`),
    '] as const;',
    '',
    'export type AppPermission = (typeof PERMISSIONS)[number];',
    '',
    "declare module '@auth-rbac/nest-guard' {",
    '  interface PermissionRegistry extends Record<AppPermission, true> {}',
    '}',
    '',
  ].join('\n');
}

/** `permissions:export --format ts [--out FILE]`: the module on standard output (nothing else), or in FILE. */
@Command({
  name: 'permissions:export',
  description: 'Print the permission names as a typed TypeScript module (--format ts), or write it with --out',
})
export class PermissionsExportCommand extends CommandRunner {
  constructor(
    private readonly roles: RolesRepository,
    private readonly organizationRoles: OrganizationRolesRepository,
  ) {
    super();
  }

  async run(_args: string[], options: ExportOptions): Promise<void> {
    const format = options.format ?? 'ts';
    if (format !== 'ts') throw new Error(`Unknown format "${format}": the one format is ts.`);
    // The instance's permissions and the organizations' alike: a consumer's decorators name either.
    const names = [...(await this.roles.listPermissions()), ...(await this.organizationRoles.listPermissions())];
    const text = permissionsModule(names.map((permission) => permission.name));
    if (options.out) await writeFile(options.out, text);
    else process.stdout.write(text);
  }

  @Option({ flags: '--format <format>', description: 'ts (the default)' })
  parseFormat(value: string): string {
    return value;
  }

  @Option({ flags: '--out <file>', description: 'write the module to this file instead of standard output' })
  parseOut(value: string): string {
    return value;
  }
}
