import { useHostileInput } from './support.js';

/** Hostile input on /api/contents: see ./support.ts for what is sent and what must come back. */
describe('hostile input on /api/contents', () => {
  const suite = useHostileInput(['/api/contents']);

  it('refuses hostile bodies on every endpoint that takes one, or stores legitimate text verbatim', async () => {
    expect(suite.report(await suite.run(suite.bodyProbes()))).toBe('');
  }, 600_000);

  it('refuses forged, malformed and misplaced tokens on every guarded route', async () => {
    expect(suite.report(await suite.run(suite.tokenProbes()))).toBe('');
  }, 300_000);

  it('refuses malformed ids with 400 and unknown ids with 404 on every path that takes one', async () => {
    expect(suite.report(await suite.run(suite.pathProbes()))).toBe('');
  }, 300_000);

  it('refuses hostile query strings on the paginated lists, and searches for text literally', async () => {
    expect(suite.report(await suite.run(suite.queryProbes()))).toBe('');
  }, 120_000);

  suite.checksAfterwards(500);
});
