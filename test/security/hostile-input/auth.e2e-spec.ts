import { describeHostileInput } from './support.js';

/** Hostile input on POST and GET /api/auth/*: see ./support.ts for what is sent and what must come back. */
describeHostileInput(['/api/auth'], ['bodies', 'tokens'], 1250);
