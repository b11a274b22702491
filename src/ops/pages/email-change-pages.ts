/**
 * The pages the email-change mails link to: `${APP_URL}/confirm-email?token=...` (to the new
 * address) and `${APP_URL}/cancel-email-change?token=...` (to the old one). Like the reset page:
 * no framework, nothing inline, served under RESET_PAGE_CSP; the script reads the token from the
 * address (never written into the HTML) and posts it only when the reader presses the button, so
 * a mail scanner that fetches the link changes nothing.
 */
import { LINK_TOKEN_SCRIPT } from './link-token-script.js';

export interface LinkPage {
  /** The page's path, also the prefix of its script. */
  path: string;
  html: string;
  script: string;
}

function page(options: {
  path: string;
  title: string;
  intro: string;
  button: string;
  api: string;
  pending: string;
  done: string;
  noToken: string;
}): LinkPage {
  const html = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>${options.title}</title>
  <link rel="stylesheet" href="/reset-password/page.css">
</head>
<body>
  <main>
    <h1>${options.title}</h1>
    <p>${options.intro}</p>
    <button id="submit" type="button">${options.button}</button>
    <p id="outcome" role="status" aria-live="polite"></p>
  </main>
  <script src="/${options.path}/page.js"></script>
</body>
</html>
`;
  const script = `'use strict';
(function () {
${LINK_TOKEN_SCRIPT}
  var outcome = document.getElementById('outcome');
  var button = document.getElementById('submit');
  if (!token) {
    button.hidden = true;
    outcome.textContent = ${JSON.stringify(options.noToken)};
    return;
  }
  button.addEventListener('click', function () {
    button.disabled = true;
    outcome.textContent = ${JSON.stringify(options.pending)};
    postToken(${JSON.stringify(options.api)}, function (response, body) {
      if (response.ok) {
        button.hidden = true;
        outcome.textContent = ${JSON.stringify(options.done)};
        return;
      }
      var error = body && body.error;
      outcome.textContent = (error && error.message) || 'The link could not be used.';
      button.disabled = false;
    }).catch(function () {
      outcome.textContent = 'The service could not be reached. Try again.';
      button.disabled = false;
    });
  });
})();
`;
  return { path: options.path, html, script };
}

export const CONFIRM_EMAIL_PAGE = page({
  path: 'confirm-email',
  title: 'Confirm your new email address',
  intro: 'Press the button to make this address the email address of your account.',
  button: 'Confirm the address',
  api: '/api/account/email/confirm',
  pending: 'Confirming…',
  done: 'Your email address has been changed. Sign in with the new one.',
  noToken: 'This link holds no confirmation token.',
});

export const CANCEL_EMAIL_CHANGE_PAGE = page({
  path: 'cancel-email-change',
  title: 'Cancel the change of your email address',
  intro: 'Press the button to cancel the requested change; your address stays as it is.',
  button: 'Cancel the change',
  api: '/api/account/email/cancel',
  pending: 'Cancelling…',
  done: 'The change has been cancelled. If you did not ask for it, change your password now.',
  noToken: 'This link holds no cancel token.',
});
