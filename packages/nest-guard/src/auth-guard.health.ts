import { Injectable } from '@nestjs/common';
import { PrincipalSource } from './principal-source.base.js';
import { EventDrivenPrincipalSource, type RevocationHealth } from './event-driven-principal-source.js';

export type AuthGuardHealthReport = RevocationHealth | { revocation: 'introspection' | 'local' };

/** What a service can expose on its own health route: how revocations reach it now. */
@Injectable()
export class AuthGuardHealth {
  constructor(private readonly principals: PrincipalSource) {}

  health(): AuthGuardHealthReport {
    if (this.principals instanceof EventDrivenPrincipalSource) return this.principals.health();
    return { revocation: 'introspection' };
  }
}
