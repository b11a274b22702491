import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { AuthenticationResponseDto, RegistrationResponseDto } from './webauthn-json.dto.js';

/** As the global validation pipe does it: transform, then validate refusing unknown fields, nested ones too. */
function invalidPaths<T extends object>(dto: new () => T, body: Record<string, unknown>): string[] {
  const paths = (errors: ValidationError[], prefix = ''): string[] =>
    errors.flatMap((error) =>
      error.children?.length ? paths(error.children, `${prefix}${error.property}.`) : [`${prefix}${error.property}`],
    );
  const instance = plainToInstance(dto, body);
  return paths(
    validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true }),
  ).sort();
}

const assertion = (overrides: Record<string, unknown> = {}, response: Record<string, unknown> = {}) => ({
  id: 'AAECAwQFBgcICQoLDA0ODw',
  rawId: 'AAECAwQFBgcICQoLDA0ODw',
  type: 'public-key',
  clientExtensionResults: {},
  authenticatorAttachment: 'platform',
  response: {
    clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0',
    authenticatorData: 'AAAA',
    signature: 'MEUC',
    ...response,
  },
  ...overrides,
});

describe('WebAuthn JSON bodies', () => {
  it('accepts an AuthenticationResponseJSON as browsers send it, with or without a user handle', () => {
    expect(invalidPaths(AuthenticationResponseDto, assertion())).toEqual([]);
    expect(invalidPaths(AuthenticationResponseDto, assertion({}, { userHandle: 'dXNlcg' }))).toEqual([]);
    expect(invalidPaths(AuthenticationResponseDto, assertion({ authenticatorAttachment: undefined }))).toEqual([]);
  });

  it('refuses a wrong type, non-base64url fields, unknown fields at either level, and a missing response', () => {
    expect(invalidPaths(AuthenticationResponseDto, assertion({ type: 'password' }))).toEqual(['type']);
    expect(invalidPaths(AuthenticationResponseDto, assertion({ id: 'not base64url!' }))).toEqual(['id']);
    expect(invalidPaths(AuthenticationResponseDto, assertion({ admin: true }))).toEqual(['admin']);
    expect(invalidPaths(AuthenticationResponseDto, assertion({}, { extra: 'x' }))).toEqual(['response.extra']);
    expect(invalidPaths(AuthenticationResponseDto, assertion({ response: undefined }))).toEqual(['response']);
    expect(invalidPaths(AuthenticationResponseDto, assertion({}, { signature: 'A'.repeat(5000) }))).toEqual([
      'response.signature',
    ]);
  });

  it('accepts a RegistrationResponseJSON with the fields of Level 3 browsers', () => {
    const registration = {
      ...assertion(),
      response: {
        clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0',
        attestationObject: 'o2NmbXRkbm9uZQ',
        authenticatorData: 'AAAA',
        transports: ['internal', 'hybrid'],
        publicKeyAlgorithm: -7,
        publicKey: 'MFkw',
      },
    };
    expect(invalidPaths(RegistrationResponseDto, registration)).toEqual([]);
    expect(
      invalidPaths(RegistrationResponseDto, {
        ...registration,
        response: { ...registration.response, publicKeyAlgorithm: 'ES256' },
      }),
    ).toEqual(['response.publicKeyAlgorithm']);
  });
});
