import { AppException } from '../common/app-exception.js';

/** A code of the wrong length is a malformed request, not a wrong guess: it costs no attempt. */
export function assertCodeLength(code: string, length: number, field: 'otp' | 'code'): void {
  if (code.length !== length) {
    throw new AppException('VALIDATION_FAILED', 'The request is invalid.', [
      { field, message: `${field} must be exactly ${length} digits` },
    ]);
  }
}
