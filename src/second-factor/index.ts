export { PasskeysRepository } from './passkeys.repository.js';
export { PasskeysService, passkeyRefusal, passkeyView, type PasskeyView } from './passkeys.service.js';
export { PrincipalRules } from './principal-rules.js';
export { RecoveryCodesService } from './recovery-codes.service.js';
export { SecondFactorModule } from './second-factor.module.js';
export { SecondFactorsRepository } from './second-factors.repository.js';
export { TotpService, type TotpEnrolment } from './totp.service.js';
export { TwoFactorService, type TwoFactorChallenge } from './two-factor.service.js';
