// A relying party on openid-client only: discovery, the authorization code with PKCE (the pages
// driven by plain HTTP requests, as a browser would send them), the ID token checks, userinfo, the
// refresh grant, RP-initiated logout (the browser sent to the end-session URL openid-client builds)
// and the refresh grant once more, after the logout. Prints one JSON line of what it saw.
import * as client from 'openid-client';

const { ISSUER, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI, POST_LOGOUT_REDIRECT_URI, EMAIL, PASSWORD } = process.env;
const config = await client.discovery(new URL(ISSUER), CLIENT_ID, undefined, client.ClientSecretBasic(CLIENT_SECRET), {
  execute: [client.allowInsecureRequests],
});
const verifier = client.randomPKCECodeVerifier();
const state = client.randomState();
const nonce = client.randomNonce();
const authorizationUrl = client.buildAuthorizationUrl(config, {
  redirect_uri: REDIRECT_URI,
  scope: 'openid email profile offline_access',
  code_challenge: await client.calculatePKCECodeChallenge(verifier),
  code_challenge_method: 'S256',
  state,
  nonce,
});

// The browser: the sign-in page, its form filled and sent with the page's cookies.
const cookies = new Map();
const keep = (response) => {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair.indexOf('=');
    cookies.set(pair.slice(0, at), pair.slice(at + 1));
  }
};
const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
const page = await fetch(authorizationUrl, { redirect: 'manual' });
keep(page);
const html = await page.text();
const unescape = (value) => value.replace(/&#(\d+);/g, (_m, code) => String.fromCharCode(Number(code)));
const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(html);
const fields = new URLSearchParams();
for (const input of form[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
  fields.append(unescape(input[1]), unescape(input[2]));
}
fields.append('email', EMAIL);
fields.append('password', PASSWORD);
const signedIn = await fetch(new URL(unescape(form[1]), ISSUER), {
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader() },
  body: fields.toString(),
});
const callback = new URL(signedIn.headers.get('location'));

const tokens = await client.authorizationCodeGrant(config, callback, {
  pkceCodeVerifier: verifier,
  expectedState: state,
  expectedNonce: nonce,
  idTokenExpected: true,
});
const claims = tokens.claims();
const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token);
const refreshedUserinfo = await client.fetchUserInfo(config, refreshed.access_token, claims.sub);

const endSessionUrl = client.buildEndSessionUrl(config, {
  id_token_hint: tokens.id_token,
  post_logout_redirect_uri: POST_LOGOUT_REDIRECT_URI,
  state: 'bye',
});
const signedOut = await fetch(endSessionUrl, { redirect: 'manual', headers: { cookie: cookieHeader() } });
let afterLogout;
try {
  await client.refreshTokenGrant(config, refreshed.refresh_token);
  afterLogout = { refused: false };
} catch (error) {
  afterLogout = { refused: true, status: error.status, error: error.error };
}
console.log(
  JSON.stringify({
    page_status: page.status,
    sign_in_status: signedIn.status,
    callback_iss: callback.searchParams.get('iss'),
    token_type: tokens.token_type,
    scope: tokens.scope,
    claims,
    userinfo,
    refreshed: {
      has_access_token: !!refreshed.access_token,
      new_refresh_token: !!refreshed.refresh_token && refreshed.refresh_token !== tokens.refresh_token,
    },
    refreshed_userinfo: refreshedUserinfo,
    end_session_status: signedOut.status,
    end_session_location: signedOut.headers.get('location'),
    refresh_after_logout: afterLogout,
    access_token: tokens.access_token,
    refreshed_access_token: refreshed.access_token,
  }),
);
