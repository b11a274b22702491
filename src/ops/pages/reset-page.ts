import { pageStyle } from './page-style.js';

/**
 * The page `${APP_URL}/reset-password?token=...` opens by default: a form that posts the new
 * password to `POST /api/auth/reset-password` and shows the outcome. No framework, nothing inline:
 * the script is a same-origin file, so the page runs under a policy of `script-src 'self'`.
 * The token is read by the script from the address, never written into the HTML, so nothing a
 * link carries is ever reflected into the page.
 */
export const RESET_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const RESET_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>Choose a new password</title>
  <link rel="stylesheet" href="/reset-password/page.css">
</head>
<body>
  <main>
    <h1>Choose a new password</h1>
    <form id="reset-form" novalidate>
      <label for="password">New password</label>
      <input id="password" name="password" type="password" autocomplete="new-password" required>
      <label for="password_confirmation">Repeat it</label>
      <input id="password_confirmation" name="password_confirmation" type="password" autocomplete="new-password" required>
      <button id="submit" type="submit">Change password</button>
    </form>
    <p id="outcome" role="status" aria-live="polite"></p>
  </main>
  <script src="/reset-password/page.js"></script>
</body>
</html>
`;

export const RESET_PAGE_CSS = pageStyle('24rem', '1.5rem');

export const RESET_PAGE_SCRIPT = `'use strict';
(function () {
  var token = new URLSearchParams(window.location.search).get('token');
  // The token leaves the address bar (and the history) as soon as it has been read.
  window.history.replaceState(null, '', window.location.pathname);
  var form = document.getElementById('reset-form');
  var outcome = document.getElementById('outcome');
  var button = document.getElementById('submit');
  if (!token) {
    form.hidden = true;
    outcome.textContent = 'This link holds no reset token. Ask for a new link from the sign-in page.';
    return;
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    button.disabled = true;
    outcome.textContent = 'Changing your password…';
    fetch('/api/auth/reset-password', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        token: token,
        password: form.elements.password.value,
        password_confirmation: form.elements.password_confirmation.value,
      }),
    })
      .then(function (response) {
        return response.json().catch(function () { return null; }).then(function (body) {
          if (response.ok) {
            form.hidden = true;
            outcome.textContent = 'Your password has been changed. Sign in with the new one.';
            return;
          }
          var error = body && body.error;
          var details = error && Array.isArray(error.details) ? error.details.map(function (d) { return d.message; }).filter(Boolean) : [];
          outcome.textContent = ((error && error.message) || 'The password could not be changed.') + (details.length ? ' ' + details.join(' ') : '');
        });
      })
      .catch(function () {
        outcome.textContent = 'The service could not be reached. Try again.';
      })
      .finally(function () {
        button.disabled = false;
      });
  });
})();
`;
