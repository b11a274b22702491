import { Body, Controller, Get, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { CurrentUser, type AuthUser } from '@auth-rbac/nest-guard';
import { DocumentRoute, list, ref } from '../common/route-doc.js';
import { InvitationsService } from './invitations.service.js';
import { AcceptInvitationDto } from './organizations.dto.js';

/** The invited person's side: the invitations to their verified address, and accepting one. */
@Controller('account/invitations')
export class AccountInvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Get()
  @DocumentRoute({
    summary: "Pending invitations to the caller's verified email",
    data: list(ref('ReceivedInvitation')),
  })
  list(@CurrentUser() user: AuthUser) {
    return this.invitations.received(user);
  }

  @Post('accept')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: "Join an organization with an invitation sent to the caller's verified email",
    data: ref('AcceptedInvitation'),
    statuses: {
      400: 'CONFIRMATION_TOKEN_INVALID: the invitation is unknown, expired or used.',
      403: 'EMAIL_NOT_VERIFIED: the address is not verified yet; FORBIDDEN: the invitation is to another address.',
      409: 'CONFLICT: already a member.',
    },
  })
  accept(@CurrentUser() user: AuthUser, @Body() dto: AcceptInvitationDto) {
    return this.invitations.accept(user, dto.token);
  }
}
