export { assertCodeLength } from './code-length.js';
export { attemptsExceeded, checkOtp, expired } from './otp-check.js';
export {
  insertCode,
  latestLoginCodeWithin,
  lockLatestLoginCode,
  lockLatestReauthCode,
  lockMobileForSending,
  replaceLiveLoginCodes,
  replaceLiveCodes,
} from './otp-codes.repository.js';
export { MAX_OTP_ATTEMPTS, OtpCodes } from './otp-codes.js';
export { assertCodeRequestAllowed } from './otp-send-limits.js';
export { PasskeysRepository } from './passkeys.repository.js';
export { PasskeysService, passkeyRefusal, passkeyView, type PasskeyView } from './passkeys.service.js';
export { PrincipalRules } from './principal-rules.js';
export { RecoveryCodesService } from './recovery-codes.service.js';
export { SecondFactorModule } from './second-factor.module.js';
export { SecondFactorsRepository } from './second-factors.repository.js';
export { TotpService, type TotpEnrolment } from './totp.service.js';
export { TwoFactorService, type TwoFactorChallenge } from './two-factor.service.js';
