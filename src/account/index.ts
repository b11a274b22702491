export { AccountDeletionService, type AccountDeletionRequest } from './account-deletion.service.js';
export { AddressProofService } from './address-proof.service.js';
export { AccountRecoveryService } from './account-recovery.service.js';
export { AccountSessionsService, type SessionResponse } from './account-sessions.service.js';
export { AccountModule } from './account.module.js';
export { EmailVerificationService } from './email-verification.service.js';
export { IdentityChangeService } from './identity-change.service.js';
export { SignInMethodNotices, type SignInMethodChange } from './sign-in-method-notices.js';
