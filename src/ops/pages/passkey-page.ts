import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { pageStyle } from './page-style.js';
/**
 * The account's security page, `/account/security`: sign in with a passkey (or a password and
 * a second factor), then list, add, rename and remove passkeys. No framework and nothing inline:
 * its script, its style and SimpleWebAuthn's browser bundle are same-origin files, so the page
 * runs under the reset page's policy (`script-src 'self'`). The access token lives in the
 * script's memory only; the page calls the API with it as a bearer token.
 */
export { RESET_PAGE_CSP as PASSKEY_PAGE_CSP } from './reset-page.js';

export const PASSKEY_PAGE_PATH = '/account/security';

export const PASSKEY_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>Sign-in and security</title>
  <link rel="stylesheet" href="${PASSKEY_PAGE_PATH}/page.css">
</head>
<body>
  <main>
    <h1>Sign-in and security</h1>
    <section id="signed-out">
      <h2>Sign in</h2>
      <button id="passkey-sign-in" type="button">Sign in with a passkey</button>
      <form id="password-form" novalidate>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username webauthn" required>
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <button id="password-sign-in" type="submit">Sign in with a password</button>
      </form>
      <form id="code-form" novalidate hidden>
        <p id="code-prompt"></p>
        <button id="second-factor-passkey" type="button" hidden>Use a passkey</button>
        <label for="code">Code</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code">
        <button id="code-submit" type="submit">Continue</button>
      </form>
    </section>
    <section id="signed-in" hidden>
      <p>Signed in as <strong id="who"></strong>.</p>
      <h2>Passkeys</h2>
      <ul id="passkeys"></ul>
      <form id="add-form" novalidate>
        <label for="passkey-name">Name of the new passkey</label>
        <input id="passkey-name" name="name" maxlength="100" placeholder="This device">
        <button id="add-passkey" type="submit">Add a passkey</button>
      </form>
      <button id="sign-out" type="button">Sign out</button>
    </section>
    <p id="outcome" role="status" aria-live="polite"></p>
  </main>
  <script src="${PASSKEY_PAGE_PATH}/webauthn.js"></script>
  <script src="${PASSKEY_PAGE_PATH}/page.js"></script>
</body>
</html>
`;

export const PASSKEY_PAGE_CSS = pageStyle(
  '28rem',
  '1rem',
  `ul { padding-left: 1.2rem; }
li button { margin: 0 0 0 .5rem; padding: .2rem .5rem; }
`,
);

export const PASSKEY_PAGE_SCRIPT = `'use strict';
(function () {
  var webauthn = window.SimpleWebAuthnBrowser;
  var accessToken = null;
  var challenge = null;
  var $ = function (id) { return document.getElementById(id); };
  var say = function (text) { $('outcome').textContent = text; };

  function api(method, path, body) {
    var headers = { 'content-type': 'application/json' };
    if (accessToken) headers.authorization = 'Bearer ' + accessToken;
    return fetch('/api' + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (response) {
        return response.json().catch(function () { return null; }).then(function (payload) {
          if (response.ok && payload && payload.success) return payload.data;
          var error = (payload && payload.error) || {};
          var details = Array.isArray(error.details) ? error.details.map(function (d) { return d.message; }).filter(Boolean) : [];
          var failure = new Error((error.message || 'The request failed.') + (details.length ? ' ' + details.join(' ') : ''));
          failure.code = error.code;
          throw failure;
        });
      });
  }

  function failed(error) {
    if (error && error.name === 'NotAllowedError') return say('The passkey prompt was closed.');
    say((error && error.message) || 'Something went wrong.');
  }

  function signedIn(tokens) {
    accessToken = tokens.access_token;
    challenge = null;
    $('code-form').hidden = true;
    $('signed-out').hidden = true;
    $('signed-in').hidden = false;
    $('who').textContent = tokens.user.email;
    say('Signed in.');
    return refresh();
  }

  function refresh() {
    return api('GET', '/account/passkeys').then(function (list) {
      var ul = $('passkeys');
      ul.textContent = '';
      list.items.forEach(function (passkey) {
        var li = document.createElement('li');
        li.className = 'passkey';
        li.textContent = passkey.name + ' (last used: ' + (passkey.last_used_at ? new Date(passkey.last_used_at).toLocaleString() : 'never') + ')';
        var rename = document.createElement('button');
        rename.type = 'button';
        rename.textContent = 'Rename';
        rename.addEventListener('click', function () {
          var name = window.prompt('New name', passkey.name);
          if (name) api('PATCH', '/account/passkeys/' + passkey.id, { name: name }).then(refresh).catch(failed);
        });
        var remove = document.createElement('button');
        remove.type = 'button';
        remove.textContent = 'Remove';
        remove.addEventListener('click', function () {
          api('DELETE', '/account/passkeys/' + passkey.id).then(function () { say('Passkey removed.'); return refresh(); }).catch(failed);
        });
        li.appendChild(rename);
        li.appendChild(remove);
        ul.appendChild(li);
      });
      if (list.total === 0) ul.textContent = 'No passkey yet.';
    });
  }

  $('passkey-sign-in').addEventListener('click', function () {
    say('Waiting for your passkey…');
    var email = $('email').value.trim();
    api('POST', '/auth/passkey/options', email ? { email: email } : {})
      .then(function (options) { return webauthn.startAuthentication({ optionsJSON: options }); })
      .then(function (assertion) { return api('POST', '/auth/passkey/verify', assertion); })
      .then(signedIn)
      .catch(failed);
  });

  $('password-form').addEventListener('submit', function (event) {
    event.preventDefault();
    api('POST', '/auth/login', { email: $('email').value.trim(), password: $('password').value })
      .then(function (result) {
        if (!result.requires_otp) return signedIn(result);
        challenge = result;
        var methods = result.methods || ['sms'];
        $('code-form').hidden = false;
        $('second-factor-passkey').hidden = methods.indexOf('passkey') < 0;
        $('code-prompt').textContent = 'A second factor is needed: ' + methods.join(', ') + '.';
        say('');
      })
      .catch(failed);
  });

  $('second-factor-passkey').addEventListener('click', function () {
    if (!challenge) return;
    webauthn.startAuthentication({ optionsJSON: challenge.passkey_options })
      .then(function (assertion) {
        return api('POST', '/auth/otp/verify-2fa', { temp_token: challenge.temp_token, method: 'passkey', assertion: assertion });
      })
      .then(signedIn)
      .catch(failed);
  });

  $('code-form').addEventListener('submit', function (event) {
    event.preventDefault();
    if (!challenge) return;
    var methods = (challenge.methods || ['sms']).filter(function (method) { return method !== 'passkey'; });
    api('POST', '/auth/otp/verify-2fa', { temp_token: challenge.temp_token, code: $('code').value.trim(), method: methods[0] })
      .then(signedIn)
      .catch(failed);
  });

  $('add-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var name = $('passkey-name').value.trim();
    api('POST', '/account/passkeys/options', {})
      .then(function (options) { return webauthn.startRegistration({ optionsJSON: options }); })
      .then(function (registration) {
        if (name) registration.name = name;
        return api('POST', '/account/passkeys', registration);
      })
      .then(function () { $('passkey-name').value = ''; say('Passkey added.'); return refresh(); })
      .catch(failed);
  });

  $('sign-out').addEventListener('click', function () {
    api('POST', '/auth/logout', {})
      .catch(function () { return null; })
      .then(function () {
        accessToken = null;
        $('signed-in').hidden = true;
        $('signed-out').hidden = false;
        $('password').value = '';
        say('Signed out.');
      });
  });

  if (!webauthn || !webauthn.browserSupportsWebAuthn()) {
    $('passkey-sign-in').disabled = true;
    $('add-passkey').disabled = true;
    say('This browser does not support passkeys.');
  }
})();
`;

let bundle: string | undefined;

/** SimpleWebAuthn's browser bundle (UMD, defines `SimpleWebAuthnBrowser`), read once from the installed package. */
export function webauthnBrowserBundle(): string {
  if (bundle === undefined) {
    const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
    const file = path.join(path.dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js');
    bundle = readFileSync(file, 'utf8');
  }
  return bundle;
}
