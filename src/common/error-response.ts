import { HttpException, HttpStatus, Logger } from '@nestjs/common';
import { guardErrorBody } from '@auth-rbac/nest-guard/internal';
import { AppException, type ErrorBody } from './app-exception.js';
import { ErrorCodes, type ErrorCode } from './error-codes.js';

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

const logger = new Logger('ErrorResponse');

/** Fastify reports parser and limit failures with these codes before any handler runs. */
const FASTIFY_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'INVALID_JSON', message: 'Request body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'INVALID_JSON', message: 'Request body is empty but declared as JSON.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'VALIDATION_FAILED', message: 'Content-Length does not match the body.' },
  FST_ERR_CTP_INVALID_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json.' },
  // Through frameworkErrors (src/common/request-parsing.ts): every path parameter is a UUID.
  FST_ERR_BAD_URL: { code: 'VALIDATION_FAILED', message: 'The URL is malformed.' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'VALIDATION_FAILED', message: 'A path parameter is too long.' },
};

const STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

const GENERIC_MESSAGES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_FAILED: 'The request is invalid.',
  UNAUTHENTICATED: 'Authentication is required.',
  FORBIDDEN: 'You do not have permission to do this.',
  NOT_FOUND: 'Not found.',
  METHOD_NOT_ALLOWED: 'Method not allowed.',
  CONFLICT: 'Conflict.',
  RATE_LIMITED: 'Too many requests.',
  SERVICE_UNAVAILABLE: 'The service is temporarily unavailable. Try again shortly.',
};

/**
 * Maps anything thrown while serving a request to the contract's error shape. Only messages
 * the service wrote itself reach the client; everything else is logged with the request id
 * and answered with a generic text.
 */
export function toErrorResponse(error: unknown, requestId: string): ErrorResponse {
  if (error instanceof AppException) {
    return build(error.getStatus(), error.code, error.message, error.details, error.headers);
  }
  // The guard package's refusals (401, 403, 503) already carry the contract's body.
  const guardBody = guardErrorBody(error);
  if (guardBody && guardBody.error.code in ErrorCodes) {
    const { code, message, details } = guardBody.error;
    return build(
      (error as HttpException).getStatus(),
      code as ErrorCode,
      message,
      details as ErrorBody['error']['details'],
    );
  }
  const fastifyError = FASTIFY_ERRORS[fastifyCodeOf(error)];
  if (fastifyError) return build(ErrorCodes[fastifyError.code], fastifyError.code, fastifyError.message);
  if (isDatabaseUnavailable(error)) {
    logger.warn(`Database unavailable [request ${requestId}]: ${describe(error)}`);
    return build(503, 'SERVICE_UNAVAILABLE', GENERIC_MESSAGES.SERVICE_UNAVAILABLE!);
  }
  if (error instanceof HttpException && error.getStatus() < 500) {
    const status = error.getStatus();
    const code = STATUS_CODES[status] ?? 'VALIDATION_FAILED';
    return build(status, code, GENERIC_MESSAGES[code] ?? 'The request could not be served.');
  }
  if (error instanceof HttpException && error.getStatus() === HttpStatus.SERVICE_UNAVAILABLE) {
    return build(503, 'SERVICE_UNAVAILABLE', GENERIC_MESSAGES.SERVICE_UNAVAILABLE!);
  }
  logger.error(`Unhandled error [request ${requestId}]: ${describe(error)}`, (error as Error | undefined)?.stack);
  return {
    status: 500,
    body: {
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'An unexpected error occurred.', request_id: requestId },
    },
  };
}

/** Nest hands Fastify's own errors to the filters wrapped in an HttpException, as its `cause`. */
function fastifyCodeOf(error: unknown): string {
  const own = (error as { code?: unknown } | null)?.code;
  if (typeof own === 'string') return own;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof cause === 'string' ? cause : '';
}

function build(
  status: number,
  code: ErrorCode,
  message: string,
  details?: ErrorBody['error']['details'],
  headers?: Record<string, string>,
): ErrorResponse {
  return {
    status,
    body: { success: false, error: { code, message, ...(details ? { details } : {}) } },
    headers,
  };
}

/** Connection-level failures (refused, reset, timed out, server shutting down), not SQL errors. */
function isDatabaseUnavailable(error: unknown): boolean {
  const err = error as { code?: unknown; message?: unknown; driverError?: unknown } | null;
  if (!err) return false;
  if (err.driverError && isDatabaseUnavailable(err.driverError)) return true;
  const code = typeof err.code === 'string' ? err.code : '';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return true;
  // 57P01-57P03: admin shutdown, crash shutdown, cannot connect now; 08xxx: connection exceptions.
  if (/^(57P0[1-3]|08\d{3})$/.test(code)) return true;
  // 57014 query_canceled: a statement timeout (admin lists) or an operator's cancel; busy, not broken.
  if (code === '57014') return true;
  const message = typeof err.message === 'string' ? err.message : '';
  // pg's own wording: pool and connect timeouts, a connection lost mid-query, a client used after that.
  return /timeout exceeded when trying to connect|Connection terminated|connection timeout|is not queryable/i.test(
    message,
  );
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
