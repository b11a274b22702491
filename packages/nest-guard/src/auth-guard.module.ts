import { Module, type DynamicModule, type FactoryProvider, type ModuleMetadata, type Provider } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { AccessTokenVerifier } from './access-token.js';
import { AuthGuardHealth } from './auth-guard.health.js';
import { AuthGuardLifecycle } from './auth-guard.lifecycle.js';
import { AUTH_GUARD_OPTIONS, DEFAULT_REMOTE_TIMEOUT_MS, type AuthGuardModuleOptions } from './auth-guard.options.js';
import { LibraryAuthGuard } from './auth.guard.js';
import { baseUrlOf, createPrincipalSource, PrincipalSource } from './principal-source.js';
import { checkedProtectedResource, ProtectedResourceRoute } from './protected-resource.js';
import {
  DiscoveredIssuer,
  JwksKeySource,
  publicVerificationKey,
  secretVerificationKey,
  StaticKeySource,
  type KeySource,
} from './verification-keys.js';

export { AUTH_GUARD_OPTIONS };

/** The keys tokens (and events) are verified with, built once per module. */
const KEY_SOURCE = Symbol('AUTH_GUARD_KEY_SOURCE');

export interface AuthGuardModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  inject?: FactoryProvider['inject'];
  useFactory: FactoryProvider<AuthGuardModuleOptions>['useFactory'];
  /**
   * Register the guard for every route (default). `false` leaves it to the importing module to
   * place `LibraryAuthGuard` among its own global guards, in the order it needs.
   */
  globalGuard?: boolean;
}

/**
 * What another Nest service imports to be guarded by the auth service: a global guard (deny by
 * default, `@Public()` opts out) that verifies the service's access tokens and enforces
 * `@RequirePermissions` / `@RequireAnyPermission`, with `@CurrentUser()` handing over an AuthUser.
 */
@Module({})
export class AuthGuardModule {
  /** `AuthGuardModule.forRoot({ authUrl, clientId, clientSecret })` is the whole setup. */
  static forRoot(options: AuthGuardModuleOptions): DynamicModule {
    // Built now, so a bad key or source stops the importing service at start.
    const keys = keySourceOf(checked(options));
    const verifier = createVerifier(options, keys);
    const source = createPrincipalSource(options, undefined, keys, verifier);
    return AuthGuardModule.with(
      [
        { provide: AUTH_GUARD_OPTIONS, useValue: options },
        { provide: AccessTokenVerifier, useValue: verifier },
        { provide: PrincipalSource, useValue: source },
      ],
      [],
      true,
    );
  }

  /** For options that come from the importing service's own configuration providers. */
  static forRootAsync(options: AuthGuardModuleAsyncOptions): DynamicModule {
    return AuthGuardModule.with(
      [
        { provide: AUTH_GUARD_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] },
        {
          provide: KEY_SOURCE,
          useFactory: (resolved: AuthGuardModuleOptions) => keySourceOf(checked(resolved)),
          inject: [AUTH_GUARD_OPTIONS],
        },
        {
          provide: AccessTokenVerifier,
          useFactory: (resolved: AuthGuardModuleOptions, keys: KeySource) => createVerifier(resolved, keys),
          inject: [AUTH_GUARD_OPTIONS, KEY_SOURCE],
        },
        {
          provide: PrincipalSource,
          useFactory: (resolved: AuthGuardModuleOptions, keys: KeySource, verifier: AccessTokenVerifier) =>
            createPrincipalSource(checked(resolved), undefined, keys, verifier),
          inject: [AUTH_GUARD_OPTIONS, KEY_SOURCE, AccessTokenVerifier],
        },
      ],
      options.imports,
      options.globalGuard ?? true,
    );
  }

  private static with(
    providers: Provider[],
    imports: ModuleMetadata['imports'] = [],
    globalGuard: boolean,
  ): DynamicModule {
    return {
      module: AuthGuardModule,
      global: true,
      imports: [DiscoveryModule, ...(imports ?? [])],
      providers: [
        ...providers,
        LibraryAuthGuard,
        AuthGuardLifecycle,
        AuthGuardHealth,
        ProtectedResourceRoute,
        ...(globalGuard ? [{ provide: APP_GUARD, useExisting: LibraryAuthGuard }] : []),
      ],
      exports: [AccessTokenVerifier, PrincipalSource, LibraryAuthGuard, AuthGuardHealth],
    };
  }
}

function checked(options: AuthGuardModuleOptions): AuthGuardModuleOptions {
  if (!options || typeof options !== 'object') throw new Error('AuthGuardModule: options are required.');
  if (options.protectedResource !== undefined) checkedProtectedResource(options.protectedResource);
  return options;
}

/**
 * The access-token verifier of the options: its keys (given ones, a secret or public keys, else
 * the auth service's JWKS), and the `iss` and `aud` a token must carry.
 */
export function createVerifier(
  options: AuthGuardModuleOptions,
  keys: KeySource = keySourceOf(checked(options)),
): AccessTokenVerifier {
  const checkedOptions = checked(options);
  let issuer: string | (() => Promise<string>) | undefined = checkedOptions.issuer?.replace(/\/+$/, '');
  if (issuer === undefined && typeof checkedOptions.authUrl === 'string') {
    const discovered = new DiscoveredIssuer(
      `${baseUrlOf(checkedOptions.authUrl)}/.well-known/openid-configuration`,
      checkedOptions.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS,
    );
    issuer = () => discovered.get();
  }
  return new AccessTokenVerifier(
    keys,
    {
      ...(issuer !== undefined ? { issuer } : {}),
      ...(checkedOptions.audience !== undefined ? { audience: checkedOptions.audience } : {}),
      ...(checkedOptions.protectedResource !== undefined
        ? { resource: checkedOptions.protectedResource.resource }
        : {}),
    },
    checkedOptions.cacheMaxEntries,
  );
}

/** The keys the options describe: given ones, a secret or public keys, else the auth service's JWKS. */
export function keySourceOf(options: AuthGuardModuleOptions): KeySource {
  if (options.keys) return options.keys;
  const secret = options.secret ?? options.jwtSecret;
  const secrets = [...(secret !== undefined ? [secret] : []), ...(options.previousSecrets ?? [])];
  const publicKeys = options.publicKeys ?? [];
  if (secrets.length > 0 || publicKeys.length > 0) {
    for (const value of secrets) {
      if (typeof value !== 'string' || value.length === 0) {
        throw new Error('AuthGuardModule: `secret` (the auth service JWT_SECRET) must be a non-empty string.');
      }
    }
    return new StaticKeySource([
      ...secrets.map(secretVerificationKey),
      ...publicKeys.map((pem) => publicVerificationKey(pem)),
    ]);
  }
  if (typeof options.authUrl === 'string') {
    return new JwksKeySource(
      `${baseUrlOf(options.authUrl)}/.well-known/jwks.json`,
      options.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS,
    );
  }
  throw new Error(
    'AuthGuardModule: give `authUrl` (with `clientId` and `clientSecret`), or a `secret` or `publicKeys` to verify tokens with.',
  );
}
