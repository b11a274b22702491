import { AccountChangeRequest, RecoveryCode, TotpAuthenticator } from '../account/account.entities.js';
import { AuditEvent } from '../audit/audit-event.entity.js';
import { PasswordResetToken } from '../auth/password-reset-token.entity.js';
import { Session } from '../auth/session.entity.js';
import { Content } from '../contents/content.entity.js';
import { LoginFailure } from '../limits/login-failure.entity.js';
import { OtpCode } from '../otp/otp-code.entity.js';
import { OutboxMessage } from '../outbox/outbox-message.entity.js';
import { Permission } from '../rbac/permission.entity.js';
import { Role } from '../rbac/role.entity.js';
import { ServiceClient } from '../introspection/service-client.entity.js';
import { Setting } from '../settings/setting.entity.js';
import { User } from '../users/user.entity.js';

/** Every entity of the service; features add theirs here so the migration check sees them. */
export const entities = [
  User,
  Role,
  Permission,
  Session,
  PasswordResetToken,
  Setting,
  Content,
  OtpCode,
  LoginFailure,
  AuditEvent,
  OutboxMessage,
  ServiceClient,
  TotpAuthenticator,
  RecoveryCode,
  AccountChangeRequest,
];
