import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'auth:isPublic';

/** Opts a route out of the global authentication guard, which otherwise denies by default. */
export const Public = () => SetMetadata(IS_PUBLIC_KEY, true);
