import { AccountChangeRequest, RecoveryCode, TotpAuthenticator } from './account.entities.js';
import { EmailVerificationToken } from './account-life.entities.js';
import { AuditEvent } from './audit-event.entity.js';
import { PasswordResetToken } from './password-reset-token.entity.js';
import { Session } from './session.entity.js';
import { Content } from './content.entity.js';
import { LoginFailure } from './login-failure.entity.js';
import { OneTimeCode } from './one-time-code.entity.js';
import { OutboxMessage } from './outbox-message.entity.js';
import { Passkey, WebauthnChallenge } from './passkey.entities.js';
import { Permission } from './permission.entity.js';
import { Role } from './role.entity.js';
import { ServiceClient } from './service-client.entity.js';
import { Setting } from './setting.entity.js';
import { User } from './user.entity.js';

/** Every entity of the service; features add theirs here so the migration check sees them. */
export const entities = [
  User,
  Role,
  Permission,
  Session,
  PasswordResetToken,
  Setting,
  Content,
  OneTimeCode,
  LoginFailure,
  AuditEvent,
  OutboxMessage,
  ServiceClient,
  TotpAuthenticator,
  RecoveryCode,
  AccountChangeRequest,
  EmailVerificationToken,
  Passkey,
  WebauthnChallenge,
];
