import { TEST_JWT_SECRET } from './test-config.js';

// The configuration namespace reads the process environment once per worker even though test
// apps override it; give it a valid, quiet test environment.
process.env.APP_ENV = 'test';
process.env.JWT_SECRET = TEST_JWT_SECRET;
