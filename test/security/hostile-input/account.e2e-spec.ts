import { describeHostileInput } from './support.js';

/** Hostile input on /api/account: see ./support.ts for what is sent and what must come back. */
describeHostileInput(['/api/account'], ['tokens', 'paths'], 270);
