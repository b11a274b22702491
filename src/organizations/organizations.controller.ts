import { Body, Controller, Delete, Get, Patch, Post, Put, Query } from '@nestjs/common';
import { CurrentUser, RequireFreshAuth, type AuthUser } from '@auth-rbac/nest-guard';
import { PageQuery } from '../common/pagination.dto.js';
import { DocumentRoute, empty, list, page, ref } from '../common/route-doc.js';
import { UuidParam } from '../common/uuid-param.js';
import { InvitationsService } from './invitations.service.js';
import { MembersService } from './members.service.js';
import {
  AddMemberDto,
  CreateOrganizationDto,
  InviteDto,
  MemberRolesDto,
  UpdateOrganizationDto,
} from './organizations.dto.js';
import { OrganizationsService } from './organizations.service.js';

const NOT_A_MEMBER = 'NOT_FOUND: no such organization, or the caller is not a member of it.';
const REFUSED =
  "FORBIDDEN: a permission in the organization is missing; ORGANIZATION_MISMATCH: another organization's token.";

/**
 * Organizations for their members: each route judges the caller's permissions in the organization
 * its path names (OrganizationAccess), with an ordinary access token or that organization's token.
 */
@Controller('organizations')
export class OrganizationsController {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly members: MembersService,
    private readonly invitations: InvitationsService,
  ) {}

  @Post()
  @DocumentRoute({
    summary: 'Create an organization; the caller becomes its owner',
    data: ref('Organization'),
    statuses: {
      403: 'FORBIDDEN: self-service is off and the caller lacks organizations.create.',
      409: 'CONFLICT: the slug is taken.',
    },
  })
  create(@CurrentUser() user: AuthUser, @Body() dto: CreateOrganizationDto) {
    return this.organizations.create(user, dto);
  }

  @Get()
  @DocumentRoute({
    summary: "The caller's organizations, with the caller's roles in each",
    data: list(ref('MyOrganization')),
  })
  list(@CurrentUser() user: AuthUser) {
    return this.organizations.listMine(user);
  }

  @Get(':id')
  @DocumentRoute({
    summary: 'One organization (organization.view)',
    data: ref('Organization'),
    statuses: { 403: REFUSED, 404: NOT_A_MEMBER },
  })
  get(@CurrentUser() user: AuthUser, @UuidParam() id: string) {
    return this.organizations.get(user, id);
  }

  @Patch(':id')
  @DocumentRoute({
    summary: 'Rename an organization or change its slug (organization.edit)',
    data: ref('Organization'),
    statuses: { 403: REFUSED, 404: NOT_A_MEMBER, 409: 'CONFLICT: the slug is taken.' },
  })
  update(@CurrentUser() user: AuthUser, @UuidParam() id: string, @Body() dto: UpdateOrganizationDto) {
    return this.organizations.update(user, id, dto);
  }

  @Delete(':id')
  @RequireFreshAuth()
  @DocumentRoute({
    summary: 'Delete an organization (organization.delete, fresh sign-in)',
    data: empty,
    statuses: { 403: REFUSED, 404: NOT_A_MEMBER },
  })
  delete(@CurrentUser() user: AuthUser, @UuidParam() id: string) {
    return this.organizations.delete(user, id);
  }

  @Get(':id/members')
  @DocumentRoute({
    summary: 'The members and their roles (members.view)',
    data: page(ref('OrganizationMember')),
    statuses: { 403: REFUSED, 404: NOT_A_MEMBER },
  })
  listMembers(@CurrentUser() user: AuthUser, @UuidParam() id: string, @Query() query: PageQuery) {
    return this.members.list(user, id, query);
  }

  @Post(':id/members')
  @DocumentRoute({
    summary: 'Add a person directly (instance administrators with organizations.edit)',
    data: ref('MemberRoles'),
    statuses: {
      403: REFUSED,
      404: NOT_A_MEMBER,
      409: 'CONFLICT: already a member.',
    },
  })
  addMember(@CurrentUser() user: AuthUser, @UuidParam() id: string, @Body() dto: AddMemberDto) {
    return this.members.add(user, id, dto.user_id, dto.role_ids);
  }

  @Put(':id/members/:user_id/roles')
  @DocumentRoute({
    summary: "Replace a member's organization roles (members.edit, within the caller's own permissions)",
    data: ref('MemberRoles'),
    statuses: {
      403: REFUSED,
      404: NOT_A_MEMBER,
      409: 'CONFLICT: the last owner would lose owner.',
    },
  })
  setRoles(
    @CurrentUser() user: AuthUser,
    @UuidParam() id: string,
    @UuidParam('user_id') userId: string,
    @Body() dto: MemberRolesDto,
  ) {
    return this.members.setRoles(user, id, userId, dto.role_ids);
  }

  @Delete(':id/members/:user_id')
  @DocumentRoute({
    summary: 'Remove a member (members.remove), or leave (oneself)',
    data: empty,
    statuses: { 403: REFUSED, 404: NOT_A_MEMBER, 409: 'CONFLICT: the last owner cannot leave or be removed.' },
  })
  removeMember(@CurrentUser() user: AuthUser, @UuidParam() id: string, @UuidParam('user_id') userId: string) {
    return this.members.remove(user, id, userId);
  }

  @Post(':id/invitations')
  @DocumentRoute({
    summary: 'Invite an address with organization roles (members.invite); mails a single-use link',
    data: ref('Invitation'),
    statuses: { 403: REFUSED, 404: NOT_A_MEMBER },
  })
  invite(@CurrentUser() user: AuthUser, @UuidParam() id: string, @Body() dto: InviteDto) {
    return this.invitations.invite(user, id, dto.email, dto.role_ids);
  }

  @Get(':id/invitations')
  @DocumentRoute({
    summary: 'Pending invitations (members.invite)',
    data: list(ref('Invitation')),
    statuses: { 403: REFUSED, 404: NOT_A_MEMBER },
  })
  listInvitations(@CurrentUser() user: AuthUser, @UuidParam() id: string) {
    return this.invitations.pending(user, id);
  }

  @Delete(':id/invitations/:invitation_id')
  @DocumentRoute({
    summary: 'Withdraw a pending invitation (members.invite)',
    data: empty,
    statuses: { 403: REFUSED, 404: NOT_A_MEMBER },
  })
  withdraw(@CurrentUser() user: AuthUser, @UuidParam() id: string, @UuidParam('invitation_id') invitationId: string) {
    return this.invitations.withdraw(user, id, invitationId);
  }
}
