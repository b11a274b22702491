import { SetMetadata } from '@nestjs/common';

export const ADMIN_LIST_KEY = 'limits:adminList';

/**
 * Marks an admin list route: one caller may have at most ADMIN_LIST_CONCURRENCY of them in
 * flight (AdminListConcurrencyGuard), so a flood of pages and searches cannot take every
 * pooled connection from sign-ins and other callers.
 */
export const AdminList = () => SetMetadata(ADMIN_LIST_KEY, true);
