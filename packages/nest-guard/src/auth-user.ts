/**
 * The authenticated caller as handlers see it: identity, role names and the union of the
 * permissions of all those roles, with the checks the specification names.
 */
export class AuthUser {
  private readonly permissionSet: ReadonlySet<string>;

  constructor(
    readonly id: string,
    readonly email: string,
    readonly name: string,
    readonly roles: readonly string[],
    readonly permissions: readonly string[],
    /** The login session the request's access token belongs to. */
    readonly sessionId: string,
    /** When the session's holder last proved presence, in seconds since the epoch (the token's `auth_time`). */
    readonly authTime?: number,
    /** How they proved it, as RFC 8176 values (`pwd`, `otp`, `sms`, `hwk`, `mfa`): the token's `amr`. */
    readonly amr: readonly string[] = [],
  ) {
    this.permissionSet = new Set(permissions);
  }

  has(permission: string): boolean {
    return this.permissionSet.has(permission);
  }

  hasAny(...permissions: string[]): boolean {
    return permissions.some((permission) => this.permissionSet.has(permission));
  }

  hasAll(...permissions: string[]): boolean {
    return permissions.every((permission) => this.permissionSet.has(permission));
  }

  hasRole(role: string): boolean {
    return this.roles.includes(role);
  }
}
