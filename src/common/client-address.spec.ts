import { clientAddressKey } from './client-address.js';

describe('clientAddressKey', () => {
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    [' 1.2.3.4 ', '1.2.3.4'],
    ['1.2.3.4:5678', '1.2.3.4'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:1.2.3.4', '1.2.3.4'],
    ['::ffff:102:304', '1.2.3.4'],
    ['0:0:0:0:0:ffff:1.2.3.4', '1.2.3.4'],
    ['[::ffff:1.2.3.4]:443', '1.2.3.4'],
    ['2001:db8:1:2::a', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:0000:0000:0000:000b', '2001:db8:1:2::/64'],
    ['[2001:db8:1:2::c]', '2001:db8:1:2::/64'],
    ['[2001:db8:1:2::c]:8080', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
    ['::1', '::/64'],
    ['not-an-address', 'not-an-address'],
    ['  Unknown ', 'unknown'],
  ])('counts %j as %j', (address, key) => {
    expect(clientAddressKey(address)).toBe(key);
  });

  it('keeps two /64 networks apart, and IPv4 addresses apart', () => {
    expect(clientAddressKey('2001:db8:1:2::1')).not.toBe(clientAddressKey('2001:db8:1:3::1'));
    expect(clientAddressKey('1.2.3.4')).not.toBe(clientAddressKey('1.2.3.5'));
  });

  it('has no key without an address', () => {
    expect(clientAddressKey(undefined)).toBeUndefined();
    expect(clientAddressKey(null)).toBeUndefined();
  });
});
