import { TOTP, URI } from 'otpauth';
import request from 'supertest';
import { decodeJwt, registerUser, sleep, uniqueEmail } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import type { ReceivedMail } from '../support/smtp-sink.js';

/** The mail's only run of OTP_LENGTH (6) digits. */
function codeFrom(mail: ReceivedMail): string {
  const runs = (mail.text.match(/\d+/g) ?? []).filter((run) => run.length === 6);
  if (runs.length !== 1) throw new Error(`expected one code in ${mail.text}`);
  return runs[0];
}

/**
 * Pre-hijacked accounts (Sudhodanan and Paverd, USENIX Security 2022): an attacker registers the
 * victim's address with a password of their own, and keeps a way in after the victim signs in.
 * The contract: the first proof of an address ends what came before it.
 */
describe('the first proof of an address ends what came before it', () => {
  const fixture = useTestApp({
    database: 'seeded',
    smtp: true,
    env: { AUTH_EMAIL_CODE: 'true', OTP_RESEND_SECONDS: '1' },
  });
  const server = () => fixture.app.getHttpServer();
  const post = (path: string, body: object, token?: string) => {
    const req = request(server()).post(path);
    if (token) req.set('authorization', `Bearer ${token}`);
    return req.send(body);
  };

  async function signInByEmailCode(email: string) {
    const codeMails = () =>
      fixture.smtp.mailsTo(email).filter((mail) => /^Subject: Your sign-in code/im.test(mail.raw));
    const before = codeMails().length;
    expect((await post('/api/auth/email-code', { email })).status).toBe(200);
    for (let waited = 0; codeMails().length === before && waited < 15_000; waited += 100) await sleep(100);
    return post('/api/auth/verify-email-code', { email, code: codeFrom(codeMails()[before]) });
  }

  it('an email-code sign-in to an unverified account ends the registrant’s sessions, password, factors and pending changes', async () => {
    // The attacker registers the victim's address with a password of their choice.
    const victimEmail = uniqueEmail('victim');
    const attacker = await registerUser(fixture.app, { email: victimEmail });
    const attackerLogin = await post('/api/auth/login', { email: victimEmail, password: attacker.password });
    expect(attackerLogin.status).toBe(200);
    // ...adds an authenticator app of their own...
    const started = await post('/api/account/totp', {}, attacker.tokens.access_token);
    expect(started.status).toBe(200);
    const totp = URI.parse(started.body.data.otpauth_uri) as TOTP;
    const confirmed = await post('/api/account/totp/confirm', { code: totp.generate() }, attacker.tokens.access_token);
    expect(confirmed.status).toBe(200);
    // ...and asks to move the account to an address of their own.
    const moved = await post('/api/account/email', { email: uniqueEmail('attacker') }, attacker.tokens.access_token);
    expect(moved.status).toBe(200);

    // The victim signs in with a code mailed to their own address: the first proof of it.
    const victim = await signInByEmailCode(victimEmail);
    expect(victim.status).toBe(200);
    expect(victim.body.data.access_token).toEqual(expect.any(String));
    expect(decodeJwt(victim.body.data.access_token).payload.amr).toEqual(['otp']);

    // Every session started before the proof has ended.
    for (const tokens of [attacker.tokens, attackerLogin.body.data]) {
      const me = await request(server()).get('/api/auth/me').set('authorization', `Bearer ${tokens.access_token}`);
      expect(me.status).toBe(401);
      const refreshed = await post('/api/auth/refresh', { refresh_token: tokens.refresh_token });
      expect(refreshed.status).toBe(401);
    }
    // The password set before it stops working.
    const again = await post('/api/auth/login', { email: victimEmail, password: attacker.password });
    expect({ status: again.status, code: again.body.error?.code }).toEqual({
      status: 401,
      code: 'INVALID_CREDENTIALS',
    });
    // The app added before it is gone, and the pending change is cancelled.
    const apps: unknown[] = await fixture.db.query(`SELECT 1 FROM totp_authenticators WHERE user_id = $1`, [
      attacker.id,
    ]);
    expect(apps).toEqual([]);
    const codes: unknown[] = await fixture.db.query(`SELECT 1 FROM recovery_codes WHERE user_id = $1`, [attacker.id]);
    expect(codes).toEqual([]);
    const pending: unknown[] = await fixture.db.query(
      `SELECT 1 FROM account_change_requests WHERE user_id = $1 AND ended_at IS NULL`,
      [attacker.id],
    );
    expect(pending).toEqual([]);
    // The address is verified and the proof's own sign-in is the account's only session.
    const me = await request(server())
      .get('/api/auth/me')
      .set('authorization', `Bearer ${victim.body.data.access_token}`);
    expect(me.status).toBe(200);
    expect(me.body.data.email_verified).toBe(true);
    const sessions = await request(server())
      .get('/api/account/sessions')
      .set('authorization', `Bearer ${victim.body.data.access_token}`);
    expect(sessions.status).toBe(200);
    expect(sessions.body.data.total).toBe(1);
    expect(sessions.body.data.items).toEqual([expect.objectContaining({ current: true })]);
  });

  it('a later email-code sign-in to a verified account ends nothing', async () => {
    const user = await registerUser(fixture.app);
    const first = await signInByEmailCode(user.email);
    expect(first.status).toBe(200);
    await sleep(1100);
    const second = await signInByEmailCode(user.email);
    expect(second.status).toBe(200);
    const me = await request(server())
      .get('/api/auth/me')
      .set('authorization', `Bearer ${first.body.data.access_token}`);
    expect(me.status).toBe(200);
    expect((await post('/api/auth/refresh', { refresh_token: first.body.data.refresh_token })).status).toBe(200);
  });

  it('the registration’s own verification link keeps the password and the sessions', async () => {
    const user = await registerUser(fixture.app);
    const mail = await fixture.smtp.waitForVerificationMail(user.email);
    const token = /verify-email\?token=([\w-]+)/.exec(mail.text)?.[1];
    expect(token).toEqual(expect.any(String));
    expect((await post('/api/auth/verify-email', { token })).status).toBe(200);
    const me = await request(server()).get('/api/auth/me').set('authorization', `Bearer ${user.tokens.access_token}`);
    expect(me.status).toBe(200);
    expect(me.body.data.email_verified).toBe(true);
    expect((await post('/api/auth/login', { email: user.email, password: user.password })).status).toBe(200);
  });
});
