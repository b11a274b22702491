import { createHmac, type KeyObject } from 'node:crypto';

/**
 * An HS256 JWS in compact serialization (RFC 7515 §7.1): the header and the payload as JSON in
 * base64url, and node:crypto's HMAC-SHA256 of both under `key`.
 *
 * Why not jose's `SignJWT`: jose 6 signs through WebCrypto, where each HMAC is a job queued on
 * libuv's thread pool and its data is copied on the way (structuredClone); a sign-in and a refresh
 * each sign two tokens, and that copying and the two thread hops were a quarter of what a refresh
 * costs beyond its database statements. The serialization is the same as jose's, byte for byte
 * (the spec compares them); every token is still verified by jose (`jwtVerify`), and asymmetric
 * keys (ES256, EdDSA) are still signed by jose.
 */
export function signHs256(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
  const signingInput = `${base64url(header)}.${base64url(payload)}`;
  return `${signingInput}.${createHmac('sha256', key).update(signingInput).digest('base64url')}`;
}

function base64url(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}
