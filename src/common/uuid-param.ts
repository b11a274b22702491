import { Param, ParseUUIDPipe } from '@nestjs/common';
import { AppException } from './app-exception.js';

/** A path id that must be a UUID; anything else is 400 VALIDATION_FAILED, before any query. */
export const UuidParam = (name = 'id') =>
  Param(
    name,
    new ParseUUIDPipe({
      exceptionFactory: () =>
        new AppException('VALIDATION_FAILED', `${name} must be a UUID.`, [
          { field: name, message: `${name} must be a UUID` },
        ]),
    }),
  );
