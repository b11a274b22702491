import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomInt } from 'node:crypto';
import { uniqueEmail, uniqueMobile } from '../support/auth-factory.js';
import { useTestApp } from '../support/fixture.js';
import { expectRateLimited, postFrom, repeat, statuses } from './limits-kit.js';

/**
 * Every per-address limit counts clients, not spellings: an IPv6 address counts as its /64
 * network (one subscriber's allocation), an IPv4-mapped IPv6 address as its IPv4 address. The
 * client address comes from X-Forwarded-For (TRUST_PROXY=1), written the ways proxies write it.
 */

/** A /64 of the documentation range (2001:db8::/32) no other test uses: `2001:db8:x:y`. */
const uniqueNetwork = () => `2001:db8:${randomInt(1, 0xffff).toString(16)}:${randomInt(1, 0xffff).toString(16)}`;
/** An IPv4 documentation address (198.51.100.0/24, 203.0.113.0/24) no other test uses. */
const uniqueIpv4 = () => `${randomInt(0, 2) === 0 ? '198.51.100' : '203.0.113'}.${randomInt(1, 255)}`;
const toHex = (ipv4: string) => {
  const [a, b, c, d] = ipv4.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
};

describe('rate limits count an IPv6 /64 and an IPv4-mapped address as one client', () => {
  let app: NestFastifyApplication;

  const fixture = useTestApp({ env: { TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '3', LOCKOUT_THRESHOLD: '1000' } });
  beforeAll(() => void ({ app } = fixture));

  const forgot = (address: string) => postFrom(app, '/api/auth/forgot-password', { email: uniqueEmail() }, address);

  it('shares one budget between addresses of one /64, however they are written', async () => {
    const net = uniqueNetwork();
    const spellings = [`${net}::1`, `${net.toUpperCase()}:0:0:0:2`, `[${net}:ffff:ffff:ffff:ffff]`];
    expect(await statuses(3, (i) => forgot(spellings[i]))).toEqual(repeat(200, 3));
    expectRateLimited(await forgot(`${net}:abcd::9`));
    // Another /64 is another client.
    expect((await forgot(`${uniqueNetwork()}::1`)).status).toBe(200);
  });

  it('counts ::ffff:1.2.3.4 as 1.2.3.4', async () => {
    const ipv4 = uniqueIpv4();
    const spellings = [ipv4, `::ffff:${ipv4}`, `::FFFF:${toHex(ipv4)}`];
    expect(await statuses(3, (i) => forgot(spellings[i]))).toEqual(repeat(200, 3));
    expectRateLimited(await forgot(ipv4));
    expectRateLimited(await forgot(`::ffff:${ipv4}`));
  });
});

describe('the send-otp hourly cap per client address counts a /64 and an IPv4-mapped address as one client', () => {
  let app: NestFastifyApplication;
  // A database of its own: the first app on a database stores the login-method settings it starts with.
  const fixture = useTestApp({
    database: 'seeded',
    env: { TRUST_PROXY: '1', AUTH_MOBILE_OTP: 'true', OTP_RESEND_SECONDS: '0', OTP_HOURLY_CAP: '2' },
  });
  beforeAll(() => void ({ app } = fixture));

  // A new mobile each time: only the per-address cap is spent.
  const sendOtp = (address: string) => postFrom(app, '/api/auth/send-otp', { mobile: uniqueMobile() }, address);

  it('refuses the third code for one /64 whatever the address inside it', async () => {
    const net = uniqueNetwork();
    expect((await sendOtp(`${net}::a`)).status).toBe(200);
    expect((await sendOtp(`[${net}:1:2:3:4]`)).status).toBe(200);
    expectRateLimited(await sendOtp(`${net}:ffff::1`), 3600);
    expect((await sendOtp(`${uniqueNetwork()}::a`)).status).toBe(200);
  });

  it('refuses the third code for 1.2.3.4 and ::ffff:1.2.3.4 together', async () => {
    const ipv4 = uniqueIpv4();
    expect((await sendOtp(ipv4)).status).toBe(200);
    expect((await sendOtp(`::ffff:${ipv4}`)).status).toBe(200);
    expectRateLimited(await sendOtp(`::ffff:${toHex(ipv4)}`), 3600);
    expectRateLimited(await sendOtp(ipv4), 3600);
  });
});
