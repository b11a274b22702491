export { OrganizationsModule } from './organizations.module.js';
export { OrganizationTokensService, type OrganizationSummary } from './organization-tokens.service.js';
export { OrganizationsService } from './organizations.service.js';
export { MembersService } from './members.service.js';
export { OrganizationRolesRepository } from './organization-roles.repository.js';
export { OrganizationsRepository } from './organizations.repository.js';
