import { HttpException } from '@nestjs/common';
import { ErrorCodes, type ErrorCode } from './error-codes.js';

export type ErrorDetail = Record<string, unknown>;

/** Body of every failed response: `{success: false, error: {code, message, details?}}`. */
export interface ErrorBody {
  success: false;
  error: { code: ErrorCode; message: string; details?: ErrorDetail[]; request_id?: string };
}

/**
 * The one exception family the service throws on purpose. Its message and details are sent to
 * the client as they are, so they must never carry internal detail or a secret.
 */
export class AppException extends HttpException {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message, ErrorCodes[code]);
  }
}
