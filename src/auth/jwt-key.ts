import { Injectable } from '@nestjs/common';
import { createSecretKey, type KeyObject } from 'node:crypto';
import { AppConfig } from '../config/app-config.js';

/**
 * JWT_SECRET's UTF-8 bytes as a KeyObject: any HS256 library given the same string verifies our
 * tokens, and jsonwebtoken signs and verifies far faster with a KeyObject than with a string.
 */
@Injectable()
export class JwtKey {
  readonly key: KeyObject;

  constructor(config: AppConfig) {
    this.key = createSecretKey(Buffer.from(config.jwt.secret, 'utf8'));
  }
}
