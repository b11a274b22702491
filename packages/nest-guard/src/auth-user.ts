import type { KnownPermission } from './permission-names.js';

/**
 * Who is calling: a person (a user's session) or a service (a client's own token, from the
 * client-credentials grant). Decided once, where the caller is built (`callerKindOf`), and read
 * from `AuthUser.kind` everywhere else.
 */
export type CallerKind = 'person' | 'service';

/** What an AuthUser is made of (see AuthUser's members). */
export interface AuthUserFields {
  id: string;
  kind: CallerKind;
  email: string;
  name: string;
  roles: readonly string[];
  permissions: readonly string[];
  sessionId: string;
  authTime?: number;
  amr?: readonly string[];
  organizationId?: string;
}

/**
 * The authenticated caller as handlers see it: identity, role names and the union of the
 * permissions of all those roles, with the checks the specification names. Immutable: the guard
 * builds one per caller and token and hands the same one to each of that token's requests.
 */
export class AuthUser {
  /** A person's user id, or a service client's id. */
  readonly id: string;
  /** Whether the caller is a person or a service client (client credentials). */
  readonly kind: CallerKind;
  readonly email: string;
  readonly name: string;
  readonly roles: readonly string[];
  readonly permissions: readonly string[];
  /** The login session the request's access token belongs to (a service token's own id). */
  readonly sessionId: string;
  /** When the session's holder last proved presence, in seconds since the epoch (the token's `auth_time`). */
  readonly authTime?: number;
  /** How they proved it, as RFC 8176 values (`pwd`, `otp`, `sms`, `hwk`, `mfa`): the token's `amr`. */
  readonly amr: readonly string[];
  /**
   * The organization an organization token speaks for (its `org_id`); absent for an ordinary
   * token. With one, `roles` and `permissions` are the caller's in that organization, and only those.
   */
  readonly organizationId?: string;
  private readonly permissionSet: ReadonlySet<string>;

  constructor(fields: AuthUserFields) {
    this.id = fields.id;
    this.kind = fields.kind;
    this.email = fields.email;
    this.name = fields.name;
    this.roles = Object.freeze([...fields.roles]);
    this.permissions = Object.freeze([...fields.permissions]);
    this.sessionId = fields.sessionId;
    if (fields.authTime !== undefined) this.authTime = fields.authTime;
    this.amr = Object.freeze([...(fields.amr ?? [])]);
    if (fields.organizationId !== undefined) this.organizationId = fields.organizationId;
    this.permissionSet = new Set(this.permissions);
    Object.freeze(this);
  }

  has(permission: KnownPermission): boolean {
    return this.permissionSet.has(permission);
  }

  hasAny(...permissions: KnownPermission[]): boolean {
    return permissions.some((permission) => this.permissionSet.has(permission));
  }

  hasAll(...permissions: KnownPermission[]): boolean {
    return permissions.every((permission) => this.permissionSet.has(permission));
  }

  hasRole(role: string): boolean {
    return this.roles.includes(role);
  }
}
