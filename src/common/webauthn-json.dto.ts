import { Type } from 'class-transformer';
import { Equals, IsArray, IsIn, IsInt, IsObject, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { UnlessAbsent } from './unless-absent.js';

/**
 * The JSON forms of WebAuthn's credentials (WebAuthn Level 3 `toJSON()`, SimpleWebAuthn's
 * `RegistrationResponseJSON` and `AuthenticationResponseJSON`), which keep their own camelCase
 * names. Binary fields are base64url; their content is judged by the WebAuthn library, not here.
 */
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const base64url = (max: number) => [
  IsString(),
  MaxLength(max),
  Matches(BASE64URL, { message: '$property must be base64url' }),
];
function Base64Url(max: number): PropertyDecorator {
  return (target, key) => base64url(max).forEach((decorator) => decorator(target, key));
}

export class AuthenticatorAttestationResponseDto {
  @Base64Url(4096)
  clientDataJSON!: string;

  @Base64Url(8192)
  attestationObject!: string;

  @UnlessAbsent()
  @Base64Url(8192)
  authenticatorData?: string;

  @UnlessAbsent()
  @IsArray()
  @IsString({ each: true })
  @MaxLength(32, { each: true })
  transports?: string[];

  @UnlessAbsent()
  @IsInt()
  publicKeyAlgorithm?: number;

  @UnlessAbsent()
  @Base64Url(4096)
  publicKey?: string;
}

export class AuthenticatorAssertionResponseDto {
  @Base64Url(4096)
  clientDataJSON!: string;

  @Base64Url(4096)
  authenticatorData!: string;

  /** Up to an ML-DSA-44 signature (2420 bytes), which the library accepts where the runtime verifies it. */
  @Base64Url(4096)
  signature!: string;

  @UnlessAbsent()
  @Base64Url(256)
  userHandle?: string;
}

class PublicKeyCredentialJsonDto {
  @Base64Url(1400)
  id!: string;

  @Base64Url(1400)
  rawId!: string;

  @Equals('public-key')
  type!: 'public-key';

  @IsObject()
  clientExtensionResults!: Record<string, unknown>;

  @UnlessAbsent()
  @IsIn(['platform', 'cross-platform'])
  authenticatorAttachment?: 'platform' | 'cross-platform';
}

/** `RegistrationResponseJSON`: what `navigator.credentials.create()` returned, as JSON. */
export class RegistrationResponseDto extends PublicKeyCredentialJsonDto {
  @IsObject()
  @ValidateNested()
  @Type(() => AuthenticatorAttestationResponseDto)
  response!: AuthenticatorAttestationResponseDto;
}

/** `AuthenticationResponseJSON`: what `navigator.credentials.get()` returned, as JSON. */
export class AuthenticationResponseDto extends PublicKeyCredentialJsonDto {
  @IsObject()
  @ValidateNested()
  @Type(() => AuthenticatorAssertionResponseDto)
  response!: AuthenticatorAssertionResponseDto;
}
