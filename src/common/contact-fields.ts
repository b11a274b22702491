import { applyDecorators } from '@nestjs/common';
import { Transform, type ClassTransformOptions } from 'class-transformer';
import {
  IsEmail,
  IsString,
  Length,
  Matches,
  MaxLength,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';
import {
  emailHasHiddenCharacters,
  isAcceptableName,
  normalizeEmail,
  MOBILE_MAX_LENGTH,
  MOBILE_MIN_LENGTH,
  normalizeMobile,
  trimIfString,
} from './normalize.js';

const MOBILE_MESSAGE =
  'mobile must be a valid phone number of 8 to 15 characters, the + included: +CC or 00CC then the number, or 8 to 15 digits';

/**
 * The validation pipe passes DEFAULT_PHONE_REGION to the DTO transforms through the transform
 * options, so a mobile is normalised at the edge with the running service's configuration.
 */
export interface IdentityTransformOptions extends ClassTransformOptions {
  phoneRegion?: string;
}

/**
 * What an invalid mobile becomes: a value no mobile rule accepts, so validation refuses it with
 * the field's own message (and the pipe never echoes values).
 */
const INVALID_MOBILE = '';

/**
 * An email field: NFKC, trimmed, lower-cased and its domain in ASCII before it is checked, stored
 * or looked up; one holding a control or format character (U+200B) is refused.
 */
export const IsAccountEmail = (options?: ValidationOptions) =>
  applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? normalizeEmail(value) : value)),
    IsEmail({}, options),
    MaxLength(255),
    NoHiddenCharacters(options),
  );

function NoHiddenCharacters(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'noHiddenCharacters',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must not contain invisible or control characters`, ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && !emailHasHiddenCharacters(value) },
    });
}

/**
 * A mobile field: `+CC...` and `00CC...` in E.164 (a valid number, as libphonenumber-js judges
 * it), a number without a country prefix read in DEFAULT_PHONE_REGION when it is set, else kept
 * as its 8 to 15 digits; after normalisation 8 to 15 characters, the `+` included.
 */
export const IsAccountMobile = (options?: ValidationOptions) =>
  applyDecorators(
    Transform(({ value, options: transformOptions }: { value: unknown; options: IdentityTransformOptions }) =>
      typeof value === 'string' ? (normalizeMobile(value, transformOptions?.phoneRegion) ?? INVALID_MOBILE) : value,
    ),
    IsString(options),
    // The specification's 8 to 15 characters, counted after normalisation with the `+`.
    Length(MOBILE_MIN_LENGTH, MOBILE_MAX_LENGTH, { message: MOBILE_MESSAGE }),
    Matches(/^\+?\d+$/, { message: MOBILE_MESSAGE }),
  );

/** Surrounding white space is removed before the field's rules run. */
export const Trimmed = () => Transform(({ value }: { value: unknown }) => trimIfString(value));

/** A person's name: trimmed, 1 to 255 characters, no control character nor bidirectional override or isolate. */
export const IsPersonName = () => applyDecorators(Trimmed(), IsString(), Length(1, 255), AcceptableName());

/** A role's name: trimmed, 1 to 64 characters, no control character nor bidirectional override or isolate. */
export const IsRoleName = () =>
  applyDecorators(
    Trimmed(),
    IsString(),
    Length(1, 64, { message: ({ property }) => `${property} must be 1 to 64 characters` }),
    AcceptableName(),
  );

function AcceptableName(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'acceptableName',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must not contain control characters or bidirectional overrides` },
      validator: { validate: (value: unknown) => typeof value === 'string' && isAcceptableName(value) },
    });
}
