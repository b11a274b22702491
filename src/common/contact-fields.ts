import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsEmail, IsString, Length, Matches, MaxLength, type ValidationOptions } from 'class-validator';
import { normalizeEmail, normalizeMobile } from './normalize.js';

export const MOBILE_MESSAGE = 'mobile must be 8 to 15 characters: digits, optionally after a leading +';

/** An email field: trimmed and lower-cased before it is checked, stored or looked up. */
export const IsAccountEmail = (options?: ValidationOptions) =>
  applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? normalizeEmail(value) : value)),
    IsEmail({}, options),
    MaxLength(255),
  );

/**
 * A mobile field: spaces, dashes, dots and parentheses dropped, then 8 to 15 characters of digits,
 * optionally after a leading `+`.
 */
export const IsAccountMobile = (options?: ValidationOptions) =>
  applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? normalizeMobile(value) : value)),
    IsString(options),
    Length(8, 15, { message: MOBILE_MESSAGE }),
    Matches(/^\+?\d+$/, { message: MOBILE_MESSAGE }),
  );
