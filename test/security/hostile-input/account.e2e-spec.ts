import { useHostileInput } from './support.js';

/** Hostile input on /api/account: see ./support.ts for what is sent and what must come back. */
describe('hostile input on /api/account', () => {
  const suite = useHostileInput(['/api/account']);

  it('refuses forged, malformed and misplaced tokens on every guarded route', async () => {
    expect(suite.report(await suite.run(suite.tokenProbes()))).toBe('');
  }, 300_000);

  it('refuses malformed ids with 400 and unknown ids with 404 on every path that takes one', async () => {
    expect(suite.report(await suite.run(suite.pathProbes()))).toBe('');
  }, 300_000);

  suite.checksAfterwards(270);
});
