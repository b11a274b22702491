import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { useTestApp } from '../support/fixture.js';

describe('GET /reset-password: the page the reset link opens', () => {
  let app: NestFastifyApplication;

  const fixture = useTestApp();
  beforeAll(() => void ({ app } = fixture));

  it('serves an HTML form under a policy that runs only same-origin scripts', async () => {
    const res = await request(app.getHttpServer()).get('/reset-password?token=abc123');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('<form id="reset-form"');
    expect(res.text).toContain('<script src="/reset-password/page.js"></script>');
    // Nothing inline for the policy to refuse.
    expect(res.text).not.toMatch(/<script>|<script [^>]*>[^<]+<\/script>|\son\w+=/);
  });

  it('never writes what the link carries into the page', async () => {
    const hostile = '"><script>alert(1)</script>';
    const res = await request(app.getHttpServer()).get(`/reset-password?token=${encodeURIComponent(hostile)}`);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('alert(1)');
  });

  it('serves its script and style sheet from the same origin, the script posting to the API', async () => {
    const script = await request(app.getHttpServer()).get('/reset-password/page.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(script.text).toContain("'/api/auth/reset-password'");
    const style = await request(app.getHttpServer()).get('/reset-password/page.css');
    expect(style.status).toBe(200);
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('is not under /api, and the API keeps its own policy', async () => {
    expect((await request(app.getHttpServer()).get('/api/reset-password')).status).toBe(404);
    const api = await request(app.getHttpServer())
      .post('/api/auth/reset-password')
      .send({ token: 'x', password: 'a', password_confirmation: 'a' });
    expect(String(api.headers['content-security-policy'])).toContain("default-src 'none'");
  });
});
