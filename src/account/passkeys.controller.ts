import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Patch, Post } from '@nestjs/common';
import { CurrentUser, RequireFreshAuth, type AuthUser } from '@auth-rbac/nest-guard';
import { AllowedBeforeEnrolment } from '../common/before-enrolment.decorator.js';
import { EmptyBodyPipe } from '../common/empty-body.pipe.js';
import { UuidParam } from '../common/uuid-param.js';
import { RegisterPasskeyDto, RenamePasskeyDto } from './account.dto.js';
import { PasskeyEnrolmentService } from './passkey-enrolment.service.js';
import { Client, type ClientInfo } from '../common/client-info.js';

/** The holder's passkeys (WebAuthn), and the options of a re-authentication with one. */
@Controller('account')
export class PasskeysController {
  constructor(private readonly passkeys: PasskeyEnrolmentService) {}

  @Post('passkeys/options')
  @RequireFreshAuth()
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  creationOptions(@CurrentUser() user: AuthUser, @Body(EmptyBodyPipe) _body: Record<string, never>) {
    return this.passkeys.creationOptions(user);
  }

  @Post('passkeys')
  @RequireFreshAuth()
  @AllowedBeforeEnrolment()
  register(@CurrentUser() user: AuthUser, @Body() dto: RegisterPasskeyDto, @Client() client: ClientInfo) {
    return this.passkeys.register(user, dto, client);
  }

  @Get('passkeys')
  @AllowedBeforeEnrolment()
  list(@CurrentUser() user: AuthUser) {
    return this.passkeys.list(user);
  }

  @Patch('passkeys/:id')
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
  remove(@CurrentUser() user: AuthUser, @UuidParam() id: string, @Client() client: ClientInfo) {
    return this.passkeys.remove(user, id, client);
  }

  @Post('reauthenticate/options')
  @AllowedBeforeEnrolment()
  @HttpCode(HttpStatus.OK)
  reauthenticationOptions(@CurrentUser() user: AuthUser, @Body(EmptyBodyPipe) _body: Record<string, never>) {
    return this.passkeys.reauthenticationOptions(user);
  }
}
