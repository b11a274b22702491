// A Nest service guarded the usual way, with nothing of the auth service's code: @nestjs/passport
// with passport-jwt, its keys from the auth service's JWKS through jwks-rsa. Written without
// TypeScript so that it runs as installed. AUTH_URL is where the JWKS is fetched, ISSUER the
// auth service's ISSUER.
require('reflect-metadata');
const { Controller, Get, Injectable, Module, Req, UseGuards } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { AuthGuard, PassportModule, PassportStrategy } = require('@nestjs/passport');
const { ExtractJwt, Strategy } = require('passport-jwt');
const { passportJwtSecret } = require('jwks-rsa');

const keys = () =>
  passportJwtSecret({
    jwksUri: `${process.env.AUTH_URL}/.well-known/jwks.json`,
    cache: true,
    rateLimit: true,
  });

// The recommended set-up: the JWKS, ES256 only, and the issuer and audience checked.
class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor() {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKeyProvider: keys(),
      algorithms: ['ES256'],
      issuer: process.env.ISSUER,
      audience: process.env.ISSUER,
    });
  }
  validate(payload) {
    return { id: payload.sub, permissions: payload.permissions ?? null, token_type: payload.token_type };
  }
}
Injectable()(JwtStrategy);

// The careless set-up: the JWKS and nothing else checked. Refresh and temp tokens must still fail.
class LaxJwtStrategy extends PassportStrategy(Strategy, 'lax-jwt') {
  constructor() {
    super({ jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), secretOrKeyProvider: keys() });
  }
  validate(payload) {
    return { id: payload.sub, token_type: payload.token_type };
  }
}
Injectable()(LaxJwtStrategy);

class ReportsController {
  whoami(request) {
    return request.user;
  }
  lax(request) {
    return request.user;
  }
}
const method = (name) => Object.getOwnPropertyDescriptor(ReportsController.prototype, name);
Reflect.decorate([Get('whoami'), UseGuards(AuthGuard('jwt'))], ReportsController.prototype, 'whoami', method('whoami'));
Reflect.decorate([Get('lax'), UseGuards(AuthGuard('lax-jwt'))], ReportsController.prototype, 'lax', method('lax'));
Req()(ReportsController.prototype, 'whoami', 0);
Req()(ReportsController.prototype, 'lax', 0);
Controller()(ReportsController);

class AppModule {}
Module({ imports: [PassportModule], controllers: [ReportsController], providers: [JwtStrategy, LaxJwtStrategy] })(
  AppModule,
);

async function main() {
  const app = await NestFactory.create(AppModule, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  console.log(`Listening on ${(await app.getUrl()).replace('[::1]', '127.0.0.1')}`);
}
void main();
