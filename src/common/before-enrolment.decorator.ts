import { SetMetadata } from '@nestjs/common';

export const ALLOWED_BEFORE_ENROLMENT_KEY = 'auth:allowedBeforeEnrolment';

/**
 * Marks a route a privileged account may reach before it has a second factor, when
 * REQUIRE_2FA_FOR_PRIVILEGED is on: its own profile, the enrolment endpoints and logout.
 */
export const AllowedBeforeEnrolment = () => SetMetadata(ALLOWED_BEFORE_ENROLMENT_KEY, true);
