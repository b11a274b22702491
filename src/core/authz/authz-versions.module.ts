import { Module } from '@nestjs/common';
import { AuthzVersions } from './authz-versions.js';

/** Publishing changes of who may do what, so every instance's caches of callers drop them. */
@Module({ providers: [AuthzVersions], exports: [AuthzVersions] })
export class AuthzVersionsModule {}
