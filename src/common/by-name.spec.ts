import { byName } from './by-name.js';

describe('byName', () => {
  const names = (...list: string[]) => list.map((name) => ({ name }));

  it('orders by code unit, whatever the host locale: capitals before small letters, "-" before "_"', () => {
    expect(
      names('beta', 'Zeta', 'alpha', 'a_b', 'a-b')
        .sort(byName)
        .map((role) => role.name),
    ).toEqual(['Zeta', 'a-b', 'a_b', 'alpha', 'beta']);
  });

  it('orders as the audit events list the same names (Array.prototype.sort)', () => {
    const list = ['été', 'ete', 'Ète', 'e', 'éa', 'billing.admin', 'billing_admin'];
    expect(
      names(...list)
        .sort(byName)
        .map((role) => role.name),
    ).toEqual([...list].sort());
  });

  it('answers 0 for the same name', () => {
    expect(byName({ name: 'owner' }, { name: 'owner' })).toBe(0);
  });
});
