import { Body, Controller, Get, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { IsEmail, IsString, MinLength } from 'class-validator';
import request from 'supertest';
import { Public } from '@auth-rbac/nest-guard';
import { useTestApp } from '../support/fixture.js';

class EchoDto {
  @IsEmail()
  email!: string;

  @IsString()
  @MinLength(8)
  password!: string;
}

// Public: these tests are about the HTTP layer, not authentication (the guard denies by default).
@Public()
@Controller('test-only')
class TestOnlyController {
  @Get('boom')
  boom(): never {
    throw new Error('secret internal detail at /srv/app/src/thing.ts:42 SELECT * FROM users');
  }

  @Post('echo')
  echo(@Body() body: EchoDto): { email: string } {
    return { email: body.email };
  }
}

describe('HTTP layer: envelope, errors, limits', () => {
  let app: NestFastifyApplication;

  const fixture = useTestApp({ extra: { controllers: [TestOnlyController] } });
  beforeAll(() => void ({ app } = fixture));

  const server = () => app.getHttpServer();

  it('wraps a success in {success: true, data}', async () => {
    const res = await request(server())
      .post('/api/test-only/echo')
      .send({ email: 'a@example.com', password: 'long enough' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ success: true, data: { email: 'a@example.com' } });
  });

  it('answers an unknown route with 404 NOT_FOUND in the error shape', async () => {
    const res = await request(server()).get('/api/does-not-exist');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('answers a broken JSON body with 400 INVALID_JSON', async () => {
    const res = await request(server())
      .post('/api/test-only/echo')
      .set('content-type', 'application/json')
      .send('{"email": "a@example.com", ');
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('INVALID_JSON');
  });

  it('refuses a __proto__ key as poisoned JSON', async () => {
    const res = await request(server())
      .post('/api/test-only/echo')
      .set('content-type', 'application/json')
      .send('{"email": "a@example.com", "password": "long enough", "__proto__": {"admin": true}}');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_JSON');
  });

  it('answers a body over 16 KiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await request(server())
      .post('/api/test-only/echo')
      .send({ email: 'a@example.com', password: 'x'.repeat(17 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ success: false, error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
  });

  it('accepts a body just under the limit', async () => {
    const res = await request(server())
      .post('/api/test-only/echo')
      .send({ email: 'a@example.com', password: 'x'.repeat(15 * 1024) });
    expect(res.status).toBe(201);
  });

  it('answers an unexpected error with 500 INTERNAL_ERROR, a request id and nothing internal', async () => {
    const res = await request(server()).get('/api/test-only/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'An unexpected error occurred.', request_id: expect.any(String) },
    });
    expect(res.headers['x-request-id']).toBe(res.body.error.request_id);
    const text = JSON.stringify(res.body);
    for (const leak of ['secret', '/srv/app', 'SELECT', 'thing.ts', 'at ', 'Error:']) expect(text).not.toContain(leak);
  });

  it('refuses unknown fields, listing them in details', async () => {
    const res = await request(server())
      .post('/api/test-only/echo')
      .send({ email: 'a@example.com', password: 'long enough', is_admin: true });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details).toEqual([{ field: 'is_admin', message: expect.stringContaining('is_admin') }]);
  });

  it('reports each broken rule with its field', async () => {
    const res = await request(server()).post('/api/test-only/echo').send({ email: 'not-an-email', password: 'short' });
    expect(res.status).toBe(400);
    const fields = res.body.error.details.map((detail: { field: string }) => detail.field).sort();
    expect(fields).toEqual(['email', 'password']);
  });

  it.each([
    ['an array', '[1, 2]'],
    ['a string', '"text"'],
    ['null', 'null'],
    ['a number', '42'],
  ])('refuses %s as the body with 400 VALIDATION_FAILED', async (_name, raw) => {
    const res = await request(server()).post('/api/test-only/echo').set('content-type', 'application/json').send(raw);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('keeps a well-formed client request id and replaces a hostile one', async () => {
    const kept = await request(server()).get('/health').set('x-request-id', 'client-req-12345');
    expect(kept.headers['x-request-id']).toBe('client-req-12345');
    const replaced = await request(server()).get('/health').set('x-request-id', 'evil\u00e9 value; drop');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends no X-Powered-By header', async () => {
    const res = await request(server()).get('/health');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('serves /health and /health/ready outside the /api prefix', async () => {
    const live = await request(server()).get('/health');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ success: true, data: { status: 'ok' } });
    const ready = await request(server()).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.data.info.database.status).toBe('up');
    expect((await request(server()).get('/api/health')).status).toBe(404);
  });
});
