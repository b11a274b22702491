import { Module } from '@nestjs/common';
import { PasswordHasher } from './password-hasher.js';

@Module({ providers: [PasswordHasher], exports: [PasswordHasher] })
export class PasswordModule {}
