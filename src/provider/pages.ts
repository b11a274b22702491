import { AUTHORIZATION_PARAMETERS, type AuthorizationParameters } from './authorization-request.js';

/** Every character that could end an attribute or start markup, as a character reference. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`=/]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The pages' policy: nothing is loaded from anywhere (no script, style, image or font), nothing
 * may frame them, and a form may post only here, or go on to the one redirect URI the request was
 * validated for (browsers apply `form-action` to the redirect that follows a form).
 */
export function pageCsp(
  redirectTarget?: string,
  upstreamOrigins: readonly string[] = [],
  options: { scripts?: boolean } = {},
): string {
  const formAction = ["'self'"];
  if (redirectTarget) formAction.push(cspSourceOf(redirectTarget));
  // A button "Continue with <name>" posts here and goes on to that upstream's authorization endpoint.
  for (const origin of upstreamOrigins) if (!formAction.includes(origin)) formAction.push(origin);
  return [
    "default-src 'none'",
    // Only the second-factor page with "Use a passkey" runs script: two same-origin files, no inline code.
    ...(options.scripts ? ["script-src 'self'"] : []),
    "base-uri 'none'",
    `form-action ${formAction.join(' ')}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The provider's own script for the button "Use a passkey" (the controller serves it at this path). */
export const PASSKEY_SCRIPT_PATH = '/api/auth/authorize/passkey.js';
/** SimpleWebAuthn's browser bundle, as the account security page already serves it. */
const WEBAUTHN_BUNDLE_PATH = '/account/security/webauthn.js';

/**
 * Asks the authenticator with the challenge's own request options (in the button's `data-options`)
 * and posts its answer with the second-factor form; the server judges it as the API's
 * `verify-2fa` with `method: passkey` does. A refusal in the browser leaves the code form usable.
 */
export const PASSKEY_SCRIPT = `(function () {
  var button = document.getElementById('use-passkey');
  var form = document.getElementById('passkey-form');
  var problem = document.getElementById('passkey-problem');
  if (!button || !form) return;
  button.addEventListener('click', function () {
    button.disabled = true;
    var options = JSON.parse(button.getAttribute('data-options'));
    window.SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: options }).then(
      function (answer) {
        form.elements.namedItem('assertion').value = JSON.stringify(answer);
        form.submit();
      },
      function () {
        button.disabled = false;
        problem.textContent = 'The passkey did not answer. Try again, or enter a code.';
      },
    );
  });
})();
`;

function cspSourceOf(uri: string): string {
  const url = new URL(uri);
  // A private-use scheme (`com.example.app:/callback`) is allowed as a scheme; a web URI by its origin.
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

const FORM_BASE = '/api/auth/authorize';

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

function hiddenFields(parameters: AuthorizationParameters, csrf: string, extra: Record<string, string> = {}): string {
  const fields: [string, string][] = [['csrf', csrf]];
  for (const name of AUTHORIZATION_PARAMETERS) {
    const value = parameters[name];
    if (value !== undefined) fields.push([name, value]);
  }
  fields.push(...Object.entries(extra));
  return fields
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
}

function alert(message: string | undefined): string {
  return message ? `<p role="alert">${escapeHtml(message)}</p>` : '';
}

export function signInPage(options: {
  clientName: string;
  parameters: AuthorizationParameters;
  csrf: string;
  error?: string;
  email?: string;
  /** The enabled upstream providers: one button "Continue with <name>" each. */
  upstreams?: readonly { slug: string; name: string }[];
  /** A line above the form that is no error (a link waiting for this sign-in). */
  notice?: string;
}): string {
  return layout(
    'Sign in',
    `<h1>Sign in</h1>
<p>to continue to ${escapeHtml(options.clientName)}</p>
${options.notice ? `<p role="status">${escapeHtml(options.notice)}</p>` : ''}${alert(options.error)}
<form method="post" action="${FORM_BASE}/login">
${hiddenFields(options.parameters, options.csrf)}
<p><label for="email">Email</label><br>
<input id="email" name="email" type="text" autocomplete="username" required value="${escapeHtml(options.email ?? '')}"></p>
<p><label for="password">Password</label><br>
<input id="password" name="password" type="password" autocomplete="current-password" required></p>
<p><button type="submit">Sign in</button></p>
</form>${upstreamButtons(options)}`,
  );
}

/** One form per upstream provider, carrying the request on: its button is named "Continue with <name>". */
function upstreamButtons(options: {
  parameters: AuthorizationParameters;
  csrf: string;
  upstreams?: readonly { slug: string; name: string }[];
}): string {
  return (options.upstreams ?? [])
    .map(
      (upstream) => `
<form method="post" action="${FORM_BASE}/upstream/${encodeURIComponent(upstream.slug)}">
${hiddenFields(options.parameters, options.csrf)}
<p><button type="submit">Continue with ${escapeHtml(upstream.name)}</button></p>
</form>`,
    )
    .join('');
}

/** After a link started from the account: nothing to go back to but the application that started it. */
export function linkedPage(providerName: string): string {
  return layout(
    'Linked',
    `<h1>Linked</h1>\n<p role="status">Your ${escapeHtml(providerName)} identity is linked to your account. You can close this window.</p>`,
  );
}

export function secondFactorPage(options: {
  clientName: string;
  parameters: AuthorizationParameters;
  csrf: string;
  tempToken: string;
  hint: string;
  error?: string;
  /** The challenge's request options when the account has a passkey: the button "Use a passkey". */
  passkeyOptions?: object;
  /** The challenge offers an SMS code it has not texted yet: the button "Text me a code". */
  smsOnRequest?: boolean;
  /** A code was texted on request: the Code form answers it as the SMS code (not the app's). */
  smsSent?: boolean;
}): string {
  const codeFields = { temp_token: options.tempToken, ...(options.smsSent ? { method: 'sms' } : {}) };
  return layout(
    'Verify',
    `<h1>Verify it is you</h1>
<p>${escapeHtml(options.hint)}</p>
${alert(options.error)}
<form method="post" action="${FORM_BASE}/verify">
${hiddenFields(options.parameters, options.csrf, codeFields)}
<p><label for="code">Code</label><br>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required></p>
<p><button type="submit">Verify</button></p>
</form>${options.passkeyOptions ? passkeyButton(options, options.passkeyOptions) : ''}${
      options.smsOnRequest
        ? `
<form method="post" action="${FORM_BASE}/send-sms">
${hiddenFields(options.parameters, options.csrf, codeFields)}
<p><button type="submit">Text me a code</button></p>
</form>`
        : ''
    }`,
  );
}

function passkeyButton(
  options: { parameters: AuthorizationParameters; csrf: string; tempToken: string },
  requestOptions: object,
): string {
  return `
<form method="post" action="${FORM_BASE}/verify" id="passkey-form">
${hiddenFields(options.parameters, options.csrf, { temp_token: options.tempToken })}
<input type="hidden" name="assertion" value="">
<p><button type="button" id="use-passkey" data-options="${escapeHtml(JSON.stringify(requestOptions))}">Use a passkey</button></p>
<p id="passkey-problem" role="alert"></p>
</form>
<script src="${WEBAUTHN_BUNDLE_PATH}"></script>
<script src="${PASSKEY_SCRIPT_PATH}"></script>`;
}

const SCOPE_TEXT: Record<string, string> = {
  openid: 'Know who you are',
  profile: 'See your name',
  email: 'See your email address',
  phone: 'See your mobile number',
  offline_access: 'Stay signed in while you are away',
};

export function consentPage(options: {
  clientName: string;
  scopes: string[];
  parameters: AuthorizationParameters;
  csrf: string;
  extra?: Record<string, string>;
}): string {
  const items = options.scopes.map((scope) => `<li>${escapeHtml(SCOPE_TEXT[scope] ?? scope)}</li>`).join('\n');
  return layout(
    'Allow access',
    `<h1>${escapeHtml(options.clientName)} asks to</h1>
<ul>
${items}
</ul>
<form method="post" action="${FORM_BASE}/consent">
${hiddenFields(options.parameters, options.csrf, options.extra)}
<p><button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></p>
</form>`,
  );
}

export function errorPage(message: string): string {
  return layout('Sign-in error', `<h1>This sign-in cannot go on</h1>\n${alert(message)}`);
}

export function signOutPage(options: { csrf: string }): string {
  return layout(
    'Sign out',
    `<h1>Sign out</h1>
<p>Sign out of this service and of the applications you signed in to with it.</p>
<form method="post" action="${FORM_BASE}/end-session">
<input type="hidden" name="csrf" value="${escapeHtml(options.csrf)}">
<p><button type="submit">Sign out</button></p>
</form>`,
  );
}

export function signedOutPage(): string {
  return layout('Signed out', '<h1>You are signed out</h1>');
}
