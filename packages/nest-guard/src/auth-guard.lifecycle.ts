import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { AUTH_GUARD_OPTIONS, DEFAULT_REMOTE_TIMEOUT_MS, type AuthGuardModuleOptions } from './auth-guard.options.js';
import { REQUIRED_PERMISSIONS_KEY, type PermissionRequirement } from './permissions.decorator.js';
import { basicAuthorization, baseUrlOf, PrincipalSource } from './principal-source.js';

/**
 * Starts the event stream with the application and stops it with it; under `strictPermissions`
 * first checks every permission the application's decorators name against the auth service's
 * list, and refuses to start naming those it lacks.
 */
@Injectable()
export class AuthGuardLifecycle implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('AuthGuardModule');

  constructor(
    @Inject(AUTH_GUARD_OPTIONS) private readonly options: AuthGuardModuleOptions,
    private readonly principals: PrincipalSource,
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.options.strictPermissions) await this.checkPermissions();
    this.principals.start();
  }

  onApplicationShutdown(): void {
    this.principals.stop();
  }

  /** Every permission a `@RequirePermissions` / `@RequireAnyPermission` of a controller names. */
  namedPermissions(): Set<string> {
    const named = new Set<string>();
    const add = (target: object) => {
      const requirement = this.reflector.get<PermissionRequirement | undefined>(
        REQUIRED_PERMISSIONS_KEY,
        target as never,
      );
      for (const permission of requirement?.permissions ?? []) named.add(permission);
    };
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as object | undefined;
      if (!instance || !wrapper.metatype) continue;
      add(wrapper.metatype);
      for (
        let proto = Object.getPrototypeOf(instance);
        proto && proto !== Object.prototype;
        proto = Object.getPrototypeOf(proto)
      ) {
        for (const name of Object.getOwnPropertyNames(proto)) {
          const method = Object.getOwnPropertyDescriptor(proto, name)?.value;
          if (name !== 'constructor' && typeof method === 'function') add(method);
        }
      }
    }
    return named;
  }

  private async checkPermissions(): Promise<void> {
    const { authUrl, clientId, clientSecret } = this.options;
    if (!authUrl || !clientId || !clientSecret)
      throw new Error('AuthGuardModule: strictPermissions needs `authUrl`, `clientId` and `clientSecret`.');
    let known: string[];
    try {
      const response = await fetch(`${baseUrlOf(authUrl)}/api/auth/permissions`, {
        headers: { authorization: basicAuthorization(clientId, clientSecret), accept: 'application/json' },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      const items = ((await response.json()) as { data?: { items?: unknown } }).data?.items;
      if (!Array.isArray(items) || !items.every((item) => typeof item === 'string')) throw new Error('unexpected body');
      known = items;
    } catch (error) {
      throw new Error(
        `AuthGuardModule: strictPermissions could not read the auth service's permissions: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const unknown = [...this.namedPermissions()].filter((permission) => !known.includes(permission)).sort();
    if (unknown.length > 0) {
      throw new Error(
        `AuthGuardModule: the auth service has no permission ${unknown.map((name) => `"${name}"`).join(', ')} (strictPermissions).`,
      );
    }
    this.logger.log(`strictPermissions: every permission the routes name exists (${known.length} known)`);
  }
}
