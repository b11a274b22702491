import { useHostileInput } from './support.js';

/** Hostile input on /api/admin/settings: see ./support.ts for what is sent and what must come back. */
describe('hostile input on /api/admin/settings', () => {
  const suite = useHostileInput(['/api/admin/settings']);

  it('refuses hostile bodies on every endpoint that takes one, or stores legitimate text verbatim', async () => {
    expect(suite.report(await suite.run(suite.bodyProbes()))).toBe('');
  }, 600_000);

  it('refuses forged, malformed and misplaced tokens on every guarded route', async () => {
    expect(suite.report(await suite.run(suite.tokenProbes()))).toBe('');
  }, 300_000);

  suite.checksAfterwards(150);
});
