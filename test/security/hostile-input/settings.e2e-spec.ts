import { describeHostileInput } from './support.js';

/** Hostile input on /api/admin/settings: see ./support.ts for what is sent and what must come back. */
describeHostileInput(['/api/admin/settings'], ['bodies', 'tokens'], 150);
