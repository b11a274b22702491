import { Injectable } from '@nestjs/common';
import type { JWK } from 'jose';

/** A source of public keys to publish beside the token keys (the OpenID provider's ID-token keys). */
export type PublishedKeySource = () => Promise<JWK[]>;

/**
 * The other key sets the JWKS lists: a capability above this one (the OpenID provider) adds its
 * source at start, so one JWKS holds every key a client may need, without this folder importing it.
 */
@Injectable()
export class PublishedKeys {
  private readonly sources: PublishedKeySource[] = [];

  add(source: PublishedKeySource): void {
    this.sources.push(source);
  }

  async keys(): Promise<JWK[]> {
    return (await Promise.all(this.sources.map((source) => source()))).flat();
  }
}
