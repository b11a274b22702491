import { HttpException, HttpStatus } from '@nestjs/common';
import type { AppException, ErrorBody } from '../common/app-exception.js';

/**
 * A service that imports the guard has no exception filter of ours, so the guard's refusals
 * carry the contract's body themselves; Nest's default filter sends an object response as is.
 */
function contractException(status: HttpStatus, error: ErrorBody['error']): HttpException {
  return new HttpException({ success: false, error } satisfies ErrorBody, status);
}

/** Same message as the auth service, whatever is wrong with the token, so nothing is revealed. */
export function unauthenticated(): HttpException {
  return contractException(HttpStatus.UNAUTHORIZED, {
    code: 'UNAUTHENTICATED',
    message: 'The token is missing, invalid, expired or revoked.',
  });
}

export function authServiceUnavailable(): HttpException {
  return contractException(HttpStatus.SERVICE_UNAVAILABLE, {
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service is temporarily unavailable. Try again shortly.',
  });
}

/** The shared permission check throws the service's AppException; send it in the same shape. */
export function fromAppException(error: AppException): HttpException {
  return contractException(error.getStatus(), {
    code: error.code,
    message: error.message,
    ...(error.details ? { details: error.details } : {}),
  });
}
