import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { CurrentUser, type AuthUser } from '@auth-rbac/nest-guard';
import { DocumentRoute, ref } from '../common/route-doc.js';
import { OrganizationTokenDto } from './organizations.dto.js';
import { OrganizationTokensService } from './organization-tokens.service.js';

@Controller('auth')
export class OrganizationTokenController {
  constructor(private readonly tokens: OrganizationTokensService) {}

  @Post('organization-token')
  @HttpCode(HttpStatus.OK)
  @DocumentRoute({
    summary: "An access token of the caller's session for one of their organizations (claim org_id)",
    data: ref('OrganizationToken'),
    statuses: { 404: 'NOT_FOUND: no such organization, or the caller is not a member of it.' },
  })
  issue(@CurrentUser() user: AuthUser, @Body() dto: OrganizationTokenDto) {
    return this.tokens.issue(user, dto.organization_id);
  }
}
