export { LockoutModule } from './lockout.module.js';
export { lockoutDecision, type CountedAttempt, type LockoutDecision, type LockoutLimits } from './lockout-decision.js';
export { LoginLockout, lockoutSubject } from './login-lockout.service.js';
export { clearFailuresStatement } from './login-failures.repository.js';
