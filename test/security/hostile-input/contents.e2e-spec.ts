import { describeHostileInput } from './support.js';

/** Hostile input on /api/contents: see ./support.ts for what is sent and what must come back. */
describeHostileInput(['/api/contents'], ['bodies', 'tokens', 'paths', 'queries'], 500);
