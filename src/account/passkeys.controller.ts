import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Patch, Post } from '@nestjs/common';
import { CurrentUser, RequireFreshAuth, type AuthUser } from '@auth-rbac/nest-guard';
import { AllowedBeforeEnrolment } from '../common/before-enrolment.decorator.js';
import { TakesNoBody } from '../common/empty-body.pipe.js';
import { UuidParam } from '../common/uuid-param.js';
import { RegisterPasskeyDto, RenamePasskeyDto } from './account.dto.js';
import { PasskeyEnrolmentService } from './passkey-enrolment.service.js';
import { Client, type ClientInfo } from '../common/client-info.js';
import { DocumentRoute, ref, list, empty } from '../common/route-doc.js';

/** The holder's passkeys (WebAuthn), and the options of a re-authentication with one. */
@Controller('account')
export class PasskeysController {
  constructor(private readonly passkeys: PasskeyEnrolmentService) {}

  @Post('passkeys/options')
  @RequireFreshAuth()
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  @TakesNoBody()
  @DocumentRoute({
    summary: 'Start adding a passkey: the WebAuthn creation options',
    data: ref('PasskeyCreationOptions'),
  })
  creationOptions(@CurrentUser() user: AuthUser) {
    return this.passkeys.creationOptions(user);
  }

  @Post('passkeys')
  @RequireFreshAuth()
  @AllowedBeforeEnrolment()
  @DocumentRoute({
    summary: 'Add a passkey with the answer of the authenticator',
    data: ref('Passkey'),
    statuses: {
      400: 'VALIDATION_FAILED: the answer does not verify (origin, RP ID, challenge used, expired or of another account).',
      409: 'CONFLICT: the passkey is already registered, or the account holds 25.',
    },
  })
  register(@CurrentUser() user: AuthUser, @Body() dto: RegisterPasskeyDto, @Client() client: ClientInfo) {
    return this.passkeys.register(user, dto, client);
  }

  @Get('passkeys')
  @AllowedBeforeEnrolment()
  @DocumentRoute({ summary: 'Your own passkeys', data: list(ref('Passkey')) })
  list(@CurrentUser() user: AuthUser) {
    return this.passkeys.list(user);
  }

  @Patch('passkeys/:id')
  @DocumentRoute({
    summary: 'Rename one of your passkeys',
    data: ref('Passkey'),
    statuses: { 404: 'NOT_FOUND: no such passkey of the caller.' },
  })
  rename(
    @CurrentUser() user: AuthUser,
    @UuidParam() id: string,
    @Body() dto: RenamePasskeyDto,
    @Client() client: ClientInfo,
  ) {
    return this.passkeys.rename(user, id, dto.name, client);
  }

  /** Needs a fresh proof that held a passkey or two factors (`amr` with `hwk` or `mfa`). */
  @Delete('passkeys/:id')
  @RequireFreshAuth()
  @DocumentRoute({
    summary: 'Remove one of your passkeys',
    data: empty,
    statuses: {
      403: "REAUTHENTICATION_REQUIRED: the session's last proof held neither a passkey nor two factors (amr hwk or mfa), or is older than REAUTH_MAX_AGE.",
      404: 'NOT_FOUND: no such passkey of the caller.',
    },
  })
  remove(@CurrentUser() user: AuthUser, @UuidParam() id: string, @Client() client: ClientInfo) {
    return this.passkeys.remove(user, id, client);
  }

  @Post('reauthenticate/options')
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  @TakesNoBody()
  @DocumentRoute({
    summary: 'Start proving presence with a passkey: the WebAuthn request options',
    data: ref('PasskeyRequestOptions'),
  })
  reauthenticationOptions(@CurrentUser() user: AuthUser) {
    return this.passkeys.reauthenticationOptions(user);
  }
}
