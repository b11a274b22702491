import { InitialSchema1763700000000 } from './1763700000000-initial-schema.js';
import { SessionsAndResetTokens1763800000000 } from './1763800000000-sessions-and-reset-tokens.js';
import { Settings1763900000000 } from './1763900000000-settings.js';
import { Contents1763900000001 } from './1763900000001-contents.js';
import { OtpCodes1764000000000 } from './1764000000000-otp-codes.js';
import { LoginLockout1764100000000 } from './1764100000000-login-lockout.js';
import { AuditEvents1764200000000 } from './1764200000000-audit-events.js';
import { RoleNamesCaseInsensitive1764300000000 } from './1764300000000-role-names-case-insensitive.js';
import { OutboxMessages1764310000000 } from './1764310000000-outbox-messages.js';
import { RenormaliseIdentities1764320000000 } from './1764320000000-renormalise-identities.js';
import { AdminListIndexes1764340000000 } from './1764340000000-admin-list-indexes.js';
import { ServiceClients1764350000000 } from './1764350000000-service-clients.js';
import { AccountSelfService1764360000000 } from './1764360000000-account-self-service.js';
import { AccountChangeClientIndex1764390000000 } from './1764390000000-account-change-client-index.js';
import { SessionAuthentication1770100000000 } from './1770100000000-session-authentication.js';
import { PendingChangeCancel1770200000000 } from './1770200000000-pending-change-cancel.js';
import { ClientRolesAndTokens1770310000000 } from './1770310000000-client-roles-and-tokens.js';
import { AccountLife1770500000000 } from './1770500000000-account-life.js';
import { Passkeys1770600000000 } from './1770600000000-passkeys.js';
import { SecurityEvents1770700000000 } from './1770700000000-security-events.js';
import { OneTimeCodes1770800000000 } from './1770800000000-one-time-codes.js';
import { RecoveryCodesArgon21771000000000 } from './1771000000000-recovery-codes-argon2.js';
import { OneTimeCodeAskedSends1771100000000 } from './1771100000000-one-time-code-asked-sends.js';
import { SessionLastUsed1771200000000 } from './1771200000000-session-last-used.js';
import { ClientRegistry1771300000000 } from './1771300000000-client-registry.js';
import { OpenidProvider1771400000000 } from './1771400000000-openid-provider.js';
import { UpstreamProviders1771600000000 } from './1771600000000-upstream-providers.js';
import { Organizations1771700000000 } from './1771700000000-organizations.js';

/** In order of application. Listed explicitly so the build and the tests load the same set. */
export const migrations = [
  InitialSchema1763700000000,
  SessionsAndResetTokens1763800000000,
  Settings1763900000000,
  Contents1763900000001,
  OtpCodes1764000000000,
  LoginLockout1764100000000,
  AuditEvents1764200000000,
  RoleNamesCaseInsensitive1764300000000,
  OutboxMessages1764310000000,
  RenormaliseIdentities1764320000000,
  AdminListIndexes1764340000000,
  ServiceClients1764350000000,
  AccountSelfService1764360000000,
  AccountChangeClientIndex1764390000000,
  SessionAuthentication1770100000000,
  PendingChangeCancel1770200000000,
  ClientRolesAndTokens1770310000000,
  AccountLife1770500000000,
  Passkeys1770600000000,
  SecurityEvents1770700000000,
  OneTimeCodes1770800000000,
  RecoveryCodesArgon21771000000000,
  OneTimeCodeAskedSends1771100000000,
  SessionLastUsed1771200000000,
  ClientRegistry1771300000000,
  OpenidProvider1771400000000,
  UpstreamProviders1771600000000,
  Organizations1771700000000,
];
