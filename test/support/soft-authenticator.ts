import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
/**
 * The little CBOR (RFC 8949, canonical lengths) an authenticator writes: integers, byte and text
 * strings, maps. Enough for a COSE key and a `none` attestation object.
 */
function encode(value: unknown): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
    if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
    const bytes = Buffer.alloc(5);
    bytes[0] = (major << 5) | 26;
    bytes.writeUInt32BE(length, 1);
    return bytes;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, text.length), text]);
  }
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value as object);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([key, item]) => [encode(key), encode(item)])]);
}

/**
 * A software WebAuthn authenticator for the tests: P-256 keys made here, `none` attestation,
 * clientDataJSON and authenticatorData built by hand as a browser and an authenticator would.
 * Every knob an attack needs is an option: another origin, another RP ID, no user verification,
 * a counter that goes backwards, a signature by another key.
 */
export interface SoftCredential {
  id: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  userHandle: string;
  counter: number;
}

export interface CeremonyOptions {
  origin?: string;
  rpId?: string;
  userVerified?: boolean;
  /** The counter this answer carries; by default one more than the last. */
  counter?: number;
  /** Sign with this key instead of the credential's own. */
  signWith?: KeyObject;
  /** Answer another challenge than the options' own. */
  challenge?: string;
}

const b64url = (bytes: Buffer | Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  constructor(
    readonly origin: string,
    readonly rpId: string,
  ) {}

  /** Answers `navigator.credentials.create()` options with a new credential (`RegistrationResponseJSON`). */
  register(
    options: { challenge: string; user: { id: string } },
    ceremony: CeremonyOptions = {},
  ): { response: Record<string, unknown>; credential: SoftCredential } {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const credential: SoftCredential = {
      id: b64url(randomBytes(16)),
      privateKey,
      publicKey,
      userHandle: options.user.id,
      counter: ceremony.counter ?? 0,
    };
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = encode(
      new Map<number, number | Buffer>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const idBytes = Buffer.from(credential.id, 'base64url');
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(idBytes.length);
    const authData = Buffer.concat([
      this.header(ceremony, 0x40, credential.counter),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      idBytes,
      Buffer.from(coseKey),
    ]);
    const clientDataJSON = this.clientData('webauthn.create', ceremony.challenge ?? options.challenge, ceremony);
    const attestationObject = encode({ fmt: 'none', attStmt: {}, authData });
    this.credentials.push(credential);
    return {
      credential,
      response: {
        id: credential.id,
        rawId: credential.id,
        type: 'public-key',
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
        response: {
          clientDataJSON: b64url(clientDataJSON),
          attestationObject: b64url(attestationObject),
          transports: ['internal'],
        },
      },
    };
  }

  /** Answers `navigator.credentials.get()` options (`AuthenticationResponseJSON`). */
  assert(
    options: { challenge: string },
    credential: SoftCredential = this.credentials[0],
    ceremony: CeremonyOptions = {},
  ): Record<string, unknown> {
    const counter = ceremony.counter ?? credential.counter + 1;
    credential.counter = Math.max(credential.counter, counter);
    const authData = this.header(ceremony, 0, counter);
    const clientDataJSON = this.clientData('webauthn.get', ceremony.challenge ?? options.challenge, ceremony);
    const signature = sign(
      'sha256',
      Buffer.concat([authData, sha256(clientDataJSON)]),
      ceremony.signWith ?? credential.privateKey,
    );
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
    };
  }

  /** rpIdHash, flags (UP always; UV unless told otherwise; `extra` such as AT) and the counter. */
  private header(ceremony: CeremonyOptions, extra: number, counter: number): Buffer {
    const flags = Buffer.from([0x01 | (ceremony.userVerified === false ? 0 : 0x04) | extra]);
    const counterBytes = Buffer.alloc(4);
    counterBytes.writeUInt32BE(counter);
    return Buffer.concat([sha256(ceremony.rpId ?? this.rpId), flags, counterBytes]);
  }

  private clientData(type: string, challenge: string, ceremony: CeremonyOptions): Buffer {
    return Buffer.from(
      JSON.stringify({ type, challenge, origin: ceremony.origin ?? this.origin, crossOrigin: false }),
      'utf8',
    );
  }
}

/** Another key pair, for a signature by the wrong key. */
export function strangerKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
}
