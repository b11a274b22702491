import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/index.js';
import { EventsModule } from '../events/index.js';
import { IdentityModule } from '../identity/index.js';
import { MessagingModule } from '../infra/messaging/messaging.module.js';
import { RbacModule } from '../rbac/index.js';
import { SessionsModule } from '../sessions/index.js';
import { AdminOrganizationsController } from './admin-organizations.controller.js';
import { AccountInvitationsController } from './account-invitations.controller.js';
import { InvitationsRepository } from './invitations.repository.js';
import { InvitationsService } from './invitations.service.js';
import { MembersService } from './members.service.js';
import { MembershipsRepository } from './memberships.repository.js';
import { OrganizationAccess } from './organization-access.js';
import { OrganizationChanges } from './organization-changes.js';
import { OrganizationRolesRepository } from './organization-roles.repository.js';
import { OrganizationTemplateController } from './organization-template.controller.js';
import { OrganizationTemplateService } from './organization-template.service.js';
import { OrganizationTokenController } from './organization-token.controller.js';
import { OrganizationTokensService } from './organization-tokens.service.js';
import { OrganizationsController } from './organizations.controller.js';
import { OrganizationsRepository } from './organizations.repository.js';
import { OrganizationsService } from './organizations.service.js';

/** Organizations, their members and roles, invitations, the template of organization roles, organization tokens. */
@Module({
  imports: [IdentityModule, RbacModule, EventsModule, SessionsModule, AuditModule, MessagingModule],
  controllers: [
    OrganizationsController,
    AccountInvitationsController,
    OrganizationTemplateController,
    OrganizationTokenController,
    AdminOrganizationsController,
  ],
  providers: [
    OrganizationsRepository,
    MembershipsRepository,
    OrganizationRolesRepository,
    InvitationsRepository,
    OrganizationAccess,
    OrganizationChanges,
    OrganizationsService,
    MembersService,
    InvitationsService,
    OrganizationTemplateService,
    OrganizationTokensService,
  ],
  exports: [
    OrganizationTokensService,
    OrganizationsService,
    MembersService,
    OrganizationRolesRepository,
    OrganizationsRepository,
  ],
})
export class OrganizationsModule {}
