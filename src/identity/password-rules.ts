import { applyDecorators } from '@nestjs/common';
import { IsString, registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { isCommonPassword } from '../common/common-passwords.js';
import { codePointLength, isOnlyInvisible, normalizePassword } from '../common/normalize.js';

export { isCommonPassword };

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

/**
 * 8 to 128 characters, counted as code points of the NFKC form the password is hashed in (an
 * emoji or a decomposed `é` is one character, as the user sees it).
 */
export function PasswordLength(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'passwordLength',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `${String(propertyName)} must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`,
        ...options,
      },
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          const length = codePointLength(normalizePassword(value));
          return length >= PASSWORD_MIN_LENGTH && length <= PASSWORD_MAX_LENGTH;
        },
      },
    });
}

/** White space and invisible characters only (twelve spaces, twelve U+200B) is no password. */
export function HasVisibleCharacters(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'hasVisibleCharacters',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must contain visible characters`, ...options },
      validator: {
        validate: (value: unknown) => typeof value === 'string' && !isOnlyInvisible(normalizePassword(value)),
      },
    });
}

/**
 * A new password (registration, reset, set by an administrator): the length in code points, not
 * only invisible characters, not on the common-password list. It is not transformed: the hasher
 * normalises it, and keeps the raw form for hashes stored before normalisation.
 */
export const IsNewPassword = () =>
  applyDecorators(IsString(), PasswordLength(), HasVisibleCharacters(), IsNotCommonPassword());

export function IsNotCommonPassword(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isNotCommonPassword',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: 'password is too common; choose another one', ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && !isCommonPassword(value) },
    });
}

/**
 * The property must equal another property of the same object (password confirmation), both in
 * NFKC: a confirmation typed decomposed confirms a password typed composed.
 */
export function MatchesField(field: string, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'matchesField',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [field],
      options: { message: `${String(propertyName)} must match ${field}`, ...options },
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          typeof value === 'string' && sameText(value, (args.object as Record<string, unknown>)[field]),
      },
    });
}

const sameText = (value: string, other: unknown) =>
  typeof other === 'string' && normalizePassword(value) === normalizePassword(other);
