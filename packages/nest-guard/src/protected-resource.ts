import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AccessTokenVerifier } from './access-token.js';
import {
  AUTH_GUARD_OPTIONS,
  type AuthGuardModuleOptions,
  type ProtectedResourceOptions,
} from './auth-guard.options.js';

/** RFC 9728 §3: the metadata's well-known path, inserted between the host and the resource's path. */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The checked resource identifier: a start-up error for anything RFC 9728 §1.2 does not allow. */
export function checkedProtectedResource(options: ProtectedResourceOptions): ProtectedResourceOptions {
  let url: URL;
  try {
    url = new URL(options.resource);
  } catch {
    throw new Error('AuthGuardModule: protectedResource.resource must be an absolute URL.');
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
  if (!secure || url.hash !== '' || options.resource.includes('#') || url.search !== '' || url.username || url.password)
    throw new Error(
      'AuthGuardModule: protectedResource.resource must be an https URL (http only on a loopback host) without query, fragment or user info.',
    );
  if (options.scopes !== undefined && !options.scopes.every((scope) => typeof scope === 'string' && scope.length > 0))
    throw new Error('AuthGuardModule: protectedResource.scopes must be non-empty strings.');
  return options;
}

/** Where the resource's metadata is published (RFC 9728 §3.1), and the path a request asks it at. */
export function metadataLocation(resource: string): { url: string; path: string } {
  const url = new URL(resource);
  const suffix = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
  const path = `${PROTECTED_RESOURCE_WELL_KNOWN}${suffix}`;
  return { url: `${url.origin}${path}`, path };
}

/** The `WWW-Authenticate` value of a 401 at a protected resource (RFC 9728 §5.1). */
export function bearerChallenge(resource: string): string {
  return `Bearer resource_metadata="${metadataLocation(resource).url}"`;
}

/**
 * Serves the protected resource's metadata (RFC 9728) when the module is given
 * `protectedResource`. The route is added to the HTTP server directly, at the path RFC 9728 §3.1
 * derives from the resource (a Nest route could not carry a path known only once an async
 * factory has run): it is public by nature, as a client reads it before it has a token.
 */
@Injectable()
export class ProtectedResourceRoute implements OnModuleInit {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    @Optional() private readonly host?: HttpAdapterHost,
    @Optional() @Inject(AUTH_GUARD_OPTIONS) private readonly options?: AuthGuardModuleOptions,
  ) {}

  onModuleInit(): void {
    const resource = this.options?.protectedResource;
    const adapter = this.host?.httpAdapter;
    if (!resource || !adapter) return;
    adapter.get(metadataLocation(resource.resource).path, async (_request: unknown, reply: unknown) => {
      let issuer: string | undefined;
      try {
        issuer = await this.verifier.issuer();
      } catch {
        adapter.reply(reply, { error: 'temporarily_unavailable' }, 503);
        return;
      }
      adapter.setHeader(reply, 'Cache-Control', 'public, max-age=300');
      adapter.reply(
        reply,
        {
          resource: resource.resource,
          authorization_servers: issuer !== undefined ? [issuer] : [],
          ...(resource.scopes !== undefined ? { scopes_supported: resource.scopes } : {}),
          bearer_methods_supported: ['header'],
          ...(resource.name !== undefined ? { resource_name: resource.name } : {}),
        },
        200,
      );
    });
  }
}
