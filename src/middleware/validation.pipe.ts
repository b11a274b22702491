import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { AppException, type ErrorDetail } from '../common/app-exception.js';
import type { IdentityTransformOptions } from '../common/contact-fields.js';
import { EMPTY_JSON_BODY, emptyJsonBodyRefusal } from '../common/request-parsing.js';

/**
 * Validation at the edge: unknown fields are refused, values are transformed to their declared
 * types, and failures answer 400 VALIDATION_FAILED with one detail per broken rule.
 * `phoneRegion` is DEFAULT_PHONE_REGION, given by AppModule (common/ reads no configuration).
 */
export class AppValidationPipe extends ValidationPipe {
  constructor(phoneRegion?: string) {
    super({
      // DEFAULT_PHONE_REGION reaches the mobile fields' transform (contact-fields.ts) this way.
      transformOptions: { phoneRegion } as IdentityTransformOptions,
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new AppException('VALIDATION_FAILED', 'The request is invalid.', flatten(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && isDtoClass(metadata.metatype)) {
      // A body must be a JSON object; arrays, strings, numbers and null are refused before
      // class-transformer can make something odd of them. A missing body counts as `{}` so
      // the client learns which fields are required.
      if (value === EMPTY_JSON_BODY) throw emptyJsonBodyRefusal();
      if (value === undefined) value = {};
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new AppException('VALIDATION_FAILED', 'The request body must be a JSON object.', [
          { field: '(body)', message: 'must be a JSON object' },
        ]);
      }
    }
    if ((metadata.type === 'body' || metadata.type === 'query') && isDtoClass(metadata.metatype)) {
      const problem = inheritedKeyIn(value) ?? unsafeValueIn(value);
      if (problem) throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [problem]);
    }
    return super.transform(value, metadata);
  }
}

/** No DTO field is deeper than an array of strings; deeper input is refused before it is walked recursively. */
const MAX_DEPTH = 8;
/** A UTF-16 surrogate without its pair: not a character, and PostgreSQL would store U+FFFD instead. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * class-validator's whitelist looks field names up in a plain object, so a key that every object
 * inherits (`constructor`, `toString`, `hasOwnProperty`...) passes `forbidNonWhitelisted` as if it
 * were declared. No DTO declares one: refuse them as the unknown fields they are.
 */
function inheritedKeyIn(value: unknown): ErrorDetail | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const key = Object.keys(value).find((name) => name in Object.prototype || name === 'prototype');
  return key === undefined ? undefined : { field: key, message: `property ${key} should not exist` };
}

/**
 * Refuses, anywhere in the input, what no field can take and what would otherwise fail deep in
 * the stack: nesting deep enough to exhaust class-transformer's recursion, a NUL character
 * (PostgreSQL text cannot hold one) and a lone surrogate (not text at all). Iterative, so the
 * check itself cannot overflow the stack.
 */
function unsafeValueIn(root: unknown): ErrorDetail | undefined {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: root, path: '', depth: 0 }];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    const field = path || '(body)';
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { field, message: `${field} must not contain a NUL character` };
      if (LONE_SURROGATE.test(value)) return { field, message: `${field} must be valid Unicode text` };
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_DEPTH) return { field, message: `${field} is nested too deeply` };
      for (const [key, child] of Object.entries(value)) {
        pending.push({ value: child, path: path ? `${path}.${key}` : key, depth: depth + 1 });
      }
    }
  }
  return undefined;
}

function isDtoClass(metatype: ArgumentMetadata['metatype']): boolean {
  return typeof metatype === 'function' && ![String, Boolean, Number, Array, Object].includes(metatype as never);
}

/** One detail per field and message: composed decorators can report the same rule twice. */
function flatten(errors: ValidationError[]): ErrorDetail[] {
  const seen = new Set<string>();
  return allDetails(errors).filter((detail) => {
    const key = JSON.stringify([detail.field, detail.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function allDetails(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...allDetails(error.children ?? [], field)];
  });
}
