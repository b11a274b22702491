// Talks to the auth service with openid-client only, as a service written by someone else would:
// discovery, the client credentials grant, introspection, revocation, userinfo and the refresh grant.
// Prints one JSON line of what it saw.
import * as client from 'openid-client';

const { ISSUER, CLIENT_ID, CLIENT_SECRET, AUTH_METHOD, REFRESH_TOKEN, USER_ACCESS_TOKEN, USER_ID } = process.env;
const authentication =
  AUTH_METHOD === 'basic' ? client.ClientSecretBasic(CLIENT_SECRET) : client.ClientSecretPost(CLIENT_SECRET);
const config = await client.discovery(new URL(ISSUER), CLIENT_ID, undefined, authentication, {
  execute: [client.allowInsecureRequests],
});
const metadata = config.serverMetadata();
const granted = await client.clientCredentialsGrant(config);
const introspected = await client.tokenIntrospection(config, granted.access_token);
await client.tokenRevocation(config, granted.access_token);
const afterRevocation = await client.tokenIntrospection(config, granted.access_token);
const userinfo = USER_ACCESS_TOKEN ? await client.fetchUserInfo(config, USER_ACCESS_TOKEN, USER_ID) : null;
const refreshed = REFRESH_TOKEN ? await client.refreshTokenGrant(config, REFRESH_TOKEN) : null;
let reuse = null;
if (REFRESH_TOKEN) {
  try {
    await client.refreshTokenGrant(config, REFRESH_TOKEN);
    reuse = 'accepted';
  } catch (error) {
    reuse = error.error ?? error.code ?? String(error);
  }
}
console.log(
  JSON.stringify({
    issuer: metadata.issuer,
    token_endpoint: metadata.token_endpoint,
    granted: {
      token_type: granted.token_type,
      expires_in: granted.expires_in,
      has_access_token: !!granted.access_token,
    },
    access_token: granted.access_token,
    introspected,
    afterRevocation,
    refreshed: refreshed && {
      has_access_token: !!refreshed.access_token,
      has_refresh_token: !!refreshed.refresh_token,
    },
    reuse,
    userinfo,
  }),
);
