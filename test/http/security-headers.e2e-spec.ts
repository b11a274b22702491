import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { useTestApp } from '../support/fixture.js';
import { createTestApp } from '../support/test-app.js';

describe('security headers, CORS and content types', () => {
  let app: NestFastifyApplication;

  const fixture = useTestApp({ env: { CORS_ORIGINS: 'https://app.example.com,https://admin.example.com' } });
  beforeAll(() => void ({ app } = fixture));

  const server = () => app.getHttpServer();

  it.each(['/health', '/api/auth/me', '/api/nowhere'])('sends the hardening headers on %s', async (path) => {
    const res = await request(server()).get(path);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toMatch(/max-age=31536000; includeSubDomains/);
    expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers.server).toBeUndefined();
  });

  it('allows a configured origin, with credentials', async () => {
    const res = await request(server())
      .options('/api/auth/login')
      .set('origin', 'https://app.example.com')
      .set('access-control-request-method', 'POST')
      .set('access-control-request-headers', 'content-type');
    expect(res.status).toBeLessThan(300);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
  });

  it('gives another origin no CORS permission', async () => {
    const res = await request(server()).get('/health').set('origin', 'https://evil.example.net');
    // Without Access-Control-Allow-Origin a browser shares nothing with that origin.
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('gives no origin CORS permission when CORS_ORIGINS is unset', async () => {
    const plain = await createTestApp();
    try {
      const res = await request(plain.getHttpServer()).get('/health').set('origin', 'https://app.example.com');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it.each([
    ['text/plain', 'email=a@example.com'],
    ['application/x-www-form-urlencoded', 'email=a%40example.com&password=x'],
    ['application/xml', '<login/>'],
  ])('refuses a %s body with 415 UNSUPPORTED_MEDIA_TYPE', async (type, body) => {
    const res = await request(server()).post('/api/auth/login').set('content-type', type).send(body);
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.any(String) },
    });
  });
});
