import { describeHostileInput } from './support.js';

/** Hostile input on /api/admin/users: see ./support.ts for what is sent and what must come back. */
describeHostileInput(['/api/admin/users'], ['bodies', 'tokens', 'paths', 'queries'], 1000);
