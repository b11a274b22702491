import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { Public } from '@auth-rbac/nest-guard';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { AuthenticationResponseDto } from '../common/webauthn-json.dto.js';
import { IssuesSession } from '../sessions/index.js';
import { PasskeyOptionsDto } from './auth.dto.js';
import { PasskeySignInService } from './passkey-sign-in.service.js';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute, ref } from '../common/route-doc.js';

/** Sign-in with a passkey: options, then the authenticator's assertion. Rate limited like every `/api/auth` route. */
@Public()
@Controller('auth/passkey')
export class PasskeySignInController {
  constructor(private readonly signIn: PasskeySignInService) {}

  @Post('options')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: 'Start a passkey sign-in: the WebAuthn request options',
    data: ref('PasskeyRequestOptions'),
  })
  options(@Body() dto: PasskeyOptionsDto) {
    return this.signIn.options(dto.email);
  }

  @Post('verify')
  @HttpCode(HttpStatus.OK)
  @IssuesSession()
  @DocumentRoute({
    summary: 'Sign in with the answer of a passkey',
    data: ref('TokenPair'),
    statuses: {
      401: 'INVALID_CREDENTIALS, one body for every failure: unknown credential, used or expired challenge, wrong origin or RP ID, bad signature, counter going backwards, no user verification.',
    },
  })
  verify(@Body() dto: AuthenticationResponseDto, @Client() client: ClientInfo) {
    return this.signIn.verify(dto as AuthenticationResponseJSON, client);
  }
}
