import { Injectable } from '@nestjs/common';
import { ClientsRepository } from './clients.repository.js';
import { isLoopbackUri } from './redirect-uris.js';

/** How long an instance keeps the registered origins: a new or removed client counts within this. */
const FRESH_MS = 1000;

interface Origins {
  /** `scheme://host[:port]` of each registered https or http redirect URI. */
  exact: Set<string>;
  /** `scheme://host` of each loopback redirect URI, which accepts any port (RFC 8252 §7.3). */
  anyPort: Set<string>;
  loadedAt: number;
}

/**
 * The web origins of browser apps: the origins of the redirect URIs registered for public
 * clients (a browser app with PKCE), which get CORS, without credentials, on the endpoints such an
 * app calls. Read from the registry at most once a second per instance, whatever the traffic.
 */
@Injectable()
export class BrowserOrigins {
  private loading: Promise<Origins> | null = null;

  constructor(private readonly clients: ClientsRepository) {}

  async allows(origin: string): Promise<boolean> {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    // An Origin header is exactly scheme://host[:port]; anything else (a path, `null`) is no origin.
    if (url.origin !== origin || (url.protocol !== 'https:' && url.protocol !== 'http:')) return false;
    const origins = await this.origins();
    return origins.exact.has(origin) || origins.anyPort.has(`${url.protocol}//${url.hostname}`);
  }

  private origins(): Promise<Origins> {
    const current = this.loading;
    if (current) return current.then((origins) => (Date.now() - origins.loadedAt < FRESH_MS ? origins : this.load()));
    return this.load();
  }

  private load(): Promise<Origins> {
    const loading = this.clients.findPublicRedirectUris().then((uris) => {
      const origins: Origins = { exact: new Set(), anyPort: new Set(), loadedAt: Date.now() };
      for (const uri of uris) {
        const url = new URL(uri);
        if (url.protocol !== 'https:' && url.protocol !== 'http:') continue; // a private-use scheme has no web origin
        if (isLoopbackUri(uri)) origins.anyPort.add(`${url.protocol}//${url.hostname}`);
        else origins.exact.add(url.origin);
      }
      return origins;
    });
    // A failed read is not kept: the next request tries again.
    this.loading = loading.catch(() => ({ exact: new Set<string>(), anyPort: new Set<string>(), loadedAt: 0 }));
    return loading;
  }
}
