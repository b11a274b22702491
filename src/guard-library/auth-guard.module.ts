import { Module, type DynamicModule, type FactoryProvider, type ModuleMetadata, type Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccessTokenVerifier } from './access-token.js';
import type { AuthGuardModuleOptions } from './auth-guard.options.js';
import { LibraryAuthGuard } from './library-auth.guard.js';
import { createPrincipalSource, PrincipalSource } from './principal-source.js';

export const AUTH_GUARD_OPTIONS = Symbol('AUTH_GUARD_OPTIONS');

export interface AuthGuardModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  inject?: FactoryProvider['inject'];
  useFactory: (...args: any[]) => AuthGuardModuleOptions | Promise<AuthGuardModuleOptions>;
}

/**
 * What another Nest service imports to be guarded by this auth service: a global guard (deny by
 * default, `@Public()` opts out) that verifies the service's access tokens locally and enforces
 * `@RequirePermissions` / `@RequireAnyPermission`, with `@CurrentUser()` handing over an AuthUser.
 * Nothing of the auth service's own application (configuration, database, entities) comes along.
 */
@Module({})
export class AuthGuardModule {
  static forRoot(options: AuthGuardModuleOptions): DynamicModule {
    // Built now, so a bad secret or source stops the importing service at start.
    const verifier = new AccessTokenVerifier(secretOf(options));
    const source = createPrincipalSource(options.permissionsFrom);
    return AuthGuardModule.with([
      { provide: AUTH_GUARD_OPTIONS, useValue: options },
      { provide: AccessTokenVerifier, useValue: verifier },
      { provide: PrincipalSource, useValue: source },
    ]);
  }

  /** For options that come from the importing service's own configuration providers. */
  static forRootAsync(options: AuthGuardModuleAsyncOptions): DynamicModule {
    return AuthGuardModule.with(
      [
        { provide: AUTH_GUARD_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] },
        {
          provide: AccessTokenVerifier,
          useFactory: (resolved: AuthGuardModuleOptions) => new AccessTokenVerifier(secretOf(resolved)),
          inject: [AUTH_GUARD_OPTIONS],
        },
        {
          provide: PrincipalSource,
          useFactory: (resolved: AuthGuardModuleOptions) => createPrincipalSource(resolved.permissionsFrom),
          inject: [AUTH_GUARD_OPTIONS],
        },
      ],
      options.imports,
    );
  }

  private static with(providers: Provider[], imports: ModuleMetadata['imports'] = []): DynamicModule {
    return {
      module: AuthGuardModule,
      global: true,
      imports,
      providers: [...providers, LibraryAuthGuard, { provide: APP_GUARD, useExisting: LibraryAuthGuard }],
      exports: [AccessTokenVerifier, PrincipalSource, LibraryAuthGuard],
    };
  }
}

function secretOf(options: AuthGuardModuleOptions): string {
  if (!options || typeof options !== 'object') throw new Error('AuthGuardModule: options are required.');
  if (!options.permissionsFrom) {
    throw new Error('AuthGuardModule: `permissionsFrom` is required (`{ url }`, `{ query }` or `{ dataSource }`).');
  }
  const secret = options.secret ?? options.jwtSecret;
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new Error('AuthGuardModule: `secret` (the auth service JWT_SECRET) is required.');
  }
  return secret;
}
