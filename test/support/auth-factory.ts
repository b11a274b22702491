import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { decodeProtectedHeader, SignJWT } from 'jose';
import request, { type Response } from 'supertest';
import { TEST_JWT_SECRET } from './test-config.js';

/** Long enough, not on the common-password list; every factory user gets it unless told otherwise. */
export const TEST_PASSWORD = 'Plum-Orbit-Lantern-42';

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  user: { id: string; name: string; email: string; mobile: string | null };
}

export interface RegisteredUser {
  id: string;
  name: string;
  email: string;
  mobile: string | null;
  password: string;
  tokens: TokenPair;
}

/** A fresh address per call, so tests never share accounts and their order never matters. */
export function uniqueEmail(label = 'user'): string {
  return `${label}-${randomUUID()}@example.com`;
}

/**
 * A fresh mobile in the normalised form (E.164), one the phone-number library judges valid: a
 * German mobile, `+49176` and 8 random digits.
 */
export function uniqueMobile(): string {
  return `+49176${String(randomInt(0, 1e8)).padStart(8, '0')}`;
}

export function registrationBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Test User',
    email: uniqueEmail(),
    password: TEST_PASSWORD,
    password_confirmation: TEST_PASSWORD,
    ...overrides,
  };
}

/** An app made in the test's process, or the base URL of a service running elsewhere. */
export type Target = NestFastifyApplication | string;

function server(target: Target) {
  return typeof target === 'string' ? target : target.getHttpServer();
}

/** Registers through the API and returns the new account with the token pair it received. */
export async function registerUser(app: Target, overrides: Record<string, unknown> = {}): Promise<RegisteredUser> {
  const body = registrationBody(overrides);
  const res = await request(server(app)).post('/api/auth/register').send(body);
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  const tokens = res.body.data as TokenPair;
  return { ...tokens.user, password: String(body.password), tokens };
}

export function login(app: Target, body: Record<string, unknown>): Promise<Response> {
  return request(server(app)).post('/api/auth/login').send(body);
}

/** A new session of an existing account, by email and password. */
export async function loginTokens(app: Target, user: { email: string; password: string }): Promise<TokenPair> {
  const res = await login(app, { email: user.email, password: user.password });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as TokenPair;
}

export function refresh(app: Target, refreshToken: string): Promise<Response> {
  return request(server(app)).post('/api/auth/refresh').send({ refresh_token: refreshToken });
}

export function me(app: Target, accessToken: string): Promise<Response> {
  return request(server(app)).get('/api/auth/me').set('authorization', `Bearer ${accessToken}`);
}

export function logout(app: Target, accessToken: string): Promise<Response> {
  return request(server(app)).post('/api/auth/logout').set('authorization', `Bearer ${accessToken}`);
}

export interface DecodedJwt {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** The JWT's header and claims, read without verifying (tests check what was issued). */
export function decodeJwt(token: string): DecodedJwt {
  const [header, payload] = token.split('.');
  const part = (segment: string) =>
    JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Record<string, unknown>;
  return { header: part(header), payload: part(payload) };
}

/** What the service stores of a token: its SHA-256, hex. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names lower-cased; flags map to `true`. */
  attributes: Record<string, string | true>;
  raw: string;
}

/** The response's Set-Cookie headers by cookie name. */
export function setCookies(res: Response): Record<string, SetCookie> {
  const header = res.headers['set-cookie'] as unknown;
  const lines = Array.isArray(header) ? (header as string[]) : typeof header === 'string' ? [header] : [];
  const cookies: Record<string, SetCookie> = {};
  for (const raw of lines) {
    const [pair, ...attributeParts] = raw.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const attributes: Record<string, string | true> = {};
    for (const part of attributeParts) {
      const at = part.indexOf('=');
      if (at === -1) attributes[part.toLowerCase()] = true;
      else attributes[part.slice(0, at).toLowerCase()] = part.slice(at + 1);
    }
    cookies[name] = { name, value: decodeURIComponent(pair.slice(eq + 1)), attributes, raw };
  }
  return cookies;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A copy of a real access token whose `auth_time` lies `ageSeconds` in the past, signed with the
 * test secret: everything else (session, expiry) is as valid as the original.
 */
export async function agedCopy(token: string, ageSeconds: number): Promise<string> {
  const header = decodeProtectedHeader(token);
  const { payload } = decodeJwt(token);
  return new SignJWT({ ...payload, auth_time: Math.floor(Date.now() / 1000) - ageSeconds })
    .setProtectedHeader({ alg: header.alg!, typ: 'at+jwt', ...(header.kid ? { kid: header.kid } : {}) })
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
}
