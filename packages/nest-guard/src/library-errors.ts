import { HttpException, HttpStatus } from '@nestjs/common';

/** The contract's error body: `{"success": false, "error": {"code", "message", "details"?}}`. */
export interface GuardErrorBody {
  success: false;
  error: { code: string; message: string; details?: Record<string, unknown>[] };
}

/**
 * A service that imports the guard has no exception filter of ours, so the guard's refusals
 * carry the contract's body themselves; Nest's default filter sends an object response as is.
 */
function contractException(status: HttpStatus, error: GuardErrorBody['error']): HttpException {
  return new HttpException({ success: false, error } satisfies GuardErrorBody, status);
}

/** Same message as the auth service, whatever is wrong with the token, so nothing is revealed. */
export function unauthenticated(): HttpException {
  return contractException(HttpStatus.UNAUTHORIZED, {
    code: 'UNAUTHENTICATED',
    message: 'The token is missing, invalid, expired or revoked.',
  });
}

export function forbidden(message: string, details: Record<string, unknown>[]): HttpException {
  return contractException(HttpStatus.FORBIDDEN, { code: 'FORBIDDEN', message, details });
}

export function reauthenticationRequired(): HttpException {
  return contractException(HttpStatus.FORBIDDEN, {
    code: 'REAUTHENTICATION_REQUIRED',
    message: 'This action needs a recent sign-in: re-authenticate and try again.',
  });
}

export function secondFactorRequired(): HttpException {
  return contractException(HttpStatus.FORBIDDEN, {
    code: 'SECOND_FACTOR_REQUIRED',
    message: 'This action needs a sign-in with a second factor.',
  });
}

export function organizationRequired(): HttpException {
  return contractException(HttpStatus.FORBIDDEN, {
    code: 'ORGANIZATION_REQUIRED',
    message: "This route needs an organization token of the route's organization.",
  });
}

export function organizationMismatch(): HttpException {
  return contractException(HttpStatus.FORBIDDEN, {
    code: 'ORGANIZATION_MISMATCH',
    message: "The token belongs to another organization than the route's.",
  });
}

export function authServiceUnavailable(): HttpException {
  return contractException(HttpStatus.SERVICE_UNAVAILABLE, {
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service is temporarily unavailable. Try again shortly.',
  });
}

/** The contract body of an exception this package threw, for a service filter that re-renders errors. */
export function guardErrorBody(error: unknown): GuardErrorBody | null {
  if (!(error instanceof HttpException)) return null;
  const body = error.getResponse() as Partial<GuardErrorBody> | string;
  if (typeof body !== 'object' || body === null || body.success !== false || typeof body.error?.code !== 'string')
    return null;
  return body as GuardErrorBody;
}
