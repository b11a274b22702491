/**
 * The opening of a link page's script (the email-change pages, the verification page): the link's
 * token, read from the address and at once taken out of it (and the history), and
 * `postToken(path, then)`, which posts the token and hands `then` the answer and its JSON body
 * (null when it has none). The token is posted only when the reader presses the page's button,
 * so a mail scanner that fetches the link changes nothing.
 */
export const LINK_TOKEN_SCRIPT = `  var token = new URLSearchParams(window.location.search).get('token');
  // The token leaves the address bar (and the history) as soon as it has been read.
  window.history.replaceState(null, '', window.location.pathname);
  function postToken(path, then) {
    return fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: token }),
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (body) {
        then(response, body);
      });
    });
  }`;
