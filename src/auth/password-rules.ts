import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { createRequire } from 'node:module';

// Mozilla's list of the 50,000 most common passwords (fxa-common-password-list), decoded once.
const commonPasswordList = createRequire(import.meta.url)('fxa-common-password-list') as { test(password: string): boolean };

/** True for a password on the bundled list of common passwords (compared case-insensitively too). */
export function isCommonPassword(password: string): boolean {
  return commonPasswordList.test(password) || commonPasswordList.test(password.toLowerCase());
}

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

/** The property must equal another property of the same object (password confirmation). */
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
          typeof value === 'string' && value === (args.object as Record<string, unknown>)[field],
      },
    });
}
