import { maskMobile } from './mask-mobile.js';

describe('maskMobile', () => {
  it.each([
    ['+447700900123', '+44********23'],
    ['0612345678', '06******78'],
    ['12345678', '12****78'],
    ['+123456789012345', '+12***********45'],
  ])('masks %s as %s', (mobile, masked) => {
    expect(maskMobile(mobile)).toBe(masked);
  });

  it('keeps nothing of a number too short to mask partly', () => {
    expect(maskMobile('1234')).toBe('****');
  });
});
