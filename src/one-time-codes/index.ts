export { assertCodeLength } from './code-length.js';
export type { CodePurpose, CodeSettings } from './code-purposes.js';
export type { OneTimeCodeRow } from './one-time-codes.repository.js';
export { OneTimeCodesModule } from './one-time-codes.module.js';
export { OneTimeCodes, attemptsExceeded, expired, type CodeCheck, type NewCode } from './one-time-codes.service.js';
export { SendLimits } from './send-limits.js';
