import type { PermissionResponse, RoleResponse } from '../../rbac/role-and-permission-responses';

/**
 * The public REST API, called from the same origin with the session's cookies (`access_token`,
 * `refresh_token`): a 401 is answered by one refresh and one retry; a refusal becomes an ApiError
 * carrying the API's own message.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The reasons per field of a validation refusal, as the API gives them. */
    readonly details: { field?: string; message: string }[] = [],
  ) {
    super(message);
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

let onSignedOut: () => void = () => {};

/** What to do when the session has ended and cannot be refreshed. */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

function send(method: Method, path: string, body?: unknown): Promise<Response> {
  const withBody = body !== undefined || method !== 'GET';
  return fetch(`/api${path}`, {
    method,
    credentials: 'same-origin',
    headers: withBody
      ? { 'content-type': 'application/json', accept: 'application/json' }
      : { accept: 'application/json' },
    body: withBody ? JSON.stringify(body ?? {}) : undefined,
  });
}

let refreshing: Promise<boolean> | null = null;

/** One refresh at a time, whatever the number of requests that met a 401 together. */
function refreshSession(): Promise<boolean> {
  refreshing ??= send('POST', '/auth/refresh')
    .then((res) => res.ok)
    .catch(() => false)
    .finally(() => (refreshing = null));
  return refreshing;
}

async function unwrap<T>(res: Response): Promise<T> {
  const json = (await res.json().catch(() => null)) as {
    data?: T;
    error?: { code?: string; message?: string; details?: { field?: string; message: string }[] };
  } | null;
  if (!res.ok) {
    throw new ApiError(
      res.status,
      json?.error?.code ?? `HTTP_${res.status}`,
      json?.error?.message ?? `The request failed (${res.status}).`,
      Array.isArray(json?.error?.details) ? json.error.details : [],
    );
  }
  return (json && 'data' in json ? json.data : json) as T;
}

/** A 401 from these is their answer, not an expired access token. */
const NO_REFRESH = new Set([
  '/auth/login',
  '/auth/refresh',
  '/auth/otp/verify-2fa',
  '/auth/passkey/options',
  '/auth/passkey/verify',
]);

export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  let res = await send(method, path, body);
  if (res.status === 401 && !NO_REFRESH.has(path)) {
    if (await refreshSession()) res = await send(method, path, body);
    if (res.status === 401) onSignedOut();
  }
  return unwrap<T>(res);
}

/** A service's answer as JSON carries it: each Date an ISO string. */
export type Json<T> = { [K in keyof T]: JsonValue<T[K]> };
type JsonValue<V> = V extends Date ? string : V;

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

export interface Me {
  id: string;
  name: string;
  email: string;
  mobile: string | null;
  roles: string[];
  permissions: string[];
}

export interface RoleRef {
  id: string;
  name: string;
  display_name?: string | null;
}

export interface User {
  id: string;
  name: string;
  email: string;
  mobile: string | null;
  created_at: string;
  updated_at?: string;
  roles?: RoleRef[];
  email_verified?: boolean;
  disabled_at?: string | null;
  disabled_until?: string | null;
  [field: string]: unknown;
}

export type Permission = Json<PermissionResponse>;

export type Role = Json<RoleResponse>;

export interface Session {
  id: string;
  current?: boolean;
  created_at: string;
  last_used_at: string | null;
  ip: string | null;
  user_agent: string | null;
}

export interface AuditEvent {
  id: string;
  type: string;
  actor_id: string | null;
  actor_email?: string | null;
  target_type: string | null;
  target_id: string | null;
  target_email?: string | null;
  ip: string | null;
  details: Record<string, unknown>;
  created_at: string;
}

export type Settings = Record<string, boolean>;

export type SecondFactor = 'sms' | 'totp' | 'recovery' | 'passkey';

export interface Challenge {
  requires_otp: true;
  temp_token: string;
  mobile_masked: string | null;
  methods?: SecondFactor[];
  passkey_options?: unknown;
}

export const query = (params: Record<string, string | number | undefined>): string => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

let operations: Promise<Set<string> | null> | undefined;

/**
 * The operations the service's OpenAPI document lists (`POST /api/admin/users/{id}/disable`), or
 * null when it is not served (`DOCS_ENABLED=false`); fetched once, when first asked.
 */
export function offeredOperations(): Promise<Set<string> | null> {
  operations ??= fetch('/docs/openapi.json', { credentials: 'same-origin' })
    .then(async (res) => {
      if (!res.ok) return null;
      const doc = (await res.json()) as { paths?: Record<string, Record<string, unknown>> };
      const listed = new Set<string>();
      for (const [path, item] of Object.entries(doc.paths ?? {}))
        for (const method of Object.keys(item)) listed.add(`${method.toUpperCase()} ${path}`);
      return listed;
    })
    .catch(() => null);
  return operations;
}

/** A whole list, whether the API answers it bare or as `{items, total}`. */
async function whole<T>(path: string): Promise<T[]> {
  const list = await api<T[] | { items: T[] }>('GET', path);
  return Array.isArray(list) ? list : list.items;
}

export const listRoles = (): Promise<Role[]> => whole<Role>('/admin/roles');

export const listPermissions = (): Promise<Permission[]> => whole<Permission>('/admin/permissions');
