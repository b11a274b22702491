import { describeHostileInput } from './support.js';

/** Hostile input on /api/admin/roles and /api/admin/permissions: see ./support.ts for what is sent and what must come back. */
describeHostileInput(['/api/admin/roles', '/api/admin/permissions'], ['bodies', 'tokens', 'paths'], 1200);
