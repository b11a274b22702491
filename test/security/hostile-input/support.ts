import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { parsePhoneNumberFromString } from 'libphonenumber-js/core';
import metadata from 'libphonenumber-js/min/metadata';
import { domainToASCII } from 'node:url';

import {
  decodeJwt,
  loginTokens,
  registerUser,
  TEST_PASSWORD,
  uniqueEmail,
  uniqueMobile,
  type RegisteredUser,
} from '../../support/auth-factory.js';
import { useTestApp } from '../../support/fixture.js';
import {
  errorShapeProblems,
  forgeJwt,
  json,
  raw,
  rawRequest,
  type Expectation,
  type Method,
  type RawRequest,
  type RawResponse,
} from '../hostile-client.js';

/**
 * Shared by the hostile-input files (one per group of endpoints): every endpoint of the contract
 * against hostile input: wrong types, missing and unknown fields, prototype keys, huge strings, SQL
 * and NoSQL injection, broken UTF-8 and JSON, oversized bodies, wrong content types, forged tokens
 * and bad ids. Each answer must be a 4xx in the contract's error shape with nothing internal in it,
 * or, where the input is legitimately valid (an injection string as a role's description), a 2xx
 * that stored the input verbatim.
 *
 * Each file runs one app on a database of its own (the probes delete and rename rows and must not
 * disturb parallel test files), requests in batches of ten, and probes only the routes under the
 * path prefixes it names.
 */

type Kind = 'text' | 'email' | 'mobile' | 'password' | 'secret' | 'permission-name' | 'uuids' | 'boolean';

interface Field {
  name: string;
  kind: Kind;
  required?: boolean;
  /** Where the service keeps the value as given (after `transform`); a 2xx is then checked against the row. */
  stored?: { column?: string; transform?: (value: string) => string };
  /** `null` is a meaningful value (it clears the column), not a wrong type. */
  nullable?: boolean;
}

interface BodyRoute {
  method: 'POST' | 'PUT';
  path: string;
  auth: 'admin' | 'none';
  /** A valid body, fresh per request (unique names and emails). */
  body: () => Record<string, unknown>;
  fields: Field[];
  /** The table the stored fields live in, and how to find the row a 2xx created or changed. */
  table?: 'users' | 'roles' | 'permissions' | 'contents';
  createdId?: (data: Record<string, unknown>) => string;
  /** The part of the response that shows the stored fields. */
  shown?: (data: Record<string, unknown>) => Record<string, unknown>;
  /** An all-optional body: `{}` is a legitimate no-op. */
  emptyOk?: boolean;
}

interface Probe {
  label: string;
  request: RawRequest;
  expect?: Expectation;
  /** Present when a 2xx is legitimate: returns what is wrong with it, if anything. */
  onSuccess?: (res: RawResponse) => Promise<string | undefined>;
}

type ProbeFactory = () => Promise<Probe>;

/** One change to a route's valid body. */
interface BodyCase {
  what: string;
  make: (validBody: Record<string, unknown>) => Buffer;
  expect: Expectation;
  /** A 2xx is legitimate when this field stored this value verbatim. */
  stored?: { field: Field; value: unknown };
  /** A 2xx is legitimate as it is (an empty update). */
  successOk?: boolean;
  /** Replaces `application/json`; `null` sends no content type at all. */
  contentType?: string | null;
}

const trim = (value: string) => value.trim();

/**
 * How docs/authentication.md ("Identities") says an accepted email is stored: NFKC-normalised,
 * trimmed, lower-cased, the domain in its ASCII form (UTS #46). Written here, not taken from the service, so a fault in the
 * service's own normalisation shows.
 */
const storedEmail = (value: string) => {
  const folded = value.normalize('NFKC').trim().toLowerCase();
  const at = folded.lastIndexOf('@');
  return `${folded.slice(0, at + 1)}${domainToASCII(folded.slice(at + 1))}`;
};

/**
 * How docs/authentication.md says an accepted mobile is stored: `+CC…` and `00CC…` in E.164, a
 * number without a prefix (no DEFAULT_PHONE_REGION here) as its digits; separators people type
 * are dropped.
 */
const storedMobile = (value: string) => {
  const typed = value
    .normalize('NFKC')
    .trim()
    .replace(/[\s\-.()]/g, '');
  const international = typed.startsWith('00') ? `+${typed.slice(2)}` : typed;
  if (!international.startsWith('+')) return typed;
  return parsePhoneNumberFromString(international, metadata)?.number ?? value;
};

const omit = (body: Record<string, unknown>, key: string) =>
  Object.fromEntries(Object.entries(body).filter(([name]) => name !== key));

/** The body as JSON text with `"key": rawValue` written after its fields, even when `key` is already among them. */
function appendRaw(body: Record<string, unknown>, key: string, rawValue: string): Buffer {
  const text = JSON.stringify(body);
  return raw(`${text === '{}' ? '{' : `${text.slice(0, -1)},`}${JSON.stringify(key)}:${rawValue}}`);
}
const JSON_HEADERS = { 'content-type': 'application/json' };

/** Strings a client may legitimately send as free text; the service must store them verbatim or refuse them. */
const HOSTILE_STRINGS: [string, string][] = [
  ['SQL OR 1=1', "' OR 1=1 --"],
  ['SQL drop table', "'; DROP TABLE users; --"],
  ['SQL double quote', '" OR ""="'],
  ['SQL comment', "admin'--"],
  ['SQL sleep', "1'; SELECT pg_sleep(5); --"],
  ['NoSQL $gt as text', '{"$gt": ""}'],
  ['NoSQL $ne as text', '{"$ne": null}'],
  ['script tag', '<script>alert(1)</script>'],
  ['path traversal', '../../../../etc/passwd'],
  ['format string', '%s%s%s%n%x'],
  ['template', '${7*7}{{7*7}}#{7*7}'],
  ['NUL byte', 'a\u0000b'],
  ['lone surrogate', 'x\ud800y'],
  ['bidi and zero-width', '\u202eevil\u200b\ufeff'],
  ['10,000 characters', 'x'.repeat(10_000)],
  ['empty', ''],
  ['blank', '   '],
];

/** Wrong types where a string is expected. */
const NOT_STRINGS: [string, unknown][] = [
  ['an empty array', []],
  ['an array of a string', ['x']],
  ['an empty object', {}],
  ['NoSQL {$gt: ""}', { $gt: '' }],
  ['NoSQL {$ne: null}', { $ne: null }],
  ['NoSQL {$where}', { $where: 'return true' }],
  ['an array of NoSQL objects', [{ $gt: '' }]],
  ['zero', 0],
  ['a number', 12345678],
  ['a negative number', -1],
  ['a fraction', 1.5],
  ['a huge number', 1e21],
  ['true', true],
  ['false', false],
  ['null', null],
];

const NOT_BOOLEANS: [string, unknown][] = [
  ['"true"', 'true'],
  ['"false"', 'false'],
  ['"1"', '1'],
  ['1', 1],
  ['0', 0],
  ['an empty string', ''],
  ['null', null],
  ['an empty array', []],
  ['an array of true', [true]],
  ['an object', {}],
  ['NoSQL {$gt: ""}', { $gt: '' }],
  ['SQL text', "' OR 1=1 --"],
];

const notUuidArrays = (): [string, unknown][] => [
  ['a string', 'x'],
  ['one UUID, not in an array', randomUUID()],
  ['an object', {}],
  ['NoSQL {$gt: ""}', { $gt: '' }],
  ['a number', 1],
  ['true', true],
  ['null', null],
  ['an array of numbers', [1]],
  ['an array of null', [null]],
  ['an array of objects', [{}]],
  ['an array of NoSQL objects', [{ $gt: '' }]],
  ['nested arrays', [[]]],
  ['a non-UUID string', ['not-a-uuid']],
  ['an SQL string', ["' OR 1=1 --"]],
  ['an SQL string after a UUID', [randomUUID(), "x' OR '1'='1"]],
  ['a NUL byte', ['\u0000']],
  [
    'a UUID twice',
    (() => {
      const id = randomUUID();
      return [id, id];
    })(),
  ],
  ['an unknown UUID', [randomUUID()]],
  ['400 unknown UUIDs', Array.from({ length: 400 }, () => randomUUID())],
];

/** An array nested this deep as a field's value: about 14 KB, under the body limit. */
const DEEP = 7000;
const deeplyNested = () => `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;

/** Bytes that are not UTF-8, placed inside a JSON string. */
const INVALID_UTF8: [string, number[]][] = [
  ['0xff 0xfe', [0xff, 0xfe]],
  ['an overlong "/"', [0xc0, 0xaf]],
  ['a truncated sequence', [0xe2, 0x82]],
  ['a UTF-16 surrogate encoded in UTF-8', [0xed, 0xa0, 0x80]],
];

const INVALID_JSON: [string, string][] = [
  ['an unclosed object', '{"a": 1'],
  ['a missing value', '{"a": }'],
  ['single quotes', "{'a': 1}"],
  ['a trailing comma', '{"a": 1,}'],
  ['NaN', 'NaN'],
  ['a comment', '{"a": 1 /* x */}'],
  ['two objects', '{}{}'],
];

const WRONG_CONTENT_TYPES: [string, string | undefined][] = [
  ['text/plain', 'text/plain'],
  ['form-urlencoded', 'application/x-www-form-urlencoded'],
  ['application/xml', 'application/xml'],
  ['text/xml', 'text/xml'],
  ['multipart/form-data', 'multipart/form-data; boundary=x'],
  ['application/octet-stream', 'application/octet-stream'],
  ['a vendor +json type', 'application/vnd.evil+json'],
  ['none', undefined],
];

/**
 * One app and the probes of the routes whose path is one of `scope` or lies under it. Call
 * `checksAfterwards` after the file's own tests.
 */
export function useHostileInput(scope: string[]) {
  const inScope = (path: string) => scope.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));

  // Limits are not under test here: hundreds of refused logins must not lock or throttle anything.
  const fixture = useTestApp({
    env: {
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_GLOBAL_PER_MINUTE: '1000000',
      LOCKOUT_THRESHOLD: '1000000',
      ADMIN_LIST_CONCURRENCY: '1000',
    },
    listen: true,
  });
  let db: DataSource;
  let app: NestFastifyApplication;
  let port: number;
  let agent: http.Agent;
  let admin: RegisteredUser & { token: string };
  let plain: RegisteredUser & { token: string };
  let known: RegisteredUser;
  let userRoleId: string;
  let systemRows: unknown;
  let requests = 0;
  const statuses: Record<number, number> = {};

  beforeAll(async () => {
    ({ app, db } = fixture);
    port = (app.getHttpServer().address() as AddressInfo).port;
    agent = new http.Agent({ keepAlive: true, maxSockets: 10 });

    const adminUser = await registerUser(app);
    await db.query(`INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = 'admin'`, [
      adminUser.id,
    ]);
    admin = { ...adminUser, token: (await loginTokens(app, adminUser)).access_token };
    const plainUser = await registerUser(app);
    plain = { ...plainUser, token: plainUser.tokens.access_token };
    known = await registerUser(app, { mobile: uniqueMobile() });
    [{ id: userRoleId }] = await db.query(`SELECT id FROM roles WHERE name = 'user'`);
    systemRows = await snapshotSystemRows();
  });

  afterAll(() => agent?.destroy());

  /** The seeded roles, permissions, their links and the settings: no request may change them. */
  async function snapshotSystemRows() {
    return {
      roles: await db.query(
        `SELECT id, name, display_name, description, is_system FROM roles WHERE is_system ORDER BY name`,
      ),
      permissions: await db.query(
        `SELECT id, name, display_name, description, group_name, is_system FROM permissions WHERE is_system ORDER BY name`,
      ),
      links: await db.query(
        `SELECT r.name AS role, p.name AS permission FROM role_permissions rp JOIN roles r ON r.id = rp.role_id
         JOIN permissions p ON p.id = rp.permission_id WHERE r.is_system AND p.is_system ORDER BY 1, 2`,
      ),
      settings: await db.query(`SELECT key, value FROM settings ORDER BY key`),
      // No table dropped, renamed or added.
      tables: await db.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
      ),
    };
  }

  // --- fixtures: rows a request may change or delete, one per request so that checks never race ---

  const hex = () => randomUUID().replace(/-/g, '').slice(0, 12);
  const fixtures = {
    role: async () =>
      (await db.query(`INSERT INTO roles (name) VALUES ($1) RETURNING id`, [`hostile-${hex()}`]))[0].id as string,
    permission: async () =>
      (
        await db.query(`INSERT INTO permissions (name, group_name) VALUES ($1, 'hostile') RETURNING id`, [
          `hostile${hex()}.view`,
        ])
      )[0].id as string,
    user: async () =>
      (
        await db.query(
          `INSERT INTO users (name, email, password_hash) VALUES ('Fixture', $1, '$argon2id$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaA') RETURNING id`,
          [uniqueEmail('fixture')],
        )
      )[0].id as string,
    content: async () =>
      (
        await db.query(`INSERT INTO contents (title, body, author_id) VALUES ('Fixture', 'Body', $1) RETURNING id`, [
          admin.id,
        ])
      )[0].id as string,
  };
  type FixtureKind = keyof typeof fixtures;

  /** Fills `:id` and `:role_id` with fresh fixtures, or with the given raw (already encoded) values. */
  async function resolvePath(
    path: string,
    idKind: FixtureKind | undefined,
    given: Record<string, string> = {},
  ): Promise<{ path: string; id?: string }> {
    let id: string | undefined;
    if (path.includes(':id')) id = given.id ?? (await fixtures[idKind!]());
    const roleId = given.role_id ?? userRoleId;
    return { path: path.replace(':id', id ?? '').replace(':role_id', roleId), id };
  }

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  // --- the contract's endpoints with a body ---

  const bodyRoutes = (): (BodyRoute & { fixture?: FixtureKind })[] => [
    {
      method: 'POST',
      path: '/api/auth/register',
      auth: 'none',
      body: () => ({
        name: 'Hostile Tester',
        email: uniqueEmail('hostile'),
        password: TEST_PASSWORD,
        password_confirmation: TEST_PASSWORD,
      }),
      fields: [
        { name: 'name', kind: 'text', required: true, stored: { transform: trim } },
        { name: 'email', kind: 'email', required: true, stored: { transform: storedEmail } },
        { name: 'password', kind: 'password', required: true },
        { name: 'password_confirmation', kind: 'password', required: true },
        { name: 'mobile', kind: 'mobile', stored: { transform: storedMobile } },
      ],
      table: 'users',
      createdId: (data) => (data.user as { id: string }).id,
      shown: (data) => data.user as Record<string, unknown>,
    },
    {
      method: 'POST',
      path: '/api/auth/login',
      auth: 'none',
      body: () => ({ email: known.email, password: 'Wrong-Password-77' }),
      fields: [
        { name: 'email', kind: 'email', required: true },
        { name: 'password', kind: 'password', required: true },
      ],
    },
    {
      method: 'POST',
      path: '/api/auth/login',
      auth: 'none',
      body: () => ({ mobile: known.mobile, password: 'Wrong-Password-77' }),
      fields: [
        { name: 'mobile', kind: 'mobile', required: true },
        { name: 'password', kind: 'password', required: true },
      ],
    },
    {
      method: 'POST',
      path: '/api/auth/otp/verify-2fa',
      auth: 'none',
      body: () => ({
        temp_token: forgeJwt(
          { sub: known.id, email: known.email, token_type: '2fa', jti: randomUUID() },
          { secret: 'wrong-secret-0123456789-abcdefghijklmnop' },
        ),
        code: '123456',
      }),
      fields: [
        { name: 'temp_token', kind: 'secret', required: true },
        { name: 'code', kind: 'secret', required: true },
      ],
    },
    {
      method: 'POST',
      path: '/api/auth/refresh',
      auth: 'none',
      body: () => ({ refresh_token: 'not.a.token' }),
      fields: [{ name: 'refresh_token', kind: 'secret' }],
    },
    {
      method: 'POST',
      path: '/api/auth/forgot-password',
      auth: 'none',
      body: () => ({ email: uniqueEmail('nobody') }),
      fields: [{ name: 'email', kind: 'email', required: true }],
    },
    {
      method: 'POST',
      path: '/api/auth/reset-password',
      auth: 'none',
      body: () => ({ token: 'not-a-reset-token', password: TEST_PASSWORD, password_confirmation: TEST_PASSWORD }),
      fields: [
        { name: 'token', kind: 'secret', required: true },
        { name: 'password', kind: 'password', required: true },
        { name: 'password_confirmation', kind: 'password', required: true },
      ],
    },
    {
      method: 'POST',
      path: '/api/auth/send-otp',
      auth: 'none',
      body: () => ({ mobile: uniqueMobile() }),
      fields: [{ name: 'mobile', kind: 'mobile', required: true }],
    },
    {
      method: 'POST',
      path: '/api/auth/verify-otp',
      auth: 'none',
      body: () => ({ mobile: known.mobile, otp: '123456' }),
      fields: [
        { name: 'mobile', kind: 'mobile', required: true },
        { name: 'otp', kind: 'secret', required: true },
      ],
    },
    {
      method: 'POST',
      path: '/api/admin/roles',
      auth: 'admin',
      body: () => ({ name: `hostile-${hex()}`, display_name: 'Hostile', description: 'A role', permission_ids: [] }),
      fields: [
        { name: 'name', kind: 'text', required: true, stored: { transform: trim } },
        { name: 'display_name', kind: 'text', stored: {} },
        { name: 'description', kind: 'text', stored: {} },
        { name: 'permission_ids', kind: 'uuids' },
      ],
      table: 'roles',
      createdId: (data) => data.id as string,
    },
    {
      method: 'PUT',
      path: '/api/admin/roles/:id',
      fixture: 'role',
      auth: 'admin',
      body: () => ({ display_name: 'Renamed' }),
      fields: [
        { name: 'name', kind: 'text', stored: { transform: trim } },
        { name: 'display_name', kind: 'text', stored: {} },
        { name: 'description', kind: 'text', stored: {} },
        { name: 'permission_ids', kind: 'uuids' },
      ],
      table: 'roles',
      emptyOk: true,
    },
    {
      method: 'POST',
      path: '/api/admin/permissions',
      auth: 'admin',
      body: () => ({
        name: `hostile${hex()}.view`,
        display_name: 'Hostile',
        description: 'A permission',
        group_name: 'hostile',
      }),
      fields: [
        { name: 'name', kind: 'permission-name', required: true, stored: { transform: trim } },
        { name: 'display_name', kind: 'text', stored: {} },
        { name: 'description', kind: 'text', stored: {} },
        { name: 'group_name', kind: 'text', stored: {} },
      ],
      table: 'permissions',
      createdId: (data) => data.id as string,
    },
    {
      method: 'PUT',
      path: '/api/admin/permissions/:id',
      fixture: 'permission',
      auth: 'admin',
      body: () => ({ display_name: 'Renamed' }),
      fields: [
        { name: 'name', kind: 'permission-name', stored: { transform: trim } },
        { name: 'display_name', kind: 'text', stored: {} },
        { name: 'description', kind: 'text', stored: {} },
        { name: 'group_name', kind: 'text', stored: {} },
      ],
      table: 'permissions',
      emptyOk: true,
    },
    {
      method: 'POST',
      path: '/api/admin/users',
      auth: 'admin',
      body: () => ({ name: 'Hostile User', email: uniqueEmail('hostile'), password: TEST_PASSWORD }),
      fields: [
        { name: 'name', kind: 'text', required: true, stored: { transform: trim } },
        { name: 'email', kind: 'email', required: true, stored: { transform: storedEmail } },
        { name: 'password', kind: 'password', required: true, stored: { column: 'password_hash' } },
        { name: 'mobile', kind: 'mobile', stored: { transform: storedMobile } },
      ],
      table: 'users',
      createdId: (data) => data.id as string,
    },
    {
      method: 'PUT',
      path: '/api/admin/users/:id',
      fixture: 'user',
      auth: 'admin',
      body: () => ({ name: 'Renamed' }),
      fields: [
        { name: 'name', kind: 'text', stored: { transform: trim } },
        { name: 'email', kind: 'email', stored: { transform: storedEmail } },
        {
          name: 'mobile',
          kind: 'mobile',
          nullable: true,
          stored: { transform: storedMobile },
        },
        { name: 'password', kind: 'password', stored: { column: 'password_hash' } },
      ],
      table: 'users',
      emptyOk: true,
    },
    {
      method: 'POST',
      path: '/api/admin/users/:id/roles',
      fixture: 'user',
      auth: 'admin',
      body: () => ({ role_ids: [userRoleId] }),
      fields: [{ name: 'role_ids', kind: 'uuids', required: true }],
    },
    {
      method: 'PUT',
      path: '/api/admin/users/:id/roles',
      fixture: 'user',
      auth: 'admin',
      body: () => ({ role_ids: [userRoleId] }),
      fields: [{ name: 'role_ids', kind: 'uuids', required: true }],
    },
    {
      method: 'PUT',
      path: '/api/admin/settings',
      auth: 'admin',
      // The seeded value: a body that slipped through would change nothing.
      body: () => ({ email_password: true }),
      fields: [
        { name: 'email_password', kind: 'boolean' },
        { name: 'mobile_otp', kind: 'boolean' },
      ],
      emptyOk: true,
    },
    {
      method: 'POST',
      path: '/api/contents',
      auth: 'admin',
      body: () => ({ title: 'Hostile', body: 'Text' }),
      fields: [
        { name: 'title', kind: 'text', required: true, stored: { transform: trim } },
        { name: 'body', kind: 'text', required: true, stored: {} },
      ],
      table: 'contents',
      createdId: (data) => data.id as string,
    },
    {
      method: 'PUT',
      path: '/api/contents/:id',
      fixture: 'content',
      auth: 'admin',
      body: () => ({ title: 'Renamed' }),
      fields: [
        { name: 'title', kind: 'text', stored: { transform: trim } },
        { name: 'body', kind: 'text', stored: {} },
      ],
      table: 'contents',
      emptyOk: true,
    },
  ];

  /** Every route of the contract that needs an access token, with the fixture its path needs. */
  const allGuardedRoutes: {
    method: Method;
    path: string;
    fixture?: FixtureKind;
    body?: () => Record<string, unknown>;
    admin?: boolean;
  }[] = [
    { method: 'GET', path: '/api/auth/me' },
    { method: 'POST', path: '/api/auth/logout' },
    { method: 'GET', path: '/api/admin/roles', admin: true },
    { method: 'GET', path: '/api/admin/roles/:id', fixture: 'role', admin: true },
    { method: 'POST', path: '/api/admin/roles', body: () => ({ name: `hostile-${hex()}` }), admin: true },
    { method: 'PUT', path: '/api/admin/roles/:id', fixture: 'role', body: () => ({ display_name: 'x' }), admin: true },
    { method: 'DELETE', path: '/api/admin/roles/:id', fixture: 'role', admin: true },
    { method: 'GET', path: '/api/admin/permissions', admin: true },
    { method: 'GET', path: '/api/admin/permissions/:id', fixture: 'permission', admin: true },
    { method: 'POST', path: '/api/admin/permissions', body: () => ({ name: `hostile${hex()}.view` }), admin: true },
    {
      method: 'PUT',
      path: '/api/admin/permissions/:id',
      fixture: 'permission',
      body: () => ({ display_name: 'x' }),
      admin: true,
    },
    { method: 'DELETE', path: '/api/admin/permissions/:id', fixture: 'permission', admin: true },
    { method: 'GET', path: '/api/admin/users', admin: true },
    { method: 'GET', path: '/api/admin/users/:id', fixture: 'user', admin: true },
    {
      method: 'POST',
      path: '/api/admin/users',
      body: () => ({ name: 'x', email: uniqueEmail(), password: TEST_PASSWORD }),
      admin: true,
    },
    { method: 'PUT', path: '/api/admin/users/:id', fixture: 'user', body: () => ({ name: 'x' }), admin: true },
    { method: 'DELETE', path: '/api/admin/users/:id', fixture: 'user', admin: true },
    {
      method: 'POST',
      path: '/api/admin/users/:id/roles',
      fixture: 'user',
      body: () => ({ role_ids: [userRoleId] }),
      admin: true,
    },
    {
      method: 'PUT',
      path: '/api/admin/users/:id/roles',
      fixture: 'user',
      body: () => ({ role_ids: [userRoleId] }),
      admin: true,
    },
    { method: 'DELETE', path: '/api/admin/users/:id/roles/:role_id', fixture: 'user', admin: true },
    { method: 'GET', path: '/api/admin/settings', admin: true },
    { method: 'PUT', path: '/api/admin/settings', body: () => ({ email_password: true }), admin: true },
    { method: 'GET', path: '/api/contents' },
    { method: 'POST', path: '/api/contents', body: () => ({ title: 'x', body: 'y' }) },
    { method: 'GET', path: '/api/contents/:id', fixture: 'content' },
    { method: 'PUT', path: '/api/contents/:id', fixture: 'content', body: () => ({ title: 'x' }) },
    { method: 'DELETE', path: '/api/contents/:id', fixture: 'content' },
    { method: 'GET', path: '/api/account' },
    { method: 'GET', path: '/api/account/sessions' },
    { method: 'DELETE', path: '/api/account/sessions/:id', fixture: 'user' },
    { method: 'POST', path: '/api/account/totp/confirm', body: () => ({ code: '123456' }) },
    { method: 'POST', path: '/api/account/totp' },
    { method: 'DELETE', path: '/api/account/totp' },
    { method: 'POST', path: '/api/account/reauthenticate', body: () => ({ password: TEST_PASSWORD }) },
    { method: 'GET', path: '/api/admin/users/:id/sessions', fixture: 'user', admin: true },
  ];

  const guardedRoutes = allGuardedRoutes.filter((route) => inScope(route.path));

  // --- probes ---

  /** Checks a 2xx to a body whose `field` held `value`: the row holds exactly that, and the response says so. */
  function storedVerbatim(route: BodyRoute, field: Field, value: unknown, id: string | undefined) {
    return async (res: RawResponse): Promise<string | undefined> => {
      if (!route.table || !field.stored) return 'a 2xx for a value this field cannot legitimately take';
      if (typeof value !== 'string' && !(value === null && field.nullable)) return 'a 2xx for a wrong type';
      const body = JSON.parse(res.text) as { success: boolean; data: Record<string, unknown> };
      if (body.success !== true || typeof body.data !== 'object')
        return `not the success shape: ${res.text.slice(0, 120)}`;
      const rowId = id ?? route.createdId!(body.data);
      const column = field.stored.column ?? field.name;
      const rows: { v: unknown }[] = await db.query(`SELECT "${column}" AS v FROM "${route.table}" WHERE id = $1`, [
        rowId,
      ]);
      if (rows.length !== 1) return `no ${route.table} row ${rowId}`;
      const storedValue = rows[0].v;
      if (field.kind === 'password') {
        const ok =
          typeof storedValue === 'string' &&
          storedValue.startsWith('$argon2id$') &&
          !storedValue.includes(value as string);
        return ok ? undefined : 'the password is not stored as an Argon2id hash';
      }
      const expected = value === null ? null : (field.stored.transform ?? ((v: string) => v))(value as string);
      if (storedValue !== expected)
        return `stored ${JSON.stringify(storedValue)?.slice(0, 60)} for ${JSON.stringify(value).slice(0, 60)}`;
      const shown = route.shown ? route.shown(body.data) : body.data;
      if (field.name in shown && shown[field.name] !== expected)
        return `the response shows ${JSON.stringify(shown[field.name])?.slice(0, 60)}`;
      return undefined;
    };
  }

  /** Requests with a body for a route: the valid body changed in one way each. */
  function bodyProbes(route: BodyRoute & { fixture?: FixtureKind }): ProbeFactory[] {
    const probe =
      (spec: BodyCase): ProbeFactory =>
      async () => {
        const { path, id } = await resolvePath(route.path, route.fixture);
        const headers: Record<string, string> = {
          ...JSON_HEADERS,
          ...(route.auth === 'admin' ? bearer(admin.token) : {}),
        };
        if (spec.contentType === null) delete headers['content-type'];
        else if (spec.contentType !== undefined) headers['content-type'] = spec.contentType;
        const onSuccess = spec.stored
          ? storedVerbatim(route, spec.stored.field, spec.stored.value, id)
          : spec.successOk
            ? async (res: RawResponse) =>
                JSON.parse(res.text).success === true ? undefined : `not a success: ${res.text.slice(0, 120)}`
            : undefined;
        return {
          label: `${route.method} ${route.path} ${spec.what}`,
          request: { method: route.method, path, headers, body: spec.make(route.body()) },
          expect: spec.expect,
          onSuccess,
        };
      };
    const invalid: Expectation = { status: 400, code: 'VALIDATION_FAILED' };
    const invalidJson: Expectation = { status: 400, code: 'INVALID_JSON' };
    const factories: ProbeFactory[] = [];

    for (const field of route.fields) {
      const set = (value: unknown) => (body: Record<string, unknown>) => json({ ...body, [field.name]: value });
      const wrongTypes =
        field.kind === 'boolean' ? NOT_BOOLEANS : field.kind === 'uuids' ? notUuidArrays() : NOT_STRINGS;
      for (const [label, value] of wrongTypes) {
        const legit = value === null && field.nullable;
        factories.push(
          probe({
            what: `${field.name} = ${label}`,
            make: set(value),
            expect: legit ? {} : invalid,
            stored: legit ? { field, value } : undefined,
          }),
        );
      }
      if (field.kind !== 'boolean' && field.kind !== 'uuids') {
        for (const [label, value] of HOSTILE_STRINGS) {
          // Any 4xx, or a 2xx that stored the text verbatim.
          factories.push(
            probe({ what: `${field.name} = ${label}`, make: set(value), expect: {}, stored: { field, value } }),
          );
        }
      }
      if (field.required) {
        factories.push(
          probe({ what: `without ${field.name}`, make: (body) => json(omit(body, field.name)), expect: invalid }),
        );
      }
      // The last of two keys wins in JSON.parse: a hostile value after a valid one must still be refused.
      factories.push(
        probe({
          what: `${field.name} twice, the second {"$gt": ""}`,
          make: (body) => appendRaw({ ...body, [field.name]: body[field.name] ?? 'x' }, field.name, '{"$gt":""}'),
          expect: invalid,
        }),
      );
      factories.push(
        probe({
          what: `${field.name} = an array nested ${DEEP} deep`,
          make: (body) => appendRaw(omit(body, field.name), field.name, deeplyNested()),
          expect: invalid,
        }),
      );
    }

    // Unknown fields, including the ones an attacker hopes are read.
    for (const [key, value] of [
      ['is_admin', true],
      ['is_system', true],
      ['id', randomUUID()],
      ['roles', ['admin']],
      ['role_ids', [randomUUID()]],
      ['password_hash', 'x'],
      ['created_at', '2000-01-01T00:00:00Z'],
      ['constructor', 'x'],
      ['constructor', { name: 'x' }],
      ['prototype', { admin: true }],
      ['toString', 'x'],
      ['hasOwnProperty', 'x'],
      ['valueOf', 1],
      ['$where', '1 == 1'],
      ['k'.repeat(1000), 1],
    ] as [string, unknown][]) {
      if (route.fields.some((field) => field.name === key)) continue;
      factories.push(
        probe({
          what: `with unknown field ${key.slice(0, 20)}`,
          make: (body) => json({ ...body, [key]: value }),
          expect: invalid,
        }),
      );
    }

    // Prototype poisoning, as raw JSON (JSON.stringify would drop these keys).
    for (const [label, extra] of [
      ['__proto__', '"__proto__": {"is_admin": true}'],
      ['escaped __proto__', '"\\u005f_proto__": {"is_admin": true}'],
      ['constructor.prototype', '"constructor": {"prototype": {"is_admin": true}}'],
    ]) {
      factories.push(
        probe({
          what: `with a ${label} key`,
          make: (body) => raw(`{${extra}, ${JSON.stringify(body).slice(1)}`),
          expect: invalidJson,
        }),
      );
    }
    const first = route.fields[0].name;
    factories.push(
      probe({
        what: `with a __proto__ key inside ${first}`,
        make: (body) => appendRaw(omit(body, first), first, '{"__proto__": {"is_admin": true}}'),
        expect: invalidJson,
      }),
      probe({
        what: `with a constructor.prototype inside ${first}`,
        make: (body) => appendRaw(omit(body, first), first, '[{"constructor": {"prototype": {"is_admin": true}}}]'),
        expect: invalidJson,
      }),
    );

    // The body as a whole.
    for (const [label, text] of [
      ['an array', '[]'],
      ['an array holding the valid body', null],
      ['a string', '"text"'],
      ['a number', '42'],
      ['null', 'null'],
      ['true', 'true'],
    ] as [string, string | null][]) {
      factories.push(
        probe({
          what: `with ${label} as the body`,
          make: (body) => raw(text ?? JSON.stringify([body])),
          expect: invalid,
        }),
      );
    }
    if (route.fields.some((field) => field.required))
      factories.push(probe({ what: 'with {} as the body', make: () => raw('{}'), expect: invalid }));
    else if (route.emptyOk)
      factories.push(probe({ what: 'with {} as the body', make: () => raw('{}'), expect: {}, successOk: true }));
    for (const [label, text] of INVALID_JSON) {
      factories.push(probe({ what: `with ${label}`, make: () => raw(text), expect: invalidJson }));
    }
    factories.push(probe({ what: 'with an empty JSON body', make: () => Buffer.alloc(0), expect: invalidJson }));
    for (const [label, bytes] of INVALID_UTF8) {
      const target =
        route.fields.find((field) => field.kind !== 'boolean' && field.kind !== 'uuids') ?? route.fields[0];
      factories.push(
        probe({
          what: `with ${label} (not UTF-8) in ${target.name}`,
          make: (body) => {
            const [before, after] = JSON.stringify({ ...body, [target.name]: '\u0001' }).split('\\u0001');
            return Buffer.concat([raw(before), Buffer.from(bytes), raw(after)]);
          },
          expect: invalidJson,
        }),
      );
    }
    const tooLarge: Expectation = { status: 413, code: 'PAYLOAD_TOO_LARGE' };
    factories.push(
      probe({
        what: 'with a body over 16 KiB',
        make: (body) => json({ ...body, [route.fields[0].name]: 'x'.repeat(17 * 1024) }),
        expect: tooLarge,
      }),
      probe({
        what: 'with 1 MiB of whitespace',
        make: (body) => raw(`${' '.repeat(1024 * 1024)}${JSON.stringify(body)}`),
        expect: tooLarge,
      }),
    );
    const unsupported: Expectation = { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' };
    for (const [label, type] of WRONG_CONTENT_TYPES) {
      factories.push(
        probe({ what: `as ${label}`, make: (body) => json(body), expect: unsupported, contentType: type ?? null }),
      );
    }
    factories.push(
      probe({
        what: 'as form-urlencoded fields',
        make: (body) =>
          raw(new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, String(v)])).toString()),
        expect: unsupported,
        contentType: 'application/x-www-form-urlencoded',
      }),
      probe({
        what: 'as XML with an external entity',
        make: () => raw('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'),
        expect: unsupported,
        contentType: 'application/xml',
      }),
    );
    return factories;
  }

  /**
   * A browser page on APP_URL's origin (the default): a cookie-authenticated write from anywhere else
   * is 403 before its token is looked at (test/http/cookie-origin.e2e-spec.ts).
   */
  const TRUSTED_ORIGIN = { origin: 'http://localhost:3000' };

  /** Token forgeries in the Authorization header and the access_token cookie, on every guarded route. */
  function tokenProbes(): ProbeFactory[] {
    const claims = decodeJwt(admin.tokens.access_token).payload;
    const now = Math.floor(Date.now() / 1000);
    const forgeries: [string, string][] = [
      ['garbage', 'garbage'],
      ['three garbage segments', 'abc.def.ghi'],
      ['alg none', forgeJwt(claims, { alg: 'none' })],
      ['another secret', forgeJwt(claims, { secret: 'another-secret-0123456789-abcdefghijklmnop' })],
      ['HS512', forgeJwt(claims, { alg: 'HS512' })],
      ['expired', forgeJwt({ ...claims, iat: now - 2000, exp: now - 1000, jti: randomUUID() })],
      ['the refresh token', admin.tokens.refresh_token],
      [
        'a 2fa temp token',
        forgeJwt({
          sub: claims.sub,
          email: claims.email,
          token_type: '2fa',
          jti: randomUUID(),
          iat: now,
          exp: now + 300,
        }),
      ],
      ['an unknown session', forgeJwt({ ...claims, sid: randomUUID(), jti: randomUUID() })],
      ['a non-UUID sub and sid', forgeJwt({ ...claims, sub: "' OR 1=1 --", sid: '{"$gt":""}', jti: randomUUID() })],
      ['object claims', forgeJwt({ ...claims, sub: { $gt: '' }, sid: [claims.sid], jti: randomUUID() })],
      ['10,000 characters', `${'a'.repeat(5000)}.${'b'.repeat(4999)}.c`],
    ];
    const headerOnly: [string, string][] = [
      ['"Bearer" alone', 'Bearer'],
      ['"Bearer " and a space', 'Bearer  '],
      ['a Basic header', `Basic ${Buffer.from('admin:admin').toString('base64')}`],
      ['the token without "Bearer"', admin.token],
      ['"Bearer" twice', `Bearer Bearer ${admin.token}`],
      ['the token and junk', `Bearer ${admin.token} junk`],
      ['an SQL string', "Bearer ' OR 1=1 --"],
      ['a NoSQL string', 'Bearer {"$gt": ""}'],
    ];
    const cookieOnly: [string, string][] = [
      ['an empty cookie', 'access_token='],
      ['a broken percent-encoding', 'access_token=%E0%A4%A'],
      ['a quoted cookie', `access_token="${forgeJwt(claims, { alg: 'none' })}"`],
    ];
    const variants: [string, Record<string, string>][] = [
      ...forgeries.map(([label, token]): [string, Record<string, string>] => [`Bearer ${label}`, bearer(token)]),
      ...forgeries.map(([label, token]): [string, Record<string, string>] => [
        `cookie ${label}`,
        { cookie: `access_token=${token}`, ...TRUSTED_ORIGIN },
      ]),
      ...headerOnly.map(([label, value]): [string, Record<string, string>] => [
        `Authorization ${label}`,
        { authorization: value },
      ]),
      ...cookieOnly.map(([label, value]): [string, Record<string, string>] => [
        `cookie: ${label}`,
        { cookie: value, ...TRUSTED_ORIGIN },
      ]),
      ['no token', {}],
    ];
    const factories: ProbeFactory[] = [];
    for (const route of guardedRoutes) {
      for (const [label, headers] of variants) {
        factories.push(async () => {
          const { path } = await resolvePath(route.path, route.fixture);
          const body = route.body?.();
          return {
            label: `${route.method} ${route.path} ${label}`,
            request: {
              method: route.method,
              path,
              headers: { ...headers, ...(body ? JSON_HEADERS : {}) },
              body: body && json(body),
            },
            expect: { status: 401, code: 'UNAUTHENTICATED' },
          };
        });
      }
      if (route.admin) {
        factories.push(async () => {
          const { path } = await resolvePath(route.path, route.fixture);
          const body = route.body?.();
          return {
            label: `${route.method} ${route.path} a valid token without the permission`,
            request: {
              method: route.method,
              path,
              headers: { ...bearer(plain.token), ...(body ? JSON_HEADERS : {}) },
              body: body && json(body),
            },
            expect: { status: 403, code: 'FORBIDDEN' },
          };
        });
      }
    }
    return factories;
  }

  /** Refresh and temp-token forgeries, where the token travels in the body or the refresh cookie. */
  function bodyTokenProbes(): ProbeFactory[] {
    if (!inScope('/api/auth/refresh')) return [];
    const holder = () => known.tokens;
    const now = Math.floor(Date.now() / 1000);
    const refreshClaims = () => decodeJwt(holder().refresh_token).payload;
    const forgeries: [string, () => string][] = [
      ['garbage', () => 'garbage'],
      ['alg none', () => forgeJwt(refreshClaims(), { alg: 'none' })],
      ['another secret', () => forgeJwt(refreshClaims(), { secret: 'another-secret-0123456789-abcdefghijklmnop' })],
      ['expired', () => forgeJwt({ ...refreshClaims(), iat: now - 2000, exp: now - 1000 })],
      ['an access token', () => holder().access_token],
      ['a 2fa temp token', () => forgeJwt({ ...refreshClaims(), token_type: '2fa', jti: randomUUID() })],
      ['an unknown session', () => forgeJwt({ ...refreshClaims(), sid: randomUUID(), jti: randomUUID() })],
      ['a non-UUID sid', () => forgeJwt({ ...refreshClaims(), sid: "' OR 1=1 --", jti: randomUUID() })],
      ['an object sid', () => forgeJwt({ ...refreshClaims(), sid: { $gt: '' }, gen: { $gt: 0 }, jti: randomUUID() })],
      ['a huge generation', () => forgeJwt({ ...refreshClaims(), gen: 1e300, jti: randomUUID() })],
      ['a non-UUID sub', () => forgeJwt({ ...refreshClaims(), sub: "' OR 1=1 --", jti: randomUUID() })],
      [
        'a 2fa temp token with a non-UUID sub',
        () =>
          forgeJwt({
            sub: "' OR 1=1 --",
            email: 'x@example.com',
            token_type: '2fa',
            jti: randomUUID(),
            iat: now,
            exp: now + 300,
          }),
      ],
      [
        'a 2fa temp token with a 2,000-character jti',
        () => forgeJwt({ ...refreshClaims(), token_type: '2fa', jti: 'j'.repeat(2000) }),
      ],
    ];
    // A correctly signed token naming the live session with another generation is, as far as the
    // service can tell, a replayed one: REFRESH_TOKEN_REUSED is a right answer too.
    const refused: Expectation = { status: 401, code: ['UNAUTHENTICATED', 'REFRESH_TOKEN_REUSED'] };
    const factories: ProbeFactory[] = [];
    for (const [label, make] of forgeries) {
      factories.push(async () => ({
        label: `POST /api/auth/refresh body ${label}`,
        request: {
          method: 'POST',
          path: '/api/auth/refresh',
          headers: JSON_HEADERS,
          body: json({ refresh_token: make() }),
        },
        expect: refused,
      }));
      factories.push(async () => ({
        label: `POST /api/auth/refresh cookie ${label}`,
        request: {
          method: 'POST',
          path: '/api/auth/refresh',
          headers: { cookie: `refresh_token=${make()}`, ...TRUSTED_ORIGIN },
        },
        expect: refused,
      }));
      factories.push(async () => ({
        label: `POST /api/auth/otp/verify-2fa temp_token ${label}`,
        request: {
          method: 'POST',
          path: '/api/auth/otp/verify-2fa',
          headers: JSON_HEADERS,
          body: json({ temp_token: make(), code: '123456' }),
        },
        expect: { status: 401 },
      }));
    }
    return factories;
  }

  /** Malformed and unknown ids in every path that takes one. */
  function pathProbes(): ProbeFactory[] {
    const unknownUuid = randomUUID();
    const bad: [string, string][] = [
      ['a word', 'abc'],
      ['a number', '1'],
      ['a negative number', '-1'],
      ['null', 'null'],
      ['undefined', 'undefined'],
      ['an SQL string', encodeURIComponent("' OR 1=1 --")],
      ['an SQL string after a UUID', encodeURIComponent(`${unknownUuid}' OR '1'='1`)],
      ['a NoSQL object', encodeURIComponent('{"$gt":""}')],
      ['an encoded path traversal', encodeURIComponent('../../etc/passwd')],
      ['a NUL byte', '%00'],
      ['a UUID with a NUL byte', `${unknownUuid}%00`],
      ['a UUID without dashes', unknownUuid.replace(/-/g, '')],
      ['a UUID in braces', encodeURIComponent(`{${unknownUuid}}`)],
      ['a UUID and a character', `${unknownUuid}0`],
      ['a broken percent-encoding', '%E0%A4%A'],
      ['fullwidth digits', encodeURIComponent('１２３')],
      ['200 characters', 'a'.repeat(200)],
    ];
    const routes: {
      method: Method;
      path: string;
      fixture?: FixtureKind;
      body?: () => Record<string, unknown>;
      param: 'id' | 'role_id';
    }[] = [
      ...guardedRoutes
        .filter((route) => route.path.includes(':id'))
        .map((route) => ({ ...route, param: 'id' as const })),
      {
        method: 'DELETE' as const,
        path: '/api/admin/users/:id/roles/:role_id',
        fixture: 'user' as const,
        param: 'role_id' as const,
      },
    ].filter((route) => inScope(route.path));
    const factories: ProbeFactory[] = [];
    for (const route of routes) {
      const at = async (value: string, label: string, expect: Expectation): Promise<Probe> => {
        const given: Record<string, string> = { [route.param]: value };
        const { path } = await resolvePath(route.path, route.fixture, given);
        const body = route.body?.();
        return {
          label: `${route.method} ${route.path} ${route.param} = ${label}`,
          request: {
            method: route.method,
            path,
            headers: { ...bearer(admin.token), ...(body ? JSON_HEADERS : {}) },
            body: body && json(body),
          },
          expect,
        };
      };
      for (const [label, value] of bad) {
        factories.push(() => at(value, label, { status: [400, 404], code: ['VALIDATION_FAILED', 'NOT_FOUND'] }));
      }
      for (const [label, value] of [
        ['an unknown UUID', unknownUuid],
        ['an unknown upper-case UUID', randomUUID().toUpperCase()],
        ['the nil UUID', '00000000-0000-0000-0000-000000000000'],
      ]) {
        factories.push(() => at(value, label, { status: 404, code: 'NOT_FOUND' }));
      }
    }
    return factories;
  }

  /** Hostile query strings on the two paginated lists. */
  function queryProbes(): ProbeFactory[] {
    const lists: { path: string; search: boolean }[] = [
      { path: '/api/admin/users', search: true },
      { path: '/api/contents', search: false },
    ].filter((list) => inScope(list.path));
    const refused: [string, string][] = [
      ['page=abc', 'page=abc'],
      ['page=0', 'page=0'],
      ['page=-1', 'page=-1'],
      ['page=1.5', 'page=1.5'],
      ['a huge page', 'page=99999999999999999999'],
      ['page=Infinity', 'page=Infinity'],
      ['page=NaN', 'page=NaN'],
      ['an empty page', 'page='],
      ['page as an array', 'page=1&page=2'],
      ['page[]', 'page[]=1'],
      ['page[$gt]', 'page[$gt]=0'],
      ['page with a NUL byte', 'page=1%00'],
      ['limit=0', 'limit=0'],
      ['limit=1000000', 'limit=1000000'],
      ['limit=abc', 'limit=abc'],
      ['an SQL limit', `limit=${encodeURIComponent('1; DROP TABLE users')}`],
      ['an unknown parameter', 'is_admin=true'],
      ['a constructor parameter', 'constructor=x'],
      ['a constructor.prototype parameter', 'constructor[prototype][x]=1'],
      ['a 10,000-character parameter', `x=${'a'.repeat(10_000)}`],
    ];
    const searches: [string, string][] = [
      ['an SQL string', "' OR 1=1 --"],
      ['an SQL union', "x' UNION SELECT password_hash FROM users --"],
      ['a NoSQL string', '{"$gt": ""}'],
      ['a LIKE wildcard %', '%'],
      ['a LIKE wildcard _', '_'],
      ['a backslash', '\\'],
      ['a regular-expression', '.*'],
    ];
    const factories: ProbeFactory[] = [];
    const get =
      (path: string, query: string, label: string, expect: Expectation, onSuccess?: Probe['onSuccess']): ProbeFactory =>
      async () => ({
        label: `GET ${path} ${label}`,
        request: { method: 'GET', path: `${path}?${query}`, headers: bearer(admin.token) },
        expect,
        onSuccess,
      });
    for (const list of lists) {
      for (const [label, query] of refused)
        factories.push(get(list.path, query, label, { status: 400, code: 'VALIDATION_FAILED' }));
      if (!list.search) continue;
      factories.push(
        get(list.path, `search=${'a'.repeat(10_000)}`, 'a 10,000-character search', {
          status: 400,
          code: 'VALIDATION_FAILED',
        }),
      );
      factories.push(
        get(list.path, 'search=a%00b', 'a search with a NUL byte', { status: 400, code: 'VALIDATION_FAILED' }),
      );
      factories.push(
        get(list.path, 'search[$ne]=x', 'a NoSQL search object', { status: 400, code: 'VALIDATION_FAILED' }),
      );
      factories.push(get(list.path, 'search=a&search=b', 'two searches', { status: 400, code: 'VALIDATION_FAILED' }));
      for (const [label, search] of searches) {
        // Legitimate text to look for: a 2xx is fine when every user found contains it literally.
        factories.push(
          get(list.path, `search=${encodeURIComponent(search)}&limit=100`, `search = ${label}`, {}, async (res) => {
            const data = JSON.parse(res.text).data as { items: { name: string; email: string }[]; total: number };
            if (!Array.isArray(data?.items) || typeof data.total !== 'number')
              return `not a list: ${res.text.slice(0, 120)}`;
            const needle = search.toLowerCase();
            const stray = data.items.find(
              (user) => !user.name.toLowerCase().includes(needle) && !user.email.toLowerCase().includes(needle),
            );
            return stray
              ? `found ${JSON.stringify(stray.name)}, which does not contain ${JSON.stringify(search)}`
              : undefined;
          }),
        );
      }
    }
    return factories;
  }

  /** Bodies that never reach a handler: logout takes no body, so only the parser's refusals apply. */
  function logoutBodyProbes(): ProbeFactory[] {
    if (!inScope('/api/auth/logout')) return [];
    const cases: [string, Buffer, string | undefined, Expectation][] = [
      ...INVALID_JSON.map(([label, text]): [string, Buffer, string | undefined, Expectation] => [
        label,
        raw(text),
        'application/json',
        { status: 400, code: 'INVALID_JSON' },
      ]),
      [
        'a __proto__ key',
        raw('{"__proto__": {"is_admin": true}}'),
        'application/json',
        { status: 400, code: 'INVALID_JSON' },
      ],
      [
        'bytes that are not UTF-8',
        Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
        'application/json',
        { status: 400, code: 'INVALID_JSON' },
      ],
      [
        'a body over 16 KiB',
        json({ a: 'x'.repeat(17 * 1024) }),
        'application/json',
        { status: 413, code: 'PAYLOAD_TOO_LARGE' },
      ],
      ...WRONG_CONTENT_TYPES.map(([label, type]): [string, Buffer, string | undefined, Expectation] => [
        `as ${label}`,
        json({}),
        type,
        { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
      ]),
    ];
    return cases.map(([label, body, type, expect]) => async () => {
      // A session of its own: a request that got through would end it, not the admin's.
      const user = await registerUser(app);
      return {
        label: `POST /api/auth/logout with ${label}`,
        request: {
          method: 'POST',
          path: '/api/auth/logout',
          headers: { ...bearer(user.tokens.access_token), ...(type ? { 'content-type': type } : {}) },
          body,
        },
        expect,
      };
    });
  }

  async function run(factories: ProbeFactory[]): Promise<string[]> {
    const failures: string[] = [];
    const BATCH = 10;
    for (let start = 0; start < factories.length; start += BATCH) {
      await Promise.all(
        factories.slice(start, start + BATCH).map(async (factory) => {
          const probe = await factory();
          let res: RawResponse;
          try {
            res = await rawRequest(port, agent, probe.request);
          } catch (error) {
            failures.push(`${probe.label}: no answer (${(error as Error).message})`);
            return;
          } finally {
            requests += 1;
          }
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status >= 200 && res.status < 300 && probe.onSuccess) {
            const problem = await probe.onSuccess(res);
            if (problem) failures.push(`${probe.label}: ${res.status}, ${problem}`);
            return;
          }
          const problems = errorShapeProblems(res, probe.expect);
          if (problems.length > 0) failures.push(`${probe.label}: ${problems.join('; ')} [${res.text.slice(0, 160)}]`);
        }),
      );
    }
    return failures;
  }

  const report = (failures: string[]) =>
    failures.length === 0 ? '' : `${failures.length} failures:\n${failures.slice(0, 80).join('\n')}`;

  /** The body probes of every route in scope with a body, logout's included. */
  const allBodyProbes = () => [
    ...bodyRoutes()
      .filter((route) => inScope(route.path))
      .flatMap(bodyProbes),
    ...logoutBodyProbes(),
  ];

  /**
   * The checks after the probes: the seeded rows, the settings and the suite's accounts are as they
   * were, and no request was answered 5xx. `minRequests` shows the probes really ran.
   */
  function checksAfterwards(minRequests: number) {
    it('left the seeded rows, the settings and the accounts as they were', async () => {
      expect(await snapshotSystemRows()).toEqual(systemRows);
      const me = await rawRequest(port, agent, { method: 'GET', path: '/api/auth/me', headers: bearer(admin.token) });
      expect(me.status).toBe(200);
      expect(JSON.parse(me.text).data.roles).toContain('admin');
      const login = await rawRequest(port, agent, {
        method: 'POST',
        path: '/api/auth/login',
        headers: JSON_HEADERS,
        body: json({ email: known.email, password: known.password }),
      });
      expect(login.status).toBe(200);
      // The suite's own accounts are all still there, with their roles.
      const accounts = await db.query(
        `SELECT u.id, array_agg(r.name ORDER BY r.name) AS roles FROM users u
         JOIN user_roles ur ON ur.user_id = u.id JOIN roles r ON r.id = ur.role_id
         WHERE u.id = ANY($1) GROUP BY u.id`,
        [[admin.id, plain.id, known.id]],
      );
      expect(new Map(accounts.map((row: { id: string; roles: string[] }) => [row.id, row.roles]))).toEqual(
        new Map([
          [admin.id, ['admin', 'user']],
          [plain.id, ['user']],
          [known.id, ['user']],
        ]),
      );
    });

    it('counted its requests', () => {
      process.stdout.write(
        `\nhostile input on ${scope.join(', ')}: ${requests} requests, none 5xx (statuses: ${JSON.stringify(statuses)})\n`,
      );
      expect(statuses[500] ?? 0).toBe(0);
      expect(Object.keys(statuses).filter((status) => Number(status) >= 500)).toEqual([]);
      expect(requests).toBeGreaterThanOrEqual(minRequests);
    });
  }

  return {
    bodyProbes: allBodyProbes,
    tokenProbes: () => [...tokenProbes(), ...bodyTokenProbes()],
    pathProbes,
    queryProbes,
    run,
    report,
    checksAfterwards,
  };
}

/** The kinds of probe a file runs, each as one test. */
export type ProbeKind = 'bodies' | 'tokens' | 'paths' | 'queries';

/**
 * One hostile-input file: an app for the routes under `scope`, a test per kind of probe, then the
 * checks that nothing changed and that at least `minRequests` requests were sent, none answered 5xx.
 */
export function describeHostileInput(scope: string[], kinds: ProbeKind[], minRequests: number): void {
  describe(`hostile input on ${scope.join(' and ')}`, () => {
    const suite = useHostileInput(scope);
    const tests: Record<ProbeKind, [string, () => ProbeFactory[], number]> = {
      bodies: [
        'refuses hostile bodies on every endpoint that takes one, or stores legitimate text verbatim',
        suite.bodyProbes,
        600_000,
      ],
      tokens: ['refuses forged, malformed and misplaced tokens on every guarded route', suite.tokenProbes, 300_000],
      paths: [
        'refuses malformed ids with 400 and unknown ids with 404 on every path that takes one',
        suite.pathProbes,
        300_000,
      ],
      queries: [
        'refuses hostile query strings on the paginated lists, and searches for text literally',
        suite.queryProbes,
        120_000,
      ],
    };
    for (const kind of kinds) {
      const [title, probes, timeout] = tests[kind];
      it(
        title,
        async () => {
          expect(suite.report(await suite.run(probes()))).toBe('');
        },
        timeout,
      );
    }
    suite.checksAfterwards(minRequests);
  });
}
