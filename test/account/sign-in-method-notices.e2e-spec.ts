import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import { registerUser, sleep, type RegisteredUser } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import type { ReceivedMail } from '../support/smtp-sink.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

const ORIGIN = 'http://localhost:3000';
const RP_ID = 'localhost';

/**
 * "Notices" (contract, "Keys at rest, notices"): the holder gets a mail, through the outbox, when
 * a sign-in method is added or removed; it names the method and the time, never a secret, and says
 * how to end every session.
 */
describe('notices of added and removed sign-in methods', () => {
  const fixture = useTestApp({ smtp: true });
  const server = () => fixture.app.getHttpServer();
  const authed = (token: string) => ({
    post: (path: string, body: object = {}) =>
      request(server()).post(path).set('authorization', `Bearer ${token}`).send(body),
    delete: (path: string) => request(server()).delete(path).set('authorization', `Bearer ${token}`).send({}),
  });

  /** The next mail to the user with this subject, after `before` of them. */
  async function noticeTo(user: RegisteredUser, subject: string, before = 0): Promise<ReceivedMail> {
    const matching = () => fixture.smtp.mailsTo(user.email).filter((mail) => mail.raw.includes(`Subject: ${subject}`));
    for (let waited = 0; matching().length <= before && waited < 15_000; waited += 100) await sleep(100);
    const mails = matching();
    if (mails.length <= before) throw new Error(`no notice "${subject}" to ${user.email}`);
    return mails[before];
  }

  function expectNotice(mail: ReceivedMail, sentence: RegExp, secrets: string[]): void {
    expect(mail.text).toMatch(sentence);
    // The time of the change, and how to end every session.
    expect(mail.text).toMatch(/ on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\./);
    expect(mail.text).toMatch(/To end every session at once, reset your password/);
    expect(mail.text).toMatch(/POST \/api\/account\/sessions\/revoke-others/);
    for (const secret of secrets) expect(mail.raw).not.toContain(secret);
  }

  async function enrolApp(user: RegisteredUser): Promise<{ totp: TOTP; codes: string[] }> {
    const started = await authed(user.tokens.access_token).post('/api/account/totp');
    expect(started.status).toBe(200);
    const totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
    const confirmed = await authed(user.tokens.access_token).post('/api/account/totp/confirm', {
      code: totp.generate(),
    });
    expect(confirmed.status).toBe(200);
    return { totp, codes: confirmed.body.data.recovery_codes };
  }

  it('an authenticator app added, and removed: a mail each, naming it, with no secret and no code', async () => {
    const user = await registerUser(fixture.app);
    const { totp, codes } = await enrolApp(user);
    const added = await noticeTo(user, 'An authenticator app was added to your account');
    expectNotice(added, /An authenticator app was added to your account/, [
      totp.secret.base32,
      ...codes,
      ...codes.map((code) => code.replace('-', '')),
    ]);

    // Removing the app needs a fresh proof with a second factor: a recovery code.
    const proof = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
      method: 'recovery',
      code: codes[0],
    });
    expect(proof.status).toBe(200);
    const removed = await authed(proof.body.data.access_token).delete('/api/account/totp');
    expect(removed.status).toBe(200);
    const notice = await noticeTo(user, 'The authenticator app was removed from your account');
    expectNotice(notice, /The authenticator app and its recovery codes were removed/, [totp.secret.base32, ...codes]);
  });

  it('recovery codes made anew (POST /api/account/recovery-codes): ten new codes, the old ones void, a mail', async () => {
    const user = await registerUser(fixture.app);
    const { codes: old } = await enrolApp(user);
    const made = await authed(user.tokens.access_token).post('/api/account/recovery-codes');
    expect(made.status).toBe(200);
    const fresh: string[] = made.body.data.recovery_codes;
    expect(fresh).toHaveLength(10);
    expect(fresh.some((code) => old.includes(code))).toBe(false);

    const notice = await noticeTo(user, 'New recovery codes were made for your account');
    expectNotice(notice, /New recovery codes were made for your account/, [...old, ...fresh]);

    const withOld = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
      method: 'recovery',
      code: old[1],
    });
    expect(withOld.status).toBe(401);
    const withNew = await authed(user.tokens.access_token).post('/api/account/reauthenticate', {
      method: 'recovery',
      code: fresh[0],
    });
    expect(withNew.status).toBe(200);
  });

  it('recovery codes for an account without an app: 404 NOT_FOUND, and no mail', async () => {
    const user = await registerUser(fixture.app);
    const made = await authed(user.tokens.access_token).post('/api/account/recovery-codes');
    expect({ status: made.status, code: made.body.error?.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
  });

  it('a passkey added, and removed: a mail each, without its id or key', async () => {
    const user = await registerUser(fixture.app);
    const device = new SoftAuthenticator(ORIGIN, RP_ID);
    const options = await authed(user.tokens.access_token).post('/api/account/passkeys/options');
    expect(options.status).toBe(200);
    const { response, credential } = device.register(options.body.data);
    const created = await authed(user.tokens.access_token).post('/api/account/passkeys', {
      ...response,
      name: 'Laptop',
    });
    expect(created.status).toBe(201);
    const added = await noticeTo(user, 'A passkey was added to your account');
    expectNotice(added, /A passkey was added to your account/, [credential.id, 'Laptop']);

    // A passkey sign-in (two factors) may remove it.
    const signInOptions = await request(server()).post('/api/auth/passkey/options').send({});
    const signedIn = await request(server())
      .post('/api/auth/passkey/verify')
      .send(device.assert(signInOptions.body.data, credential));
    expect(signedIn.status).toBe(200);
    const removed = await authed(signedIn.body.data.access_token).delete(
      `/api/account/passkeys/${created.body.data.id}`,
    );
    expect(removed.status).toBe(200);
    const notice = await noticeTo(user, 'A passkey was removed from your account');
    expectNotice(notice, /A passkey was removed from your account/, [credential.id]);
  });
});
