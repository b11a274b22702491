/**
 * Per route (`Controller.method`), in one place: its summary and the statuses it answers beyond
 * those every route of its kind answers (see `describeHandler` in openapi-document.ts: the
 * success, 400 for a refused input, 413 and 415 for a body, 401 and 403 behind a token, 403 for a
 * missing permission, 429 and 503). A route added without an entry here fails the OpenAPI tests;
 * a status it answers that is declared nowhere fails the contract test (test/ops/openapi-contract).
 */
export interface RouteAnswers {
  summary: string;
  /** Status → what it means here (the error code first). */
  statuses?: Partial<Record<401 | 403 | 404 | 409 | 503, string>>;
  /** The route reads no database (503 is not among its answers). */
  noDatabase?: true;
}

const PASSWORD_SIGN_IN_REFUSED = 'LOGIN_METHOD_DISABLED, ACCOUNT_DISABLED or EMAIL_NOT_VERIFIED.';

export const ROUTE_ANSWERS: Record<string, RouteAnswers> = {
  'AuthController.register': {
    summary: 'Create an account (role user) and sign in',
    statuses: { 403: 'LOGIN_METHOD_DISABLED: password sign-in is off.', 409: 'CONFLICT: email or mobile taken.' },
  },
  'AuthController.login': {
    summary: 'Sign in with email or mobile and a password',
    statuses: {
      401: 'INVALID_CREDENTIALS: wrong password, unknown email or mobile.',
      403: PASSWORD_SIGN_IN_REFUSED,
    },
  },
  'AuthController.refresh': {
    summary: 'Exchange a refresh token for a new pair (single use)',
    statuses: {
      401: 'UNAUTHENTICATED or REFRESH_TOKEN_REUSED (the session is now revoked).',
      403: 'FORBIDDEN: a refresh cookie sent from an origin that is not allowed; ACCOUNT_DISABLED.',
    },
  },
  'AuthController.logout': { summary: 'Sign out: revoke the current session and clear the cookies' },
  'AuthController.me': { summary: 'The signed-in caller, with roles and permissions' },
  'PasswordResetController.forgotPassword': { summary: 'Mail a password-reset link (same answer for any email)' },
  'PasswordResetController.resetPassword': { summary: 'Set a new password with a reset token' },
  'OtpController.sendOtp': {
    summary: 'Text a sign-in code to a mobile (same answer for any mobile)',
    statuses: { 403: 'LOGIN_METHOD_DISABLED: sign-in by mobile code is off.' },
  },
  'OtpController.verifyOtp': {
    summary: 'Sign in with a mobile and the code texted to it',
    statuses: {
      401: 'INVALID_OTP, OTP_EXPIRED or OTP_ATTEMPTS_EXCEEDED.',
      403: 'LOGIN_METHOD_DISABLED (off, or an administrator), ACCOUNT_DISABLED.',
    },
  },
  'OtpController.verifyTwoFactor': {
    summary: 'Complete a sign-in with its second factor (method sms, totp or recovery)',
    statuses: {
      401: 'UNAUTHENTICATED (bad temp token), INVALID_OTP, OTP_EXPIRED or OTP_ATTEMPTS_EXCEEDED.',
      403: 'ACCOUNT_DISABLED.',
    },
  },
  'IntrospectionController.introspect': { summary: 'RFC 7662 token introspection, for service clients' },
  'JwksController.jwks': { summary: 'The public keys that verify access tokens (RFC 7517)', noDatabase: true },
  'AccountController.get': { summary: "The signed-in person's own record" },
  'AccountController.update': { summary: 'Change your own name' },
  'AccountController.reauthenticate': {
    summary: 'Prove presence again (password, or a code with method sms, totp or recovery) for a fresh sign-in time',
  },
  'AccountController.changePassword': {
    summary: 'Change your own password (ends every other session)',
    statuses: { 401: 'INVALID_CREDENTIALS: the current password is wrong.' },
  },
  'AccountController.changeEmail': {
    summary: 'Start changing your email (a link goes to the new address)',
    statuses: { 401: 'INVALID_CREDENTIALS: the current password is wrong.', 409: 'CONFLICT: email taken.' },
  },
  'AccountController.confirmEmail': {
    summary: 'Confirm an email change with the link token',
    statuses: { 409: 'CONFLICT: the email was taken meanwhile.' },
  },
  'AccountController.cancelEmailChange': {
    summary: 'Stop a pending email change with the link mailed to the old address',
  },
  'AccountController.changeMobile': {
    summary: 'Start changing your mobile (a code is texted to it)',
    statuses: { 401: 'INVALID_CREDENTIALS: the current password is wrong.', 409: 'CONFLICT: mobile taken.' },
  },
  'AccountController.confirmMobile': {
    summary: 'Confirm a mobile change with the texted code',
    statuses: { 401: 'INVALID_OTP or OTP_EXPIRED.', 409: 'CONFLICT: the mobile was taken meanwhile.' },
  },
  'AccountController.listSessions': { summary: 'Your own sessions' },
  'AccountController.revokeOtherSessions': { summary: 'End every session but this one' },
  'AccountController.revokeSession': {
    summary: 'End one of your sessions',
    statuses: { 404: "NOT_FOUND: no such session of yours (someone else's is 404 too)." },
  },
  'AccountController.startTotp': {
    summary: 'Start enrolling an authenticator app',
    statuses: { 409: 'CONFLICT: an authenticator app is already enrolled.' },
  },
  'AccountController.confirmTotp': {
    summary: 'Confirm the authenticator app with a code; returns the recovery codes',
    statuses: { 401: 'INVALID_OTP: wrong code, or no enrolment started.', 409: 'CONFLICT: already enrolled.' },
  },
  'AccountController.disableTotp': {
    summary: 'Remove the authenticator app',
    statuses: { 401: 'INVALID_OTP or INVALID_CREDENTIALS.', 404: 'NOT_FOUND: no authenticator app is enrolled.' },
  },
  'AdminSessionsController.list': {
    summary: "A user's sessions",
    statuses: { 404: 'NOT_FOUND: no such user.' },
  },
  'AdminSessionsController.revokeAll': {
    summary: 'End every session of a user',
    statuses: { 404: 'NOT_FOUND: no such user.' },
  },
  'AdminSessionsController.revokeOne': {
    summary: 'End one session of a user',
    statuses: { 404: 'NOT_FOUND: no such user or session.' },
  },
  'RolesController.list': { summary: 'Every role, with its permissions' },
  'RolesController.get': { summary: 'One role', statuses: { 404: 'NOT_FOUND: no such role.' } },
  'RolesController.create': {
    summary: 'Create a role',
    statuses: { 409: 'CONFLICT: a role has this name.' },
  },
  'RolesController.update': {
    summary: 'Change a role (permission_ids replaces its set)',
    statuses: { 404: 'NOT_FOUND: no such role.', 409: 'CONFLICT: a role has this name.' },
  },
  'RolesController.delete': { summary: 'Delete a role', statuses: { 404: 'NOT_FOUND: no such role.' } },
  'PermissionsController.list': { summary: 'Every permission' },
  'PermissionsController.get': { summary: 'One permission', statuses: { 404: 'NOT_FOUND: no such permission.' } },
  'PermissionsController.create': {
    summary: 'Create a permission (the admin role receives it)',
    statuses: { 409: 'CONFLICT: a permission has this name.' },
  },
  'PermissionsController.update': {
    summary: 'Change a permission',
    statuses: { 404: 'NOT_FOUND: no such permission.', 409: 'CONFLICT: a permission has this name.' },
  },
  'PermissionsController.delete': {
    summary: 'Delete a permission',
    statuses: { 404: 'NOT_FOUND: no such permission.' },
  },
  'UsersController.list': { summary: 'Users, a page at a time, optionally searched' },
  'UsersController.get': { summary: 'One user with roles', statuses: { 404: 'NOT_FOUND: no such user.' } },
  'UsersController.create': { summary: 'Create a user', statuses: { 409: 'CONFLICT: email or mobile taken.' } },
  'UsersController.update': {
    summary: 'Change a user',
    statuses: { 404: 'NOT_FOUND: no such user.', 409: 'CONFLICT: email or mobile taken.' },
  },
  'UsersController.delete': {
    summary: 'Delete a user',
    statuses: { 404: 'NOT_FOUND: no such user.', 409: 'CONFLICT: the last administrator.' },
  },
  'UsersController.addRoles': {
    summary: 'Give a user roles (idempotent)',
    statuses: { 404: 'NOT_FOUND: no such user.' },
  },
  'UsersController.replaceRoles': {
    summary: "Replace a user's roles",
    statuses: { 404: 'NOT_FOUND: no such user.', 409: 'CONFLICT: the last administrator would lose the admin role.' },
  },
  'UsersController.removeRole': {
    summary: 'Take a role from a user',
    statuses: {
      404: 'NOT_FOUND: no such user or role.',
      409: 'CONFLICT: the last administrator cannot lose the admin role.',
    },
  },
  'SettingsController.view': { summary: 'The login-method flags' },
  'SettingsController.update': { summary: 'Switch login methods on or off (every instance)' },
  'ContentsController.list': { summary: 'Contents, a page at a time' },
  'ContentsController.get': { summary: 'One content', statuses: { 404: 'NOT_FOUND: no such content.' } },
  'ContentsController.create': { summary: 'Create a content' },
  'ContentsController.update': { summary: 'Change a content', statuses: { 404: 'NOT_FOUND: no such content.' } },
  'ContentsController.delete': { summary: 'Delete a content', statuses: { 404: 'NOT_FOUND: no such content.' } },
  'AuditController.list': { summary: 'Audit events, newest first, a page at a time' },
  'HealthController.live': { summary: 'Liveness: the process answers', noDatabase: true },
  'HealthController.ready': {
    summary: 'Readiness: the database (and Redis when configured) answer',
    statuses: { 503: 'SERVICE_UNAVAILABLE: not ready; `details` names what is down.' },
  },
  'MetricsController.scrape': {
    summary: 'Prometheus metrics (a bearer METRICS_TOKEN when set)',
    statuses: { 401: 'UNAUTHENTICATED: METRICS_TOKEN is set and was not given.' },
    noDatabase: true,
  },
  'ConfirmEmailPageController.page': { summary: 'The page an email-change link opens', noDatabase: true },
  'ConfirmEmailPageController.script': { summary: "The email-change page's script", noDatabase: true },
  'CancelEmailChangePageController.page': {
    summary: 'The page the cancel link (sent to the old address) opens',
    noDatabase: true,
  },
  'CancelEmailChangePageController.script': { summary: "The cancel page's script", noDatabase: true },
  'ResetPageController.page': { summary: 'The password-reset page a mailed link opens', noDatabase: true },
  'ResetPageController.script': { summary: "The reset page's script", noDatabase: true },
  'ResetPageController.style': { summary: "The reset page's style sheet", noDatabase: true },
  'EmailVerificationController.verifyEmail': {
    summary: 'Verify your email address with the token of a verification link',
  },
  'EmailVerificationController.resendVerification': {
    summary: 'Mail a new verification link (same answer for any email)',
  },
  'EmailCodeController.send': { summary: 'Mail a sign-in code to an email (same answer for any email)' },
  'EmailCodeController.verify': { summary: 'Sign in with an email and the code mailed to it' },
  'PasskeySignInController.options': { summary: 'Start a passkey sign-in: the WebAuthn request options' },
  'PasskeySignInController.verify': { summary: 'Sign in with the answer of a passkey' },
  'PasskeysController.creationOptions': { summary: 'Start adding a passkey: the WebAuthn creation options' },
  'PasskeysController.register': { summary: 'Add a passkey with the answer of the authenticator' },
  'PasskeysController.list': { summary: 'Your own passkeys' },
  'PasskeysController.rename': { summary: 'Rename one of your passkeys' },
  'PasskeysController.remove': { summary: 'Remove one of your passkeys' },
  'PasskeysController.reauthenticationOptions': {
    summary: 'Start proving presence with a passkey: the WebAuthn request options',
  },
  'AccountController.delete': { summary: 'Delete your own account (ends every session)' },
  'UsersController.disable': { summary: 'Disable a user: no sign-in, every session ends' },
  'UsersController.enable': { summary: 'Enable a disabled user again' },
  'SecurityEventsController.events': {
    summary: 'The security event stream (Server-Sent Events), for service clients',
  },
  'SecurityEventsController.permissionNames': { summary: 'Every permission name, for service clients' },
  'DiscoveryController.openidConfiguration': { summary: 'OpenID Connect discovery document', noDatabase: true },
  'DiscoveryController.authorizationServer': {
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
    noDatabase: true,
  },
  'OAuthController.token': { summary: 'OAuth 2.0 token endpoint (RFC 6749): client credentials and refresh tokens' },
  'OAuthController.revoke': { summary: 'OAuth 2.0 token revocation (RFC 7009)' },
  'OAuthController.userinfo': { summary: 'OpenID Connect userinfo: claims about the signed-in caller' },
  'ClientRolesController.list': {
    summary: "A service client's roles",
    statuses: { 404: 'NOT_FOUND: no such service client.' },
  },
  'ClientRolesController.add': {
    summary: 'Give a service client roles (idempotent)',
    statuses: { 404: 'NOT_FOUND: no such service client.' },
  },
  'ClientRolesController.remove': {
    summary: 'Take a role from a service client',
    statuses: { 404: 'NOT_FOUND: no such service client or role.' },
  },
  'VerifyEmailPageController.page': { summary: 'The page an email-verification link opens', noDatabase: true },
  'VerifyEmailPageController.script': { summary: "The verification page's script", noDatabase: true },
  'VerifyEmailPageController.style': { summary: "The verification page's style sheet", noDatabase: true },
  'PasskeyPageController.page': { summary: 'The account security page (passkeys)', noDatabase: true },
  'PasskeyPageController.script': { summary: "The security page's script", noDatabase: true },
  'PasskeyPageController.webauthn': { summary: "The security page's WebAuthn browser library", noDatabase: true },
  'PasskeyPageController.style': { summary: "The security page's style sheet", noDatabase: true },
  'ConsolePageController.page': { summary: 'The admin console (single-page app)', noDatabase: true },
  'ConsolePageController.asset': { summary: "A file of the admin console's build", noDatabase: true },
};
