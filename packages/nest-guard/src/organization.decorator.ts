import { SetMetadata } from '@nestjs/common';

export const ORGANIZATION_PARAM_KEY = 'rbac:organizationParam';

/**
 * The route works inside the organization its path parameter `name` names (`/orgs/:orgId/...`):
 * only an organization token of that organization passes. Another organization's token is 403
 * `ORGANIZATION_MISMATCH`, an ordinary token 403 `ORGANIZATION_REQUIRED`; then
 * `@RequirePermissions` judges the caller's permissions in that organization.
 */
export const OrganizationParam = (name: string) => SetMetadata<string, string>(ORGANIZATION_PARAM_KEY, name);
