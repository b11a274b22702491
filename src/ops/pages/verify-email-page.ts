/**
 * The page `${APP_URL}/verify-email?token=...` opens: one button that posts the token to
 * `POST /api/auth/verify-email` and shows the outcome. Built like the reset page (reset-page.ts):
 * no framework, nothing inline, the token read by a same-origin script and never reflected into
 * the HTML. The address is verified only when the button is pressed, so a mail scanner that
 * fetches the link verifies nothing.
 */
import { LINK_TOKEN_SCRIPT } from './link-token-script.js';

export { RESET_PAGE_CSP as VERIFY_EMAIL_PAGE_CSP, RESET_PAGE_CSS as VERIFY_EMAIL_PAGE_CSS } from './reset-page.js';

export const VERIFY_EMAIL_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>Verify your email address</title>
  <link rel="stylesheet" href="/verify-email/page.css">
</head>
<body>
  <main>
    <h1>Verify your email address</h1>
    <form id="verify-form" novalidate>
      <button id="submit" type="submit">Verify my address</button>
    </form>
    <p id="outcome" role="status" aria-live="polite"></p>
  </main>
  <script src="/verify-email/page.js"></script>
</body>
</html>
`;

export const VERIFY_EMAIL_PAGE_SCRIPT = `'use strict';
(function () {
${LINK_TOKEN_SCRIPT}
  var form = document.getElementById('verify-form');
  var outcome = document.getElementById('outcome');
  var button = document.getElementById('submit');
  if (!token) {
    form.hidden = true;
    outcome.textContent = 'This link holds no verification token. Ask for a new link from the sign-in page.';
    return;
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    button.disabled = true;
    outcome.textContent = 'Verifying…';
    postToken('/api/auth/verify-email', function (response, body) {
      if (response.ok) {
        form.hidden = true;
        outcome.textContent = 'Your email address is verified. You can sign in.';
        return;
      }
      var error = body && body.error;
      outcome.textContent = (error && error.message) || 'The address could not be verified.';
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
