import { Body, Injectable, type PipeTransform } from '@nestjs/common';
import { AppException } from './app-exception.js';
import { EMPTY_JSON_BODY } from './request-parsing.js';

/**
 * For routes that take no body: nothing, or an empty JSON object. Any field is refused like an
 * unknown field of a DTO (a class without fields cannot be a DTO: class-validator's
 * forbidUnknownValues refuses an object with no validation metadata).
 */
@Injectable()
export class EmptyBodyPipe implements PipeTransform {
  transform(value: unknown): Record<string, never> {
    if (value === undefined || value === EMPTY_JSON_BODY) return {};
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new AppException('VALIDATION_FAILED', 'The request body must be a JSON object.', [
        { field: '(body)', message: 'must be a JSON object' },
      ]);
    }
    const fields = Object.keys(value);
    if (fields.length > 0) {
      throw new AppException(
        'VALIDATION_FAILED',
        'The request is invalid.',
        fields.map((field) => ({ field, message: `property ${field} should not exist` })),
      );
    }
    return {};
  }
}

/**
 * The route takes no body (EmptyBodyPipe), so its handler declares no parameter for one: the body
 * is bound as one more argument after the handler's own, and is checked after them, as the
 * parameters' pipes run in their order. The handler's own are counted from its declared parameter
 * types (`Function.length` stops at the first parameter with a default value).
 */
export const TakesNoBody =
  (): MethodDecorator =>
  (target, key, descriptor): void => {
    const declared = Reflect.getMetadata('design:paramtypes', target, key) as unknown[] | undefined;
    const handler = descriptor.value as (...args: never[]) => unknown;
    Body(EmptyBodyPipe)(target, key, declared?.length ?? handler.length);
  };
